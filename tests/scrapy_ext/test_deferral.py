"""The middleware's deferral on a real index: a URL whose counterpart's fate is unknown goes back
to the scheduler, and once its request is dropped or fetched the index forgets its wait."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from dedup_filter.scrapy import DedupDupeFilter, DedupMiddleware
from dedup_filter.scrapy.responses import DEFER_PRIORITY_STEP, is_repeat
from dedup_filter.scrapy.session import DedupSession
from scrapy import Request
from scrapy.core.downloader import Downloader
from scrapy.core.scheduler import Scheduler
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler

from dedup_filter import Decision, DedupFilter
from dedup_filter.decision import Reason
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
    assert crawler.stats.get_value("dedup/deferred/counterpart_pending") == 1
    close_spider(crawler)
    with DedupFilter.open(ruled_index) as dedup:
        assert not dedup.any_deferred()


def test_a_deferred_url_queues_in_its_counterparts_slot_and_is_fetched_in_its_own(
    make_crawler, ruled_index
):
    """A host whose queue holds nothing but URLs waiting for another host's pages would have
    them handed out again at once by a scheduler that takes turns among hosts: each waits in
    the slot of the host whose page it awaits, and goes back to its own slot to be fetched."""
    crawler = make_crawler(DEDUP_MAX_DEFERRALS=2)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    own = Request(MIRROR + "new.html", meta={"download_slot": "mirror-pool"})
    requeued = settle(middleware.process_request(own))
    assert requeued.meta["download_slot"] == urlsplit(ORIGIN).hostname
    again = settle(middleware.process_request(requeued))
    assert again.meta["download_slot"] == urlsplit(ORIGIN).hostname
    assert settle(middleware.process_request(again)) is None  # deferrals spent: fetched
    assert again.meta["download_slot"] == "mirror-pool"
    close_spider(crawler)


def test_a_deferred_url_waits_behind_its_counterparts_host_in_a_scheduler_taking_turns(
    make_crawler, ruled_index
):
    """Scrapy's scheduler handing requests out by host in turns (``DownloaderAwarePriorityQueue``,
    the queue Scrapy recommends for broad crawls): the mirror's URL, alone in its host's queue,
    comes back only after the origin's queued pages, among them the one it awaits."""
    crawler = make_crawler(
        SCHEDULER_PRIORITY_QUEUE="scrapy.pqueues.DownloaderAwarePriorityQueue",
        DEDUP_MAX_DEFERRALS=2,
    )
    crawler.spider = crawler.spidercls.from_crawler(crawler)
    crawler.engine = _WithDownloader(Downloader(crawler))
    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    origin_pages = [Request(f"{ORIGIN}queued-{number}.html") for number in range(4)]
    for request in origin_pages:
        scheduler.enqueue_request(request)
    scheduler.enqueue_request(settle(middleware.process_request(Request(MIRROR + "new.html"))))
    handed_out = [scheduler.next_request() for _ in range(5)]
    assert {request.url for request in handed_out[:4]} == {r.url for r in origin_pages}
    assert handed_out[4].url == MIRROR + "new.html"
    scheduler.close("finished")
    close_spider(crawler)


class _WithDownloader:
    """The engine's part a scheduler reads: its downloader's slots."""

    def __init__(self, downloader: Downloader) -> None:
        self.downloader = downloader


