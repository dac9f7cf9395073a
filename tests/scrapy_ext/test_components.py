"""The dupefilter, the add-on and the per-process registry of open indexes."""

from __future__ import annotations

import logging

import pytest
from dedup_filter.scrapy import DedupAddon, DedupDupeFilter, DedupMiddleware, registry
from scrapy import Request
from scrapy.dupefilters import BaseDupeFilter
from scrapy.settings import Settings
from scrapy.spiders import Spider
from scrapy.utils.misc import build_from_crawler

from dedup_filter import ConfigError

from .conftest import close_spider, open_spider


def test_dupefilter_still_filters_repeated_requests(crawler):
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    open_spider(crawler)
    seen = [
        dupefilter.request_seen(Request(url)) for url in ("http://a.test/x", "http://a.test/x#top")
    ]
    assert seen == [False, True]
    assert crawler.stats.get_value("dedup/urls_checked") == 1
    assert crawler.stats.get_value("dedup/frontier_pruned") is None


@pytest.mark.parametrize("step", [1000, 0])
def test_dupefilter_queues_index_pages_ahead_by_the_index_priority(make_crawler, step):
    crawler = make_crawler(DEDUP_INDEX_PRIORITY=step)
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    open_spider(crawler)
    urls = ["http://a.test/docs/", "http://a.test/docs/index.html", "http://a.test/docs/x.html"]
    requests = [Request(url, priority=-2) for url in [*urls, "http://a.test/docs/?C=M;O=A"]]
    assert [dupefilter.request_seen(request) for request in requests] == [False] * 4
    assert [request.priority for request in requests] == [step - 2, step - 2, -2, -2]
    assert crawler.stats.get_value("dedup/index_pages_first") == (2 if step else None)


def test_disabled_dupefilter_is_plain_rfp(make_crawler):
    crawler = make_crawler(DEDUP_ENABLED=False)
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    assert dupefilter.request_seen(Request("http://a.test/x")) is False
    assert crawler.stats.get_value("dedup/urls_checked") is None


def test_dupefilter_and_middleware_share_one_filter(crawler):
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    open_spider(crawler)
    assert dupefilter._session is middleware._session
    assert len(registry.open_paths()) == 1


def test_crawlers_of_one_process_share_the_index(make_crawler):
    first, second = make_crawler(), make_crawler()
    for crawler in (first, second):
        build_from_crawler(DedupMiddleware, crawler)
        open_spider(crawler)
    path = registry.open_paths()
    close_spider(first)
    assert registry.open_paths() == path  # still in use by the second crawler
    close_spider(second)
    assert registry.open_paths() == []


def test_one_index_cannot_serve_two_configurations_in_one_process(make_crawler):
    first = make_crawler()
    build_from_crawler(DedupMiddleware, first)
    open_spider(first)
    other = make_crawler(DEDUP_OVERRIDES={"simhash.same_site_threshold": 360})
    with pytest.raises(ConfigError, match="already open in this process"):
        build_from_crawler(DedupMiddleware, other)


def test_addon_enables_both_components():
    settings = Settings()
    DedupAddon().update_settings(settings)
    middlewares = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    assert middlewares[DedupMiddleware] == 540
    assert settings["DUPEFILTER_CLASS"] is DedupDupeFilter


def test_addon_keeps_a_custom_dupefilter(caplog):
    settings = Settings({"DUPEFILTER_CLASS": BaseDupeFilter})
    with caplog.at_level(logging.WARNING):
        DedupAddon().update_settings(settings)
    assert settings["DUPEFILTER_CLASS"] is BaseDupeFilter
    assert "mirror rules prune URLs at fetch time only" in caplog.text


def test_dupefilter_log_counts_real_duplicates(crawler):
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    open_spider(crawler)
    spider = Spider.from_crawler(crawler, name="t")
    request = Request("http://a.test/x")
    dupefilter.request_seen(request)
    assert dupefilter.request_seen(request.copy())
    dupefilter.log(request, spider)
    assert crawler.stats.get_value("dupefilter/filtered") == 1
