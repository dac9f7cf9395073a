"""Probes: pages the mirror detector asks for, fetched at most once between probe and crawl.

A probe goes straight to the downloader (``engine.download_async``, as RobotsTxtMiddleware fetches
robots.txt): it skips the scheduler queue, so it is ahead of every queued request, it never meets
the dupefilter, and its response comes back here instead of to a spider callback (the spider may
not even want that URL). Nothing is fetched twice, whichever side asks first:

- probe first: the outcome waits in a bounded cache keyed by request fingerprint, and the spider's
  own later request gets the probed response (a request arriving while the probe is in flight
  waits for it);
- crawl first: a probe of a URL whose crawl request is in flight is answered by that response (a
  checked page answers it inside the core; anything else is reported as a failed probe), and a
  probe of a URL the crawl already got as a 404, an error or a non-HTML body is reported failed
  at once from that status; a probe of a page the crawl got and the core dropped as a duplicate
  (not held under its URL, so the core may ask for it) is judged again from the crawl's response
  (the last ``_DROPPED_KEPT`` such pages).

It also remembers which URLs the crawl or a probe got an answer for (``answered``), so that the
filter's own second requests of a URL (a page fetched back, a deferred request) are not fetched
again once a first request got it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urljoin

from scrapy import Request
from scrapy.http.headers import Headers
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.log import failure_to_exc_info
from twisted.internet.defer import Deferred, DeferredList

from .responses import PROBE

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from dedup_filter import Decision

logger = logging.getLogger(__name__)
T = TypeVar("T")

# a probe answers for its own URL: a redirect is reported as a failed probe, not followed
_PROBE_META = {PROBE: True, "dont_redirect": True}
# statuses of crawl responses the core never saw, kept to answer later probes (about 100 B each)
_UNJUDGED_KEPT = 10_000
# pages the core judged, kept to refuse a second fetch of the filter's own (about 100 B each)
_JUDGED_KEPT = 100_000
# crawl pages the core dropped as duplicates, kept to answer a later probe of their URL (such a
# page is not held under its URL, so the core may ask for it) without a second fetch
_DROPPED_KEPT = 256
# a probe the crawl got no page for is reported failed again each time the core asks for it
# (another candidate may want it); a core that asked for it in each answer would keep the
# reactor busy for ever: reported this many times at most (``dedup/probe_reports_refused``)
_FAILURE_REPORTS = 8
# statuses that answer for a URL for the rest of a crawl (2xx: a body the core never judged)
_GONE = frozenset({404, 410})
_PERMANENT_REDIRECTS = frozenset({301, 308})
# the status a page answered for once Scrapy's MetaRefreshMiddleware followed its refresh (its
# reason is ``"meta refresh"``, and the page never reaches this middleware): a temporary
# redirect, as browsers take it. Without one, a probe of such a page fetched it a second time
# (the nineteenth holdout web's texinfo nodes that refresh to another node: 8-15 a crawl)
_REFRESH_STATUS = 302
# how long a probe waits for the crawl's request in flight for its URL before it is fetched
# itself: a request whose answer never reaches the filter (a redirect to a URL the crawl got
# already, a later middleware's own request in its place) must not leave a mirror candidate
# waiting for its sample for ever; a second fetch at worst
CRAWL_ANSWER_WAIT_S = 120.0


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """A fetched probe and the core's verdict on it (``None`` when it could not be judged)."""

    response: Response
    decision: Decision | None


@dataclass(frozen=True, slots=True)
class _StoredAnswer:
    """A probe's outcome (or a dropped crawl page, without a decision) as a paused crawl keeps
    it: a response without its request."""

    key: bytes
    response_class: type[Response]
    url: str
    status: int
    headers: dict[bytes, list[bytes]]
    body: bytes
    decision: Decision | None

    @classmethod
    def of(cls, key: bytes, response: Response, decision: Decision | None) -> _StoredAnswer:
        headers = {bytes(name): list(values) for name, values in response.headers.items()}
        return cls(
            key, type(response), response.url, response.status, headers, response.body, decision
        )

    def response(self) -> Response:
        return self.response_class(
            url=self.url, status=self.status, headers=Headers(self.headers), body=self.body
        )


@dataclass(frozen=True, slots=True)
class ProberMemory:
    """``Prober.memory``: its probes' answers not served yet, the URLs answered already (request
    fingerprints; with the status of those the core never judged), and the crawl's pages dropped
    as duplicates."""

    answers: list[_StoredAnswer]
    judged: list[bytes]
    unjudged: list[tuple[bytes, int]]
    dropped: list[_StoredAnswer]  # crawl pages dropped as duplicates (no decision kept)


