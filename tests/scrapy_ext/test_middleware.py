"""DedupMiddleware on real crawler objects and a real index: which responses it judges, and how."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from dedup_filter.scrapy import DedupDupeFilter, DedupMiddleware
from dedup_filter.scrapy.responses import past_the_dupefilter
from scrapy import Request
from scrapy.core.downloader.middleware import DownloaderMiddlewareManager
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response, TextResponse
from scrapy.utils.misc import build_from_crawler
from twisted.internet.defer import Deferred

from dedup_filter import Decision, DedupFilter, IndexMismatchError, IndexStoreError
from dedup_filter.decision import Reason

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

from .conftest import close_spider, html_response, open_spider, settle, stamped


def test_unique_page_reaches_the_spider(middleware, crawler, stdlib_page):
    response = html_response("http://a.test/heapq.html", stdlib_page("heapq"))
    assert settle(middleware.process_response(response.request, response)) is response
    assert crawler.stats.get_value("dedup/pages_checked") == 1
    assert crawler.stats.get_value("dedup/kept/unique") == 1


@pytest.mark.parametrize(
    ("second_url", "reason"),
    [
        # beside the original: a duplicate elsewhere has its links followed, which needs the
        # engine of a running crawl (tests/scrapy_ext/test_duplicate_links_crawl.py)
        ("http://a.test/heapq.html?print=1", "exact_duplicate"),
        ("http://a.test/heapq-stamped.html", "near_duplicate"),
    ],
)
def test_duplicate_never_reaches_the_spider(middleware, crawler, stdlib_page, second_url, reason):
    original = html_response("http://a.test/heapq.html", stdlib_page("heapq"))
    settle(middleware.process_response(original.request, original))
    body = (
        stdlib_page("heapq")
        if reason == "exact_duplicate"
        else stamped(stdlib_page("heapq"), "12:01")
    )
    duplicate = html_response(second_url, body)
    with pytest.raises(IgnoreRequest, match=f"{reason} of http://a.test/heapq.html"):
        settle(middleware.process_response(duplicate.request, duplicate))
    assert crawler.stats.get_value(f"dedup/dropped/{reason}") == 1
    assert crawler.stats.get_value("dedup/bytes_not_parsed") == len(duplicate.body)


def test_recrawl_of_the_same_url_is_unchanged(middleware, crawler, stdlib_page):
    for _ in range(2):
        response = html_response("http://a.test/heapq.html", stdlib_page("heapq"))
        assert settle(middleware.process_response(response.request, response)) is response
    assert crawler.stats.get_value("dedup/kept/unchanged") == 1


def _not_judged() -> list[tuple[str, Response]]:
    body = b"<html><body>" + b"word " * 200 + b"</body></html>"
    url = "http://a.test/page.html"
    exempt = html_response(url, body)
    exempt.request.meta["dont_dedup"] = True
    return [
        ("404", html_response(url, body, status=404)),
        ("HEAD", html_response(url, body, method="HEAD")),
        ("robots.txt", html_response("http://a.test/robots.txt", body)),
        ("plain text", TextResponse(url, body=body, request=Request(url))),
        ("binary", Response(url, body=body, request=Request(url))),
        ("dont_dedup", exempt),
    ]


@pytest.mark.parametrize(
    ("case", "response"), _not_judged(), ids=[case for case, _ in _not_judged()]
)
def test_responses_passed_untouched(middleware, crawler, case, response):
    for _ in range(2):  # twice: a judged page would be dropped the second time round
        assert settle(middleware.process_response(response.request, response)) is response
    assert crawler.stats.get_value("dedup/pages_checked") is None


def test_unpruned_url_is_fetched(middleware, crawler):
    assert settle(middleware.process_request(Request("http://a.test/x/page.html"))) is None
    assert crawler.stats.get_value("dedup/urls_checked") == 1


def test_exempt_requests_are_not_checked(middleware, crawler):
    settle(middleware.process_request(Request("http://a.test/robots.txt")))
    settle(middleware.process_request(Request("http://a.test/x.html", meta={"dont_dedup": True})))
    settle(middleware.process_request(Request("http://a.test/y.html", meta={"dedup_probe": True})))
    assert crawler.stats.get_value("dedup/urls_checked") is None


def test_decision_log_has_one_line_per_check(make_crawler, tmp_path, stdlib_page):
    log = tmp_path / "decisions.jsonl"
    crawler = make_crawler(DEDUP_DECISION_LOG=str(log))
    middleware = build_from_crawler(DedupMiddleware, crawler)
    open_spider(crawler)
    settle(middleware.process_request(Request("http://a.test/heapq.html")))
    for url in ("http://a.test/heapq.html", "http://a.test/heapq.html?print=1"):
        response = html_response(url, stdlib_page("heapq"))
        with contextlib.suppress(IgnoreRequest):
            settle(middleware.process_response(response.request, response))
    close_spider(crawler)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    times = [datetime.fromisoformat(line["time"]) for line in lines]
    assert times == sorted(times)
    assert all(time.tzinfo == UTC for time in times)
    assert [(line["url"], line["reason"]) for line in lines] == [
        ("http://a.test/heapq.html", "not_mirrored"),
        ("http://a.test/heapq.html", "unique"),
        ("http://a.test/heapq.html?print=1", "exact_duplicate"),
    ]
    assert lines[2]["duplicate_of"] == "http://a.test/heapq.html"


def test_disabled_middleware_is_not_configured(make_crawler):
    with pytest.raises(NotConfigured):
        build_from_crawler(DedupMiddleware, make_crawler(DEDUP_ENABLED=False))


def test_store_failure_passes_pages_through(middleware, crawler, stdlib_page, caplog, monkeypatch):
    def fail(*args: object) -> None:
        msg = "LMDB write failed: No space left on device"
        raise IndexStoreError(msg)

    monkeypatch.setattr(DedupFilter, "check_prepared", fail)
    for url in ("http://a.test/heapq.html", "http://b.test/heapq.html"):
        response = html_response(url, stdlib_page("heapq"))
        assert settle(middleware.process_response(response.request, response)) is response
    assert crawler.stats.get_value("dedup/index_error") == 2
    logged = [r.getMessage() for r in caplog.records if "index failure" in r.getMessage()]
    assert len(logged) == 1
    assert "goes on unfiltered" in logged[0]


def test_index_built_with_other_parameters_stops_the_crawl_at_start(make_crawler, caplog):
    first = make_crawler(DEDUP_OVERRIDES={"simhash.bits": 64, "simhash.bands": 4})
    build_from_crawler(DedupMiddleware, first)
    close_spider(first)
    with pytest.raises(IndexMismatchError):
        build_from_crawler(DedupMiddleware, make_crawler())
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1
    assert errors[0].startswith("dedup: the crawl does not start: index at ")


def test_index_is_created_under_the_given_path(middleware, tmp_path: Path):
    assert (tmp_path / "index" / "data.mdb").exists()


def test_a_full_index_fails_open_and_the_crawl_goes_on(make_crawler, stdlib_page):
    crawler = make_crawler(DEDUP_OVERRIDES={"index.map_size_mb": 1, "index.max_map_size_mb": 1})
    middleware = build_from_crawler(DedupMiddleware, crawler)
    open_spider(crawler)
    page = stdlib_page("heapq")
    for number in range(3000):  # distinct pages until the 1 MB map cannot hold another batch
        url = f"http://host{number}.test/heapq.html"
        response = html_response(url, stamped(page, f"edition {number} " * 40 + url * 20))
        assert settle(middleware.process_response(response.request, response)) is response
        if crawler.stats.get_value("dedup/index_error"):
            break
    assert crawler.stats.get_value("dedup/index_error") == 1
    close_spider(crawler)


@pytest.mark.parametrize("probed", [False, True], ids=["unprobed", "probed_meanwhile"])
@pytest.mark.parametrize(
    ("status", "refused"), [(200, True), (404, True), (410, True), (503, False), (301, False)]
)
def test_the_filters_own_repeat_of_an_answered_url_is_not_fetched(
    middleware, crawler, stdlib_page, status, refused, probed
):
    """A page fetched back, or a deferred request, whose URL a first request got already (a
    page judged, a 404): a second fetch tells nothing new, also where that answer settled a
    probe the mirror detector asked for meanwhile. A status that may change is asked again,
    and so is a spider's own second request."""
    url = "http://a.test/heapq.html"
    first = html_response(url, stdlib_page("heapq"), status=status)
    assert settle(middleware.process_request(first.request)) is None  # sent: in flight
    if probed:  # as the mirror detector asks for a sample: the crawl's answer will do
        middleware._prober.schedule([url])
    settle(middleware.process_response(first.request, first))
    repeats = [
        Request(url, dont_filter=True, meta={"dedup_fetch_back": True}),
        Request(url, dont_filter=True, meta={"dedup_deferrals": 3}),
    ]
    for repeat in repeats:
        if refused:
            with pytest.raises(IgnoreRequest, match="url_fetched"):
                settle(middleware.process_request(repeat))
        else:
            assert settle(middleware.process_request(repeat)) is None
            again = first.replace(request=repeat)  # the same status again
            settle(middleware.process_response(repeat, again))
    assert crawler.stats.get_value("dedup/dropped/url_fetched") == (2 if refused else None)
    for spiders_own in (Request(url), Request(url, dont_filter=True)):
        assert settle(middleware.process_request(spiders_own)) is None


