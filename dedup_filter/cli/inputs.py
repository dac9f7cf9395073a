"""Pages for ``dedup-filter check``: HTML files, JSON lines, WARC archives, read defensively.

A file's type comes from its name (``.html``, ``.jsonl``, ``.jsonl.gz``, ``.warc``, ``.warc.gz``
...) or, for another name, from its first bytes; a file of no known type is refused rather than
read as a page. Every problem with one file, line or record becomes a ``BadInput`` naming where it
is and what is wrong, so one broken record never stops the rest of the run.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

from dedup_filter.page_documents import Invalid, json_object, page_fields

from .archives import GZIP_ERRORS, GZIP_MAGIC, warc_pages
from .items import BadInput, Item, PageInput

HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".shtml"})
JSON_LINES_SUFFIXES = frozenset({".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz"})
WARC_SUFFIXES = frozenset({".warc", ".warc.gz"})
_SNIFF_BYTES = 512
_UNKNOWN_TYPE = (
    "unknown file type: give HTML (.html, .htm, .xhtml, .shtml), JSON lines (.jsonl, .ndjson, "
    "optionally .gz) or WARC (.warc, .warc.gz)"
)


def read_source(source: str, stdin: BinaryIO, base_url: str | None = None) -> Iterator[Item]:
    """Pages from ``-`` (JSON lines on stdin), one file, or every page file under a directory."""
    if source == "-":
        yield from json_lines(stdin, "<stdin>")
        return
    path = Path(source)
    if path.is_dir():
        for file in _page_files(path):
            yield from _read_file(file, _url_for(file, path, base_url))
    else:
        yield from _read_file(path, _url_for(path, path.parent, base_url))


def _page_files(root: Path) -> Iterator[Path]:
    """Page files (by name) under ``root``, directory by directory in name order.

    Symbolic links to directories are not followed, so a link loop cannot trap the walk.
    """
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            if _type_by_name(name) is not None:
                yield Path(directory, name)


def _url_for(file: Path, root: Path, base_url: str | None) -> str:
    if base_url is None:
        return file.resolve().as_uri()
    relative = file.relative_to(root).as_posix()
    return f"{base_url.rstrip('/')}/{quote(relative)}"


def _read_file(file: Path, url: str) -> Iterator[Item]:
    try:
        kind = _type_by_name(file.name) or _type_by_content(file)
        if kind is None:
            yield BadInput(str(file), _UNKNOWN_TYPE)
        elif kind == "html":
            yield PageInput(url, file.read_bytes(), None, str(file))
        else:
            yield from _READERS[kind](file)
    except OSError as error:
        yield BadInput(str(file), f"cannot read: {error.strerror or error}")


def _type_by_name(name: str) -> str | None:
    lowered = name.lower()
    for kind, suffixes in (("warc", WARC_SUFFIXES), ("jsonl", JSON_LINES_SUFFIXES)):
        if lowered.endswith(tuple(suffixes)):
            return kind
    return "html" if Path(lowered).suffix in HTML_SUFFIXES else None


def _type_by_content(file: Path) -> str | None:
    """What the first bytes say: WARC, JSON lines, HTML, or (None) none of them."""
    with file.open("rb") as handle:
        start = handle.read(_SNIFF_BYTES)
    if start.startswith(GZIP_MAGIC):
        try:
            with gzip.open(file, "rb") as unzipped:
                start = unzipped.read(_SNIFF_BYTES)
        except GZIP_ERRORS:
            return None
        kind = _text_type(start)
        return kind if kind != "html" else None  # a gzip-compressed page is no page file
    return _text_type(start)


def _text_type(start: bytes) -> str | None:
    text = start.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"WARC/"):
        return "warc"
    if text.startswith(b"{"):
        return "jsonl"
    return "html" if text.startswith(b"<") or not text else None


def _json_lines_file(file: Path) -> Iterator[Item]:
    with file.open("rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
    if not compressed:
        with file.open("rb") as handle:
            yield from json_lines(handle, str(file))
        return
    with gzip.open(file, "rb") as handle:
        try:
            yield from json_lines(handle, str(file))
        except GZIP_ERRORS as error:
            yield BadInput(str(file), f"cannot read the rest of the gzip stream: {error}")


_READERS: dict[str, Callable[[Path], Iterator[Item]]] = {
    "jsonl": _json_lines_file,
    "warc": warc_pages,
}


def json_lines(lines: Iterable[bytes], name: str) -> Iterator[Item]:
    """One page per non-blank line: ``url`` and ``body`` or ``body_b64``, maybe ``headers``."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield page_from_json(line, f"{name}:{number}")


def page_from_json(line: bytes, origin: str) -> Item:
    """One JSON line as a page (a ``page_documents`` document), or what is wrong with it."""
    document = json_object(line)
    fields = document if isinstance(document, Invalid) else page_fields(document)
    if isinstance(fields, Invalid):
        return BadInput(origin, fields.problem)
    return PageInput(fields.url, fields.body, fields.headers, origin)
