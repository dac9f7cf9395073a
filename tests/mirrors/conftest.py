"""Hand-built directory trees of real text (pydoc pages) and an online crawl driver for them."""

from __future__ import annotations

import importlib
import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from dedup_filter import Config, Decision, DedupFilter
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.mirrors.records import DirEntry
from dedup_filter.mirrors.store import MirrorStore
from testweb.site import TestWeb

ORIGIN = "http://docs.origin.test/"
MIRROR = "http://mirror.copy.test/"
FIXED_NOW = 1_700_000_000.0


def _synopsis(module_name: str) -> str:
    doc = importlib.import_module(module_name).__doc__ or module_name
    return " ".join(doc.split()[:12])


def text_words(page: str) -> list[str]:
    """The words of an HTML page's text, tags and entities left out (a pydoc page's prose, to
    build shorter documents of real text from)."""
    return re.sub(r"<[^>]+>|&\w+;", " ", page).split()


def table_of_contents(title: str, entries: Iterable[tuple[str, str]]) -> bytes:
    """A hand-written index page: a title and one linked line per entry, with its synopsis."""
    items = "".join(
        f'<li><a href="{href}">{name}</a> {_synopsis(name) if "." not in name else ""}</li>\n'
        for href, name in entries
    )
    return (
        f"<html><head><title>{title}</title></head><body><h1>{title}</h1>\n"
        f"<p>Reference pages of the {title}, one page a module.</p><ul>\n{items}</ul></body></html>"
    ).encode()


def docs_tree(
    corpus: dict[str, str], base: str, modules: list[str], title: str
) -> dict[str, bytes]:
    """``base`` with a table of contents, one pydoc page a module, and an ``extra/`` directory
    holding the last four modules under its own table of contents."""
    top, extra = modules[:-4], modules[-4:]
    pages = {
        base: table_of_contents(
            title, [(f"{name}.html", name) for name in top] + [("extra/", "extra.html")]
        )
    }
    pages |= {f"{base}{name}.html": corpus[name].encode() for name in top}
    pages[f"{base}extra/"] = table_of_contents(
        f"{title}: extras", [(f"{name}.html", name) for name in extra]
    )
    pages |= {f"{base}extra/{name}.html": corpus[name].encode() for name in extra}
    return pages


def prose_guide(
    corpus: dict[str, str], base: str, pages: int = 40, contents: bool = True
) -> dict[str, bytes]:
    """``pages`` pages of consecutive runs of real prose, every third with a code block (a
    copy's coded pages are compared: ``code_checks.py``), under a table of contents at ``base``;
    or, without ``contents``, no page at ``base`` and each page linking the next (a tree with no
    index file, whose directory URL is a 404)."""
    words = [word for name in sorted(corpus) for word in text_words(corpus[name])]
    names = [f"page{number:02d}.html" for number in range(pages)]
    guide = {base: table_of_contents("Guide", [(name, name) for name in names])} if contents else {}
    for number, name in enumerate(names):
        prose = " ".join(words[number * 170 : number * 170 + 170])
        code = f"<pre>call_{number}(x, y)</pre>" if number % 3 == 0 else ""
        following = "" if contents else f'<a href="{names[(number + 1) % pages]}">next</a>'
        guide[base + name] = (
            f"<html><body><h1>{name}</h1><p>{prose}</p>{code}{following}</body></html>".encode()
        )
    return guide


# a manual and its partial German translation, laid out three ways
ENGLISH = ORIGIN + "manual/en/"
GERMAN = ORIGIN + "manual/de/"
GERMAN_COPY = "http://mirror.copy.test/manual/de/"
# the source edition unnamed, the translation named, as most sites lay them out
SOURCE = ORIGIN + "docs/"
GERMAN_BESIDE = ORIGIN + "de/docs/"
LAYOUTS = {
    "both_named": (ENGLISH, GERMAN),
    "source_unnamed": (SOURCE, GERMAN_BESIDE),
    "subdomains": ("http://docs.lang.test/manual/", "http://de.docs.lang.test/manual/"),
}


# the German text of the translated pages: modules no other page of these webs renders
TRANSLATED_MODULES = ("fractions", "graphlib", "statistics")


