"""Rules survive restarts, several processes detect against one index, decisions are repeatable."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from dedup_filter import Config, DedupFilter

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree, interleave


def whole_host_crawl(path: Path, pages: dict[str, bytes]) -> list[str]:
    with DedupFilter(DedupFilter.open(path).index, Config.default(), clock=lambda: 1.0) as dedup:
        order = interleave(breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR))
        crawl = OnlineCrawl(dedup, pages).visit(order)
        return [decision.to_json() for decision in crawl.decisions.values()]


def test_rules_survive_a_restart(tmp_path, origin_tree):
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    whole_host_crawl(tmp_path / "index", pages)
    with DedupFilter.open(tmp_path / "index") as reopened:
        assert [rule["mirror"] for rule in reopened.mirror_rules()] == [MIRROR]
        verdict = reopened.check_url(MIRROR + "extra/wave.html")
        assert (verdict.reason, verdict.duplicate_of) == (
            "mirrored_directory",
            ORIGIN + "extra/wave.html",
        )
        assert not reopened.check_url(ORIGIN + "extra/wave.html").dropped


def test_the_same_crawl_gives_the_same_decisions(tmp_path, origin_tree):
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    assert whole_host_crawl(tmp_path / "first", pages) == whole_host_crawl(
        tmp_path / "second", pages
    )


def test_replaying_a_crawl_changes_no_rule_and_drops_no_origin_page(tmp_path, origin_tree):
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    whole_host_crawl(tmp_path / "index", pages)
    with DedupFilter.open(tmp_path / "index") as dedup:
        rules = dedup.mirror_rules()
        replay = [dedup.check_page(url, body) for url, body in pages.items()]
        assert dedup.mirror_rules() == rules
    assert [d.url for d in replay if d.dropped and d.url.startswith(ORIGIN)] == []
    assert {d.reason for d in replay if d.url.startswith(ORIGIN)} == {"unchanged"}


def _check_mirror(path: str, pages: dict[str, bytes], urls: list[str], results) -> None:
    with DedupFilter.open(path) as dedup:
        crawl = OnlineCrawl(dedup, pages).visit(urls)
        results.put(
            [(url, decision.action, decision.reason) for url, decision in crawl.decisions.items()]
        )


def test_two_processes_detect_one_mirror_against_one_index(tmp_path, origin_tree):
    path = str(tmp_path / "index")
    mirror = copy_tree(origin_tree, ORIGIN, MIRROR)
    with DedupFilter.open(path) as dedup:
        OnlineCrawl(dedup, origin_tree).visit(breadth_first(origin_tree, ORIGIN))
    context = multiprocessing.get_context("fork")  # no index is open in this process meanwhile
    results = context.Queue()
    orders = [breadth_first(mirror, MIRROR), [MIRROR, *reversed(breadth_first(mirror, MIRROR))]]
    workers = [
        context.Process(target=_check_mirror, args=(path, origin_tree | mirror, order, results))
        for order in orders
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=60) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    with DedupFilter.open(path) as dedup:
        assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
            (MIRROR, ORIGIN)
        ]
        with dedup.index.read() as view:
            assert view.count("pages") == len(origin_tree)  # no mirror page was indexed
    reasons = {reason for outcome in outcomes for _, _, reason in outcome}
    assert reasons <= {"mirror_candidate", "exact_duplicate", "mirrored_directory"}


def test_a_rule_another_process_confirms_is_seen_by_a_reader_that_read_before(
    tmp_path, origin_tree
):
    """A reader reuses what it read of the rules until a commit changes them (``rules_memo``),
    and a commit of another process is one too."""
    path = str(tmp_path / "index")
    mirror = copy_tree(origin_tree, ORIGIN, MIRROR)
    url = MIRROR + "extra/wave.html"
    with DedupFilter.open(path) as dedup:
        OnlineCrawl(dedup, origin_tree).visit(breadth_first(origin_tree, ORIGIN))
        assert dedup.check_url(url).reason == "not_mirrored"
        context = multiprocessing.get_context("spawn")  # this process holds the index open
        results = context.Queue()
        crawl = (path, origin_tree | mirror, breadth_first(mirror, MIRROR), results)
        worker = context.Process(target=_check_mirror, args=crawl)
        worker.start()
        results.get(timeout=120)
        worker.join(timeout=60)
        assert worker.exitcode == 0
        verdict = dedup.check_url(url)
    assert (verdict.reason, verdict.duplicate_of) == (
        "mirrored_directory",
        ORIGIN + "extra/wave.html",
    )
