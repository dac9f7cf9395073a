"""A portal host whose URLs alias one another (issue 12) and whose parameters also select content.

Aliases (same content, another URL on the same host): ``?sessionid=`` with and without a greeting
line, ``dir/`` beside ``dir/index.html``, ``?format=print``, ``utm_*`` tracking parameters (linked
from other hosts). Traps (parameters that select content, which no rule may ever drop):
``?lang=fr`` (the French edition), ``?page=2`` (the catalogue's second page), ``?id=`` (one item
each) and ``?q=`` (search results).
"""

from __future__ import annotations

import html
import re
import zlib

from testweb.copies import site_url
from testweb.pages import link_list, rewrite_hrefs

from . import hazards
from .hosts import HostsBuilder

HOST = "portal.test"
ALIAS_PARAMETERS = ("sessionid", "format", "utm_source", "utm_medium")
TRAP_PARAMETERS = ("lang", "page", "id", "q")
TRACKING = "utm_source=books&utm_medium=web"
_PER_PAGE = 10
_SEARCH_TERMS = ("package", "kernel", "network", "upload", "security", "source")
_LANGUAGE = re.compile(r"\.(en|fr)\.html\b")


def build_portal(
    web: HostsBuilder,
    manual: tuple[str, dict[str, str], str, dict[str, str]],
    items: list[tuple[str, str, str]],
) -> list[str]:
    """The portal: one manual's English pages under ``ref/`` with their French editions by
    ``?lang=fr``, a paginated catalogue of ``items`` (content key, name, body) by ``?id=``, and
    search pages. Returns the canonical chapter paths (for others to link with tracking)."""
    english_tree, english, french_tree, french = manual
    chapters = sorted(_canonical(name) for name in english)
    french_by_name = {_canonical(name): (name, body) for name, body in french.items()}
    for number, (name, body) in enumerate(sorted(english.items())):
        path = "ref/" + _canonical(name)
        page = _with_nav(_relinked(body, ""), path, chapters)
        web.put(HOST, path, page, f"{english_tree}:{name}", "original")
        web.put(
            HOST,
            path + "?format=print",
            hazards.print_view(page),
            f"{english_tree}:{name}",
            "alias_print",
        )
        if _canonical(name) in french_by_name:
            french_name, french_body = french_by_name[_canonical(name)]
            web.put(
                HOST,
                path + "?lang=fr",
                _relinked(french_body, "lang=fr"),
                f"{french_tree}:{french_name}",
                "trap_lang",
            )
        web.put(HOST, f"{path}?{TRACKING}", page, f"{english_tree}:{name}", "alias_tracking")
        for session in _sessions(path):
            greeted = number % 2 == 1
            alias = hazards.with_greeting(page, session) if greeted else page
            kind = "alias_session_greeting" if greeted else "alias_session"
            web.put(HOST, f"{path}?sessionid={session}", alias, f"{english_tree}:{name}", kind)
    if "ref/index.html" not in web.hosts[HOST]:  # a manual whose contents page is too big to serve
        contents = link_list(
            "ref/index.html", [("ref/" + chapter, chapter, "") for chapter in chapters]
        )
        web.put(
            HOST,
            "ref/index.html",
            hazards.plain_page("Contents", contents),
            f"contents:{english_tree}",
            "original",
        )
    web.put(
        HOST,
        "ref/",
        web.hosts[HOST]["ref/index.html"],
        web.content(HOST, "ref/index.html"),
        "alias_directory",
    )
    _catalogue(web, items)
    _searches(web, english_tree, english)
    links = [
        ("ref/", "The manual"),
        ("ref/index.html", "The manual (index page)"),
        ("catalog/", "Catalogue"),
    ]
    links += [(f"search?q={term}", f"Search: {term}") for term in _SEARCH_TERMS]
    links += [
        (f"ref/{chapter}?sessionid={_sessions('ref/' + chapter)[0]}", chapter)
        for chapter in chapters
    ]
    web.front_page(HOST, "Documentation portal", links)
    return ["ref/" + chapter for chapter in chapters]


def _canonical(name: str) -> str:
    return _LANGUAGE.sub(".html", name)


def _relinked(body: str, query: str) -> str:
    """Links between chapters as the portal spells them: ``x.html`` (with ``query``)."""

    def relink(href: str) -> str:
        if "://" in href or href.startswith("#") or not _LANGUAGE.search(href):
            return href
        address, mark, fragment = _canonical(href).partition("#")
        return (f"{address}?{query}" if query else address) + mark + fragment

    return rewrite_hrefs(body, relink)


def _sessions(path: str) -> list[str]:
    """Two session ids a crawler meets for a chapter (one from the front page, one from the
    previous chapter)."""
    return [
        f"{zlib.crc32(f'front {path}'.encode()):08x}",
        f"{zlib.crc32(f'next {path}'.encode()):08x}",
    ]


def _with_nav(body: str, path: str, chapters: list[str]) -> str:
    """The portal's navigation: print view, French edition, next chapter within a session."""
    name = path.rsplit("/", 1)[1]
    following = chapters[(chapters.index(name) + 1) % len(chapters)]
    next_session = _sessions("ref/" + following)[1]
    nav = (
        f'<div class="portal-nav"><a href="{name}?format=print">Print</a> '
        f'<a href="{name}?lang=fr">Fran\u00e7ais</a> '
        f'<a href="{following}?sessionid={next_session}">Next</a></div>'
    )
    return re.sub(r"<body[^>]*>", lambda match: match.group() + nav, body, count=1)


def _catalogue(web: HostsBuilder, items: list[tuple[str, str, str]]) -> None:
    for start in range(0, len(items), _PER_PAGE):
        number = start // _PER_PAGE + 1
        shown = items[start : start + _PER_PAGE]
        entries = [(f"item?id={name}", name, "") for _, name, _ in shown]
        listing = link_list("", entries).replace('href="', 'href="/')
        more = (
            f'<p><a href="?page={number + 1}">Next page</a></p>'
            if start + _PER_PAGE < len(items)
            else ""
        )
        path = "catalog/" if number == 1 else f"catalog/?page={number}"
        body = hazards.plain_page(f"Catalogue, page {number}", listing + more)
        web.put(HOST, path, body, f"catalog:{number}", "original" if number == 1 else "trap_page")
    for content, name, body in items:
        web.put(HOST, f"item?id={name}", body, content, "trap_id")


def _searches(web: HostsBuilder, tree: str, pages: dict[str, str]) -> None:
    for term in _SEARCH_TERMS:
        hits = [
            (
                f"ref/{_canonical(name)}",
                hazards.title_of(body),
                f"{body.lower().count(term)} matches",
            )
            for name, body in sorted(pages.items())
            if term in body.lower()
        ]
        content = f"<p>{len(hits)} pages mention {html.escape(term)}.</p>\n" + link_list("", hits)
        web.put(
            HOST,
            f"search?q={term}",
            hazards.plain_page(f"Search: {term}", content),
            f"search:{tree}:{term}",
            "trap_q",
        )


def tracking_links(paths: list[str]) -> str:
    """Absolute links into the portal with tracking parameters, as another site posts them."""
    items = "".join(
        f'<li><a href="{html.escape(site_url(HOST, path) + "?" + TRACKING)}">{path}</a></li>\n'
        for path in paths
    )
    return f"<ul>\n{items}</ul>\n"
