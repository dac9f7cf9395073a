"""The wire formats: page and URL messages in, verdicts, probes and dead letters out.

Page message, schema 1 (a JSON object, UTF-8; unknown keys are ignored, so producers may add some)::

    {"schema": 1,                        optional; when present it must be 1
     "url": "https://a.example/x.html",  required: absolute URL with a scheme and a host
     "status": 200,                      optional HTTP status; outside 2xx: a failed fetch
     "headers": {"Content-Type": "..."}, optional response headers (strings, numbers, lists)
     "content_type": "text/html; ...",   optional, used when headers carry no Content-Type
     "body": "<html>...",                the body as text, or
     "body_b64": "PGh0bWw+...",          its bytes in base64 (exactly one; none for a failed fetch)
     "fetched_at": "2024-05-01T12:00:00Z"}  optional, string or number (copied into the verdict)

Tolerant mode also takes a raw HTML value (anything that does not start with ``{``) whose URL is
the record key or a ``url`` record header. Parsing never raises: a bad message is a ``Malformed``
value naming the problem, and the processor turns it into a dead letter. The fields the command
line reads too (url, body, body_b64, headers) are read by ``dedup_filter.page_documents``, so
both say the same of the same document.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from dedup_filter import Decision
from dedup_filter.page_documents import Invalid, json_object, json_type, page_fields, url_field

SCHEMA_VERSION = 1
Headers = list[tuple[str, bytes]]
# what an input record's key and headers may hold: its outputs (a forwarded page or URL, a dead
# letter) carry them beside a value of up to max_message_bytes, and the producer allows 64 KiB
# more than that for the key, the headers (the processor's own among them) and the framing
MAX_ENVELOPE_BYTES = 32 * 1024
_URL_HEADER = "url"
_MAX_URL_CHARS = 8192
_LENGTH = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class PageMessage:
    """A fetched page, ready for ``DedupFilter.check_pages``."""

    url: str
    body: bytes
    headers: dict[str, str] | None
    status: int | None = None
    fetched_at: str | float | None = None

    @property
    def fetched(self) -> bool:
        """False for a fetch that failed (a status outside 2xx): the page is not checked."""
        return self.status is None or 200 <= self.status < 300

    @property
    def location(self) -> str | None:
        """Where a redirect sent the fetcher, if its headers say (``Location``, any case)."""
        headers = self.headers or {}
        found = next((value for name, value in headers.items() if name.lower() == "location"), "")
        return found if isinstance(found, str) and found else None


@dataclass(frozen=True, slots=True)
class Malformed:
    """Why a message could not be used."""

    error: str


@dataclass(frozen=True, slots=True)
class Source:
    """Where an input record came from."""

    topic: str
    partition: int
    offset: int

    def to_dict(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "offset": self.offset}


@dataclass(frozen=True, slots=True)
class OutputRecord:
    """One record to produce."""

    topic: str
    key: bytes | None
    value: bytes
    headers: Headers


def parse_page(
    key: bytes | None, value: bytes | None, headers: Headers, *, tolerant: bool, max_bytes: int
) -> PageMessage | Malformed:
    """A page message (schema 1, or a raw HTML value in tolerant mode) or why it is not one."""
    if value is None:
        return Malformed("no value (a tombstone)")
    if len(value) > max_bytes:
        return Malformed(
            f"message of {len(value)} bytes exceeds stream.max_message_bytes={max_bytes}"
        )
    if value.lstrip()[:1] == b"{" or not tolerant:
        document = _json_object(value)
        return document if isinstance(document, Malformed) else _page_from_json(document)
    url = _url_from_record(key, headers)
    if url is None:
        return Malformed("not a JSON page message, and no URL in the record key or a 'url' header")
    content_type = _header(headers, "content-type")
    return PageMessage(url, value, {"Content-Type": content_type} if content_type else None)


def envelope_bytes(key: bytes | None, headers: Headers) -> int:
    """The bytes a record's key and headers take."""
    return len(key or b"") + sum(len(name) + len(value or b"") for name, value in headers)


def oversized_envelope(key: bytes | None, headers: Headers) -> Malformed | None:
    """Why a record's key and headers cannot go out with its outputs (None when they can): a
    200 KB key beside a page the producer refused, the processor stopped, and every restart
    stopped at the same record (a red team's run on a real broker, sixty-seventh session)."""
    size = envelope_bytes(key, headers)
    if size <= MAX_ENVELOPE_BYTES:
        return None
    return Malformed(
        f"record key and headers of {size} bytes exceed the {MAX_ENVELOPE_BYTES} an output keeps"
    )


def packed_record(key: bytes | None, value: bytes, headers: Headers) -> bytes:
    """A frontier record as the index keeps it while its URL waits
    (``DedupFilter.keep_deferred_records``): whether it has a key, then the key, the value and
    each header's name and value, length-prefixed."""
    parts = [key or b"", value]
    for name, data in headers:
        parts += [name.encode("utf-8", "surrogatepass"), data or b""]
    return bytes([key is not None]) + b"".join(_LENGTH.pack(len(part)) + part for part in parts)


def unpacked_record(topic: str, data: bytes) -> OutputRecord:
    """The record ``packed_record`` packed, onto ``topic``."""
    parts, offset = [], 1
    while offset < len(data):
        (length,) = _LENGTH.unpack_from(data, offset)
        offset += _LENGTH.size + length
        parts.append(data[offset - length : offset])
    key, value, *named = parts
    headers = [
        (name.decode("utf-8", "surrogatepass"), header)
        for name, header in zip(named[::2], named[1::2], strict=True)
    ]
    return OutputRecord(topic, key if data[0] else None, value, headers)


