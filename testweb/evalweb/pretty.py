"""The evaluation web with its chain's whole copy served under "pretty" URLs, as static-site hosts
serve a site: ``intro`` for ``intro.html``, a directory's URL for its ``index.html``, every link to
them written so (the copy's own pages, and the host's front page linking its top).

The copy of that copy keeps its ``.html`` names (the one it was made from served them so), so the
chain holds two pairs named apart: the copy against its origin, and the copy of it against it.
Or one section of the chain's origin served so (``section_prettified``), below a top that names
``.html``: a site that mixes its naming, its reference pages made by another tool.
The ground truth follows the URLs; contents, kinds and replicas are those of the web as built.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urljoin, urlsplit

from testweb.pages import relative_href, rewrite_hrefs

from .builder import EvalWeb

_PAGE, _INDEX = ".html", "index.html"


def prettified(web: EvalWeb, directory: str | None = None) -> EvalWeb:
    """``web`` with the pages under ``directory`` renamed: by default its first replica's copy
    (the chain's whole copy)."""
    directory = directory or web.truth.replicas[0].copy

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


def section_prettified(web: EvalWeb) -> EvalWeb:
    """``web`` with the section of its chain's origin holding the most pages renamed (the first
    by name among equals), the origin's other pages and its top left as they are."""
    origin = web.truth.replicas[0].source
    sections = Counter(
        url[len(origin) :].partition("/")[0]
        for url in web.pages
        if url.startswith(origin) and "/" in url[len(origin) :]
    )
    if not sections:
        msg = f"the chain's origin {origin} has no section"
        raise ValueError(msg)
    section = min(sections, key=lambda name: (-sections[name], name))
    return prettified(web, f"{origin}{section}/")


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
