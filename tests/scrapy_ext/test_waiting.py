"""Requests held out of the scheduler while their URL waits for its counterpart, on a real index
with real crawler objects: dropped unqueued once the counterpart is held, released to the
scheduler otherwise (docs/scrapy.md, "Held requests")."""

from __future__ import annotations

import pytest
from dedup_filter.scrapy import DedupDupeFilter, DedupMiddleware
from dedup_filter.scrapy.exceptions import RequestHeld
from dedup_filter.scrapy.responses import DEFERRALS
from dedup_filter.scrapy.session import DedupSession
from scrapy import Request
from scrapy.exceptions import DontCloseSpider, IgnoreRequest
from scrapy.utils.misc import build_from_crawler

from dedup_filter import DedupFilter
from tests.mirrors.conftest import MIRROR, ORIGIN

from .conftest import Scheduled, close_spider, settle, turn_until

FRESH = "fresh.html"  # under the rule MIRROR -> ORIGIN, its counterpart neither held nor probed


def _held(make_crawler, errback=None):
    """A crawler whose dupefilter met ``MIRROR + FRESH`` (its request, with ``errback``) and
    held it while the worker wrote its wait and probed its counterpart."""
    crawler = make_crawler()
    crawler.engine = scheduled = Scheduled()
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    request = Request(MIRROR + FRESH, errback=errback)
    assert dupefilter.request_seen(request)  # not queued: held
    turn_until(lambda: crawler.stats.get_value("dedup/deferred") == 1)  # its wait is written
    assert crawler.stats.get_value("dedup/held") == 1
    assert crawler.stats.get_value("dedup/deferred/counterpart_pending") == 1
    assert list(scheduled.downloads) == [ORIGIN + FRESH]  # its counterpart is probed
    assert crawler.stats.get_value("dupefilter/filtered") is None  # not counted as a duplicate
    return crawler, scheduled, middleware


def test_a_held_url_is_dropped_unqueued_once_its_counterpart_is_held(
    make_crawler, ruled_index, stdlib_page
):
    crawler, scheduled, _ = _held(make_crawler)
    scheduled.answer(ORIGIN + FRESH, stdlib_page("fractions"))  # the probe lands: a new page
    turn_until(lambda: crawler.stats.get_value("dedup/held_dropped") == 1)
    # never queued; the probe's page is handed to the spider in its place (``crawl_instead``)
    assert [request.url for request in scheduled.requests] == [ORIGIN + FRESH]
    assert crawler.stats.get_value("dedup/dropped/mirrored_directory") == 1
    close_spider(crawler)
    with DedupFilter.open(ruled_index) as dedup:
        waiting = {decision.url for decision in dedup.settle_deferred(float("inf"))}
        assert MIRROR + FRESH not in waiting  # its wait forgotten once it was dropped


def test_a_held_request_with_an_errback_is_dropped_by_the_middleware(
    make_crawler, ruled_index, stdlib_page
):
    """The spider's errback gets the drop as any other (docs/scrapy.md, "Errbacks")."""
    crawler, scheduled, middleware = _held(make_crawler, errback=len)
    scheduled.answer(ORIGIN + FRESH, stdlib_page("fractions"))
    turn_until(lambda: crawler.stats.get_value("dedup/held_released/errback") == 1)
    released = next(request for request in scheduled.requests if request.url == MIRROR + FRESH)
    assert (released.dont_filter, released.meta[DEFERRALS], released.errback) == (True, 1, len)
    with pytest.raises(IgnoreRequest):
        settle(middleware.process_request(released))
    assert not crawler.stats.get_value("dedup/held_dropped")


def test_a_held_url_whose_counterpart_is_missing_is_released_to_be_fetched(
    make_crawler, ruled_index
):
    crawler, scheduled, middleware = _held(make_crawler)
    scheduled.answer(ORIGIN + FRESH, "<html><body>Not found</body></html>", status=404)
    turn_until(lambda: crawler.stats.get_value("dedup/held_released/kept") == 1)
    assert [request.url for request in scheduled.requests] == [MIRROR + FRESH]
    assert settle(middleware.process_request(scheduled.requests[0])) is None  # fetched


def test_held_requests_go_to_the_scheduler_when_nothing_else_is_left(make_crawler, ruled_index):
    """A counterpart whose fate never comes (its probe still out) keeps no request from its
    fetch: once the crawl is idle, the held requests are queued and the spider stays open."""
    crawler, scheduled, _ = _held(make_crawler)
    session = DedupSession.of(crawler)
    with pytest.raises(DontCloseSpider):
        session.spider_idle()
    assert [request.url for request in scheduled.requests] == [MIRROR + FRESH]
    assert crawler.stats.get_value("dedup/held_released/idle") == 1
    session.spider_idle()  # nothing held: the spider may close


def test_without_the_middleware_nothing_is_held(make_crawler, ruled_index):
    """Only the middleware probes a counterpart: a dupefilter alone queues the URL."""
    crawler = make_crawler()
    crawler.engine = Scheduled()
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    assert not dupefilter.request_seen(Request(MIRROR + FRESH))
    assert not crawler.stats.get_value("dedup/held")


def test_a_request_deferred_before_its_fetch_waits_out_of_the_queue(
    make_crawler, ruled_index, stdlib_page
):
    """Queued before its rule (the dupefilter kept it), deferred by the middleware, its
    counterpart's probe out with an earlier crawl: without an errback it leaves the downloader
    (``RequestHeld``, which no spider code sees) and waits in the room, as the dupefilter's held
    requests do, until the crawl gets its counterpart."""
    crawler = make_crawler()
    crawler.engine = scheduled = Scheduled()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    with pytest.raises(RequestHeld):
        settle(middleware.process_request(Request(MIRROR + "new.html")))
    assert crawler.stats.get_value("dedup/held") == 1
    session = DedupSession.of(crawler)
    settle(session.check_page(ORIGIN + "new.html", stdlib_page("fractions").encode(), {}))
    assert crawler.stats.get_value("dedup/held_dropped") == 1
    # the page answers the earlier crawl's probe: handed to the spider in the held URL's place
    assert [request.url for request in scheduled.requests] == [ORIGIN + "new.html"]
