"""Bodies to token sequences, as Henzinger's §2 prescribes, without ever raising on bad input.

Markup becomes white space except formatting tags, which are ignored (``Hel<b>lo</b>`` is one
term), ``script``/``style`` vanish, every maximal run of Unicode letters and
digits is a lower-cased term (so a URL in the text falls apart at ``/`` and ``.``), and the URL of
an ``IMG`` is one term: the whole URL for another host, the file name alone for the page's own
host, so that a page and its mirror on another host produce the same tokens.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

_MARK = "\ue000"  # private-use character: brackets an image term inside the extracted text
_TOKEN = re.compile(rf"{_MARK}([^{_MARK}]*){_MARK}|([^\W_]+)")
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{1,40})", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_INVISIBLE_TAGS = ["script", "style", "noscript", "template"]
# Henzinger §2: formatting instructions are ignored rather than turned into white space
_FORMATTING_TAGS = [
    "b", "big", "em", "font", "i", "mark", "s", "small", "span", "strike", "strong", "sub", "sup",
    "tt", "u", "wbr",
]
_SNIFF_BYTES = 4096


@dataclass(frozen=True, slots=True)
class DecodedBody:
    """A body as text, with how it was decoded."""

    text: str | None  # None when the body is binary
    encoding: str
    replaced: bool  # some bytes were undecodable and became U+FFFD


def decode_body(body: bytes, headers: Mapping[Any, Any] | None, fallback: str = "cp1252") -> DecodedBody:
    """Decode with the BOM, then the HTTP charset, then ``<meta charset>``, then UTF-8, then fallback.

    A body with NUL bytes near its start (and no UTF-16 BOM) is binary: ``text`` is None.
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return DecodedBody(body.decode(encoding, errors="replace"), encoding, False)
    if b"\x00" in body[:_SNIFF_BYTES]:
        return DecodedBody(None, "binary", False)
    for encoding in [*_declared_encodings(body, headers), "utf-8", fallback]:
        try:
            return DecodedBody(body.decode(encoding), encoding, False)
        except (UnicodeDecodeError, LookupError):
            continue
    return DecodedBody(body.decode("utf-8", errors="replace"), "utf-8", True)


def _declared_encodings(body: bytes, headers: Mapping[Any, Any] | None) -> list[str]:
    declared = [_header_charset(headers), _meta_charset(body)]
    return [name for name in declared if name]


def _header_charset(headers: Mapping[Any, Any] | None) -> str | None:
    if not headers:
        return None
    for key, value in headers.items():
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if name.lower() != "content-type":
            continue
        if isinstance(value, (list, tuple)):
            value = value[0] if value else b""
        text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
        match = _HEADER_CHARSET.search(text)
        return match.group(1) if match else None
    return None


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:_SNIFF_BYTES])
    return match.group(1).decode("ascii") if match else None


def html_tokens(html: str, page_url: str, max_tags: int = 15_000) -> tuple[list[str], bool]:
    """The term sequence of an HTML document (image URLs included in document order).

    Only the first ``max_tags`` tags are parsed: the parser's cost grows with the square of the
    nesting depth, so a hostile page of nested tags would otherwise stall the crawl.

    Returns:
        The terms, and whether the document was cut at ``max_tags``.
    """
    html, truncated = _cut_at_tag(html.replace(_MARK, " "), max_tags)
    tree = LexborHTMLParser(html)
    # merge before anything else is removed: a stripped script still separates its neighbours
    tree.unwrap_tags(_FORMATTING_TAGS)
    tree.merge_text_nodes()
    page_host = _host(page_url)
    for image in tree.css("img[src]"):
        term = _well_formed(image_term(image.attributes.get("src") or "", page_url, page_host))
        image.replace_with(f" {_MARK}{term}{_MARK} " if term else " ")
    tree.strip_tags(_INVISIBLE_TAGS)
    root = tree.root
    return (tokenize(root.text(separator=" ")) if root is not None else []), truncated


def _cut_at_tag(html: str, max_tags: int) -> tuple[str, bool]:
    if html.count("<") <= max_tags:
        return html, False
    position = -1
    for _ in range(max_tags + 1):
        position = html.find("<", position + 1)
    return html[:position], True


def tokenize(text: str) -> list[str]:
    """Lower-cased maximal alphanumeric runs; image terms marked by ``html_tokens`` stay whole."""
    return [image or word for image, word in _TOKEN.findall(text.lower())]


def image_term(src: str, page_url: str, page_host: str) -> str:
    """The whole absolute URL for another host, the file name alone for the page's own host."""
    try:
        absolute = urljoin(page_url, src.strip())
        parts = urlsplit(absolute)
        host = (parts.hostname or "").lower()
    except ValueError:
        return ""
    if host and host != page_host:
        return absolute
    return parts.path.rsplit("/", 1)[-1]


def _well_formed(text: str) -> str:
    """Lone surrogates (from a malformed page URL) as U+FFFD: the parser accepts only UTF-8."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
