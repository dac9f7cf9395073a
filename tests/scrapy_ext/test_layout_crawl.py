"""A real Scrapy crawl of one manual in three languages served by two hosts laid out two ways:
one language a directory (``/manual/fr/p1.html``, as Debian installs Apache's manual) and the
language after the file's name (``/manual/p1.html.fr``, as Apache serves it). The second host,
crawled after the first, serves its translations as copies of the first's: the layout is
learnt, and the rest of them are dropped before their fetch; a translation only the second
host holds is fetched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from testweb.site import TestWeb

from .conftest import logged_crawl

DIRECTORIES = "http://deb.layout.test/manual/"
SUFFIXED = "http://www.layout.test/manual/"
LANGUAGES = ("en", "fr", "de")
PAGES = 5
# the French translation of a seventh page, which only the suffixed host holds
ONLY_SUFFIXED = f"{SUFFIXED}p{PAGES}.html.fr"


def _url(base: str, language: str, page: str) -> str:
    return f"{base}{language}/{page}" if base == DIRECTORIES else f"{base}{page}.{language}"


def _edition(url: str) -> tuple[str, str]:
    """The language and the page a URL of either host names."""
    if url.startswith(DIRECTORIES):
        language, _, page = url.removeprefix(DIRECTORIES).partition("/")
        return language, page
    page, _, language = url.removeprefix(SUFFIXED).rpartition(".")
    return language, page


def _page(body: str, base: str, language: str, name: str, listed: list[str]) -> bytes:
    """``body`` with a language bar naming its other editions (as Apache's manual writes one) and
    links to ``listed``, the pages of its edition, written as its host names them."""
    bar = "".join(
        f'<a href="{_url(base, other, name)}" hreflang="{other}">{other}</a> '
        for other in LANGUAGES
        if other != language
    )
    links = "".join(f'<a href="{_url(base, language, page)}">{page}</a> ' for page in listed)
    return body.replace("<body>", f"<body><p>{bar}</p><p>{links}</p>", 1).encode()


def _manual(corpus: dict[str, str], stdlib_page: Callable[[str], str]) -> dict[str, bytes]:
    """Both hosts' pages: each edition's index page and its pages, the same text on both."""
    texts = [*corpus.values(), *map(stdlib_page, ("fractions", "graphlib", "statistics"))]
    names = [f"p{page}.html" for page in range(PAGES)]
    pages: dict[str, bytes] = {}
    for number, language in enumerate(LANGUAGES):
        for base in (DIRECTORIES, SUFFIXED):
            listed = names + ([f"p{PAGES}.html"] if (base, language) == (SUFFIXED, "fr") else [])
            index = _url(base, language, "index.html")
            pages[index] = _page(texts[number], base, language, "index.html", listed)
            for page, name in enumerate(names):
                text = texts[len(LANGUAGES) + number * PAGES + page]
                pages[_url(base, language, name)] = _page(text, base, language, name, [])
    pages[ONLY_SUFFIXED] = _page(texts[-1], SUFFIXED, "fr", f"p{PAGES}.html", [])
    return pages


def test_a_manual_laid_out_another_way_on_a_host_crawled_later_is_fetched_once(
    corpus, stdlib_page, tmp_path: Path
):
    """Two crawls that share one index: the first host's, then the second host's."""
    pages = _manual(corpus, stdlib_page)
    first = {url: body for url, body in pages.items() if url.startswith(DIRECTORIES)}
    for name, served, start in (("first", first, DIRECTORIES), ("second", pages, SUFFIXED)):
        web = TestWeb(0, name, served, {}, [_url(start, "en", "index.html")], [], [], set(), {}, {})
        _, fetched, decisions = logged_crawl(web, tmp_path, name)
    by_layout = [
        d
        for d in decisions
        if d["reason"] == "duplicate_url" and " layout " in d["evidence"]["url_rule"][0]
    ]
    assert len(by_layout) >= 6
    for decision in by_layout:  # each dropped for its own translation, held on the first host
        assert decision["url"].startswith(SUFFIXED)
        assert decision["duplicate_of"].startswith(DIRECTORIES)
        assert _edition(decision["url"]) == _edition(decision["duplicate_of"])
        assert decision["url"] not in fetched
    assert ONLY_SUFFIXED in fetched
    assert not set(first) & fetched  # the second crawl asked nothing of the first host
