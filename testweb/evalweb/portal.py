"""A portal host whose URLs alias one another (issue 12) and whose parameters also select content.

The portal serves a manual and a news archive (release notes) through one template, as a CMS
does: every page links its print view, the next page within a session, and (for the news) its
directory's contents page and its second part. Aliases (same content, another URL on the same
host): ``?sessionid=`` with and without a greeting line, ``dir/`` beside ``dir/index.html``,
``?format=print``, ``utm_*`` tracking parameters (linked from other hosts), and ``?part=2`` of a
news item too short to be split (the CMS shows the whole item again). Traps (parameters that
select content, which no rule may ever drop): ``?lang=fr`` (the French edition), ``?page=2``
(the catalogue's second page), ``?id=`` (one item each), ``?q=`` (search results), ``?part=2``
(the second half of every news item long enough to be split: most, not all) and ``?sort=size``
(the catalogue sorted by another key: each page shows other items).
"""

from __future__ import annotations

import html
import re
import zlib

from testweb.copies import site_url
from testweb.pages import link_list, rewrite_hrefs

from . import hazards
from .hosts import HostsBuilder
from .news import NewsArchive

HOST = "portal.test"
ALIAS_PARAMETERS = ("sessionid", "format", "utm_source", "utm_medium", "utm_campaign")
TRAP_PARAMETERS = ("lang", "page", "id", "q", "part", "sort")
TRACKING = "utm_source=books&utm_medium=web"
NEWSLETTER = "utm_source=newsletter&utm_medium=email&utm_campaign=archive"
_PER_PAGE = 10
_SEARCH_TERMS = ("package", "kernel", "network", "upload", "security", "source")
_LANGUAGE = re.compile(r"\.(en|fr)\.html\b")


def build_portal(
    web: HostsBuilder,
    manual: tuple[str, dict[str, str], str, dict[str, str]],
    items: list[tuple[str, str, str]],
    news: list[tuple[str, str, str]],
) -> tuple[list[str], list[str]]:
    """The portal: one manual's English pages under ``ref/`` with their French editions by
    ``?lang=fr``, a paginated catalogue of ``items`` (content key, name, body) by ``?id=``,
    search pages, and ``news`` (content key, name, body) under ``news/`` by series. Returns the
    canonical chapter paths and news paths (for other hosts to link with tracking)."""
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
    news_paths = NewsArchive(HOST, lambda path: _sessions(path)[1], NEWSLETTER).build(web, news)
    links = [
        ("ref/", "The manual"),
        ("ref/index.html", "The manual (index page)"),
        ("catalog/", "Catalogue"),
        ("news/", "News archive"),
    ]
    links += [(f"search?q={term}", f"Search: {term}") for term in _SEARCH_TERMS]
    links += [
        (f"ref/{chapter}?sessionid={_sessions('ref/' + chapter)[0]}", chapter)
        for chapter in chapters
    ]
    web.front_page(HOST, "Documentation portal", links)
    return ["ref/" + chapter for chapter in chapters], news_paths


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
    """The catalogue by name, and sorted by size (``?sort=size``): each page shows other items."""
    by_size = sorted(items, key=lambda item: (len(item[2]), item[1]))
    for order, listed in (("", items), ("sort=size", by_size)):
        for start in range(0, len(listed), _PER_PAGE):
            number = start // _PER_PAGE + 1
            shown = listed[start : start + _PER_PAGE]
            entries = [(f"item?id={name}", name, "") for _, name, _ in shown]
            listing = link_list("", entries).replace('href="', 'href="/')
            query = "&".join(part for part in (f"page={number + 1}", order) if part)
            more = (
                f'<p><a href="?{query}">Next page</a></p>'
                if start + _PER_PAGE < len(listed)
                else ""
            )
            other = '<p><a href="?sort=size">By size</a></p>' if not order else ""
            page = "&".join(
                part for part in (f"page={number}" if number > 1 else "", order) if part
            )
            path = "catalog/" + (f"?{page}" if page else "")
            title = f"Catalogue, page {number}" + (" (by size)" if order else "")
            body = hazards.plain_page(title, listing + more + other)
            kind = (
                "original"
                if not page
                else ("trap_page" if page.startswith("page") else "trap_sort")
            )
            web.put(HOST, path, body, f"catalog:{order}:{number}", kind)
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


def tracking_links(paths: list[str], tracking: str = TRACKING) -> str:
    """Absolute links into the portal with tracking parameters, as another site posts them."""
    items = "".join(
        f'<li><a href="{html.escape(site_url(HOST, path) + "?" + tracking)}">{path}</a></li>\n'
        for path in paths
    )
    return f"<ul>\n{items}</ul>\n"


def newsletter(web: HostsBuilder, host: str, directory: str, news: list[str]) -> None:
    """A newsletter on another host: a contents page, one year's page, and issues each linking
    a few news items of the portal with tracking parameters (one level deeper than the items)."""
    per_issue = 8
    issues = [news[start : start + per_issue] for start in range(0, len(news), per_issue)]
    year = directory + "2024/"
    names = [f"issue-{number:02d}.html" for number in range(1, len(issues) + 1)]
    for name, linked in zip(names, issues, strict=True):
        body = hazards.plain_page(f"Newsletter {name}", tracking_links(linked, NEWSLETTER))
        web.put(host, year + name, body, f"newsletter:{name}", "original")
    listing = link_list(year + "index.html", [(year + name, name, "") for name in names])
    web.put(
        host,
        year + "index.html",
        hazards.plain_page("2024", listing),
        "newsletter:2024",
        "original",
    )
    contents = link_list(directory + "index.html", [(year + "index.html", "2024", "")])
    web.put(
        host,
        directory + "index.html",
        hazards.plain_page("Newsletter", contents),
        "newsletter",
        "original",
    )