def partial_translation(
    corpus: dict[str, str],
    modules: list[str],
    stdlib_page: Callable[[str], str],
    layout: str = "both_named",
) -> tuple[dict, list[str]]:
    """The English manual and a German edition holding the English pages but for three, whose
    German text (here: other modules' pages) no other URL holds; and those three URLs."""
    return two_editions(corpus, modules, stdlib_page, *LAYOUTS[layout])


def two_editions(
    corpus: dict[str, str],
    modules: list[str],
    stdlib_page: Callable[[str], str],
    base: str,
    edition_base: str,
) -> tuple[dict[str, bytes], list[str]]:
    """A manual at ``base`` and an edition of it at ``edition_base`` holding its pages but for
    three of the edition's own (here: other modules' pages) that no other URL holds; and those
    three URLs."""
    manual = docs_tree(corpus, base, modules[:24], "Manual")
    edition = copy_tree(manual, base, edition_base)
    own = sorted(url for url in edition if url.endswith(".html"))[2:12:4]
    for url, module in zip(own, TRANSLATED_MODULES, strict=True):
        edition[url] = stdlib_page(module).encode()
    return manual | edition, own


def assert_editions_kept_apart(
    dedup: DedupFilter,
    crawl: OnlineCrawl,
    own: list[str],
    base: str,
    edition_base: str,
) -> str:
    """No rule pairs the editions of ``two_editions``; the edition's own pages and their
    namesakes are fetched; each other page, or its namesake, is still dropped as a duplicate
    once fetched; the pair is a rejected candidate. Returns the reason it was rejected for
    (every candidate's: the pair's subdirectories are rejected alike)."""
    assert dedup.mirror_rules() == []
    namesakes = [base + url[len(edition_base) :] for url in own]
    assert all(url in crawl.fetched for url in own + namesakes)
    for url in breadth_first(crawl.pages, edition_base):
        if url.endswith(".html") and url not in own:
            namesake = crawl.decisions[base + url[len(edition_base) :]]
            assert crawl.decisions[url].dropped or namesake.dropped
    pairs = dedup.mirror_candidates()
    assert {frozenset((pair["mirror"], pair["origin"])) for pair in pairs} >= {
        frozenset((base, edition_base))
    }
    (state, reason), *others = {(pair["state"], pair["rejected_for"]) for pair in pairs}
    assert (state, others) == ("rejected", [])
    return reason


def copy_tree(pages: dict[str, bytes], base: str, new_base: str) -> dict[str, bytes]:
    return {
        new_base + url[len(base) :]: body for url, body in pages.items() if url.startswith(base)
    }


def is_absent_url(url: str) -> bool:
    """Whether ``url`` is the URL a rule's origin is asked for to learn what it answers for a
    page it lacks (``soft404.absent_url``)."""
    return "/dedup-filter-absent-" in url