@pytest.mark.parametrize("probed", [False, True], ids=["unprobed", "probed_meanwhile"])
@pytest.mark.parametrize(
    ("status", "refused"), [(301, True), (308, True), (302, False), (307, False)]
)
def test_the_filters_own_repeat_of_a_url_the_crawl_was_redirected_from(
    middleware, crawler, stdlib_page, status, refused, probed
):
    """A stand-in or a deferred request of a URL whose crawl request a permanent redirect sent
    to a page the crawl got: a second fetch would get the redirect and land there again (a
    holdout web's stand-ins of moved chapters' old URLs fetched each 301 twice). So too when
    the mirror detector asked for the URL while the crawl's request was in flight, and that
    answer settled its probe (the fifteenth holdout web with 301s fetched a moved guide page's
    301 twice so). A temporary redirect may land elsewhere next time: it is asked again."""
    moved, landed = "http://a.test/heapq.html", "http://a.test/heapq.v2.html"
    assert settle(middleware.process_request(Request(moved))) is None
    if probed:  # as the mirror detector asks for a sample: the crawl's answer will do
        middleware._prober.schedule([moved])
    arrived = html_response(landed, stdlib_page("heapq"))
    followed = arrived.request.replace(
        meta={"redirect_urls": [moved], "redirect_reasons": [status]}
    )
    settle(middleware.process_response(followed, arrived.replace(request=followed)))
    repeat = Request(moved, dont_filter=True, meta={"dedup_fetch_back": True})
    if refused:
        with pytest.raises(IgnoreRequest, match="url_fetched"):
            settle(middleware.process_request(repeat))
    else:
        assert settle(middleware.process_request(repeat)) is None


