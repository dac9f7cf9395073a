"""The prober's bookkeeping on a real crawler (no crawl runs: a probe that reaches the downloader
fails the test): which probes are fetched, and which are answered by what the crawl got."""

from __future__ import annotations

from dedup_filter.scrapy.probes import Prober
from scrapy import Request

from dedup_filter import Decision
from dedup_filter.decision import Reason

from .conftest import html_response, settle

DUPLICATE = "http://docs.test/guide/index.html"
HELD = "http://docs.test/guide/"


def test_a_probe_of_a_page_the_crawl_got_and_dropped_is_judged_again_unfetched(make_crawler):
    """A page dropped as a duplicate is not held under its URL, so the core may ask to probe it
    (a replacement probe, an alias's canonical URL): it is judged again from the crawl's
    response, and the spider's later request for it gets that outcome."""
    crawler = make_crawler()
    crawler.engine = _NoDownloads()
    judged: list[str] = []

    async def judge(request, response):
        judged.append(response.url)
        return Decision(response.url, "drop", Reason.EXACT_DUPLICATE, HELD)

    prober = Prober(crawler, judge, lambda url, status, location: None, cache_size=8)
    crawl_request = Request(DUPLICATE)
    prober.crawl_response(crawl_request, 200, judged=True)
    prober.crawl_dropped(crawl_request, html_response(DUPLICATE, "<p>The guide</p>"))
    prober.schedule([DUPLICATE])
    settle(prober.landed(5.0))
    assert judged == [DUPLICATE]
    assert crawler.stats.get_value("dedup/probes_answered_by_crawl") == 1
    assert crawler.stats.get_value("dedup/probes") is None  # nothing fetched
    outcome = prober.take(Request(DUPLICATE))
    assert outcome is not None
    assert outcome.decision.duplicate_of == HELD
    prober.schedule([DUPLICATE])  # asked once more: the page was handed out, so it is fetched
    assert crawler.stats.get_value("dedup/probes") == 1


def test_a_url_the_crawl_was_redirected_from_answers_with_its_status(make_crawler):
    """A URL answered 301 never answers with a page: a URL deferred for it learns that at
    once (``crawl_failure``), a probe of it is reported failed unfetched, and, the crawl having
    followed it, a second request of it would only land there again (``answered``)."""
    crawler = make_crawler()
    prober, failed = _reporting_failures(crawler)
    moved, landed = "http://docs.test/guide", "http://docs.test/guide/"
    prober.crawl_request_sent(Request(moved))
    assert prober.crawl_failure(moved) is None
    redirected = Request(landed, meta={"redirect_urls": [moved], "redirect_reasons": [301]})
    prober.crawl_response(redirected, 200, judged=True)
    assert prober.crawl_failure(moved) == 301
    assert prober.crawl_failure(landed) is None
    assert prober.answered(Request(moved))
    assert prober.answered(Request(landed))
    assert prober.redirected_to(moved) == landed  # a page moved, or a page lacked: the core tells
    prober.schedule([moved])
    assert failed == [(moved, 301, landed)]
    assert crawler.stats.get_value("dedup/probes") is None  # nothing fetched


def test_a_page_whose_meta_refresh_the_crawl_followed_answers_as_a_temporary_redirect(
    make_crawler,
):
    """Scrapy's MetaRefreshMiddleware follows a page's refresh before the page reaches the
    filter: the request it makes is the page's only trace. A probe of the page is reported as a
    302 to where it refreshes, unfetched; the nineteenth holdout web's texinfo nodes that
    refresh to another node were fetched a second time as probes (8-15 a crawl). Being no
    permanent redirect, the page is no answer a repeat may rely on."""
    crawler = make_crawler()
    prober, failed = _reporting_failures(crawler)
    node, target = "http://docs.test/news/tex/tex.html", "http://docs.test/news/tex/frames.html"
    prober.crawl_request_sent(Request(node))
    refreshed = Request(
        target, meta={"redirect_urls": [node], "redirect_reasons": ["meta refresh"]}
    )
    prober.crawl_response(refreshed, 404, judged=False)
    assert prober.crawl_failure(node) == 302
    assert prober.redirected_to(node) == target
    assert not prober.answered(Request(node))
    prober.schedule([node])
    assert failed == [(node, 302, target)]
    assert crawler.stats.get_value("dedup/probes") is None  # nothing fetched