class Prober:
    """Fetches probes, feeds them to ``judge`` and keeps their outcomes for the spider."""

    def __init__(
        self,
        crawler: Crawler,
        judge: Callable[[Request, Response], Awaitable[Decision | None]],
        on_failure: Callable[[str, int | None, str | None], None],
        cache_size: int,
    ) -> None:
        self._crawler = crawler
        self._stats = crawler.stats
        self._judge = judge
        self._on_failure = on_failure
        self._cache_size = cache_size
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        self._done: OrderedDict[bytes, ProbeOutcome] = OrderedDict()
        self._waiting: dict[bytes, list[Deferred[None]]] = {}
        self._fetches: set[Deferred[None]] = set()
        self._crawl_in_flight: dict[bytes, bool] = {}  # -> whether a probe waits for its answer
        self._crawl_waiters: dict[bytes, list[Deferred[None]]] = {}  # the filter's repeats
        self._unjudged: OrderedDict[bytes, int] = OrderedDict()
        self._redirected_to: OrderedDict[bytes, str] = OrderedDict()  # where the crawl landed
        self._judged: OrderedDict[bytes, None] = OrderedDict()
        self._dropped: OrderedDict[bytes, Response] = OrderedDict()
        self._failure_reports: OrderedDict[bytes, int] = OrderedDict()  # bounded as _unjudged

    def schedule(self, urls: Iterable[str]) -> None:
        """Probe each URL unless it is probed already or the crawl has (or will have) its answer."""
        for url in dict.fromkeys(urls):
            try:
                request = Request(url, callback=NO_CALLBACK, dont_filter=True, meta=_PROBE_META)
            except ValueError:  # not a URL Scrapy can fetch: a probe that cannot be checked
                self._on_failure(url, None, None)
                continue
            key = self._fingerprint(request)
            if key in self._waiting or key in self._done:
                continue
            if key in self._crawl_in_flight:
                self._crawl_in_flight[key] = True
                self._stats.inc_value("dedup/probes_answered_by_crawl")
                self._fetch_unless_answered(key, request)
            elif key in self._unjudged:
                self._stats.inc_value("dedup/probes_answered_by_crawl")
                self._report_known_failure(key, url)
            elif key in self._dropped:  # judged again from the crawl's response, not fetched
                self._stats.inc_value("dedup/probes_answered_by_crawl")
                self._fetch_later(key, request, self._dropped.pop(key))
            else:
                self._stats.inc_value("dedup/probes")
                self._fetch_later(key, request)

    def _report_known_failure(self, key: bytes, url: str) -> None:
        reports = self._failure_reports.get(key, 0) + 1
        self._remember(self._failure_reports, key, reports, _UNJUDGED_KEPT)
        if reports <= _FAILURE_REPORTS:
            self._on_failure(url, self._unjudged[key], self._redirected_to.get(key))
            return
        self._stats.inc_value("dedup/probe_reports_refused")
        if reports == _FAILURE_REPORTS + 1:
            logger.warning("dedup: the filter keeps asking for %s, reported failed already", url)

    def _fetch_unless_answered(self, key: bytes, request: Request) -> None:
        """Fetch the probe after ``CRAWL_ANSWER_WAIT_S`` unless the crawl's request in flight
        for its URL has answered it by then (``dedup/probes_crawl_wait_expired``)."""
        from twisted.internet import reactor  # the reactor Scrapy installed

        def expire() -> None:
            if self._crawl_in_flight.get(key) and key not in self._waiting:
                del self._crawl_in_flight[key]
                self._stats.inc_value("dedup/probes_crawl_wait_expired")
                logger.warning("dedup: no answer for %s came back to the filter", request.url)
                self._fetch_later(key, request)
                self._crawl_landed(key)

        reactor.callLater(CRAWL_ANSWER_WAIT_S, expire)  # type: ignore[arg-type]

    def wait_for(self, request: Request) -> Deferred[None] | None:
        """A Deferred firing when the probe of this request's URL lands; ``None`` if none flies."""
        waiters = self._waiting.get(self._fingerprint(request))
        if waiters is None:
            return None
        waiter: Deferred[None] = Deferred()
        waiters.append(waiter)
        return waiter

    def holds(self, request: Request) -> bool:
        """Whether a probe's outcome for this request's URL waits to be served (``take``), or
        is on its way (``wait_for``)."""
        key = self._fingerprint(request)
        return key in self._done or key in self._waiting

    def take(self, request: Request) -> ProbeOutcome | None:
        """The cached outcome of a probe of this request's URL (served once)."""
        return self._done.pop(self._fingerprint(request), None)

    def served(self, request: Request, response: Response) -> None:
        """A probe's answer was served to ``request``. A permanent redirect among them is the
        crawl's to follow from now on (Scrapy's RedirectMiddleware does, unless the request or
        the spider declines it), so its URL is answered at once, not only once the page it
        leads to comes back: the spider's own request, queued before a stand-in that took the
        probe's 301, fetched the 301 again meanwhile (the fifteenth holdout web with 301s)."""
        location = response.headers.get(b"Location")
        if response.status in _PERMANENT_REDIRECTS and location and self._follows(request):
            landing = urljoin(request.url, location.decode("latin-1"))
            self._remember(self._redirected_to, self._fingerprint(request), landing, _UNJUDGED_KEPT)

    def _follows(self, request: Request) -> bool:
        """Whether RedirectMiddleware follows a permanent redirect answering ``request`` (its own
        conditions: enabled, and no ``dont_redirect``, ``handle_httpstatus_*`` naming it)."""
        meta, declined = request.meta, getattr(self._crawler.spider, "handle_httpstatus_list", ())
        return (
            self._crawler.settings.getbool("REDIRECT_ENABLED")
            and not meta.get("dont_redirect")
            and not meta.get("handle_httpstatus_all")
            and not _PERMANENT_REDIRECTS & {*meta.get("handle_httpstatus_list", ()), *declined}
        )

    def crawl_failure(self, url: str) -> int | None:
        """The status the crawl got for ``url`` without a page the core checked (a 404, a
        file); None when it got none yet, or a page."""
        key = self._key_of(url)
        return None if key is None else self._unjudged.get(key)

    def redirected_to(self, url: str) -> str | None:
        """Where the crawl's request for ``url`` was redirected, if it was (the last
        ``_UNJUDGED_KEPT`` such URLs)."""
        key = self._key_of(url)
        return None if key is None else self._redirected_to.get(key)

    def _key_of(self, url: str) -> bytes | None:
        """The fingerprint a GET of ``url`` has; None when Scrapy cannot request it."""
        try:
            return self._fingerprint(Request(url, callback=NO_CALLBACK))
        except ValueError:
            return None

    def answered(self, request: Request) -> bool:
        """Whether a GET of this request's URL got its answer already (a page the core judged,
        a 404 or 410, a file, a permanent redirect the crawl followed), by the crawl or a probe:
        a second fetch would tell nothing new (a stand-in of a moved page's old URL fetched the
        301 again, then the page it leads to). Errors, other redirects (the next fetch may land
        elsewhere), a redirect no request followed (a probe's) and other statuses are no
        answer."""
        if request.method != "GET":
            return False
        key = self._fingerprint(request)
        status = self._unjudged.get(key)
        if status in _PERMANENT_REDIRECTS:
            return key in self._redirected_to
        return key in self._judged or (
            status is not None and (status in _GONE or 200 <= status < 300)
        )

    def crawl_request_sent(self, request: Request) -> None:
        """A crawl request goes to the downloader: a probe of its URL will wait for its answer."""
        self._crawl_in_flight.setdefault(self._fingerprint(request), False)

    def wait_for_crawl(self, request: Request, timeout_s: float) -> Deferred[None] | None:
        """A Deferred firing when the crawl's request in flight for this request's URL comes
        back (its answer then known to ``answered``), or after ``timeout_s``; ``None`` if none
        is in flight."""
        key = self._fingerprint(request)
        if key not in self._crawl_in_flight:
            return None
        waiter: Deferred[None] = Deferred()
        self._crawl_waiters.setdefault(key, []).append(waiter)
        return _at_most(waiter, timeout_s)

    def crawl_response(self, request: Request, status: int | None, judged: bool) -> None:
        """A crawl request came back (``status`` None: it failed); ``judged``: by ``check_page``."""
        self._redirected_away(request)
        key = self._fingerprint(request)
        probe_waits = self._crawl_in_flight.pop(key, False)
        if judged:
            self._remember(self._judged, key, None, _JUDGED_KEPT)
        else:
            if probe_waits:
                self._on_failure(request.url, status, None)
            if status is not None and request.method == "GET":  # a repeat's answer too
                self._remember(self._unjudged, key, status, _UNJUDGED_KEPT)
        self._crawl_landed(key)

    def crawl_dropped(self, request: Request, response: Response) -> None:
        """A crawl page the core dropped as a duplicate: kept (the last ``_DROPPED_KEPT``) to
        answer a probe of its URL."""
        self._remember(self._dropped, self._fingerprint(request), response, _DROPPED_KEPT)

    @staticmethod
    def _remember(memory: OrderedDict[bytes, T], key: bytes, value: T, size: int) -> None:
        memory[key] = value
        memory.move_to_end(key)
        while len(memory) > size:
            memory.popitem(last=False)

    def _redirected_away(self, request: Request) -> None:
        """The URLs this request was redirected from never answer for themselves: a probe of
        one, or a URL deferred for one, is told so by its status (``crawl_failure``) and where
        it sent the crawl (``redirected_to``: a page moved is no page its side lacks)."""
        reasons = request.meta.get("redirect_reasons") or []
        chain = [*(request.meta.get("redirect_urls") or []), request.url]
        for position, url in enumerate(chain[:-1]):
            key = self._fingerprint(Request(url))
            reason = reasons[position] if position < len(reasons) else None
            status = _REFRESH_STATUS if reason == "meta refresh" else reason
            status = status if isinstance(status, int) else None
            self._remember(self._redirected_to, key, chain[position + 1], _UNJUDGED_KEPT)
            if self._crawl_in_flight.pop(key, False):
                self._on_failure(url, status, chain[position + 1])
            if status is not None:  # a probe that waited for it is answered: so is a repeat
                self._remember(self._unjudged, key, status, _UNJUDGED_KEPT)
            self._crawl_landed(key)

    def _crawl_landed(self, key: bytes) -> None:
        for waiter in self._crawl_waiters.pop(key, []):
            waiter.callback(None)

    def _fetch_later(self, key: bytes, request: Request, answer: Response | None = None) -> None:
        """Fetch the probe (or take ``answer``, a response the crawl got), judge it, keep it."""
        self._waiting[key] = []
        fetch = deferred_from_coro(self._fetch(key, request, answer))
        self._fetches.add(fetch)
        fetch.addErrback(_log_failure, request.url)
        fetch.addBoth(self._forget, fetch)

    def _forget(self, result: None, fetch: Deferred[None]) -> None:
        self._fetches.discard(fetch)

    async def _fetch(self, key: bytes, request: Request, answer: Response | None) -> None:
        try:
            response = (
                answer if answer is not None else await self._crawler.engine.download_async(request)
            )
        except Exception as error:  # any download failure is a failed probe, never a crash
            logger.debug("dedup: probe %s failed: %r", request.url, error)
            self._on_failure(request.url, None, None)
        else:
            decision = await self._judge(request, response)
            if decision is not None:
                self._remember(self._judged, key, None, _JUDGED_KEPT)
            else:
                self._remember(self._unjudged, key, response.status, _UNJUDGED_KEPT)
            self._keep(key, ProbeOutcome(response, decision))
        finally:
            for waiter in self._waiting.pop(key, []):
                waiter.callback(None)

    def landed(self, timeout_s: float) -> Deferred[None]:
        """Fires once every probe fetched so far is judged and kept, or after ``timeout_s``
        (the probes are left to land: none is cancelled)."""
        return _at_most(DeferredList(list(self._fetches)), timeout_s)

    def memory(self) -> ProberMemory:
        """What a paused crawl's resumption needs (``jobdir``): the probed pages the spider has
        not been handed yet, and which URLs got their answer."""
        answers = [
            _StoredAnswer.of(key, outcome.response, outcome.decision)
            for key, outcome in self._done.items()
        ]
        dropped = [_StoredAnswer.of(key, page, None) for key, page in self._dropped.items()]
        return ProberMemory(answers, list(self._judged), list(self._unjudged.items()), dropped)

    def recall(self, memory: ProberMemory) -> None:
        """Take back what the paused crawl knew, before the first request of its resumption."""
        for answer in memory.answers:
            self._keep(answer.key, ProbeOutcome(answer.response(), answer.decision))
        for key in memory.judged:
            self._remember(self._judged, key, None, _JUDGED_KEPT)
        for key, status in memory.unjudged:
            self._remember(self._unjudged, key, status, _UNJUDGED_KEPT)
        for page in memory.dropped:
            self._remember(self._dropped, page.key, page.response(), _DROPPED_KEPT)

    def _keep(self, key: bytes, outcome: ProbeOutcome) -> None:
        if self._cache_size == 0:
            return
        self._done[key] = outcome
        while len(self._done) > self._cache_size:
            self._done.popitem(last=False)


def _at_most(work: Deferred[Any], timeout_s: float) -> Deferred[None]:
    """Fires when ``work`` does or after ``timeout_s``, whichever comes first (``work`` is left
    to run: a wait that ends never cancels what it waited for)."""
    from twisted.internet import reactor  # the reactor Scrapy installed

    ended: Deferred[None] = Deferred()

    def end(_: object = None) -> None:
        if timer.active():
            timer.cancel()
        if not ended.called:
            ended.callback(None)

    timer = reactor.callLater(timeout_s, end)
    work.addBoth(end)
    return ended


def _log_failure(failure: Failure, url: str) -> None:
    logger.error(
        "dedup: handling the probe of %s failed", url, exc_info=failure_to_exc_info(failure)
    )
