"""A real ``scrapy crawl`` on loopback of a site whose aliases are linked before their pages:
once the session-id rule is learnt, an alias met first waits for its canonical URL (fetched as a
probe) instead of being fetched, an alias whose canonical URL is missing is still fetched, and a
canonical URL the crawl never links, fetched only as a probe, is still parsed for its links."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from testweb.scrapy_project.run import CrawlRun, scrapy_crawl
from testweb.server import serve
from testweb.site import TestWeb
from testweb.variants import main_items

from .alias_web import page_html

HOST = "http://docs.wait.test"
LEARNT, LATE, HIDDEN, ORPHANS = range(4), range(4, 24), range(24, 27), range(3)


def _web() -> TestWeb:
    """Home links four documents and their session-id aliases (the rule is learnt there); a
    deeper page links twenty more aliases before any page links their documents, and three
    aliases of documents that exist under their session URL only."""
    texts = iter(main_items()[::3])
    docs = {number: f"{HOST}/docs/p{number}.html" for number in [*LEARNT, *LATE, *HIDDEN]}
    pages = {
        url: page_html(f"Document {n}", [next(texts) for _ in range(3)], _only_linked(n))
        for n, url in docs.items()
    }
    for number, url in docs.items():
        pages[f"{url}?sessionid={'A' if number in LEARNT else 'B'}{number}"] = pages[url]
    for number in HIDDEN:
        pages[_only_linked(number)[0]] = page_html(f"Note {number}", [next(texts)], [])
    for number in ORPHANS:
        pages[f"{HOST}/orphans/o{number}.html?sessionid=C{number}"] = page_html(
            f"Orphan {number}", [next(texts) for _ in range(3)], []
        )
    learnt = [docs[n] for n in LEARNT] + [f"{docs[n]}?sessionid=A{n}" for n in LEARNT]
    pages[f"{HOST}/"] = page_html("Home", [next(texts)], [*learnt, f"{HOST}/more.html"])
    met_first = [f"{docs[n]}?sessionid=B{n}" for n in [*LATE, *HIDDEN]]
    orphans = [f"{HOST}/orphans/o{n}.html?sessionid=C{n}" for n in ORPHANS]
    pages[f"{HOST}/more.html"] = page_html(
        "More", [next(texts)], [*met_first, *orphans, f"{HOST}/late.html"]
    )
    pages[f"{HOST}/late.html"] = page_html("Late", [next(texts)], [docs[n] for n in LATE])
    return TestWeb(0, "deferral", pages, {}, [f"{HOST}/"], [], [], set(), {}, {})


def _only_linked(number: int) -> list[str]:
    """What a hidden document links, and nothing else does: its canonical URL is linked by
    nothing, so its page is fetched only as the probe its session-id alias asks for."""
    return [f"{HOST}/notes/n{number}.html"] if number in HIDDEN else []


def _crawl(
    workdir: Path, concurrent_requests: int, defer: bool = True
) -> tuple[CrawlRun, Counter[str]]:
    with serve(_web()) as server:
        run = scrapy_crawl(
            workdir,
            server.proxy_url,
            [f"{HOST}/"],
            name="deferral",
            settings={
                "CONCURRENT_REQUESTS": concurrent_requests,
                "DEDUP_OVERRIDES": {"url_rules.defer_aliases": defer},
            },
        )
        fetches = Counter(server.request_log.urls())
    assert run.returncode == 0, run.log[-3000:]
    return run, fetches


@pytest.fixture(scope="module", params=[1, 16], ids=["one_at_a_time", "concurrent"])
def crawled(request, tmp_path_factory) -> tuple[int, CrawlRun, Counter[str]]:
    run, fetches = _crawl(tmp_path_factory.mktemp("deferral-crawl"), request.param)
    return request.param, run, fetches


def test_aliases_met_before_their_page_are_not_fetched(crawled):
    concurrency, run, fetches = crawled
    aliases = [f"{HOST}/docs/p{n}.html?sessionid=B{n}" for n in LATE]
    avoided = sum(1 for alias in aliases if alias not in fetches) / len(aliases)
    # one at a time every alias waits; at 16 in flight a few may go before the rule is learnt
    assert avoided >= (1.0 if concurrency == 1 else 0.6), (avoided, run.dedup_stats())
    assert run.stat("dedup/url_aliases_deferred") >= 1


def test_every_page_is_fetched_once_and_none_is_lost(crawled):
    _, _, fetches = crawled
    for number in LATE:  # the canonical URL, as a probe or by the crawl: once
        assert fetches[f"{HOST}/docs/p{number}.html"] == 1
    for number in HIDDEN:  # a probe's page is parsed: what only it links is fetched
        assert fetches[f"{HOST}/docs/p{number}.html"] == 1
        assert fetches[_only_linked(number)[0]] == 1
    for number in ORPHANS:  # the canonical URL is missing: the alias itself is fetched
        assert fetches[f"{HOST}/orphans/o{number}.html?sessionid=C{number}"] == 1


def test_without_deferral_the_aliases_met_first_are_fetched(tmp_path):
    _, fetches = _crawl(tmp_path, concurrent_requests=1, defer=False)
    assert all(f"{HOST}/docs/p{n}.html?sessionid=B{n}" in fetches for n in LATE)