def test_the_filters_own_repeat_waits_for_the_request_in_flight_for_its_url(
    middleware, crawler, stdlib_page
):
    """A page fetched back and a stand-in for it may be asked for at once: the repeat waits for
    the request in flight, and is refused once that one got the page (not fetched twice)."""
    url = "http://a.test/heapq.html"
    first = Request(url)
    assert settle(middleware.process_request(first)) is None  # sent: in flight
    repeat = Deferred.fromCoroutine(
        middleware.process_request(Request(url, dont_filter=True, meta={"dedup_fetch_back": True}))
    )
    settle(_turns(5))
    assert not repeat.called  # waits for the first
    response = html_response(url, stdlib_page("heapq"))
    settle(middleware.process_response(first, response.replace(request=first)))
    with pytest.raises(IgnoreRequest, match="url_fetched"):
        settle(repeat)


def test_a_repeat_whose_url_stays_in_flight_is_sent_on_after_two_waits(
    middleware, crawler, monkeypatch
):
    """A request in flight that never comes back never keeps the filter's own repeat of its URL,
    and so the crawl, waiting for ever: after two waits it is sent on (a second fetch at worst)."""
    monkeypatch.setattr("dedup_filter.scrapy.middleware._REPEAT_WAIT_S", 0.05)
    url = "http://a.test/heapq.html"
    assert settle(middleware.process_request(Request(url))) is None  # in flight, never back
    repeat = Request(url, dont_filter=True, meta={"dedup_fetch_back": True})
    waiting = Deferred.fromCoroutine(middleware.process_request(repeat))
    settle(_turns(3))
    assert not waiting.called  # it waits for the first
    settle(_turns(20))
    assert waiting.called
    assert settle(waiting) is None  # sent on
    assert crawler.stats.get_value("dedup/repeat_waits_given_up") == 1


_REFRESHING = '<html><head><meta http-equiv="refresh" content="0;url=index.html"></head></html>'


