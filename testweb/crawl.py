"""The order in which a polite breadth-first crawler meets the pages of a test web.

One FIFO frontier seeded with the start URLs in order, so hosts interleave level by level; links
are taken from ``<a href>`` (resolved against the page URL, fragments dropped, ``*.test`` hosts
only), each URL is fetched at most once, and only URLs that are pages of the web are fetched
(a link to a missing page or to a non-HTML file is skipped).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

if TYPE_CHECKING:
    from .site import TestWeb


def page_links(url: str, body: bytes) -> list[str]:
    """Absolute ``http(s)://*.test`` links of a page, in document order, without fragments."""
    links = []
    for anchor in LexborHTMLParser(body).css("a[href]"):
        href = (anchor.attributes.get("href") or "").strip()
        try:
            absolute = urldefrag(urljoin(url, href)).url
            parts = urlsplit(absolute)
        except ValueError:
            continue
        if parts.scheme in {"http", "https"} and (parts.hostname or "").endswith(".test"):
            links.append(absolute)
    return links


def breadth_first_crawl(web: TestWeb, visit: Callable[[str], bool]) -> list[str]:
    """Walk the web breadth-first; ``visit(url)`` says whether the page's links are followed.

    A simulated crawl passes a ``visit`` that asks the filter: a pruned URL or a dropped page
    returns False, and its links are never discovered through it.

    Returns:
        Every visited page URL, in visiting order.
    """
    frontier = deque(web.start_urls)
    seen = set(frontier)
    visited = []
    while frontier:
        url = frontier.popleft()
        body = web.pages.get(url)
        if body is None:
            continue
        visited.append(url)
        if not visit(url):
            continue
        for link in page_links(url, body):
            if link not in seen:
                seen.add(link)
                frontier.append(link)
    return visited


def breadth_first_order(web: TestWeb) -> list[str]:
    """The realistic crawl order of every page reachable from the start URLs."""
    return breadth_first_crawl(web, lambda url: True)
