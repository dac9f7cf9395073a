"""Real ``scrapy crawl`` subprocesses over the served test web, judged by the server's request log.

The ground-truth crawl sends one request at a time, so it meets pages in the breadth-first order
the ground truth assumes (which copy of a page is seen first decides which one is kept); the
other crawls run at Scrapy's default concurrency and are held to order-free invariants.
"""

from __future__ import annotations

import contextlib
import json
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dedup_filter import DedupFilter
from dedup_filter.decision import Reason
from dedup_filter.mirrors.deferrals import Deferrals
from testweb.crawl import breadth_first_order
from testweb.scrapy_project.run import DEFAULT_REACTOR, CrawlRun, scrapy_crawl, start_crawl
from testweb.server import LoggedRequest, RunningServer, serve
from testweb.site import TestWeb, build_web

INDEX = Path(".scrapy", "dedup-index")
DECISIONS = "decisions.jsonl"  # a relative DEDUP_DECISION_LOG: under .scrapy/ too


@dataclass(frozen=True)
class Crawl:
    """A finished crawl and what the server saw of it."""

    run: CrawlRun
    fetched: list[LoggedRequest]
    decisions: list[dict[str, Any]]
    workdir: Path

    @property
    def fetched_urls(self) -> set[str]:
        return {entry.url for entry in self.fetched}

    @property
    def parsed(self) -> set[str]:
        return set(self.run.parsed)

    @property
    def dropped(self) -> dict[str, dict[str, Any]]:
        return {d["url"]: d for d in self.decisions if d["action"] == "drop"}

    def rules(self) -> list[dict[str, Any]]:
        with DedupFilter.open(self.workdir / INDEX) as dedup:
            return dedup.mirror_rules()


def crawl(
    server: RunningServer,
    web: TestWeb,
    workdir: Path,
    name: str,
    spider_arguments: dict[str, str] | None = None,
    **settings: Any,
) -> Crawl:
    server.request_log.clear()
    run = scrapy_crawl(
        workdir,
        server.proxy_url,
        web.start_urls,
        name=name,
        settings={"DEDUP_DECISION_LOG": f"{name}.{DECISIONS}"} | settings,
        spider_arguments=spider_arguments,
    )
    assert run.returncode == 0, run.log[-3000:]
    assert run.stat("log_count/ERROR") == 0, run.log[-3000:]
    return Crawl(run, server.request_log.entries(), _decisions(workdir, name), workdir)


def _decisions(workdir: Path, name: str) -> list[dict[str, Any]]:
    """The decision log's lines (a line cut short by a killed crawl is left out)."""
    path = workdir / ".scrapy" / f"{name}.{DECISIONS}"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line) for line in lines if line.endswith("}")]


def _deprecations_from_dedup(log: str) -> list[str]:
    return [
        line
        for line in log.splitlines()
        if "DeprecationWarning" in line and "dedup" in line.lower()
    ]


@pytest.fixture(scope="module")
def web() -> TestWeb:
    return build_web(seed=0, scale="small")


@pytest.fixture(scope="module")
def server(web: TestWeb) -> Iterator[RunningServer]:
    with serve(web) as running:
        yield running


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="scrapy-crawl-") as scratch:
        yield Path(scratch)


@pytest.fixture(scope="module")
def filtered(server, web, workdir) -> Crawl:
    """The ground-truth crawl: filter on, one request at a time, asyncio reactor (the default)."""
    return crawl(server, web, workdir / "ordered", "filtered", CONCURRENT_REQUESTS=1)


@pytest.fixture(scope="module")
def without_errbacks(server, web, workdir) -> Crawl:
    """The same crawl, its requests carrying no errback (as most spiders')."""
    arguments = {"errback": "no"}
    return crawl(server, web, workdir / "no-errbacks", "filtered", arguments, CONCURRENT_REQUESTS=1)


@pytest.fixture(scope="module")
def unfiltered(server, web, workdir) -> Crawl:
    return crawl(server, web, workdir / "ordered", "unfiltered", DEDUP_ENABLED=False)


def test_without_the_filter_every_page_is_fetched_and_parsed(unfiltered, web):
    assert set(web.pages) <= unfiltered.parsed
    assert unfiltered.run.dedup_stats() == {}