def test_a_failure_the_core_keeps_asking_about_is_reported_a_bounded_number_of_times(
    make_crawler,
):
    """A probe the crawl got a 404 for is reported failed unfetched each time the core asks for
    it; a core whose report asked for the same URL again (a renamed copy's sample once did)
    kept the reactor reporting for ever. The reports stop after a few, counted."""
    crawler = make_crawler()
    crawler.engine = _NoDownloads()
    prober: Prober

    def report(url, status, location):  # the core asks for the URL again each time it hears
        reported.append(status)
        prober.schedule([url])

    reported: list[int | None] = []
    prober = Prober(crawler, None, report, 8)
    lacking = "http://docs.test/guide/page03.htm"
    prober.crawl_response(Request(lacking), 404, judged=False)
    prober.schedule([lacking])
    assert reported == [404] * 8
    assert crawler.stats.get_value("dedup/probe_reports_refused") == 1
    assert crawler.stats.get_value("dedup/probes") is None  # nothing fetched


def test_a_probe_whose_crawl_answer_never_comes_back_is_fetched_itself(make_crawler, monkeypatch):
    """A crawl request whose answer never reaches the filter (redirected to a URL the crawl got
    already: the dupefilter drops where it lands) must not keep a probe of its URL, and the
    mirror candidate that asked for it, waiting for ever: after a bounded wait the probe is
    fetched, and a repeat waiting on that request is let go."""
    monkeypatch.setattr("dedup_filter.scrapy.probes.CRAWL_ANSWER_WAIT_S", 0.05)
    crawler = make_crawler()
    crawler.engine = downloads = _Downloads()
    judged: list[str] = []

    async def judge(request, response):
        judged.append(response.url)
        return Decision(response.url, "keep", Reason.UNIQUE)

    prober = Prober(crawler, judge, lambda url, status, location: None, cache_size=8)
    prober.crawl_request_sent(Request(HELD))  # in flight, never back
    repeat = prober.wait_for_crawl(Request(HELD), timeout_s=30.0)
    prober.schedule([HELD])
    assert downloads.urls == []  # waits for the crawl's answer
    settle(repeat, timeout_s=5.0)  # let go when the wait expires, long before its 30 s
    settle(prober.landed(5.0))
    assert (downloads.urls, judged) == ([HELD], [HELD])
    assert crawler.stats.get_value("dedup/probes_crawl_wait_expired") == 1
    assert prober.take(Request(HELD)) is not None  # the spider's request gets it, unfetched


def test_a_probe_the_crawl_answers_in_time_is_not_fetched(make_crawler, monkeypatch):
    monkeypatch.setattr("dedup_filter.scrapy.probes.CRAWL_ANSWER_WAIT_S", 0.05)
    crawler = make_crawler()
    crawler.engine = downloads = _Downloads()
    prober = Prober(crawler, None, lambda url, status, location: None, cache_size=8)
    prober.crawl_request_sent(Request(HELD))
    prober.schedule([HELD])
    prober.crawl_response(Request(HELD), 200, judged=True)  # the core judged the crawl's page
    settle(_pause(0.2))
    assert downloads.urls == []
    assert crawler.stats.get_value("dedup/probes_crawl_wait_expired") is None


async def _pause(seconds: float) -> None:
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    await deferLater(reactor, seconds, lambda: None)


class _Downloads:
    """An engine whose downloader answers every request with a page, and lists them."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    async def download_async(self, request):
        self.urls.append(request.url)
        return html_response(request.url, "<p>The guide</p>")


def _reporting_failures(crawler) -> tuple[Prober, list[tuple[str, int | None, str | None]]]:
    """A prober that fetches nothing, and the probes it reports failed (url, status, location)."""
    crawler.engine = _NoDownloads()
    failed: list[tuple[str, int | None, str | None]] = []
    return Prober(crawler, None, lambda *failure: failed.append(failure), 8), failed


class _NoDownloads:
    """An engine whose downloader refuses every request: a probe that reaches it fails."""

    async def download_async(self, request):
        raise ConnectionRefusedError(request.url)
