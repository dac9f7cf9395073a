"""The downloader middleware: prune URLs before they are fetched, drop duplicate pages before the
spider parses them (so their links are never followed), and fetch the probes the mirror detector
asks for.

Enable it at priority 540::

    DOWNLOADER_MIDDLEWARES = {"dedup_filter.scrapy.DedupMiddleware": 540}

``process_response`` hooks run in decreasing priority, so at 540 the middleware sees bodies that
HttpCompressionMiddleware (590) has decompressed, final URLs after RedirectMiddleware (600), and
only responses that RetryMiddleware (550) did not turn into a retry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured

from .probes import ProbeOutcome, Prober
from .responses import (
    SERVED_FROM_PROBE,
    content_headers,
    drop_message,
    is_checkable,
    is_exempt,
)
from .session import DedupSession

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.internet.defer import Deferred

    from dedup_filter import Decision


class DedupMiddleware:
    """Drop URLs under mirrored directories and duplicate HTML pages (``DEDUP_*`` settings)."""

    def __init__(self, crawler: Crawler, session: DedupSession) -> None:
        self._session = session
        self._stats = session.stats
        self._prober = Prober(
            crawler, self._judge_probe, self._probe_failed, session.settings.probe_cache_size
        )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        session = DedupSession.of(crawler)
        if session is None:
            msg = "DEDUP_ENABLED is off"
            raise NotConfigured(msg)
        middleware = cls(crawler, session)
        # connected after the session's own handler, so the index is open when it runs
        crawler.signals.connect(middleware.spider_opened, signal=signals.spider_opened)
        return middleware

    def spider_opened(self) -> None:
        """Re-issue the probes an earlier crawl asked for and never answered."""
        self._prober.schedule(self._session.pending_probes())

    def process_request(self, request: Request) -> Response | Deferred[Response | None] | None:
        if is_exempt(request):
            return None
        decision = self._session.check_url(request.url)
        if decision is not None:
            self._prober.schedule(decision.probes)
            if decision.dropped:
                raise IgnoreRequest(
                    drop_message(request.url, decision.reason, decision.duplicate_of)
                )
            if decision.deferred and decision.duplicate_of is not None:
                counterpart = self._prober.wait_for(request.replace(url=decision.duplicate_of))
                if counterpart is not None:
                    # its counterpart is being probed: decide again once its fate is known;
                    # otherwise it is fetched (only a fetch keeps its content)
                    return counterpart.addCallback(lambda _: self.process_request(request))
        waiting = self._prober.wait_for(request)
        if waiting is not None:
            # the probe of this URL is in flight: decide again once it has landed
            return waiting.addCallback(lambda _: self.process_request(request))
        outcome = self._prober.take(request)
        if outcome is not None:
            return self._serve(request, outcome)
        self._prober.crawl_request_sent(request)
        return None

    def process_response(self, request: Request, response: Response) -> Response:
        if is_exempt(request) or request.meta.get(SERVED_FROM_PROBE):
            return response
        if not is_checkable(request, response):
            self._prober.crawl_response(request, response.status, judged=False)
            return response
        decision = self._check(response)
        self._prober.crawl_response(request, response.status, judged=decision is not None)
        if decision is not None and decision.dropped:
            self._stats.inc_value("dedup/bytes_not_parsed", len(response.body))
            raise IgnoreRequest(drop_message(response.url, decision.reason, decision.duplicate_of))
        return response

    def process_exception(self, request: Request, exception: Exception) -> None:
        if not is_exempt(request):
            self._prober.crawl_response(request, None, judged=False)

    def _check(self, response: Response) -> Decision | None:
        decision = self._session.check_page(response.url, response.body, content_headers(response))
        if decision is not None:
            self._prober.schedule(decision.probes)
        return decision

    def _judge_probe(self, request: Request, response: Response) -> Decision | None:
        if not is_checkable(request, response):
            self._probe_failed(request.url, response.status)
            return None
        return self._check(response)

    def _probe_failed(self, url: str, status: int | None) -> None:
        decision = self._session.probe_failed(url, status)
        if decision is not None:
            self._prober.schedule(decision.probes)

    def _serve(self, request: Request, outcome: ProbeOutcome) -> Response:
        """The probed response in place of a second fetch (or the probe's drop)."""
        self._stats.inc_value("dedup/probes_served")
        decision = outcome.decision
        if decision is not None and decision.dropped:
            self._stats.inc_value("dedup/bytes_not_parsed", len(outcome.response.body))
            raise IgnoreRequest(drop_message(request.url, decision.reason, decision.duplicate_of))
        request.meta[SERVED_FROM_PROBE] = True
        return outcome.response.replace(request=request)