def test_no_deprecation_warning_from_the_filter(filtered, server, web, workdir):
    assert filtered.run.stat("dedup/probes") > 0  # probes waited for: the hooks' slow path ran
    assert not _deprecations_from_dedup(filtered.run.log)
    assert all(line["time"] for line in filtered.decisions)  # every decision time-stamped


def test_errbacks_see_the_drop_and_its_decision(filtered):
    logged = {
        (d["url"], d["reason"], d["duplicate_of"])
        for d in filtered.decisions
        if d["action"] == "drop"
    }
    seen = {(item["dropped"], item["reason"], item["of"]) for item in filtered.run.dropped}
    assert {reason for _, reason, _ in seen} >= {"exact_duplicate", "near_duplicate"}
    assert seen <= logged


def test_nothing_is_fetched_twice(filtered):
    # probes and crawl requests share their fetches, whichever comes first
    assert Counter(entry.url for entry in filtered.fetched).most_common(1)[0][1] == 1
    assert filtered.run.stat("dedup/probes") > 0


def test_dropped_pages_are_fetched_but_never_parsed(filtered):
    dropped_pages = filtered.dropped.keys() & filtered.fetched_urls
    assert dropped_pages
    assert not dropped_pages & filtered.parsed
    reasons = Counter(filtered.dropped[url]["reason"] for url in dropped_pages)
    assert {"exact_duplicate", "near_duplicate"} <= reasons.keys()
    assert filtered.run.stat("dedup/bytes_not_parsed") > 0


def test_of_each_duplicate_pair_only_the_first_seen_is_parsed(filtered, web, tmp_path):
    pairs = _pairs_the_core_catches(web, tmp_path)
    assert pairs
    for duplicate, original in pairs:
        assert {duplicate, original} <= filtered.fetched_urls
        assert len({duplicate, original} & filtered.parsed) == 1, (duplicate, original)


def test_every_original_is_fetched_and_its_content_parsed(filtered, web):
    _assert_no_content_lost(filtered, web)


def test_without_errbacks_no_content_is_lost_and_nothing_is_fetched_twice(without_errbacks, web):
    """Most spiders' requests carry no errback: a drop then reaches no spider code at all."""
    assert without_errbacks.run.stat("dedup/dropped/mirrored_directory") > 0
    _assert_no_content_lost(without_errbacks, web)
    assert Counter(entry.url for entry in without_errbacks.fetched).most_common(1)[0][1] == 1


def _assert_no_content_lost(crawl: Crawl, web: TestWeb) -> None:
    for url in web.originals - crawl.fetched_urls:
        # an origin's page pruned for its copy, held first, which the spider parsed
        assert crawl.dropped[url]["reason"] == "mirrored_directory", url
        assert crawl.dropped[url]["duplicate_of"] in crawl.parsed, url
    for url in (web.originals & crawl.fetched_urls) - crawl.parsed:
        # dropped only as a copy of a page the spider did parse: no content is lost
        assert crawl.dropped[url]["duplicate_of"] in crawl.parsed, url


def test_mirrors_are_confirmed_with_their_boundaries(filtered, web):
    rules = {(rule["mirror"], rule["origin"]) for rule in filtered.rules()}
    for mirror in web.mirrors:
        if mirror.kind in {"whole_host", "renamed_subdirectory"}:
            assert mirror.boundary in rules, mirror.kind
    assert filtered.run.stat("dedup/mirror_rules") == len(rules)


def test_mirrored_directories_are_fetched_only_until_confirmed(filtered, web):
    probes = {url for decision in filtered.decisions for url in decision["probes"]}
    # a listing below a rule's own on its mirror side is fetched by design: it may name pages
    # the origin lacks (docs/mirrors.md)
    listings = {d["url"] for d in filtered.decisions if d["reason"] == Reason.LISTING}
    known_at = {  # when the crawl learned of a rule: its decision is logged once committed
        mirror: datetime.fromisoformat(decision["time"]).timestamp()
        for decision in filtered.decisions
        for mirror in decision["evidence"].get("mirrors_confirmed", ())
    }
    for rule in filtered.rules():
        for side in rule["pruned"]:  # the mirror, unless it was held first (precedence.py)
            late = {
                entry.url
                for entry in filtered.fetched
                if entry.url.startswith(rule[side])
                and entry.time > known_at[rule["mirror"]]
                and not (side == "origin" and entry.url.endswith("/"))  # they link its pages
            }
            # once a mirror is known the crawl fetches none of its pruned side but the core's
            # probes, and the request that was past its check already (one at a time here)
            assert len(late - probes - listings) <= 1, (rule[side], late - probes - listings)
    whole_host = next(mirror for mirror in web.mirrors if mirror.kind == "whole_host")
    never_fetched = whole_host.mirrored_urls - filtered.fetched_urls
    assert len(never_fetched) >= 0.9 * len(whole_host.mirrored_urls)


