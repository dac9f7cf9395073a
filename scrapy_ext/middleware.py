"""The downloader middleware: prune URLs before they are fetched, drop duplicate pages before the
spider parses them (so their links are never followed), and fetch the probes the mirror detector
asks for.

Enable it at priority 540::

    DOWNLOADER_MIDDLEWARES = {"dedup_filter.scrapy.DedupMiddleware": 540}

``process_response`` hooks run in decreasing priority, so at 540 the middleware sees bodies that
HttpCompressionMiddleware (590) has decompressed, final URLs after RedirectMiddleware (600), and
only responses that RetryMiddleware (550) did not turn into a retry.

The hooks are coroutines (Scrapy's current convention; a Deferred-returning hook is deprecated).
A page's decision is taken in the index's worker thread (``worker``), so the reactor goes on with
other requests while it is decided and committed.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NoReturn, Self

from scrapy import signals
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from scrapy.utils.log import failure_to_exc_info

from . import jobdir
from .exceptions import DedupIgnoreRequest
from .probes import ProbeOutcome, Prober, ProberMemory
from .responses import (
    DEFER_PRIORITY_STEP,
    DEFERRALS,
    SERVED_FROM_PROBE,
    content_headers,
    is_checkable,
    is_exempt,
    is_repeat,
    own_slot,
    past_the_dupefilter,
    queued_behind,
    redirected_repeat,
)
from .session import DedupSession

if TYPE_CHECKING:
    from collections.abc import Coroutine
    from typing import Any

    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.internet.defer import Deferred
    from twisted.python.failure import Failure

    from dedup_filter import Decision

logger = logging.getLogger(__name__)

_PROBER_MEMORY = "probes"  # the prober's memory in a paused crawl's JOBDIR
_LANDING_WAIT_S = 30.0  # how long a pausing crawl waits for its probes in flight to be judged
_REPEAT_WAIT_S = 60.0  # how long a repeat waits for the request in flight for its URL
# a repeat that waited this often for the request in flight for its URL is sent on: a second
# fetch at worst, never a crawl that cannot end (the twelfth holdout web's round-robin crawl
# once re-checked a fetch-back every minute for 13 minutes and could not close: the request it
# waited for, led on by the meta refresh of a page served from a probe, had passed unjudged)
_MAX_REPEAT_WAITS = 2
_HOPS_REPORTED = "dedup_redirects_reported"  # meta: the redirects of the request reported
_REPEAT_WAITS = "dedup_repeat_waits"  # meta: how often the repeat waited so
_PROBE_AWAITED = "dedup_probe_awaited"  # meta: a dropped request waited for its URL's probe once


class DedupMiddleware:
    """Drop URLs under mirrored directories and duplicate HTML pages (``DEDUP_*`` settings)."""

    def __init__(self, crawler: Crawler, session: DedupSession) -> None:
        self._crawler = crawler
        self._session = session
        self._stats = session.stats
        self._prober = Prober(
            crawler, self._judge_probe, self._probe_failed, session.settings.probe_cache_size
        )
        session.watch_probe_answers(self._prober.holds)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        session = DedupSession.of(crawler)
        if session is None:
            msg = "DEDUP_ENABLED is off"
            raise NotConfigured(msg)
        middleware = cls(crawler, session)
        crawler.signals.connect(middleware.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(middleware.spider_closed, signal=signals.spider_closed)
        return middleware

    def spider_opened(self) -> None:
        """Take back what this crawl knew when it was paused (``jobdir``), then re-issue the
        probes an earlier crawl asked for and never answered."""
        memory = jobdir.take(self._crawler, _PROBER_MEMORY)
        if isinstance(memory, ProberMemory):
            self._prober.recall(memory)
            self._stats.set_value("dedup/resumed/probe_answers", len(memory.answers))
            logger.info(
                "dedup: resumed with %d probed pages not yet parsed and %d URLs answered",
                len(memory.answers),
                len(memory.judged) + len(memory.unjudged),
            )
        self._background(self._reissue_pending_probes(), "re-issuing pending probes")

    async def spider_closed(self, reason: str) -> None:
        """A paused crawl keeps the prober's memory for its resumption, once the probes that
        were landing as it closed are judged."""
        if jobdir.wanted(self._crawler, reason):
            await maybe_deferred_to_future(self._prober.landed(_LANDING_WAIT_S))
            jobdir.save(self._crawler, _PROBER_MEMORY, self._prober.memory())

    async def process_request(self, request: Request) -> Request | Response | None:
        own_slot(request)
        if is_exempt(request):
            return None
        redirected = redirected_repeat(request)
        if redirected is not None:
            self._stats.inc_value("dedup/redirected_repeats")
            return redirected
        self._report_redirect(request)
        return await self._decide(request)

    def _report_redirect(self, request: Request) -> None:
        """The hop of a request a redirect made, reported once: a host that answers every URL
        alike teaches a redirect rule (``DedupFilter.redirected``)."""
        hops, statuses = request.meta.get("redirect_urls"), request.meta.get("redirect_reasons")
        if not hops or not statuses or request.meta.get(_HOPS_REPORTED, 0) >= len(hops):
            return
        request.meta[_HOPS_REPORTED] = len(hops)  # a deferred request passes here again
        if isinstance(statuses[-1], int):
            report = self._session.redirected(hops[-1], request.url, statuses[-1])
            self._background(report, "reporting a redirect")

    async def _decide(
        self, request: Request, counterpart_reported: bool = False
    ) -> Request | Response | None:
        decision = await self._session.check_url(request)
        if decision is not None:
            return await self._act_on_url(request, decision, counterpart_reported)
        return await self._fetch(request)

    async def _fetch(self, request: Request) -> Request | Response | None:
        """Send the request on, unless a probe of its URL has its response or is in flight, or
        it is the filter's own repeat of a URL this crawl got already (or is getting: it waits
        for that request to come back), or a request for a URL the filter fetched ahead of it as
        a stand-in (the spider queued it once; the stand-in went past the dupefilter)."""
        waiting = self._prober.wait_for(request)
        if waiting is not None:  # the probe of this URL is in flight
            return await self._again_after(waiting, request)
        outcome = self._prober.take(request)
        if outcome is not None:
            return await self._serve(request, outcome)
        if is_repeat(request) or self._session.stood_in(request.url):
            waits = request.meta.get(_REPEAT_WAITS, 0)
            landing = self._prober.wait_for_crawl(request, _REPEAT_WAIT_S)
            if landing is not None and waits < _MAX_REPEAT_WAITS:
                # another request for its URL is in flight: its answer may do
                request.meta[_REPEAT_WAITS] = waits + 1
                return await self._again_after(landing, request)
            if landing is not None:
                self._stats.inc_value("dedup/repeat_waits_given_up")
                logger.warning("dedup: %s waited %d times for its URL in flight", request, waits)
            elif self._prober.answered(request):
                raise DedupIgnoreRequest(self._session.answered_already(request.url))
        self._prober.crawl_request_sent(request)
        return None

    async def process_response(self, request: Request, response: Response) -> Response:
        if is_exempt(request) or SERVED_FROM_PROBE in response.flags:
            return response
        if not is_checkable(request, response):
            self._prober.crawl_response(request, response.status, judged=False)
            if response.status >= 400:
                await self._crawl_stand_ins(request, response.status)
            return response
        decision = await self._check(response)
        self._prober.crawl_response(request, response.status, judged=decision is not None)
        if decision is not None and decision.dropped:
            self._prober.crawl_dropped(request, response)
            await self._drop(request, response, decision)
        return response

    async def process_exception(self, request: Request, exception: Exception) -> None:
        if not is_exempt(request):
            self._prober.crawl_response(request, None, judged=False)
            if not isinstance(exception, IgnoreRequest):  # a drop is no failed fetch
                await self._crawl_stand_ins(request, None)

    async def _crawl_stand_ins(self, request: Request, status: int | None) -> None:
        """A page the crawl could not fetch on a rule's kept side: its counterpart on the pruned
        side is requested in its place, with the spider's callback, so its links are followed
        (``DedupSession.stand_in``)."""
        for stand_in in await self._session.fetch_failed(request.url, status):
            self._session.stand_in(request, stand_in.url)

    async def _act_on_url(
        self, request: Request, decision: Decision, counterpart_reported: bool = False
    ) -> Request | Response | None:
        """What a URL's decision does to its request before the fetch: the one place that
        branches on the action of a ``check_url``. A drop is raised, unless a probe brought the
        URL's page already, or is fetching it (awaited): that answer is served, so its links
        are followed. A deferred URL waits for its counterpart's probe when one is in flight and
        is decided again, else goes back to the scheduler behind other work (a request returned
        to Scrapy is rescheduled, and no errback sees it), and is fetched after
        ``DEDUP_MAX_DEFERRALS`` passes. One whose
        counterpart the crawl already got as a 404 or a file (no page the core saw) reports it
        (``counterpart_failed``) and is decided again, once. Once a deferred URL is dropped or
        fetched, the index forgets its wait."""
        self._prober.schedule(decision.probes)
        if decision.action == "defer":
            counterpart = decision.duplicate_of
            landing = counterpart and self._prober.wait_for(request.replace(url=counterpart))
            if landing:
                return await self._again_after(landing, request)
            failed = counterpart and self._prober.crawl_failure(counterpart)
            if failed and counterpart and not counterpart_reported:  # a 404, a file, moved
                moved_to = self._prober.redirected_to(counterpart)
                reported = await self._session.counterpart_failed(counterpart, failed, moved_to)
                self._prober.schedule(reported.probes if reported is not None else ())
                return await self._decide(request, counterpart_reported=True)
            deferrals = request.meta.get(DEFERRALS, 0)
            if deferrals < self._session.settings.max_deferrals:
                self._stats.inc_value("dedup/deferred")
                self._stats.inc_value(f"dedup/deferred/{decision.reason}")
                return past_the_dupefilter(
                    request,
                    priority=request.priority - DEFER_PRIORITY_STEP,
                    meta={
                        **request.meta,
                        DEFERRALS: deferrals + 1,
                        **queued_behind(request, counterpart),
                    },
                )
            self._stats.inc_value("dedup/deferrals_expired")
        awaits = decision.action == "drop" and not request.meta.get(_PROBE_AWAITED)
        landing = self._prober.wait_for(request) if awaits else None
        if landing is not None:  # its page is on its way: served, links followed
            request.meta[_PROBE_AWAITED] = True
            return await self._again_after(landing, request)
        if self._session.deferral_ends(decision.url):
            self._background(self._session.forget_deferral(decision.url), "forgetting a deferral")
        if decision.action == "drop":
            self._session.url_pruned(request, decision)
            probed = self._prober.take(request)
            if probed is not None:  # its page is here already: served, links followed
                return await self._serve(request, probed)
            raise DedupIgnoreRequest(decision)
        return await self._fetch(request)

    async def _again_after(
        self, landing: Deferred[None], request: Request
    ) -> Request | Response | None:
        """Decide on the request again once the probe it waits for has landed."""
        await maybe_deferred_to_future(landing)
        return await self.process_request(request)

    async def _check(self, response: Response) -> Decision | None:
        decision = await self._session.check_page(
            response.url, response.body, content_headers(response)
        )
        if decision is not None:
            self._prober.schedule(decision.probes)
            self._session.fetch_back(decision)
        return decision

    async def _judge_probe(self, request: Request, response: Response) -> Decision | None:
        if not is_checkable(request, response):
            location = response.headers.get(b"Location")
            await self._report_failed_probe(
                request.url, response.status, location.decode("latin-1") if location else None
            )
            return None
        return await self._check(response)

    def _probe_failed(self, url: str, status: int | None, location: str | None) -> None:
        self._background(
            self._report_failed_probe(url, status, location), f"reporting the probe of {url}"
        )

    async def _report_failed_probe(
        self, url: str, status: int | None, location: str | None = None
    ) -> None:
        """``location``: where a redirect sent the probe (or the crawl's request answering it)."""
        decision = await self._session.probe_failed(url, status, location)
        if decision is not None:
            self._prober.schedule(decision.probes)

    async def _reissue_pending_probes(self) -> None:
        self._prober.schedule(await self._session.pending_probes())

    async def _serve(self, request: Request, outcome: ProbeOutcome) -> Response:
        """The probed response in place of a second fetch (or the probe's drop)."""
        self._stats.inc_value("dedup/probes_served")
        decision = outcome.decision
        if decision is not None and decision.dropped:
            await self._drop(request, outcome.response, decision)
        self._background(self._session.probe_served(request.url), request.url)
        self._prober.served(request, outcome.response)
        served = outcome.response
        return served.replace(request=request, flags=[*served.flags, SERVED_FROM_PROBE])

    async def _drop(self, request: Request, response: Response, decision: Decision) -> NoReturn:
        """Drop a fetched page before its spider parses it, once what it links and only it
        may reach (``DedupSession.follow_links``) is requested."""
        self._stats.inc_value("dedup/bytes_not_parsed", len(response.body))
        await self._session.follow_links(
            request, response.body, content_headers(response), decision
        )
        raise DedupIgnoreRequest(decision)

    @staticmethod
    def _background(work: Coroutine[Any, Any, None], what: str) -> None:
        deferred_from_coro(work).addErrback(_log_failure, what)


def _log_failure(failure: Failure, what: str) -> None:
    logger.error("dedup: %s failed", what, exc_info=failure_to_exc_info(failure))
