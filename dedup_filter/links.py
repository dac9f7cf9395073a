"""The links of a page, for URL-mode coordinate sampling ("the mirror demonstrably has it").

Only ``a[href]`` and ``area[href]`` count, resolved against ``<base href>`` or the page URL and
normalised like every URL the index keys; a page's links are capped so a hostile page cannot make
one write transaction unbounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser

from .text import decode_body
from .urls import normalize_url

MAX_LINKS = 2000
_SCHEMES = ("http://", "https://")


def page_links(
    url: str, body: bytes, headers: Mapping[Any, Any] | None, fallback_encoding: str
) -> list[str]:
    """Absolute, normalised http(s) URLs a page links to, in document order, without repeats."""
    decoded = decode_body(body, headers, fallback_encoding)
    if decoded.text is None:
        return []
    tree = LexborHTMLParser(decoded.text)
    base = tree.css_first("base[href]")
    base_url = _join(url, base.attributes.get("href") or "") if base is not None else url
    links: dict[str, None] = {}
    for anchor in tree.css("a[href], area[href]"):
        target = _join(base_url, anchor.attributes.get("href") or "")
        if target.startswith(_SCHEMES):
            links[normalize_url(target)] = None
            if len(links) >= MAX_LINKS:
                break
    return list(links)


def _join(base: str, href: str) -> str:
    try:
        return urljoin(base, href.strip())
    except ValueError:
        return ""