class OnlineCrawl:
    """Visits URLs in a given order as an integration does: ``check_url`` before each fetch (a
    pruned URL is skipped, a deferred one set aside until ``settle_deferred`` says its fate, and
    fetched when nothing else is left), ``check_page`` on the body, every probe answered at once
    from the same pages (a missing page is reported with ``probe_failed``) and never fetched
    twice. A URL the pages lack is a 404, reported with ``fetch_failed``; the stand-ins it names
    are crawled in its place, and so are the pages a page decision asks to fetch back."""

    def __init__(self, dedup: DedupFilter, pages: dict[str, bytes]) -> None:
        self.dedup = dedup
        self.pages = pages
        self.decisions: dict[str, Decision] = {}
        self.pruned: dict[str, Decision] = {}
        self.fetched: list[str] = []
        self.probes: list[str] = []  # sample, parent and counterpart probes
        self.failed_probes: list[str] = []
        self.absent_probes: list[str] = []  # what a rule's origin answers for a page it lacks
        self.deferred: dict[str, Decision] = {}  # url -> its defer decision
        self.settled: dict[str, Decision] = {}  # deferred url -> its final decision
        self.missing: list[str] = []  # URLs visited that the pages lack (404s)

    def visit(self, urls: Iterable[str]) -> OnlineCrawl:
        for url in urls:
            verdict = self.dedup.check_url(url)
            if verdict.deferred:
                self.deferred[url] = verdict
                self._answer(verdict.probes)
                self._settle(float("inf"))
            elif verdict.dropped:
                self.pruned[url] = verdict
            elif url not in self.decisions and url not in self.missing:
                self._crawl(url)
            elif url in self.probes and not self.decisions[url].dropped:
                self.dedup.probe_served(url)  # the probe's page goes to the crawl
        self._settle(0.0)  # nothing else is left: what still waits is fetched
        return self

    def _settle(self, max_age_s: float) -> None:
        settled = self.dedup.settle_deferred(max_age_s)
        self.dedup.release_deferred(decision.url for decision in settled)
        for decision in settled:
            self.settled[decision.url] = decision
            if decision.dropped:
                self.pruned[decision.url] = decision
            elif decision.url not in self.decisions and decision.url not in self.missing:
                self._crawl(decision.url)

    def _crawl(self, url: str) -> None:
        if url in self.pages:
            decision = self._fetch(url)
            self._answer(decision.probes)
            self._fetch_back(decision)
            return
        self.missing.append(url)
        for stand_in in self.dedup.fetch_failed(url, 404):
            if stand_in.url not in self.decisions and stand_in.url not in self.missing:
                self._crawl(stand_in.url)

    def _fetch_back(self, decision: Decision) -> None:
        """Crawl what a decision asks to fetch back, as the integrations do."""
        for url in decision.evidence.get("fetch_back") or ():
            if url not in self.decisions and url not in self.missing:
                self._crawl(url)

    def fetch(self, url: str) -> Decision:
        """Fetch and check one page, leaving its probes unanswered (a crawl whose probes wait
        in its queue behind other pages)."""
        return self._fetch(url)

    def answer(self, probes: Iterable[str]) -> None:
        """Answer probes handed out earlier, as their fetches come back."""
        self._answer(probes)

    def _fetch(self, url: str) -> Decision:
        self.fetched.append(url)
        decision = self.dedup.check_page(url, self.pages[url])
        self.decisions[url] = decision
        return decision

    def _answer(self, probes: Iterable[str]) -> None:
        queue = deque(probes)
        for _ in range(10_000):  # bounded: a probe never asks for itself
            if not queue:
                return
            url = queue.popleft()
            (self.absent_probes if is_absent_url(url) else self.probes).append(url)
            if url in self.pages:
                if url not in self.decisions:
                    decision = self._fetch(url)
                    queue.extend(decision.probes)
                    self._fetch_back(decision)
            else:
                if not is_absent_url(url):
                    self.failed_probes.append(url)
                queue.extend(self.dedup.probe_failed(url, 404).probes)
        pytest.fail("probes did not settle")


DEEP_COPY = MIRROR + "pub/mirrors/notes/"


def deeper_copy_first(dedup: DedupFilter, origin_tree: dict[str, bytes]) -> OnlineCrawl:
    """A copy of the origin filed deeper on another host, crawled before the origin."""
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_COPY)
    order = breadth_first(pages, DEEP_COPY) + breadth_first(pages, ORIGIN)
    return OnlineCrawl(dedup, pages).visit(order)


def two_tree_orders(pages: dict[str, bytes], bases: dict[str, str]) -> dict[str, list[str]]:
    """Two trees (name -> base URL) crawled breadth-first, one after the other (``NAME_first``)
    or in turns, the first named leading (``interleaved``)."""
    (first, first_base), (second, second_base) = bases.items()
    ahead, behind = breadth_first(pages, first_base), breadth_first(pages, second_base)
    return {
        f"{first}_first": ahead + behind,
        f"{second}_first": behind + ahead,
        "interleaved": interleave(ahead, behind),
    }


def interleave(*orders: list[str]) -> list[str]:
    """Round-robin over several URL lists (hosts crawled side by side)."""
    return [url for group in itertools.zip_longest(*orders) for url in group if url is not None]


def breadth_first(pages: dict[str, bytes], base: str) -> list[str]:
    """The URLs under ``base`` by depth, then by name (the order of a breadth-first crawl)."""
    under = [url for url in pages if url.startswith(base)]
    return sorted(under, key=lambda url: (url[len(base) :].count("/"), not url.endswith("/"), url))


@pytest.fixture(scope="session")
def modules(corpus: dict[str, str]) -> list[str]:
    return sorted(corpus)