@pytest.mark.parametrize("leads_on", ["meta_refresh", "redirect"])
def test_where_a_probed_page_leads_the_crawl_is_fetched_and_judged(
    make_crawler, stdlib_page, leads_on
):
    """A probe's response served to the crawl's request may send the crawl on (a meta refresh;
    a 301, which the probe did not follow): the page it leads to is a fetch of its own, judged
    like any other. Flagged on the request, the probe's answer passed that page to the spider
    unjudged and left its URL in flight for ever (the twelfth holdout web's frame pages: the
    index pages they refresh to were never judged, and a probe of one waited for the crawl's
    answer until the crawl was killed). A 301 so served is the crawl's to follow: the filter's
    own repeat of its URL is not fetched, even before the page it leads to is back (the
    fifteenth holdout web with 301s fetched one twice). Scrapy's own middleware chain,
    downloads answered here."""
    chain_settings = {
        "dedup_filter.scrapy.DedupMiddleware": 540,
        "scrapy.downloadermiddlewares.offsite.OffsiteMiddleware": None,  # wants a spider
    }
    crawler = make_crawler(DOWNLOADER_MIDDLEWARES=chain_settings)
    chain = DownloaderMiddlewareManager.from_crawler(crawler)
    middleware = next(mw for mw in chain.middlewares if isinstance(mw, DedupMiddleware))
    frame, index = "http://a.test/api/frame_main.html", "http://a.test/api/index.html"

    async def download(request: Request) -> Response:
        if request.url == index:
            return html_response(index, stdlib_page("heapq")).replace(request=request)
        if leads_on == "redirect":
            return Response(frame, status=301, headers={"Location": index}, request=request)
        return html_response(frame, _REFRESHING).replace(request=request)

    crawler.engine = _Downloader(download)
    open_spider(crawler)
    middleware._prober.schedule([frame])  # as the mirror detector asks for a sample
    settle(middleware._prober.landed(5.0))
    led_on = settle(chain.download_async(download, Request(frame)))  # served the probe's answer
    assert isinstance(led_on, Request)
    assert led_on.url == index
    if leads_on == "redirect":  # the crawl follows the probe's 301 now: its URL is answered
        stand_in = Request(frame, dont_filter=True, meta={"dedup_fetch_back": True})
        with pytest.raises(IgnoreRequest, match="url_fetched"):
            settle(middleware.process_request(stand_in))
    landed = settle(chain.download_async(download, led_on))
    assert landed.url == index
    assert "dedup_probe_answer" not in landed.flags
    assert crawler.stats.get_value("dedup/kept/unique") == 1  # the index page, judged
    fetch_back = Request(index, dont_filter=True, meta={"dedup_fetch_back": True})
    with pytest.raises(IgnoreRequest, match="url_fetched"):  # answered, not in flight
        settle(middleware.process_request(fetch_back))


@pytest.mark.parametrize("in_flight", [False, True])
def test_a_probed_duplicate_pruned_before_its_fetch_has_its_own_links_followed(
    make_crawler, stdlib_page, monkeypatch, in_flight
):
    """A probe brings a page that is dropped as the duplicate of a page in another directory,
    whose links it may not share; a rule then prunes the crawl's request for it before its fetch.
    The probe's answer stands for that fetch (the scheduler's dupefilter leaves the request to
    the middleware, which serves it): the links only it names are requested. Dropped
    unserved, it left them unreached (the fifth holdout web's depth-first crawl lost a Python
    guide's symbol index so). ``in_flight``: the rule prunes the request while the probe is
    still out, which it waits for (the fourth helper's web, depth first: the only page linking
    two language editions of an Apache manual page was pruned so, and both were lost)."""
    crawler = make_crawler()
    middleware = build_from_crawler(DedupMiddleware, crawler)
    held, probed = "http://a.test/lib/heapq.html", "http://b.test/docs/heapq.html"
    page = stdlib_page("heapq")
    only_here = page.replace("</body>", '<a href="only-here.html">more</a></body>')
    answers = {held: page, probed: only_here}
    probe_out: Deferred[None] = Deferred()

    async def download(request: Request) -> Response:
        if in_flight and request.url == probed:
            await probe_out
        return html_response(request.url, answers[request.url]).replace(request=request)

    crawler.engine = _Downloader(download)
    open_spider(crawler)
    first = html_response(held, page)
    settle(middleware.process_response(first.request, first))
    middleware._prober.schedule([probed])  # as the mirror detector asks for a sample
    if not in_flight:
        settle(middleware._prober.landed(5.0))
        assert crawler.stats.get_value("dedup/dropped/near_duplicate") == 1
    ruled = Decision(  # a rule paired the two directories since
        probed,
        "drop",
        Reason.MIRRORED_DIRECTORY,
        duplicate_of=held,
        evidence={"mirror_rule": {"mirror": "http://b.test/docs/", "origin": "http://a.test/lib/"}},
    )

    async def check_url(request: Request) -> Decision:
        return ruled

    monkeypatch.setattr(middleware._session, "check_url", check_url)
    monkeypatch.setattr(middleware._session, "check_url_now", lambda request: ruled)
    dupefilter = build_from_crawler(DedupDupeFilter, crawler)
    assert not dupefilter.request_seen(Request(probed))  # left to the middleware
    decided = Deferred.fromCoroutine(middleware.process_request(Request(probed)))
    probe_out.callback(None)
    with pytest.raises(IgnoreRequest):
        settle(decided)
    assert crawler.stats.get_value("dedup/dropped/near_duplicate") == 1
    assert dupefilter.request_seen(Request("http://b.test/docs/bisect.html"))  # no probe: pruned
    assert "http://b.test/docs/only-here.html" in {r.url for r in crawler.engine.crawled}


