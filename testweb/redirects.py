"""Redirects as real sites serve them, laid over a built web.

No page of a built web redirects, and real documentation sites redirect all the time: a link to
a directory without its trailing slash is answered 301 to ``dir/`` (Apache's mod_dir, nginx),
a ``www.`` name redirects every URL to the bare host, and a page moved since others linked it
answers 301 with its new URL. Each lands the crawler on a URL other than the one it asked for,
and the URL asked for never answers with a page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from .site import TestWeb

# a link to a directory other than a site's root: ``href="library/"``, ``href="/functions/"``
_DIRECTORY_LINK = re.compile(rb'href="([^"#?]*[^/"#?])/"')


@dataclass(frozen=True)
class RedirectedWeb:
    """The web to serve, and where each moved page went (old URL -> new URL)."""

    web: TestWeb
    moved: dict[str, str]


def with_redirects(web: TestWeb, host: str, every: int = 6) -> RedirectedWeb:
    """``web`` with every other directory link written without its slash (each directory URL
    without its slash redirects to the directory), ``host`` also named ``www.host`` (every URL
    there redirects to ``host``; the other hosts' links and the start URL use that name), and
    every ``every``-th original page of ``host`` that is no index page moved to ``NAME.v2.html``
    beside it (its old URL redirects there; links still name it)."""
    served_with_a_query = {url.split("?", 1)[0] for url in web.pages if "?" in url}
    movable = sorted(
        url
        for url in web.originals
        if _on(url, host)
        and url.endswith(".html")
        and "index" not in url
        and url not in served_with_a_query  # an alias would still serve the page there
    )
    moved = {url: url.removesuffix(".html") + ".v2.html" for url in movable[every - 1 :: every]}
    root, alias = f"http://{host}/", f"http://www.{host}/"
    pages = {}
    for url, body in web.pages.items():
        body = _slashless_half(body)
        if not _on(url, host):
            body = body.replace(f'href="{root}'.encode(), f'href="{alias}'.encode())
        pages[moved.get(url, url)] = body
    redirects = {url[:-1]: url for url in pages if url.endswith("/") and urlsplit(url).path != "/"}
    redirects |= moved
    redirects |= {alias + url[len(root) :]: url for url in pages if _on(url, host)}
    start_urls = [alias if url == root else url for url in web.start_urls]
    served = replace(web, pages=pages, start_urls=start_urls, redirects=redirects)
    return RedirectedWeb(served, moved)


def _on(url: str, host: str) -> bool:
    return urlsplit(url).hostname == host


def _slashless_half(body: bytes) -> bytes:
    """Every other directory link of the page without its trailing slash."""
    seen = 0

    def drop_every_other(match: re.Match[bytes]) -> bytes:
        nonlocal seen
        seen += 1
        return b'href="' + match.group(1) + b'"' if seen % 2 else match.group(0)

    return _DIRECTORY_LINK.sub(drop_every_other, body)