def test_a_document_of_a_pair_being_sampled_goes_back_behind_other_work(
    make_crawler, tmp_path, corpus
):
    """The copy's index page paired it with the origin, and the pair's samples are in flight:
    its documents wait, counted by the reason they wait for (docs/mirrors.md, point 31)."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    pages = origin | copy_tree(origin, ORIGIN, MIRROR)
    with DedupFilter.open(tmp_path / "index") as dedup:
        crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, ORIGIN))
        probes = crawl.fetch(MIRROR).probes  # the samples, not answered
    document = next(url for url in breadth_first(pages, MIRROR) if url.endswith(".html"))
    assert document not in probes
    crawler = make_crawler()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    requeued = settle(middleware.process_request(Request(document)))
    assert isinstance(requeued, Request)  # back to the scheduler, behind other work
    assert crawler.stats.get_value("dedup/deferred/mirror_pending") == 1
    close_spider(crawler)


def test_a_url_to_defer_is_queued_by_the_dupefilter_and_deferred_with_its_probe(
    make_crawler, ruled_index
):
    """The dupefilter only reads the index: a URL to be deferred is queued undecided, and the
    middleware's check before the fetch writes its wait and probes its counterpart (a wait the
    dupefilter wrote lost its probe: the URL waited out its deferrals, then was fetched)."""
    crawler = make_crawler()
    crawler.engine = _Scheduled()
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    request = Request(MIRROR + "fresh.html")
    assert not dupefilter.request_seen(request)
    assert isinstance(settle(middleware.process_request(request)), Request)  # deferred
    assert crawler.stats.get_value("dedup/probes") == 1  # ORIGIN + "fresh.html"
    close_spider(crawler)


HELD_FIRST = "http://www.copy.test/pub/notes/"  # deeper than the origin: a copy, by depth alone


@pytest.fixture
def origin_pruned_index(tmp_path, corpus):
    """An index holding the rule HELD_FIRST -> ORIGIN, its copy crawled first but for one page
    (``csv.html``): the rule prunes the origin, and the origin's ``csv.html`` waits, unprobed,
    for the crawl to fetch the copy's."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, HELD_FIRST)
    with DedupFilter.open(tmp_path / "index") as dedup:
        order = [url for url in breadth_first(copy, HELD_FIRST) if not url.endswith("csv.html")]
        OnlineCrawl(dedup, origin | copy).visit([*order, ORIGIN])
        assert [rule["pruned"] for rule in dedup.mirror_rules()] == [["origin"]]
        waits = dedup.check_url(ORIGIN + "csv.html")
        assert waits.deferred
        assert not waits.probes
    return tmp_path / "index"


class _Scheduled:
    """The engine's ``crawl`` alone: the requests the middleware schedules (no crawl runs)."""

    def __init__(self) -> None:
        self.requests: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.requests.append(request)


def test_a_url_waiting_for_a_page_the_crawl_got_as_a_404_is_fetched_at_once(
    make_crawler, origin_pruned_index
):
    """The copy's ``csv.html`` came back a 404 (no page for the core to check, no probe waiting
    for it): the origin's page waiting for it reports it and is fetched, not sent back to the
    scheduler to wait for a fate the index would never learn."""
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    fetch_state = {"download_slot": "www.copy.test", "redirect_urls": [HELD_FIRST + "csv"]}
    fetch_state |= {"redirect_reasons": [301], "redirect_times": 1, "redirect_ttl": 19}
    missing = Request(HELD_FIRST + "csv.html", meta={"depth": 2, **fetch_state})
    assert settle(middleware.process_request(missing)) is None  # held first: fetched
    not_found = HtmlResponse(
        missing.url, status=404, body=b"<html>Not found</html>", request=missing
    )
    settle(middleware.process_response(missing, not_found))
    # crawled in its place: the origin's documents the copy holds are dropped unfetched
    [stand_in] = scheduled.requests
    assert (stand_in.url, stand_in.meta["depth"]) == (ORIGIN + "csv.html", 2)
    # the failed fetch's own: where it was redirected from is no URL the stand-in came from
    assert not fetch_state.keys() & stand_in.meta.keys()
    # past the dupefilter (the origin's page is queued already, waiting), ahead of what was
    # queued with it, as the filter's own repeat: not fetched if the crawl got its answer
    assert stand_in.dont_filter
    assert stand_in.priority > missing.priority
    assert is_repeat(stand_in)
    assert crawler.stats.get_value("dedup/stand_ins") == 1
    assert settle(middleware.process_request(Request(ORIGIN + "csv.html"))) is None
    assert not crawler.stats.get_value("dedup/deferred")
    close_spider(crawler)
    with DedupFilter.open(origin_pruned_index) as dedup:
        assert dedup.check_url(ORIGIN + "csv.html").reason == "counterpart_missing"


def test_the_request_queued_for_a_stand_ins_url_is_not_fetched_after_it(
    make_crawler, origin_pruned_index, stdlib_page
):
    """The stand-in went past the dupefilter, ahead of the spider's own request for its URL,
    queued before it: once the stand-in's page is judged, that request is not fetched again
    (a real crawl of the evaluation web fetched two pages twice so)."""
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    missing = Request(HELD_FIRST + "csv.html")
    settle(middleware.process_request(missing))
    not_found = HtmlResponse(missing.url, status=404, body=b"<html></html>", request=missing)
    settle(middleware.process_response(missing, not_found))
    [stand_in] = scheduled.requests
    assert settle(middleware.process_request(stand_in)) is None  # fetched
    page = HtmlResponse(stand_in.url, body=stdlib_page("csv").encode(), request=stand_in)
    settle(middleware.process_response(stand_in, page))
    with pytest.raises(IgnoreRequest):
        settle(middleware.process_request(Request(ORIGIN + "csv.html")))
    close_spider(crawler)


