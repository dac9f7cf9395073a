"""The middleware's deferral on a real index: a URL whose counterpart's fate is unknown goes back
to the scheduler, and once its request is dropped or fetched the index forgets its wait."""

from __future__ import annotations

import pytest
from dedup_filter.scrapy import DedupMiddleware
from scrapy import Request
from scrapy.utils.misc import build_from_crawler

from dedup_filter import DedupFilter
from tests.mirrors.conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree

from .conftest import close_spider, settle


@pytest.fixture
def ruled_index(tmp_path, corpus):
    """An index holding the rule MIRROR -> ORIGIN; ``new.html`` is not held under the origin
    and waits for its counterpart, whose probe was handed out (to a crawl that stopped)."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    pages = origin | copy_tree(origin, ORIGIN, MIRROR)
    with DedupFilter.open(tmp_path / "index") as dedup:
        OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
        assert dedup.check_url(MIRROR + "new.html").probes  # its counterpart's probe is out
    return tmp_path / "index"


def test_a_deferred_url_is_forgotten_once_its_request_is_fetched(make_crawler, ruled_index):
    crawler = make_crawler(DEDUP_MAX_DEFERRALS=1)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    requeued = settle(middleware.process_request(Request(MIRROR + "new.html")))
    assert isinstance(requeued, Request)  # back to the scheduler, behind other work
    assert settle(middleware.process_request(requeued)) is None  # fetched after one deferral
    assert crawler.stats.get_value("dedup/deferrals_expired") == 1
    close_spider(crawler)
    with DedupFilter.open(ruled_index) as dedup:
        assert not dedup.any_deferred()
