"""The portal's news archive: release notes served through a CMS template (issue 12).

``news/`` lists its series as ``S/``; each series directory has an ``index.html`` that its items
link as "Up" (a directory alias both ways). Every item links its print view (``?format=print``),
its second part (``?part=2``) and the next item within a session (``?sessionid=``); a newsletter
on another host links it with tracking parameters. ``?part=2`` is the item's second half, its
own content (a trap), except for the shortest sixth of the items, which the CMS cannot split and
serves whole again (an alias): a parameter that selects content on most pages, not on all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from testweb.pages import link_list

from . import hazards
from .hosts import HostsBuilder

_UNSPLIT_SHARE = 6  # one news item in this many, the shortest, is too short to be split
_BLOCK_END = re.compile(r"</(?:p|pre|ul|ol|table|div|h[1-6]|dl)>", re.I)


@dataclass(frozen=True, slots=True)
class NewsArchive:
    """The archive on ``host``: the session id a crawler meets a path under (``session_of``), the
    tracking parameters of the newsletter that links its items."""

    host: str
    session_of: Callable[[str], str]
    tracking: str

    def build(self, web: HostsBuilder, news: list[tuple[str, str, str]]) -> list[str]:
        """``news`` (content key, name, body) under ``news/`` by series: ``news/`` lists the
        series as ``S/``, each series directory has an ``index.html`` that its items link as
        "Up". Returns the items' paths."""
        series: dict[str, list[tuple[str, str, str]]] = {}
        for item in news:
            series.setdefault("_".join(item[1].split("_")[:2]), []).append(item)
        paths, unsplit = [], _shortest(news, len(news) // _UNSPLIT_SHARE)
        for name, members in series.items():
            directory = f"news/{name}/"
            names = [member[1] + ".html" for member in members]
            for number, (content, item, body) in enumerate(members):
                following = names[(number + 1) % len(names)]
                nav = (
                    f'<a href="index.html">Up</a> <a href="{item}.html?format=print">Print</a> '
                    f'<a href="{item}.html?part=2">Page 2</a> <a href="{following}?sessionid='
                    f'{self.session_of(directory + following)}">Next</a>'
                )
                halves = None if content in unsplit else _halves(body)
                first, second = (_navigated(half, nav) for half in halves or (body, ""))
                parts = (first, second if halves else None)
                self._item(web, directory + item + ".html", parts, content, number % 2 == 1)
                paths.append(directory + item + ".html")
            contents = link_list(directory, [(directory + page, page, "") for page in names])
            listing = hazards.plain_page(f"News {name}", contents)
            web.put(self.host, directory, listing, f"news-series:{name}", "original")
            web.put(
                self.host,
                directory + "index.html",
                listing,
                f"news-series:{name}",
                "alias_directory",
            )
        archive = link_list("news/", [(f"news/{name}/", name, "") for name in series])
        page = hazards.plain_page("News archive", archive)
        web.put(self.host, "news/", page, "news-archive", "original")
        return paths

    def _item(
        self,
        web: HostsBuilder,
        path: str,
        parts: tuple[str, str | None],
        content: str,
        greeted: bool,
    ) -> None:
        """One news item (``parts``: its first part and its second, None when it could not be
        split), its print view, its session and tracking aliases and its ``?part=2``: the second
        part, else the whole item again."""
        first, second = parts
        host, session = self.host, self.session_of(path)
        web.put(host, path, first, content, "original")
        web.put(host, path + "?format=print", hazards.print_view(first), content, "alias_print")
        alias = hazards.with_greeting(first, session) if greeted else first
        kind = "alias_session_greeting" if greeted else "alias_session"
        web.put(host, f"{path}?sessionid={session}", alias, content, kind)
        web.put(host, f"{path}?{self.tracking}", first, content, "alias_tracking")
        if second is not None:
            web.put(host, path + "?part=2", second, content + ":part2", "trap_part")
        else:
            web.put(host, path + "?part=2", first, content, "alias_part")


def _halves(body: str) -> tuple[str, str] | None:
    """A page cut at the block boundary nearest its middle: (first part, second part) as two
    pages; None when it has no block to cut at."""
    opening = re.search(r"<body[^>]*>", body)
    closing = body.rfind("</body>") % (len(body) + 1)  # pages without one end at the end
    if opening is None or closing < opening.end():
        return None
    middle = (opening.end() + closing) // 2
    cuts = [match.end() for match in _BLOCK_END.finditer(body, opening.end(), closing)]
    if not cuts:
        return None
    cut = min(cuts, key=lambda position: abs(position - middle))
    head = body[: opening.end()]
    return body[:cut] + "</body></html>\n", head + body[cut:]


def _navigated(body: str, nav: str) -> str:
    return re.sub(
        r"<body[^>]*>",
        lambda match: match.group() + f'<div class="portal-nav">{nav}</div>',
        body,
        count=1,
    )


def _shortest(pages: list[tuple[str, str, str]], count: int) -> set[str]:
    """The content keys of the ``count`` pages with the least text."""

    def text(page: tuple[str, str, str]) -> int:
        return len(re.sub(r"<[^>]+>|\s+", "", page[2]))

    return {page[0] for page in sorted(pages, key=text)[:count]}
