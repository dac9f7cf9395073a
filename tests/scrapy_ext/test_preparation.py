"""Pages prepared in a process of their own give the very features the crawl's process would,
and a page that cannot be prepared fails alone."""

from __future__ import annotations

import pytest
from dedup_filter.scrapy.preparation import Preparation

from dedup_filter import Config
from dedup_filter.prepare import PagePreparer, PreparedPage

HEADERS = {"Content-Type": "text/html; charset=utf-8"}


def started(processes: int) -> Preparation:
    """A preparation whose processes are ready (pages go to them, not to this process):
    ``warm_up`` returns once they are."""
    preparation = Preparation(PagePreparer(Config.default()), processes)
    preparation.warm_up()
    assert preparation.in_processes() == bool(processes)
    return preparation


def test_a_preparing_process_gives_the_same_features(stdlib_page):
    preparation = started(processes=1)
    preparer = PagePreparer(Config.default())
    try:
        pages = [
            (f"http://a.test/{name}.html", stdlib_page(name).encode(), HEADERS)
            for name in ("heapq", "json", "difflib")
        ]
        assert preparation.prepare(pages) == [preparer.prepare(*page) for page in pages]
    finally:
        preparation.close()
    assert not preparation.in_processes()


@pytest.mark.parametrize("processes", [0, 1])
def test_a_page_that_cannot_be_prepared_fails_alone(stdlib_page, processes):
    preparation = started(processes)
    try:
        broken = (None, b"<html></html>", HEADERS)  # no URL: normalize_url raises
        fine = ("http://a.test/heapq.html", stdlib_page("heapq").encode(), HEADERS)
        outcomes = preparation.prepare([broken, fine])  # type: ignore[list-item]
    finally:
        preparation.close()
    assert isinstance(outcomes[0], Exception)
    assert isinstance(outcomes[1], PreparedPage)
