"""What a paused crawl keeps in ``JOBDIR`` for its resumption: written unless the crawl finished,
read back once; a damaged file costs the fetches it would have saved, never the crawl."""

from __future__ import annotations

import logging
import pickle

import scrapy
from dedup_filter.scrapy import jobdir
from dedup_filter.scrapy.probes import ProbeOutcome, Prober
from dedup_filter.scrapy.session import DedupSession
from scrapy import Request
from scrapy.http import HtmlResponse
from twisted.internet.defer import Deferred

from dedup_filter import Decision
from dedup_filter.decision import Reason

from .conftest import html_response, settle

PAGE = "http://docs.test/guide/intro.html"
MIRROR = "http://copy.test/guide/"


def test_kept_for_a_paused_crawl_and_read_back_once(make_crawler, tmp_path):
    crawler = make_crawler(JOBDIR=str(tmp_path / "job"))
    assert jobdir.wanted(crawler, "shutdown")
    jobdir.save(crawler, "probes", {"kept": [1, 2]})
    assert jobdir.take(crawler, "probes") == {"kept": [1, 2]}
    assert jobdir.take(crawler, "probes") is None  # once: a crawl killed later fetches again


def test_nothing_is_kept_once_the_crawl_finished_or_without_a_jobdir(make_crawler, tmp_path):
    assert not jobdir.wanted(make_crawler(JOBDIR=str(tmp_path / "job")), "finished")
    without = make_crawler()
    assert not jobdir.wanted(without, "shutdown")
    jobdir.save(without, "probes", {"kept": 1})
    assert jobdir.take(without, "probes") is None


def test_a_damaged_file_is_logged_ignored_and_removed(make_crawler, tmp_path, caplog):
    crawler = make_crawler(JOBDIR=str(tmp_path / "job"))
    jobdir.save(crawler, "probes", list(range(1000)))
    kept = tmp_path / "job" / "dedup-probes.pickle"
    kept.write_bytes(kept.read_bytes()[:100])  # cut short
    with caplog.at_level(logging.WARNING):
        assert jobdir.take(crawler, "probes") is None
    assert "cannot be read" in caplog.text
    assert not kept.exists()


def test_what_another_version_of_the_filter_kept_is_ignored(make_crawler, tmp_path, caplog):
    crawler = make_crawler(JOBDIR=str(tmp_path / "job"))
    kept = tmp_path / "job" / "dedup-probes.pickle"
    kept.write_bytes(pickle.dumps(("0.0.1-older", {"kept": 1})))
    with caplog.at_level(logging.WARNING):
        assert jobdir.take(crawler, "probes") is None
    assert "written by dedup-filter 0.0.1-older" in caplog.text
    assert not kept.exists()


def test_what_a_probe_fetched_before_the_pause_serves_the_spider_after_it(make_crawler):
    crawler = make_crawler()
    paused = _prober(crawler)
    decision = Decision(PAGE, "keep", Reason.UNIQUE, evidence={"tokens": 300})
    answer = html_response(PAGE, "<html><body><p>The guide's introduction.</p></body></html>")
    key = crawler.request_fingerprinter.fingerprint(Request(PAGE))
    paused._keep(key, ProbeOutcome(answer, decision))  # as a judged probe lands
    paused._remember(paused._judged, key, None, 10)
    dropped = html_response(PAGE + "?print", "<html><body><p>The introduction.</p></body></html>")
    paused.crawl_dropped(Request(dropped.url), dropped)
    resumed = _prober(crawler)
    resumed.recall(pickle.loads(pickle.dumps(paused.memory())))  # as jobdir writes and reads it
    outcome = resumed.take(Request(PAGE))
    assert outcome is not None
    assert isinstance(outcome.response, HtmlResponse)
    assert (outcome.response.url, outcome.response.status) == (PAGE, 200)
    assert outcome.response.body == answer.body
    assert outcome.response.headers["Content-Type"] == b"text/html; charset=utf-8"
    assert outcome.decision == decision
    assert resumed.answered(Request(PAGE))  # a probe that was judged answers for its URL
    assert resumed.memory().dropped[0].body == dropped.body  # to be judged again, unfetched


def test_a_pausing_crawl_waits_for_its_probes_in_flight_a_bounded_time(make_crawler):
    prober = _prober(make_crawler())
    assert settle(prober.landed(30.0), timeout_s=1.0) is None  # none in flight: at once
    in_flight: Deferred[None] = Deferred()
    prober._fetches.add(in_flight)  # a probe that never lands
    assert settle(prober.landed(0.05), timeout_s=2.0) is None
    assert not in_flight.called  # left to land, not cancelled
    landing = prober.landed(30.0)
    in_flight.callback(None)
    assert settle(landing, timeout_s=1.0) is None


def test_the_requests_a_rule_pruned_are_asked_again_after_a_pause(make_crawler, tmp_path):
    """Should the rule stop pruning after the resumption, the pages its mirror side alone links
    are still reached (``DedupSession.requeue_unpruned``)."""
    settings = {"JOBDIR": str(tmp_path / "job")}
    paused = _crawler_with_spider(make_crawler(**settings))
    session = DedupSession.of(paused)
    pruned = Request(MIRROR + "intro.html", callback=paused.spider.parse_page, meta={"depth": 2})
    rule = {"mirror": MIRROR, "origin": "http://docs.test/guide/"}
    decision = Decision(
        pruned.url, "drop", Reason.MIRRORED_DIRECTORY, evidence={"mirror_rule": rule}
    )
    session.url_pruned(pruned, decision)
    settle(session.spider_closed("shutdown"))

    resumed = _crawler_with_spider(make_crawler(**settings))
    resumed.engine = scheduled = _Scheduled()
    session = DedupSession.of(resumed)
    session.spider_opened()
    assert resumed.stats.get_value("dedup/resumed/pruned_requests") == 1
    session.requeue_unpruned(MIRROR)
    [again] = scheduled.requests
    assert again.url == pruned.url
    assert again.callback == resumed.spider.parse_page  # the resumed spider's own method
    assert again.meta["depth"] == 2


def test_the_urls_stood_in_for_are_known_after_a_pause(make_crawler, tmp_path):
    """A stand-in went past the dupefilter ahead of the spider's own request for its URL, which
    may still be queued when the crawl is paused: after the resumption that request is still
    known for one the stand-in answered (the evaluation web's paused crawl fetched two pages
    twice so)."""
    settings = {"JOBDIR": str(tmp_path / "job")}
    paused = _crawler_with_spider(make_crawler(**settings))
    paused.engine = _Scheduled()
    session = DedupSession.of(paused)
    session.stand_in(Request(MIRROR + "lacking.html"), PAGE)
    settle(session.spider_closed("shutdown"))

    resumed = _crawler_with_spider(make_crawler(**settings))
    session = DedupSession.of(resumed)
    assert not session.stood_in(PAGE)
    session.spider_opened()
    assert session.stood_in(PAGE)


def _prober(crawler) -> Prober:
    return Prober(crawler, _never_judged, lambda url, status, location: None, cache_size=8)


async def _never_judged(request, response):
    raise AssertionError(request)


class _Spider(scrapy.Spider):
    name = "paused"

    def parse_page(self, response):
        yield {"url": response.url}


def _crawler_with_spider(crawler):
    crawler.spider = _Spider.from_crawler(crawler)
    return crawler


class _Scheduled:
    """The engine's ``crawl`` alone: the requests the session schedules (no crawl runs)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.requests.append(request)
