"""Pages prepared in a process of their own give the very features the crawl's process would."""

from __future__ import annotations

import time

from dedup_filter.scrapy.preparation import Preparation

from dedup_filter import Config
from dedup_filter.prepare import PagePreparer

HEADERS = {"Content-Type": "text/html; charset=utf-8"}


def test_a_preparing_process_gives_the_same_features(stdlib_page):
    preparer = PagePreparer(Config.default())
    preparation = Preparation(preparer, processes=1)
    try:
        deadline = time.monotonic() + 60
        while not preparation.in_processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert preparation.in_processes()
        pages = [
            (f"http://a.test/{name}.html", stdlib_page(name).encode(), HEADERS)
            for name in ("heapq", "json", "difflib")
        ]
        assert preparation.prepare(pages) == [preparer.prepare(*page) for page in pages]
    finally:
        preparation.close()
    assert not preparation.in_processes()