def test_a_download_error_on_the_kept_side_stands_in_and_a_drop_does_not(
    make_crawler, origin_pruned_index
):
    """Scrapy calls ``process_exception`` for requests a middleware ignored too (our own drops,
    offsite, robots.txt): only a failed download names a page to crawl in its place."""
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    request = Request(HELD_FIRST + "csv.html")
    settle(middleware.process_exception(request, IgnoreRequest()))
    assert scheduled.requests == []
    settle(middleware.process_exception(request, ConnectionRefusedError()))
    assert [request.url for request in scheduled.requests] == [ORIGIN + "csv.html"]


def test_a_url_dropped_for_a_probes_answer_is_crawled_as_that_page(
    make_crawler, ruled_index, stdlib_page
):
    """The counterpart arrived as a probe's answer, which the spider never parsed: the mirror's
    URL is dropped and the counterpart requested in its place (served from the probe's response),
    so what only it links is reached (its own side's pages that link it may be duplicates,
    whose links are not followed either). By the dupefilter before queueing, or the middleware
    before the fetch, whichever drops a URL for it first."""
    with DedupFilter.open(ruled_index) as dedup:
        dedup.check_page(ORIGIN + "new.html", stdlib_page("fractions").encode())
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    # the URL was checked and kept before (as of no rule), and redirected to on its way
    checked = {"dedup_url_checked": 1, "redirect_urls": [MIRROR + "new"], "redirect_times": 1}
    assert dupefilter.request_seen(Request(MIRROR + "new.html", meta={"depth": 3, **checked}))
    with pytest.raises(IgnoreRequest):
        settle(middleware.process_request(Request(MIRROR + "new.html", dont_filter=True)))
    # requested once: a second request would be filtered as queued (the crawl may have queued
    # the page itself: the first is filtered then); what belonged to the other URL is left
    assert [(r.url, r.meta, r.dont_filter) for r in scheduled.requests] == [
        (ORIGIN + "new.html", {"depth": 3}, False),
    ]
    assert crawler.stats.get_value("dedup/crawled_instead") == 1
    close_spider(crawler)


def test_the_links_of_a_page_dropped_under_a_rule_are_queued_behind_other_work(
    make_crawler, ruled_index
):
    """A mirror page dropped under the rule links a page its origin twin lacks (its counterpart
    not held: no drop) and one the origin holds (dropped): only the first is requested, one
    level deeper, with the dropped request's callback, at its priority less the deferral step,
    so that the origin's pages queued meanwhile are held before it is checked again."""
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    session = DedupSession.of(crawler)
    body = b'<html><body><a href="new.html">new</a> <a href="csv.html">csv</a></body></html>'
    dropped = Decision(
        MIRROR + "index.html", "drop", Reason.NEAR_DUPLICATE, ORIGIN, {"mirror_rule": MIRROR}
    )
    request = Request(MIRROR + "index.html", callback=len, priority=5, meta={"depth": 2})
    settle(session.follow_links(request, body, {}, dropped))
    assert [(r.url, r.priority, r.meta["depth"], r.callback) for r in scheduled.requests] == [
        (MIRROR + "new.html", 5 - DEFER_PRIORITY_STEP, 3, len)
    ]
    assert crawler.stats.get_value("dedup/links_followed") == 1
    close_spider(crawler)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_a_form_submitted_under_a_mirror_rule_is_sent(make_crawler, ruled_index, corpus, method):
    """A request other than a GET acts (a login, a search form): its answer depends on its
    body, not on its URL, so no URL rule or mirror rule drops or defers it, and the dupefilter
    judges it as Scrapy's own does; a GET of the same URL is pruned."""
    pruned = MIRROR + sorted(corpus)[0] + ".html"
    crawler = make_crawler()
    crawler.engine = _Scheduled()
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    middleware = build_from_crawler(DedupMiddleware, crawler)
    form = Request(pruned, method=method, body=b"q=heapq")
    assert not dupefilter.request_seen(form)
    assert settle(middleware.process_request(form)) is None
    assert crawler.stats.get_value("dedup/urls_checked") is None
    assert dupefilter.request_seen(Request(pruned))
    assert crawler.stats.get_value("dedup/frontier_pruned") == 1
    close_spider(crawler)
