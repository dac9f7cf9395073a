"""The JSON page document: ``url``, ``body`` (text) or ``body_b64`` (base64), ``headers``.

``dedup-filter check`` reads it from JSON lines and the stream processor from Kafka values; both
read the shared fields here, so a document means the same page, and a bad one gets the same words,
wherever it is read. Reading never raises: a problem is an ``Invalid`` value naming it, and each
reader reports it its own way. Fields only one reader knows (the stream's schema, status,
content_type, fetched_at) stay with that reader.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
from dataclasses import dataclass
from typing import Any

_SHOWN_CHARS = 200  # of a parser's error message, and of a bad header's name


@dataclass(frozen=True, slots=True)
class Invalid:
    """Why a document, or one of its fields, cannot be used."""

    problem: str


@dataclass(frozen=True, slots=True)
class PageFields:
    """The shared fields of a page document, checked and decoded."""

    url: str
    body: bytes
    headers: dict[str, str] | None


def json_object(data: bytes | str) -> dict[str, Any] | Invalid:
    """The JSON object in ``data`` (UTF-8, -16 or -32), or why there is none."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        return Invalid(f"not valid JSON: {str(error)[:_SHOWN_CHARS]}")
    if not isinstance(document, dict):
        return Invalid(f"expected a JSON object, not {json_type(document)}")
    return document


def page_fields(document: dict[str, Any], *, body_optional: bool = False) -> PageFields | Invalid:
    """``url``, the body's bytes and ``headers``, or the first problem with them.

    Args:
        document: a decoded JSON object.
        body_optional: when neither ``body`` nor ``body_b64`` is present, the body is empty
            instead of a problem (a failed fetch has no body).
    """
    url = url_field(document.get("url"))
    if isinstance(url, Invalid):
        return url
    body = body_field(document.get("body"), document.get("body_b64"), optional=body_optional)
    if isinstance(body, Invalid):
        return body
    headers = headers_field(document.get("headers"))
    if isinstance(headers, Invalid):
        return headers
    return PageFields(url, body, headers)


def url_field(value: Any) -> str | Invalid:
    """A non-empty string of Unicode text, as it is; whether it must be absolute is the reader's
    rule. A URL with a lone surrogate is refused before anything is indexed under it: no verdict,
    log line or later ``duplicate_of`` could name it."""
    if value is None:
        return Invalid("'url' is missing")
    if not isinstance(value, str):
        return Invalid(f"'url' must be a string, not {json_type(value)}")
    if not value.strip():
        return Invalid("'url' is empty")
    if not is_unicode(value):
        return Invalid(f"'url' holds a lone surrogate, which no URL can: {value[:_SHOWN_CHARS]!r}")
    return value


def is_unicode(text: str) -> bool:
    """Whether ``text`` is free of lone surrogates (JSON's ``\\ud800`` escape makes one), so that
    it can be encoded, printed and sent on."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def body_field(text: Any, encoded: Any, *, optional: bool = False) -> bytes | Invalid:
    """The body's bytes from exactly one of ``body`` (text) and ``body_b64`` (base64).

    A text body was already decoded by the JSON parser, so it is encoded back as UTF-8 behind a
    UTF-8 byte-order mark: the core honours a BOM before any charset the headers or a ``<meta>``
    declare, so a ``charset=koi8-r`` header cannot decode the text a second time into mojibake.
    Lone surrogates (valid in JSON, not in UTF-8) become ``?``. ``body_b64`` bytes are the bytes
    as fetched, left for the core to decode like any fetched body.
    """
    if text is None and encoded is None and optional:
        return b""
    if (text is None) == (encoded is None):
        return Invalid("exactly one of 'body' (text) and 'body_b64' (base64) is required")
    if text is not None:
        if not isinstance(text, str):
            return Invalid(f"'body' must be a string, not {json_type(text)}")
        return codecs.BOM_UTF8 + text.encode("utf-8", "replace")
    if not isinstance(encoded, str):
        return Invalid(f"'body_b64' must be a base64 string, not {json_type(encoded)}")
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:  # ValueError: non-ASCII characters
        return Invalid(f"'body_b64' is not valid base64: {str(error)[:_SHOWN_CHARS]}")


def headers_field(value: Any) -> dict[str, str] | Invalid | None:
    """An object whose values are strings; None when absent or empty.

    A number becomes its text (producers send ``"Content-Length": 12``). A list of strings or
    numbers is one header sent several times (Go's ``http.Header`` and Node's ``set-cookie`` look
    like this); its values are joined with ``", "``, as HTTP combines repeated field lines
    (RFC 9110, section 5.3). Anything else (null, true, an object, a list holding one) is invalid.
    """
    if value is None:
        return None
    if not isinstance(value, dict):
        return Invalid(f"'headers' must be an object, not {json_type(value)}")
    headers: dict[str, str] = {}
    for name, field in value.items():
        items = field if isinstance(field, list) else [field]
        wrong = [item for item in items if not _is_text_or_number(item)]
        if wrong:
            return Invalid(
                f"header {name[:_SHOWN_CHARS]!r} must be a string, a number or a list of them,"
                f" not {json_type(wrong[0])}"
            )
        headers[name] = ", ".join(str(item) for item in items)
    return headers or None


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages read by whoever wrote the JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _is_text_or_number(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)
