"""The index's worker thread: decisions in arrival order, pages that wait grouped into one
transaction, and the reactor thread kept off the index while the worker writes."""

from __future__ import annotations

from collections.abc import Iterator
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
    decision = settle(worker.call(lambda dedup: dedup.check_url("http://a.test/x.html")))
    assert decision.reason == "not_mirrored"
