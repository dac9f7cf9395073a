"""A labelled web of real pages: originals on several sites, near-duplicates and hard negatives.

Labels follow Henzinger's human rating. A page is a duplicate (``duplicate_of`` = its original's
URL, which comes earlier in the list) when it differs from the original only by its URL or by the
differences in ``variants.VARIANTS``; the hard negatives (same template around another main item,
database records differing in 10-30 consecutive words) duplicate nothing.

Originals are corpus pages with at least ``_MIN_ORIGINAL_TOKENS`` tokens that share less than half
of their 8-token shingles with every earlier page of the pool: pydoc repeats inherited methods in
full, so a few standard-library pages are near-copies of each other, and they are left out rather
than mislabelled. The resemblance is exact (shingle sets), not estimated with the filter's sketches.
"""

from __future__ import annotations

import functools
import html as html_escaping
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from dedup_filter.features.hashing import token_hashes
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.text import html_tokens
from dedup_filter.urls import site_of

from .corpus import DocPage, documentation_pages
from .variants import (
    NEGATIVE_REGIONS,
    NEGATIVES,
    VARIANTS,
    entry_words,
    field_value,
    main_items,
    region,
    render_field,
    served_at,
)

_MIN_ORIGINAL_TOKENS = 200
_MAX_RESEMBLANCE = 0.5
_SHINGLE_WIDTH = 8
_NAV_LINKS = 120  # with the footer, about 400 tokens of template: boilerplate dominates short pages
_FOOTER_ITEMS = 2
_HELP_TEXT_WORDS = 100
_MAX_DRAWS = 200
_BODY = re.compile(rb"<body>(.*)</body>", re.S)
_TITLE = re.compile(rb"<title>(.*?)</title>", re.S)
DUPLICATE_KINDS = (*VARIANTS, "url_in_text")


@dataclass(frozen=True, slots=True)
class LabelledPage:
    """A page of the test web and its label.

    ``same_site`` tells, for a duplicate, whether it lives on its original's site (Henzinger's site:
    the host minus its first label); for a hard negative, whether the pages it resembles do.
    """

    url: str
    body: bytes
    duplicate_of: str | None
    kind: str
    same_site: bool


@dataclass(frozen=True, slots=True)
class Site:
    """A site of the test web: its hosts, its template's title and the dynamic fields it shows."""

    hosts: tuple[str, ...]
    title: str
    tagline: str
    fields: tuple[str, ...]


SITES = (
    Site(
        ("docs.alpha.example", "www.alpha.example"),
        "Alpha Python Reference",
        "Reference pages for the Python standard library, refreshed nightly.",
        ("timestamp", "execution_time", "server_name"),
    ),
    Site(
        ("beta.example", "www.beta.example"),
        "Beta Library Guide",
        "Every module of the standard library, one page each, with community notes.",
        ("visitor_count", "session_id"),
    ),
    Site(
        ("lib.gamma.example", "archive.gamma.example"),
        "Gamma Archive",
        "The standard library documentation as posted to the gamma mailing list.",
        ("message_id", "timestamp"),
    ),
    Site(("delta.example",), "Delta Mirror", "A static copy of the module documentation.", ()),
    Site(
        ("python.epsilon.example", "static.epsilon.example"),
        "Epsilon Docs",
        "Module documentation served by the epsilon cluster.",
        ("server_name", "visitor_count"),
    ),
)
DATABASE_SITE = Site(
    ("records.zeta.example",), "Zeta API Records", "One record per documented callable.", ()
)
# hosts on sites of their own that serve copies (mirrors, parked and aggregator domains)
MIRROR_HOSTS = ("python-mirror.example.net", "docs-for-sale.example.org", "pyref.example.com")