@pytest.fixture
def origin_tree(corpus: dict[str, str], modules: list[str]) -> dict[str, bytes]:
    return docs_tree(corpus, ORIGIN, modules, "Standard library notes")


@pytest.fixture
def open_filter(tmp_path: Path) -> Iterator[Callable[..., DedupFilter]]:
    """Opens DedupFilters (fixed clock) on one index in ``tmp_path``; closes them after the test."""
    opened: list[DedupFilter] = []

    def open_one(config: Config | None = None, **overrides: object) -> DedupFilter:
        config = (config or Config.default()).with_overrides(
            {f"mirror.{k}": v for k, v in overrides.items()}
        )
        index = LmdbIndex.open(tmp_path / "index", config)
        dedup = DedupFilter(index, config, clock=lambda: FIXED_NOW)
        opened.append(dedup)
        return dedup

    yield open_one
    for dedup in opened:
        dedup.close()


def file_entry(store: MirrorStore, directory_key: str, relative_key: str, entry: DirEntry) -> None:
    """``MirrorStore.put_entry`` with its representative's record read from the index."""
    store.put_entry(directory_key, relative_key, entry, store.view.page(entry.representative))


def as_htm(path: str) -> str:
    """``path`` as a server that names pages ``.htm`` names it."""
    return re.sub(r"\.html$", ".htm", path)


def renamed_copy(
    pages: dict[str, bytes], base: str, new_base: str, rename: Callable[[str], str] = str.upper
) -> dict[str, bytes]:
    """A copy of the pages under ``base`` whose file names were renamed (upper-cased), and its
    links to them (a copy kept on a server that changed its names): the same pages, under names
    the origin lacks."""
    link = re.compile(r'href="[^"/:]+\.html"')
    return {
        new_base + rename(url[len(base) :]): link.sub(
            lambda href: 'href="' + rename(href[0][6:-1]) + '"', body.decode()
        ).encode()
        for url, body in pages.items()
        if url.startswith(base)
    }


def two_hosts(
    origin: dict[str, bytes], copy: dict[str, bytes], links: tuple[str, str], first: str
) -> TestWeb:
    """``origin`` on ``ORIGIN`` and its ``copy`` on ``MIRROR``, each host's front page linking
    its ``links`` entry; ``first``: whose front page the crawl starts from."""
    pages = origin | copy
    for host, link in zip((ORIGIN, MIRROR), links, strict=True):
        pages[host] = f'<html><body><a href="{link}">Manual</a></body></html>'.encode()
    starts = [ORIGIN, MIRROR] if first == "origin" else [MIRROR, ORIGIN]
    return TestWeb(0, "copied", pages, {}, starts, [], [], set(), {}, {})


def guide_with_index_file(corpus: dict[str, str], pages: int) -> dict[str, bytes]:
    """``prose_guide`` under ``ORIGIN``'s ``guide/``, its table of contents served as
    ``guide/index.html``: a file name that a copy's server renames with the rest."""
    guide = prose_guide(corpus, ORIGIN + "guide/", pages)
    guide[ORIGIN + "guide/index.html"] = guide.pop(ORIGIN + "guide/")
    return guide


def renamed_guide(guide: dict[str, bytes], rename: Callable[[str], str]) -> dict[str, bytes]:
    """``guide_with_index_file``'s pages copied to ``MIRROR``'s ``pub/guide/`` under names
    ``rename`` made."""
    return renamed_copy(guide, ORIGIN + "guide/", MIRROR + "pub/guide/", rename)


def leave_out(pages: dict[str, bytes], start: int, step: int) -> dict[str, bytes]:
    """``pages`` without every ``step``-th numbered page (``page00.html`` ..., in any spelling)
    from the ``start``-th: an interrupted transfer, or an origin that lost them."""
    numbered = sorted(url for url in pages if re.search(r"/page\d\d\.html?$", url, re.IGNORECASE))
    lacking = set(numbered[start::step])
    return {url: body for url, body in pages.items() if url not in lacking}


def two_guides(
    origin: dict[str, bytes], copy: dict[str, bytes], rename: Callable[[str], str], first: str
) -> TestWeb:
    """``two_hosts`` with each front page linking its guide's index page, as its side names it."""
    return two_hosts(origin, copy, ("guide/index.html", "pub/guide/" + rename("index.html")), first)