def test_the_filter_saves_fetches_and_bytes(filtered, unfiltered):
    assert len(filtered.fetched) < len(unfiltered.fetched)
    saved = sum(entry.bytes_sent for entry in unfiltered.fetched)
    assert sum(entry.bytes_sent for entry in filtered.fetched) < saved


def test_recrawl_keeps_unchanged_pages(filtered, server, web, workdir):
    # the same index and bytes again, on a plain Twisted reactor (not asyncio), 16 at a time
    again = crawl(server, web, workdir / "ordered", "recrawl", TWISTED_REACTOR=DEFAULT_REACTOR)
    unique_before = {
        url for url, decision in _page_decisions(filtered).items() if decision["reason"] == "unique"
    }
    seen_again = _page_decisions(again)
    refetched = unique_before & seen_again.keys()
    assert refetched
    assert {seen_again[url]["reason"] for url in refetched} == {"unchanged"}
    duplicates = {url for url, d in again.dropped.items() if d["reason"] != "mirrored_directory"}
    assert not filtered.parsed & duplicates, [
        again.dropped[u] for u in filtered.parsed & duplicates
    ]
    assert len(again.fetched) < len(filtered.fetched)  # the rules prune from the first request


def test_two_crawls_at_once_share_one_index(server, web, workdir):
    shared = workdir / "shared"
    halves = (web.start_urls[::2], web.start_urls[1::2])
    server.request_log.clear()
    running = [
        start_crawl(
            shared,
            server.proxy_url,
            urls,
            name=f"half{i}",
            settings={"DEDUP_DECISION_LOG": f"half{i}.{DECISIONS}"},
        )
        for i, urls in enumerate(halves)
    ]
    runs = [crawl_run.wait() for crawl_run in running]
    assert [run.returncode for run in runs] == [0, 0], runs[0].log[-2000:] + runs[1].log[-2000:]
    decisions = [_decisions(shared, f"half{i}") for i in range(2)]
    parsed = [set(run.parsed) for run in runs]
    # one process drops pages as copies of pages the other process indexed (a page is new to one
    # index once: a process that fetches it later finds it held); whichever crawls a page first
    # depends on the two processes' pace, so the two directions count alike
    indexed = [{d["url"] for d in half if d["reason"] == "unique"} for half in decisions]
    across = [
        d
        for mine, theirs in ((0, 1), (1, 0))
        for d in decisions[mine]
        if d["action"] == "drop" and d["duplicate_of"] in indexed[theirs]
    ]
    assert across
    dropped = {d["url"]: d for half in decisions for d in half if d["action"] == "drop"}
    rules = Crawl(runs[0], [], [], shared).rules()
    for url in web.originals:  # no content lost between the two crawls
        assert _has_parsed_copy(url, parsed[0] | parsed[1], dropped, rules), url
    assert all(run.stat("dedup/index_error") == 0 for run in runs)


def test_pending_probes_are_fetched_once_and_serve_the_spider(server, web, workdir):
    index = workdir / "pending" / "index"
    with DedupFilter.open(index) as dedup:  # a crawl that stopped with a probe outstanding
        probes: tuple[str, ...] = ()
        for url in breadth_first_order(web):
            probes = dedup.check_page(url, web.pages[url]).probes
            if probes:
                break
    assert probes
    mirror_start = next(url for url in web.start_urls if probes[0].startswith(url))
    server.request_log.clear()
    run = scrapy_crawl(
        workdir / "pending",
        server.proxy_url,
        [mirror_start],
        name="pending",
        settings={"DEDUP_INDEX_PATH": str(index), "DEPTH_LIMIT": 1},
    )
    assert run.returncode == 0, run.log[-3000:]
    assert server.request_log.urls().count(probes[0]) == 1
    assert run.stat("dedup/probes_served") >= 1  # the spider's request got the probe's response
    with DedupFilter.open(index) as dedup:
        assert probes[0] not in dedup.pending_probes()
        with dedup.index.read() as view:  # the spider followed its links: crawled, not probed
            assert not Deferrals(view).probed(probes[0])


