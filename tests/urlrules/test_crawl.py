"""A real ``scrapy crawl`` of a loopback site of aliases and traps, judged by the server log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dedup_filter import DedupFilter
from testweb.scrapy_project.run import CrawlRun, scrapy_crawl
from testweb.server import serve

from .alias_web import AliasWeb, avoided_share, build_alias_web

INDEX = Path(".scrapy", "dedup-index")


@pytest.fixture(scope="module")
def site() -> AliasWeb:
    return build_alias_web()


Crawled = tuple[CrawlRun, set[str], list[dict], Path]


@pytest.fixture(scope="module")
def crawled(site, tmp_path_factory) -> Crawled:
    """One request at a time, breadth-first: the order the ground truth assumes."""
    return _crawl(site, tmp_path_factory.mktemp("alias-crawl"), concurrent_requests=1)


@pytest.fixture(scope="module")
def concurrent(site, tmp_path_factory) -> Crawled:
    """Scrapy's default concurrency: pages arrive in an order no test can fix."""
    return _crawl(site, tmp_path_factory.mktemp("alias-crawl"), concurrent_requests=16)


def _crawl(site: AliasWeb, workdir: Path, concurrent_requests: int) -> Crawled:
    with serve(site.web) as server:
        run = scrapy_crawl(
            workdir,
            server.proxy_url,
            site.web.start_urls,
            name="aliases",
            settings={
                "DEDUP_DECISION_LOG": "decisions.jsonl",
                "CONCURRENT_REQUESTS": concurrent_requests,
            },
        )
        fetched = set(server.request_log.urls())
    assert run.returncode == 0, run.log[-3000:]
    with DedupFilter.open(workdir / INDEX) as dedup:
        rules = dedup.url_rules(with_candidates=True)
    return run, fetched, rules, workdir


@pytest.mark.parametrize("kind", ["print", "session", "directory"])
def test_most_alias_fetches_are_avoided_once_their_rule_is_learnt(crawled, site, kind):
    _, fetched, _, _ = crawled
    assert avoided_share(site.aliases[kind], fetched) >= 0.8, kind


def test_the_rules_are_confirmed_and_no_trap_parameter_is_one(crawled, site):
    _, _, rules, _ = crawled
    confirmed = {rule["rule"] for rule in rules if rule["state"] == "confirmed"}
    assert confirmed == {
        "docs.alias.test drop format",
        "docs.alias.test drop sessionid",
        "docs.alias.test index index.html",
    }
    dead = {rule["name"] for rule in rules if rule["state"] == "dead"}
    assert set(site.trap_parameters) <= dead


@pytest.mark.parametrize("crawl", ["crawled", "concurrent"])
def test_no_page_is_lost(crawl, site, request):
    run, fetched, _, workdir = request.getfixturevalue(crawl)
    dropped = {d["url"]: d for d in _decisions(workdir) if d["action"] == "drop"}
    pruned_as = {url: d["duplicate_of"] for url, d in dropped.items()}
    assert site.lost(fetched, pruned_as) == []
    for url in site.must_keep - set(run.parsed):  # only as a copy of a page that was parsed
        assert dropped[url]["duplicate_of"] in run.parsed, dropped[url]


def test_pruned_urls_name_their_rule_and_held_page(crawled, site):
    run, fetched, _, workdir = crawled
    decisions = _decisions(workdir)
    pruned = [d for d in decisions if d["reason"] == "duplicate_url"]
    assert pruned
    for decision in pruned:
        assert decision["duplicate_of"] in fetched
        assert decision["evidence"]["url_rule"]
    assert run.stat("dedup/dropped/duplicate_url") == len(pruned)
    assert run.stat("dedup/url_rules_confirmed") == 3


def _decisions(workdir: Path) -> list[dict]:
    log = workdir / ".scrapy" / "decisions.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_in_any_order_traps_never_become_rules_and_aliases_of_held_pages_are_avoided(
    concurrent, site
):
    _, fetched, rules, _ = concurrent
    trap_rules = [r for r in rules if r["name"] in site.trap_parameters and r["state"] != "dead"]
    assert trap_rules == []
    for kind in ("print", "session"):  # linked from other pages than the pages they copy
        assert avoided_share(site.aliases[kind], fetched) >= 0.8, kind
