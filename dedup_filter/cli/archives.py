"""Pages out of web archives: the response records of a WARC file (``.warc`` or ``.warc.gz``).

Read with warcio (the ``warc`` extra), which undoes chunked transfer coding and content coding, so
a body reaches the filter as a crawler would have handed it over. Only HTML and plain-text answers
with a 2xx status are pages (as the Scrapy middleware judges them); requests, metadata, revisits,
redirects and images are passed over, as a crawler's filter never sees them. A record that cannot
be read ends its file with a ``BadInput``.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dedup_filter.errors import DedupError

from .items import BadInput, Item, PageInput

_DOCUMENT_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
_CHUNK_BYTES = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
# a gzip stream that ends early or is corrupt: gzip, zlib and EOFError each report one kind
GZIP_ERRORS = (OSError, EOFError, zlib.error)


class WarcUnavailable(DedupError):
    """warcio (the ``warc`` extra) is not installed."""

    def __init__(self) -> None:
        super().__init__("reading WARC files needs warcio: pip install 'dedup-filter[warc]'")


def warc_pages(file: Path) -> Iterator[Item]:
    """The HTML and plain-text responses of a WARC file, in record order, then what stopped the
    reading, if any.

    Raises:
        WarcUnavailable: warcio is not installed (raised before anything is read).
    """
    try:
        from warcio.archiveiterator import ArchiveIterator
    except ImportError as error:
        raise WarcUnavailable from error
    with file.open("rb") as handle:
        compressed = handle.read(2) == GZIP_MAGIC
        handle.seek(0)
        records = ArchiveIterator(handle)
        try:
            for record in records:
                page = _page(record)
                if page is None:
                    continue
                origin = f"{file}@{records.get_record_offset()}"  # known once the record is read
                if record.raw_stream.limit:  # fewer bytes than its header announced
                    yield BadInput(origin, "the record is cut short")
                else:
                    yield PageInput(*page, origin)
        except Exception as error:  # warcio, gzip and zlib each fail their own way on a bad file
            problem = f"cannot read the rest of the WARC file: {type(error).__name__}: {error}"
            yield BadInput(str(file), problem)
            return
    if compressed and _gzip_ends_early(file):  # warcio passes over a cut last member in silence
        yield BadInput(str(file), "the gzip stream ends early: its last records are lost")


def _gzip_ends_early(file: Path) -> bool:
    try:
        with gzip.open(file, "rb") as stream:
            while stream.read(_CHUNK_BYTES):
                pass
    except GZIP_ERRORS:
        return True
    return False


def _page(record: Any) -> tuple[str, bytes, dict[str, str]] | None:
    """URL, body and Content-Type of an HTML or plain-text answer with a 2xx status (None: not a
    page)."""
    if record.rec_type != "response" or record.http_headers is None:
        return None
    status = record.http_headers.get_statuscode()
    content_type = record.http_headers.get_header("Content-Type") or ""
    if not status.startswith("2") or not content_type.lower().startswith(_DOCUMENT_TYPES):
        return None
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    body = record.content_stream().read()
    return url.strip("<>"), body, {"Content-Type": content_type}