def parse_url(value: bytes | None, *, max_bytes: int) -> str | Malformed:
    """A frontier URL: ``{"url": ...}`` or the bare URL as the value."""
    if value is None:
        return Malformed("no value (a tombstone)")
    if len(value) > max_bytes:
        return Malformed(
            f"message of {len(value)} bytes exceeds stream.max_message_bytes={max_bytes}"
        )
    if value.lstrip()[:1] == b"{":
        document = _json_object(value)
        if isinstance(document, Malformed):
            return document
        return _checked_url(document.get("url"))
    try:
        return _checked_url(value.decode("utf-8").strip())
    except UnicodeDecodeError:
        return Malformed("a URL value must be UTF-8 text")


def verdict_record(
    topic: str, decision: Decision, source: Source, page: PageMessage
) -> OutputRecord:
    """One JSON verdict per page: the decision, where the page came from, status and fetch time."""
    document = decision.to_dict() | {"schema": SCHEMA_VERSION, "source": source.to_dict()}
    if page.status is not None:
        document["status"] = page.status
    if page.fetched_at is not None:
        document["fetched_at"] = page.fetched_at
    return OutputRecord(topic, decision.url.encode("utf-8", "replace"), _dumps(document), [])


def probe_record(topic: str, probe_url: str, requested_by: str | None) -> OutputRecord:
    """A URL the mirror detector wants fetched; the fleet sends the page back on pages in."""
    document = {"schema": SCHEMA_VERSION, "url": probe_url, "requested_by": requested_by}
    return OutputRecord(topic, probe_url.encode("utf-8", "replace"), _dumps(document), [])


def dead_letter_record(
    topic: str,
    key: bytes | None,
    value: bytes | None,
    headers: Headers,
    error: str,
    source: Source,
    max_bytes: int,
) -> OutputRecord:
    """The original bytes (cut to ``max_bytes``) with the error and the source in record headers;
    its key and headers too, unless they take more than ``MAX_ENVELOPE_BYTES`` (then their size
    is named instead, and the record has no key)."""
    original = value or b""
    extra = [
        ("dedup.error", error.encode("utf-8", "replace")),
        ("dedup.source", f"{source.topic}/{source.partition}/{source.offset}".encode()),
    ]
    if len(original) > max_bytes:
        extra.append(("dedup.original_bytes", str(len(original)).encode()))
    envelope = envelope_bytes(key, headers)
    if envelope > MAX_ENVELOPE_BYTES:
        extra.append(("dedup.original_envelope_bytes", str(envelope).encode()))
        key, headers = None, []
    return OutputRecord(topic, key, original[:max_bytes], [*headers, *extra])


def _dumps(document: dict[str, Any]) -> bytes:
    """UTF-8 JSON that any value survives: a lone surrogate (valid in JSON text, not in UTF-8,
    e.g. from a producer's ``fetched_at``) is written as its ``\\udxxx`` escape, which reads back
    as the same string, and a value JSON has no type for as its text."""
    text = json.dumps(
        document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return text.encode("utf-8", "backslashreplace")


def _json_object(value: bytes) -> dict[str, Any] | Malformed:
    document = json_object(value)
    return Malformed(document.problem) if isinstance(document, Invalid) else document


def _page_from_json(document: dict[str, Any]) -> PageMessage | Malformed:
    schema, status = document.get("schema", SCHEMA_VERSION), document.get("status")
    if schema != SCHEMA_VERSION or isinstance(schema, bool):
        return Malformed(
            f"unsupported schema {schema!r} (this processor reads schema {SCHEMA_VERSION})"
        )
    failed_fetch = isinstance(status, int) and not 200 <= status < 300
    fields = page_fields(document, body_optional=failed_fetch)
    if isinstance(fields, Invalid):
        return Malformed(fields.problem)
    url = _checked_url(fields.url)
    if isinstance(url, Malformed):
        return url
    headers = _with_content_type(fields.headers, document.get("content_type"))
    if isinstance(headers, Malformed):
        return headers
    if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
        return Malformed(f"'status' must be an integer, not {json_type(status)}")
    fetched_at = document.get("fetched_at")
    if fetched_at is not None and (
        not isinstance(fetched_at, (str, int, float)) or isinstance(fetched_at, bool)
    ):
        return Malformed(f"'fetched_at' must be a string or a number, not {json_type(fetched_at)}")
    return PageMessage(url, fields.body, headers, status, fetched_at)


def _with_content_type(
    headers: dict[str, str] | None, content_type: Any
) -> dict[str, str] | Malformed | None:
    """``content_type`` stands for the Content-Type header when ``headers`` has none."""
    if content_type is not None and not isinstance(content_type, str):
        return Malformed(f"'content_type' must be a string, not {json_type(content_type)}")
    if not content_type or any(name.lower() == "content-type" for name in headers or {}):
        return headers
    return (headers or {}) | {"Content-Type": content_type}


def _checked_url(url: Any) -> str | Malformed:
    checked = url_field(url)
    if isinstance(checked, Invalid):
        return Malformed(checked.problem)
    url = checked.strip()
    if len(url) > _MAX_URL_CHARS or any(char in url for char in "\r\n\x00 "):
        return Malformed(f"'url' is not a URL: {url[:100]!r}")
    try:
        parts = urlsplit(url)
        has_host = bool(parts.scheme and parts.hostname)
    except ValueError:
        has_host = False
    return url if has_host else Malformed(f"'url' is not an absolute URL: {url[:100]!r}")


def _url_from_record(key: bytes | None, headers: Headers) -> str | None:
    for candidate in (_header(headers, _URL_HEADER), _decode(key)):
        url = _checked_url(candidate)
        if isinstance(url, str):
            return url
    return None


def _header(headers: Headers, name: str) -> str | None:
    for header_name, value in headers:
        if header_name.lower() == name:
            return _decode(value)
    return None


def _decode(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None