def labelled_corpus(seed: int = 0, originals: int = 200) -> list[LabelledPage]:
    """Originals, about one duplicate per original, and hard negatives, in crawl order.

    Every duplicate comes after its original; the order is otherwise shuffled by ``seed``.
    """
    rng = random.Random(seed)
    pool = original_pool()
    chosen = rng.sample(pool, min(originals, len(pool)))
    builder = _Builder(rng)
    for position, doc in enumerate(chosen):
        builder.add_original(position, doc)
    builder.add_boilerplate_negatives(max(4, len(chosen) // 4))
    builder.add_database_records(max(6, len(chosen) // 8))
    return builder.pages()


@functools.cache
def original_pool() -> tuple[DocPage, ...]:
    """Corpus pages long enough and distinct enough from each other to serve as originals."""
    kept: list[DocPage] = []
    postings: dict[int, list[int]] = {}
    sizes: list[int] = []
    for doc in documentation_pages():
        shingles = _shingle_set(doc)
        if len(shingles) + _SHINGLE_WIDTH - 1 < _MIN_ORIGINAL_TOKENS:
            continue
        shared = Counter(index for shingle in shingles for index in postings.get(shingle, ()))
        if any(
            count / (len(shingles) + sizes[index] - count) >= _MAX_RESEMBLANCE
            for index, count in shared.items()
        ):
            continue
        for shingle in shingles:
            postings.setdefault(shingle, []).append(len(kept))
        sizes.append(len(shingles))
        kept.append(doc)
    return tuple(kept)


def _shingle_set(doc: DocPage) -> frozenset[int]:
    return shingle_set(doc.html, f"http://corpus.example/{doc.name}.html")


def shingle_set(html: bytes, url: str) -> frozenset[int]:
    """The page's 8-token shingles (the filter's own terms), for exact Jaccard resemblance."""
    tokens, _ = html_tokens(html.decode("utf-8", "replace"), url)
    return frozenset(shingle_hashes(token_hashes(tokens, 1), _SHINGLE_WIDTH, 1).tolist())


def page_jaccard(first: LabelledPage, second: LabelledPage) -> float:
    """Exact Jaccard resemblance of two pages' 8-token shingles."""
    one, other = _page_shingles(first), _page_shingles(second)
    return len(one & other) / len(one | other) if one | other else 1.0


def _page_shingles(page: LabelledPage) -> frozenset[int]:
    cached = _SHINGLE_CACHE.get(page.url)
    if cached is None or cached[0] != page.body:
        cached = _SHINGLE_CACHE[page.url] = (page.body, shingle_set(page.body, page.url))
    return cached[1]


_SHINGLE_CACHE: dict[str, tuple[bytes, frozenset[int]]] = {}


class _Builder:
    """Accumulates pages with sort keys that keep every duplicate after its original."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._entries: list[tuple[float, int, LabelledPage]] = []
        self._urls: set[str] = set()
        self._negatives: list[set[str]] = []  # the words of every hard negative's replaced text
        self._kinds: Iterator[str] = iter(())  # refilled with a shuffled round when empty
        self._span = 1.0

    def pages(self) -> list[LabelledPage]:
        return [page for _, _, page in sorted(self._entries, key=lambda entry: entry[:2])]

    def add_original(self, position: int, doc: DocPage) -> None:
        site = SITES[position % len(SITES)]
        url = self._claim(f"http://{self._rng.choice(site.hosts)}/lib/{doc.name}.html")
        body = site_page(site, _title(doc), _body(doc), url, self._rng)
        self._add(position, LabelledPage(url, body, None, "original", False))
        self._span = max(self._span, position + 1.0)
        for _ in range(self._rng.choice((0, 1, 1, 2))):
            self._add_duplicate(position, site, url, body)

    def add_boilerplate_negatives(self, count: int) -> None:
        for number in range(count):
            site = SITES[number % len(SITES)]
            url = self._claim(f"http://{self._rng.choice(site.hosts)}/api/entry-{number:04d}.html")
            base = site_page(site, "API entry", "", url, self._rng)
            self._add_negative("boilerplate", base, url)

    def add_database_records(self, count: int) -> None:
        """One database: real help text shared by every record, and one run of real words each."""
        items = self._rng.sample(_help_texts(), 2)
        main = '<h2>Record</h2><div class="record"></div><!-- /record -->' + "".join(items)
        for number in range(count):
            url = self._claim(f"http://{DATABASE_SITE.hosts[0]}/record?id={100_000 + number}")
            base = site_page(DATABASE_SITE, "API record", main, url, self._rng, boilerplate=False)
            self._add_negative("database_record", base, url)

    def _add_duplicate(self, position: int, site: Site, url: str, body: bytes) -> None:
        kind = self._next_kind()
        same_site = self._rng.random() < 0.5
        copy_url = self._claim(self._copy_url(site, url, same_site))
        if kind == "url_in_text":
            copy = served_at(body, url, copy_url)
        else:
            copy = VARIANTS[kind](body, self._rng)
        page = LabelledPage(copy_url, copy, url, kind, site_of(copy_url) == site_of(url))
        self._add(self._rng.uniform(position + 0.5, position + 60.0), page)

    def _add_negative(self, kind: str, base: bytes, url: str) -> None:
        """A hard negative whose replaced text shares at most half its words with earlier ones.

        Two negatives with (nearly) the same main item would be real duplicates of each other.
        """
        for _ in range(_MAX_DRAWS):
            body = NEGATIVES[kind](base, self._rng)
            words = set(entry_words(region(body, NEGATIVE_REGIONS[kind])))
            if all(_jaccard(words, earlier) <= _MAX_RESEMBLANCE for earlier in self._negatives):
                break
        self._negatives.append(words)
        self._add(self._rng.uniform(0.0, self._span), LabelledPage(url, body, None, kind, True))

    def _copy_url(self, site: Site, url: str, same_site: bool) -> str:
        path = url.split("/", 3)[3]
        if same_site:
            host = self._rng.choice(site.hosts)
            return f"http://{host}/{self._rng.choice(('stable/', 'current/', 'py3/'))}{path}"
        others = [host for other in SITES if other is not site for host in other.hosts]
        return f"http://{self._rng.choice(others + list(MIRROR_HOSTS))}/{path}"

    def _next_kind(self) -> str:
        kind = next(self._kinds, None)
        if kind is None:
            self._kinds = iter(self._rng.sample(DUPLICATE_KINDS, len(DUPLICATE_KINDS)))
            kind = next(self._kinds)
        return kind

    def _claim(self, url: str) -> str:
        candidate, number = url, 1
        while candidate in self._urls:
            number += 1
            candidate = f"{url}?copy={number}"
        self._urls.add(candidate)
        return candidate

    def _add(self, key: float, page: LabelledPage) -> None:
        self._entries.append((key, len(self._entries), page))


def site_page(
    site: Site,
    title: str,
    main_html: str,
    url: str,
    rng: random.Random,
    *,
    boilerplate: bool = True,
) -> bytes:
    """``main_html`` in the site's template: header, navigation, dynamic fields, notes, permalink.

    Without ``boilerplate`` the page has no navigation and no notes (a bare database front end).
    """
    values = {name: field_value(name, rng) for name in site.fields}
    query = f"?sid={values['session_id']}" if "session_id" in values else ""
    links = "".join(
        f'<li><a href="/lib/{name}.html{query}">{name}</a></li>' for name in _navigation(site)
    )
    fields = "".join(render_field(name, value) for name, value in values.items())
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html_escaping.escape(title)} | {site.title}</title>"
        "<style>.nav li{display:inline;margin:0 .4em}.footer{font-size:small}</style>"
        "<script>window.pageStart = Date.now();</script></head>\n<body>\n"
        f'<div class="header"><h1>{site.title}</h1><p class="tagline">{site.tagline}</p>'
        + (f'<ul class="nav">{links}</ul>' if boilerplate else "")
        + f'</div>\n<div class="main">{main_html}</div><!-- /main -->\n'
        f'<div class="footer">{fields}{_footer(site) if boilerplate else ""}'
        f'<p class="permalink">Permanent address of this page: {html_escaping.escape(url)}</p>'
        f"<p>Found a mistake? Tell the {site.title} maintainers.</p></div>\n"
        "</body></html>\n"
    ).encode("utf-8")


@functools.cache
def _navigation(site: Site) -> tuple[str, ...]:
    names = [doc.name for doc in documentation_pages()]
    return tuple(random.Random(site.title).sample(names, min(_NAV_LINKS, len(names))))


@functools.cache
def _footer(site: Site) -> str:
    """Paragraphs of real text every page of the site repeats (a site's notes and legal text)."""
    items = random.Random(site.title).sample(main_items(), _FOOTER_ITEMS)
    return "".join(
        f'<p class="notes">{html_escaping.escape(" ".join(entry_words(item)))}</p>'
        for item in items
    )


@functools.cache
def _help_texts() -> tuple[str, ...]:
    """Entries long enough that two of them make a record page of 200-400 tokens."""
    return tuple(item for item in main_items() if len(entry_words(item)) >= _HELP_TEXT_WORDS)


def _jaccard(first: set[str], second: set[str]) -> float:
    return len(first & second) / len(first | second) if first or second else 1.0


def _title(doc: DocPage) -> str:
    match = _TITLE.search(doc.html)
    return html_escaping.unescape(match.group(1).decode("utf-8")) if match else doc.name


def _body(doc: DocPage) -> str:
    match = _BODY.search(doc.html)
    return (match.group(1) if match else doc.html).decode("utf-8")
