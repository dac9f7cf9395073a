"""An evaluation web of manuals copied into other sites' layouts: the copies keep each page's
own content and drop everything the original theme put around it.

``docs.pyproj.test`` serves five Sphinx manuals of Debian's packages (Requests, Babel, Jinja,
attrs, Flask). A reader site serves four of them as reader sites do: each page's main content
in its own header, sidebar (the site's manuals) and footer, its name in every title. A mirror
hub serves two of them with a long sidebar on every page, the manual's every page by title, as
themes that expand the whole table of contents do: the sidebar is most of a short page's text.
Both copies are crawled before the origin. Which page shares which document is the copy's
(the page's content is the same; only the layout changed).
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from testweb.copies import site_url

from . import hazards
from .builder import EvalWeb
from .hosts import HostsBuilder
from .packages import read_tree, symlinks

HOST = "docs.pyproj.test"
READER = "devdocs.reader.test"
HUB = ("docs.mirror-hub.test", "pub/python/")
MANUALS = {
    "requests": "Requests",
    "babel": "Babel",
    "jinja": "Jinja",
    "attrs": "attrs",
    "flask": "Flask",
}
READ = ("requests", "babel", "jinja", "flask")
HUB_MANUALS = ("attrs", "requests")


def build_retemplated_web() -> EvalWeb:
    web = HostsBuilder()
    for tree in MANUALS:
        web.place(HOST, f"{tree}/", tree, read_tree(tree), symlinks(tree))
    web.front_page(HOST, "Python project documentation", _manual_links(MANUALS, ""))
    reader_navigation = _navigation("Manuals", _manual_links(READ, "/"))
    for tree in READ:
        web.copy(
            (HOST, f"{tree}/"),
            (READER, f"{tree}/"),
            "retemplated",
            "reader",
            lambda path, body: hazards.in_layout(body, "DevDocs Reader", reader_navigation),
        )
    web.front_page(READER, "DevDocs Reader", _manual_links(READ, ""))
    hub, filed = HUB
    for tree in HUB_MANUALS:
        pages = web.hosts[HOST]
        contents = [
            (f"/{filed}{path}", html.unescape(hazards.title_of(pages[path])).split(" \u2014 ")[0])
            for path in sorted(pages)
            if path.startswith(f"{tree}/")
        ]
        toc = _navigation(f"{MANUALS[tree]}: every page", contents)
        web.copy(
            (HOST, f"{tree}/"),
            (hub, f"{filed}{tree}/"),
            "retemplated_toc",
            "hub",
            lambda path, body, toc=toc: hazards.in_layout(body, "Mirror Hub", toc),
        )
    web.front_page(hub, "Mirror Hub", _manual_links(HUB_MANUALS, filed))
    web.list_directories()
    starts = [site_url(READER, ""), site_url(hub, ""), site_url(HOST, "")]
    return EvalWeb(web.pages(), starts, web.truth)


def _manual_links(trees: Iterable[str], prefix: str) -> list[tuple[str, str]]:
    return [(f"{prefix}{tree}/index.html", MANUALS[tree]) for tree in trees]


def _navigation(heading: str, links: list[tuple[str, str]]) -> str:
    items = "".join(
        f'<li><a href="{html.escape(href)}">{html.escape(label)}</a></li>\n'
        for href, label in links
    )
    return f'<nav class="site"><h2>{html.escape(heading)}</h2>\n<ul>\n{items}</ul></nav>'
