"""The evaluation web with its chain's whole copy served under "pretty" URLs, as static-site hosts
serve a site: ``intro`` for ``intro.html``, a directory's URL for its ``index.html``, every link to
them written so (the copy's own pages, and the host's front page linking its top).

The copy of that copy keeps its ``.html`` names (the one it was made from served them so), so the
chain holds two pairs named apart: the copy against its origin, and the copy of it against it.
The ground truth follows the URLs; contents, kinds and replicas are those of the web as built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urljoin, urlsplit

from testweb.pages import relative_href, rewrite_hrefs

from .builder import EvalWeb

_PAGE, _INDEX = ".html", "index.html"


def prettified(web: EvalWeb) -> EvalWeb:
    """``web`` with the pages under its first replica's copy (the chain's whole copy) renamed."""
    directory = web.truth.replicas[0].copy

    def renamed(url: str) -> str:
        if "?" in url or not url.startswith(directory) or not url.endswith(_PAGE):
            return url
        return url.removesuffix(_INDEX) if url.endswith("/" + _INDEX) else url.removesuffix(_PAGE)

    pages = {renamed(url): _relinked(url, body, renamed) for url, body in web.pages.items()}
    if len(pages) != len(web.pages):
        msg = f"two pages under {directory} share a pretty URL"
        raise ValueError(msg)
    truth = replace(
        web.truth,
        contents={renamed(url): content for url, content in web.truth.contents.items()},
        kinds={renamed(url): kind for url, kind in web.truth.kinds.items()},
    )
    start_urls = [renamed(url) for url in web.start_urls]
    return replace(web, pages=pages, truth=truth, start_urls=start_urls)


def _relinked(url: str, body: bytes, renamed: Callable[[str], str]) -> bytes:
    """``body`` of the page at ``url`` with each link to a renamed page written as its new
    URL, relative to the page's new place on its own host."""
    page = urlsplit(renamed(url))

    def relink(href: str) -> str:
        target, mark, fragment = href.partition("#")
        if not target:
            return href
        absolute = urljoin(url, target)
        moved = renamed(absolute)
        if moved == absolute:
            return href
        parts = urlsplit(moved)
        if parts.netloc != page.netloc:
            return moved + mark + fragment
        return relative_href(page.path[1:], parts.path[1:]) + mark + fragment

    text = body.decode("utf-8", "surrogateescape")
    return rewrite_hrefs(text, relink).encode("utf-8", "surrogateescape")