class _Downloader:
    """The engine's ``download_async`` (probes answered by ``download``) and ``crawl`` (the
    requests the filter queues, kept)."""

    def __init__(self, download: Callable[[Request], Awaitable[Response]]) -> None:
        self.download_async = download
        self.crawled: list[Request] = []

    def crawl(self, request: Request) -> None:
        self.crawled.append(request)


async def _turns(count: int) -> None:
    """Let the reactor turn ``count`` times."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    for _ in range(count):
        await deferLater(reactor, 0.01, lambda: None)


@pytest.mark.parametrize("spiders_own", [False, True])
def test_a_repeat_a_redirect_moved_goes_back_through_the_dupefilter(
    middleware, crawler, spiders_own
):
    """The filter sends its repeats (deferrals, fetches back) past the dupefilter, and a
    redirect copies that to the URL it lands on: that URL goes back to the scheduler with the
    request's own ``dont_filter``, so a page the crawl queued or got under it is not fetched
    again. A repeat not redirected is decided as before."""
    moved, landed = "http://a.test/guide", "http://a.test/guide/"
    repeat = past_the_dupefilter(
        Request(moved, dont_filter=spiders_own), meta={"dedup_deferrals": 2, "depth": 3}
    )
    assert repeat.dont_filter
    assert settle(middleware.process_request(repeat)) is None  # its own URL: fetched
    redirected = repeat.replace(url=landed)  # as RedirectMiddleware builds it
    redirected.meta["redirect_urls"] = [moved]
    again = settle(middleware.process_request(redirected))
    assert isinstance(again, Request)
    assert (again.url, again.dont_filter) == (landed, spiders_own)
    assert again.meta == {"depth": 3, "redirect_urls": [moved]}
    assert settle(middleware.process_request(again)) is None  # now a request like any other
    assert crawler.stats.get_value("dedup/redirected_repeats") == 1


def test_a_repeat_of_a_url_never_answered_is_fetched(middleware, crawler):
    repeat = Request("http://a.test/x.html", dont_filter=True, meta={"dedup_fetch_back": True})
    assert settle(middleware.process_request(repeat)) is None
    assert crawler.stats.get_value("dedup/dropped/url_fetched") is None


def test_a_probe_answered_with_a_redirect_tells_the_core_where_it_sends(
    middleware, crawler, monkeypatch
):
    """Probes do not follow redirects: a 301's ``Location`` goes to the core with its status,
    which tells a page moved from a page its side lacks (docs/mirrors.md, point 60)."""
    reported: list[tuple[str, int | None, str | None]] = []

    async def probe_failed(url, status, location=None):
        reported.append((url, status, location))

    monkeypatch.setattr(middleware._session, "probe_failed", probe_failed)
    url = "http://a.test/guide/install.html"
    moved = Response(url, status=301, headers={"Location": "install.v2.html"})
    probe = Request(url, meta={"dedup_probe": True, "dont_redirect": True})
    assert settle(middleware._judge_probe(probe, moved.replace(request=probe))) is None
    assert reported == [(url, 301, "install.v2.html")]