def test_invalid_configuration_fails_at_start_in_one_line(server, web, workdir):
    server.request_log.clear()
    run = scrapy_crawl(
        workdir / "bad",
        server.proxy_url,
        web.start_urls[:1],
        name="bad",
        settings={"DEDUP_OVERRIDES": {"minhash.num_perm": 85}},
    )
    reported = [line for line in run.log.splitlines() if "minhash.num_perm" in line]
    assert len(reported) == 1, run.log
    assert reported[0].endswith(
        "ERROR: dedup: the crawl does not start: DEDUP_OVERRIDES: dedup.minhash.num_perm:"
        " must be a positive multiple of minhash.features=6"
    )
    assert "Traceback" not in run.log
    assert len(server.request_log) == 0  # the crawl never started (Scrapy >= 2.19 also exits 1)
    assert run.parsed == []


def test_a_killed_crawl_loses_no_decision_it_acted_on(server, web, workdir):
    """SIGKILL mid-crawl: every decision logged, and every page the spider parsed, is in the
    index; the pages of the batch being decided were never passed on."""
    killed = workdir / "killed"
    server.request_log.clear()
    running = start_crawl(
        killed,
        server.proxy_url,
        web.start_urls,
        name="killed",
        settings={"DEDUP_DECISION_LOG": f"killed.{DECISIONS}"},
    )
    deadline = time.monotonic() + 60
    while len(_kept_pages(_decisions(killed, "killed"))) < 60 and time.monotonic() < deadline:
        time.sleep(0.05)
    children = _children(running.process.pid)  # the preparing process and its resource tracker
    running.process.send_signal(signal.SIGKILL)
    run = running.wait()
    assert run.returncode == -signal.SIGKILL  # killed mid-crawl, not after it
    deadline = time.monotonic() + 20
    while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]  # none outlives it
    decisions = _decisions(killed, "killed")
    assert set(run.parsed) <= {d["url"] for d in decisions}  # the spider saw decided pages only
    kept = _kept_pages(decisions) & web.pages.keys()
    assert len(kept) >= 60
    with DedupFilter.open(killed / INDEX) as dedup:
        again = {url: dedup.check_page(url, web.pages[url]).reason for url in sorted(kept)}
    assert set(again.values()) == {"unchanged"}, again


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _kept_pages(decisions: list[dict[str, Any]]) -> set[str]:
    """Pages the index holds under their own URL once their decision is taken."""
    return {d["url"] for d in decisions if d["reason"] in {"unique", "changed"}}


def _page_decisions(crawl: Crawl) -> dict[str, dict[str, Any]]:
    """The last check_page decision of each page (URL checks carry no token count)."""
    return {d["url"]: d for d in crawl.decisions if "tokens" in d["evidence"]}


def _has_parsed_copy(
    url: str,
    parsed: set[str],
    dropped: dict[str, dict[str, Any]],
    rules: list[dict[str, Any]],
    hops: int = 4,
) -> bool:
    """``url`` was parsed, or dropped as a copy of a page with a parsed copy, or lies under a
    mirror rule (maybe never discovered: its parents were pruned) whose counterpart has one."""
    if url in parsed:
        return True
    if hops == 0:
        return False
    if url in dropped:
        return _has_parsed_copy(dropped[url]["duplicate_of"], parsed, dropped, rules, hops - 1)
    counterparts = [
        rule["origin"] + url[len(rule["mirror"]) :]
        for rule in rules
        if url.startswith(rule["mirror"])
    ]
    return any(_has_parsed_copy(other, parsed, dropped, rules, hops - 1) for other in counterparts)


def _pairs_the_core_catches(web: TestWeb, scratch: Path) -> list[tuple[str, str]]:
    """Ground-truth duplicate pairs the core drops when it meets them alone, original first."""
    pairs = []
    for number, (duplicate, original) in enumerate(
        {**web.near_duplicates, **web.exact_duplicates}.items()
    ):
        with DedupFilter.open(scratch / f"pair{number}") as dedup:
            dedup.check_page(original, web.pages[original])
            if dedup.check_page(duplicate, web.pages[duplicate]).dropped:
                pairs.append((duplicate, original))
    return pairs
