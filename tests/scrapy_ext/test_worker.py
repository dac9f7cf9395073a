"""The index's worker thread: decisions in arrival order, pages that wait grouped into one
transaction, the reactor thread kept off the index while the worker writes, and the deciding
process, whose decisions are the thread's own and whose death the thread takes over."""

from __future__ import annotations

from collections.abc import Iterator
from operator import methodcaller
from pathlib import Path

import pytest
from dedup_filter.scrapy.worker import IndexWorker
from twisted.internet.defer import gatherResults

from dedup_filter import Config, DedupFilter

from .conftest import settle

HEADERS = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[IndexWorker]:
    worker = IndexWorker(DedupFilter.open(tmp_path / "index", Config.default()))
    yield worker
    settle(worker.idle())
    worker.close()


def test_pages_that_wait_are_decided_together_in_order(worker, stdlib_page, monkeypatch):
    transactions: list[int] = []
    check_prepared = worker.dedup.check_prepared

    def counted(pages):
        pages = list(pages)
        transactions.append(len(pages))
        return check_prepared(pages)

    monkeypatch.setattr(worker.dedup, "check_prepared", counted)
    names = ("heapq", "json", "difflib", "heapq")
    urls = [f"http://{host}.test/{name}.html" for host, name in zip("abcd", names, strict=True)]
    pending = [
        worker.check_page(url, stdlib_page(name).encode(), HEADERS)
        for url, name in zip(urls, names, strict=True)
    ]
    decisions = settle(gatherResults(pending))
    assert [decision.url for decision in decisions] == urls
    assert [decision.reason for decision in decisions] == ["unique"] * 3 + ["exact_duplicate"]
    assert decisions[3].duplicate_of == urls[0]
    assert transactions == [1, 3]  # the first page alone, the three that waited in one commit


def test_the_reactor_thread_never_reads_while_the_worker_writes(worker):
    assert worker.check_url_now("http://a.test/x.html") is not None
    with worker._transaction:  # as the worker holds it inside a transaction
        assert worker.check_url_now("http://a.test/x.html") is None
    decision = settle(worker.call(methodcaller("check_url", "http://a.test/x.html")))
    assert decision.reason == "not_mirrored"


def decided(worker: IndexWorker, pages: list[tuple[str, bytes]]) -> list[tuple[str, str | None]]:
    """The reasons and originals of ``pages`` checked in order, then of a URL check."""
    pending = [worker.check_page(url, body, HEADERS) for url, body in pages]
    pending.append(worker.call(methodcaller("check_url", "http://a.test/x.html")))
    return [(decision.reason, decision.duplicate_of) for decision in settle(gatherResults(pending))]


@pytest.fixture
def pages(stdlib_page) -> list[tuple[str, bytes]]:
    names = ("heapq", "json", "heapq", "difflib", "json")
    return [
        (f"http://h{number}.test/{name}.html", stdlib_page(name).encode())
        for number, name in enumerate(names)
    ]


def test_a_deciding_process_takes_the_thread_s_decisions(tmp_path, pages):
    expected = []
    for processes in (0, 1, 2):  # 2: the deciding process and one that prepares its pages
        dedup = DedupFilter.open(tmp_path / f"{processes}", Config.default())
        worker = IndexWorker(dedup, processes)
        settle(worker.warmed(), timeout_s=60)
        expected.append(decided(worker, pages))
        assert (worker._deciding is not None) == bool(processes)  # the process took them
        settle(worker.idle())
        worker.close()
    in_thread, *in_processes = expected
    assert in_processes == [in_thread, in_thread]
    assert [reason for reason, _ in in_thread].count("exact_duplicate") == 2


def test_the_thread_decides_once_the_deciding_process_died(tmp_path, pages):
    worker = IndexWorker(DedupFilter.open(tmp_path / "index", Config.default()), 1)
    settle(worker.warmed(), timeout_s=60)
    assert decided(worker, pages[:2])[:2] == [("unique", None), ("unique", None)]
    worker._deciding._process.kill()  # type: ignore[union-attr]
    assert decided(worker, pages[2:])[0] == ("exact_duplicate", pages[0][0])
    assert worker._deciding is None
    settle(worker.idle())
    worker.close()


def test_work_that_does_not_pickle_is_done_in_the_crawl_s_process(tmp_path, pages):
    worker = IndexWorker(DedupFilter.open(tmp_path / "index", Config.default()), 1)
    settle(worker.warmed(), timeout_s=60)
    url, body = pages[0]
    first = worker.check_page(url, body, HEADERS)
    checked = worker.call(lambda dedup: dedup.check_url(url))  # a lambda: it cannot be sent
    assert settle(first).reason == "unique"
    assert settle(checked).reason == "not_mirrored"
    assert worker._deciding is not None  # the process goes on deciding the other batches
    settle(worker.idle())
    worker.close()
