"""One crawler's use of the shared index: its lifecycle, its stats and its decision log.

The dupefilter and the downloader middleware of a crawler get the same session from
``DedupSession.of(crawler)``, so they share one ``DedupFilter`` and its ``IndexWorker`` (see
``registry``). The index is opened when the first component is built, so a bad setting or an index
that cannot be opened stops the crawl before its first request (``startup``), and released on
``spider_closed``, once every decision is committed. A store failure during the crawl is logged
once, counted as ``dedup/index_error`` and answered with ``None``: the page or URL concerned goes
on unfiltered (fail open) rather than being lost.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from operator import methodcaller
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import WeakKeyDictionary

from scrapy import Request, signals
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.request import request_from_dict

from dedup_filter import Decision, DedupError
from dedup_filter.decision import Reason

from . import jobdir, registry
from .decision_log import DecisionLog
from .responses import (
    DEFER_PRIORITY_STEP,
    FETCH_BACK,
    FETCH_STATE,
    URL_CHECKED,
    past_the_dupefilter,
)
from .settings import DedupSettings, is_enabled, read_settings
from .startup import refuse_to_start

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from scrapy.crawler import Crawler
    from twisted.internet.defer import Deferred

    from dedup_filter import DedupFilter

    from .worker import IndexWorker

logger = logging.getLogger(__name__)
T = TypeVar("T")

_SUMMARY_COUNTS = (
    "pages_checked",
    "urls_checked",
    "mirror_rules",
    "probes",
    "bytes_not_parsed",
    "index_error",
)

_sessions: WeakKeyDictionary[Crawler, DedupSession] = WeakKeyDictionary()


# evidence a decision may carry -> the stat that counts it
_RULE_EVENTS = {
    "mirrors_confirmed": "dedup/mirror_rules",
    "mirrors_turned_by_absence": "dedup/mirror_rules_turned",
    "url_rules_confirmed": "dedup/url_rules_confirmed",
    "url_rules_killed": "dedup/url_rules_killed",
}

# evidence after which a URL kept before may be decided otherwise ("mirror": a pair being
# sampled, whose mirror side's documents wait for its verdict)
_RULE_NEWS = frozenset({"mirror", "mirrors_confirmed", "url_rules_confirmed", "url_rule_support"})


# request meta that belongs to one fetch or one URL: not carried to a request for another URL
_URL_STATE = FETCH_STATE | {URL_CHECKED}
# requests pruned under mirror rules kept to be asked again if their rule stops pruning
_PRUNED_KEPT = 50_000
_PRUNED_REQUESTS = "pruned"  # the pruned requests in a paused crawl's JOBDIR
_STOOD_IN = "stood-in"  # the URLs requested as stand-ins, in a paused crawl's JOBDIR


class DedupSession:
    """The link between one crawler and the shared ``DedupFilter``."""

    def __init__(self, crawler: Crawler, settings: DedupSettings, worker: IndexWorker) -> None:
        self.settings = settings
        self.stats = crawler.stats
        self._crawler = crawler
        self._worker: IndexWorker | None = worker
        self._decision_log = DecisionLog(settings.decision_log) if settings.decision_log else None
        self._error_logged = False
        # a kept URL need not be checked again before its fetch while this crawl knows no rule:
        # once it does (or a URL-rule candidate gained support, which makes its class's other
        # aliases wait), holding any page may turn a kept URL into a drop or a deferral (its
        # class or its counterpart is held), so every URL is checked again (token: not across
        # runs)
        self._token = uuid.uuid4().hex[:8]
        self._knows_rules = False
        self._waiting: set[str] = set()  # URLs this crawl saw deferred and has not acted on yet
        self._handed_over: set[str] = set()  # probe answers requested in a dropped URL's place
        self._stood_in: set[str] = set()  # URLs requested past the dupefilter as stand-ins
        # pages requested again, with the revoked rules they were requested for
        self._fetched_back: set[tuple[str, tuple[str, ...]]] = set()
        self._pruned: dict[str, list[Request]] = {}  # a rule's mirror -> requests it pruned
        self._pruned_kept = 0
        self._probe_answer_held: Callable[[Request], bool] = lambda request: False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler: Crawler) -> DedupSession | None:
        """The crawler's session, started on first use; ``None`` when ``DEDUP_ENABLED`` is off.

        Raises:
            DedupError: a ``DEDUP_*`` setting or a configuration key is invalid, or the index
                cannot be opened; logged in one line, the crawl does not start.
        """
        if not is_enabled(crawler.settings):
            return None
        session = _sessions.get(crawler)
        if session is None:
            session = _sessions[crawler] = cls._start(crawler)
        return session

    @classmethod
    def _start(cls, crawler: Crawler) -> DedupSession:
        try:
            settings = read_settings(crawler.settings)
            worker = registry.acquire(
                settings.index_path, settings.config, settings.prepare_processes
            )
        except DedupError as error:
            refuse_to_start(error)
        logger.info("dedup: index %s opened", settings.index_path)
        return cls(crawler, settings, worker)

    def spider_opened(self) -> None:
        """A paused crawl's resumption takes back the requests its rules had pruned, and the
        URLs it requested as stand-ins (the spider's own requests for them may still be
        queued)."""
        stood_in = jobdir.take(self._crawler, _STOOD_IN)
        self._stood_in.update(stood_in if isinstance(stood_in, set) else ())
        kept = jobdir.take(self._crawler, _PRUNED_REQUESTS)
        spider = self._crawler.spider
        for mirror, requests in kept.items() if isinstance(kept, dict) else ():
            for stored in requests:
                try:  # a callback the spider no longer has: the request is left out
                    request = request_from_dict(stored, spider=spider)
                except (ValueError, AttributeError, KeyError, TypeError) as error:
                    logger.warning("dedup: a pruned request cannot be taken back: %r", error)
                    continue
                if self._keep_pruned(mirror, request):
                    self.stats.inc_value("dedup/resumed/pruned_requests")

    async def spider_closed(self, reason: str = "finished") -> None:
        """Returns once this crawl's decisions are committed and the index released; a paused
        crawl keeps the requests its rules pruned and the URLs it stood in for, for its
        resumption (``jobdir``)."""
        if jobdir.wanted(self._crawler, reason):
            jobdir.save(self._crawler, _PRUNED_REQUESTS, self._stored_pruned())
            jobdir.save(self._crawler, _STOOD_IN, self._stood_in)
        logger.info("dedup: %s", self.summary())
        if self._worker is not None:
            worker, self._worker = self._worker, None
            try:
                await maybe_deferred_to_future(registry.release(worker))
            except DedupError as error:
                self._index_error(error)
        if self._decision_log is not None:
            self._decision_log.close()
            self._decision_log = None

    def crawl_in_place(self, request: Request, url: str, **changes: Any) -> None:
        """Request ``url`` in ``request``'s place, with its callback, so what it links is
        followed (a stand-in for a page that could not be fetched)."""
        meta = _url_free_meta(request)
        self._crawler.engine.crawl(request.replace(url=url, meta=meta, **changes))

    def stand_in(self, request: Request, url: str) -> None:
        """Request ``url`` in place of ``request``, whose page could not be fetched, past the
        dupefilter and ahead of the requests queued with it: its URL is mostly queued already,
        waiting for the page that failed, and until its page is recorded the rule cannot count
        the absence (``precedence.after_absence``). Breadth first, the eleventh holdout web's
        copy of a copy, crawled first, turned at its 8th counted absence in two runs and its 63rd
        in two others, its stand-ins filtered as queued and fetched 17 s later, when their own
        waits ran out: 174-186 of its pages were answered with 404s meanwhile. It is the
        filter's own repeat: not fetched if another request got its URL's answer, and the
        request queued for its URL before is not fetched after it (``stood_in``)."""
        self._stood_in.add(url)
        meta = _url_free_meta(request)
        self._crawler.engine.crawl(
            past_the_dupefilter(
                request.replace(url=url, meta={**meta, FETCH_BACK: True}),
                priority=request.priority + DEFER_PRIORITY_STEP,
            )
        )

    def stood_in(self, url: str) -> bool:
        """Whether ``url`` was requested as a stand-in (``stand_in``)."""
        return url in self._stood_in

    async def follow_links(
        self, request: Request, body: bytes, headers: Mapping[str, Any], decision: Decision
    ) -> None:
        """Request what a dropped page links and its kept twin may not
        (``DedupFilter.links_to_follow``), one level deeper than it, with its callback: its
        spider never parses it, so what only it links would never be reached
        (``dedup/links_followed``). They are queued behind other work, as a deferred request
        is: most name what the twin names too, and are pruned once a rule pairs the two."""
        if not decision.links_may_differ:  # no need to send the body to the index's worker
            return
        links = await self._call(methodcaller("links_to_follow", decision, body, headers))
        settings = self._crawler.settings
        depth = request.meta.get("depth", 0) + 1  # as DepthMiddleware sets it on spider output
        limit = settings.getint("DEPTH_LIMIT")
        if not links or (limit and depth > limit):
            return
        meta = _url_free_meta(request)
        for url in links:
            self.stats.inc_value("dedup/links_followed")
            self._crawler.engine.crawl(
                Request(
                    url,
                    callback=request.callback,
                    errback=request.errback,
                    cb_kwargs=request.cb_kwargs,
                    meta={**meta, "depth": depth},
                    priority=request.priority - DEFER_PRIORITY_STEP,
                )
            )

    def watch_probe_answers(self, held: Callable[[Request], bool]) -> None:
        """``held``: whether the prober keeps a probe's answer for a request's URL, or is
        fetching it, so a rule does not prune that request in the scheduler (``prunable``)."""
        self._probe_answer_held = held

    def prunable(self, request: Request) -> bool:
        """Whether a request a rule drops may be pruned before it reaches the downloader: not
        when a probe fetched its page or is fetching it, which the middleware serves in its
        place, or the links only that page names are never followed (``DedupMiddleware``)."""
        return not self._probe_answer_held(request)

    def url_pruned(self, request: Request, decision: Decision) -> None:
        """A request dropped before its fetch: handed to the page its decision names
        (``crawl_instead``), and, pruned on a mirror rule's mirror side, kept (up to 50,000 a
        crawl) to be asked again should the rule stop pruning that side
        (``requeue_unpruned``)."""
        self.crawl_instead(request, decision)
        rule = decision.evidence.get("mirror_rule")
        mirror = rule.get("mirror") if isinstance(rule, dict) else rule
        if (
            decision.reason == Reason.MIRRORED_DIRECTORY
            and isinstance(mirror, str)
            and request.url.lower().startswith(mirror.lower())
        ):
            self._keep_pruned(mirror, request)

    def _keep_pruned(self, mirror: str, request: Request) -> bool:
        """Keep a request ``mirror``'s rule pruned, up to ``_PRUNED_KEPT`` a crawl."""
        if self._pruned_kept >= _PRUNED_KEPT:
            return False
        self._pruned.setdefault(mirror, []).append(request)
        self._pruned_kept += 1
        return True

    def _stored_pruned(self) -> dict[str, list[dict[str, Any]]]:
        """The pruned requests as Scrapy stores queued ones (a callback that is no method of the
        spider cannot be stored: such a request is left out, as Scrapy's disk queues do)."""
        stored: dict[str, list[dict[str, Any]]] = {}
        spider = self._crawler.spider
        for mirror, requests in self._pruned.items():
            for request in requests:
                with contextlib.suppress(ValueError):
                    stored.setdefault(mirror, []).append(request.to_dict(spider=spider))
        return stored

    def requeue_unpruned(self, mirror: str) -> None:
        """A rule stopped pruning its mirror side (its origin lacks a page the side holds:
        docs/mirrors.md, point 20): the requests it pruned there are asked again, with their
        callbacks, behind other work (``dedup/unpruned_requeued``): the pages they name may
        link what the origin's copies do not. One the crawl got meanwhile is not fetched twice
        (``DedupMiddleware``)."""
        for request in self._pruned.pop(mirror, ()):
            self.stats.inc_value("dedup/unpruned_requeued")
            meta = _url_free_meta(request)
            self._crawler.engine.crawl(
                past_the_dupefilter(
                    request,
                    priority=request.priority - DEFER_PRIORITY_STEP,
                    meta={**meta, FETCH_BACK: True},
                )
            )

    def crawl_instead(self, request: Request, decision: Decision) -> None:
        """A URL dropped for a page the spider never parsed (a probe's answer: the decision's
        ``crawl_instead``) hands its request to that page, served from the probe's response
        when the prober still keeps it (``dedup/crawled_instead``)."""
        url = decision.evidence.get("crawl_instead")
        if url and url not in self._handed_over:
            # once a page: a second request for it would be filtered as queued already
            self._handed_over.add(url)
            self.stats.inc_value("dedup/crawled_instead")
            # filtered if the crawl queued it already (a deferred request is not filtered)
            self.crawl_in_place(request, url, dont_filter=False)

    def fetch_back(self, decision: Decision) -> None:
        """Request what the rules revoked by this decision may have dropped (its
        ``fetch_back``: an edition's pages that may exist nowhere else), each once a revoked
        rule, with the spider's default callback (``dedup/fetched_back``). Once a rule, not once
        a crawl: a page fetched back for one rule is checked before its fetch, and another rule
        still standing may drop it again, to be revoked by the next page (the second holdout's
        random order lost three rpm pages so, fetched back once, dropped, never asked again).
        They are queued behind other work: a request the crawl queued for the page already is
        fetched first, and the page is not fetched twice (``DedupMiddleware``)."""
        revoked = tuple(decision.evidence.get("mirrors_revoked") or ())
        for url in decision.evidence.get("fetch_back") or ():
            if (url, revoked) not in self._fetched_back:
                self._fetched_back.add((url, revoked))
                self.stats.inc_value("dedup/fetched_back")
                self._crawler.engine.crawl(
                    past_the_dupefilter(
                        Request(url, priority=-DEFER_PRIORITY_STEP, meta={FETCH_BACK: True})
                    )
                )

    def answered_already(self, url: str) -> Decision:
        """The drop of a request of the filter's own making for a URL that this crawl got
        already (``url_fetched``, rule ``fetched_this_crawl``)."""
        decision = Decision(
            url, "drop", Reason.URL_FETCHED, evidence={"rule": "fetched_this_crawl"}
        )
        self._url_checked(decision)
        return decision

    def warmed(self) -> Deferred[None] | None:
        """Fires once the filter prepares pages at full speed; ``None`` without an index."""
        return None if self._worker is None else self._worker.warmed()

    # URLs
    def check_url_now(self, request: Request) -> Decision | None:
        """The mirror-rule verdict, taken at once in the reactor thread (the dupefilter's); on a
        keep, the request is marked so the middleware need not check it again. ``None`` when the
        index is busy or unavailable, or the URL is to be deferred (only the worker writes its
        wait): then the middleware checks it before the fetch."""
        if self._worker is None:
            return None
        try:
            decision = self._worker.check_url_now(request.url)
        except DedupError as error:
            self._index_error(error)
            return None
        if decision is not None:
            self._url_checked(decision)
            if decision.action == "keep" and not self._knows_rules:
                request.meta[URL_CHECKED] = self._token
        return decision

    def put_index_page_first(self, request: Request) -> None:
        """Raise the priority of a directory's index page by ``DEDUP_INDEX_PRIORITY`` (counted
        as ``dedup/index_pages_first``)."""
        step = self.settings.index_priority
        if step and self._worker is not None and self._worker.dedup.is_index_page(request.url):
            request.priority += step
            self.stats.inc_value("dedup/index_pages_first")

    async def check_url(self, request: Request) -> Decision | None:
        """The verdict on a URL about to be fetched; ``None`` when the index is unavailable or
        the dupefilter kept it and no rule was confirmed since."""
        if self._worker is None or (
            not self._knows_rules and request.meta.get(URL_CHECKED) == self._token
        ):
            return None
        url = request.url
        decision = self._worker.check_url_now(url)
        if decision is None:  # the worker is writing, or the URL waits (a write): ask the worker
            decision = await self._call(methodcaller("check_url", url))
        if decision is not None:
            self._url_checked(decision)
        return decision

    def deferral_ends(self, url: str) -> bool:
        """Whether the (normalised) URL was seen deferred and its request is now dropped or
        fetched: then ``forget_deferral`` is due."""
        if url not in self._waiting:
            return False
        self._waiting.discard(url)
        return True

    async def forget_deferral(self, url: str) -> None:
        """The index forgets a URL's wait: the crawl's own queue held the request, and no other
        process is to release it."""
        await self._call(methodcaller("release_deferred", [url]))

    # pages
    async def check_page(
        self, url: str, body: bytes, headers: Mapping[str, Any]
    ) -> Decision | None:
        """The verdict on a fetched page, once it is committed; ``None`` when the index is
        unavailable."""
        if self._worker is None:
            return None
        decision = await self._settled(self._worker.check_page(url, body, headers))
        if decision is not None:
            self.stats.inc_value("dedup/pages_checked")
            if not decision.dropped:
                self.stats.inc_value(f"dedup/kept/{decision.reason}")
            self._record(decision)
        return decision

    async def counterpart_failed(
        self, url: str, status: int, location: str | None = None
    ) -> Decision | None:
        """Tell the core that a deferred URL's counterpart came back without a page to check
        (a 404, a file, a redirect to ``location``): the URLs waiting for it are decided on
        that."""
        return await self._report(methodcaller("counterpart_failed", url, status, location))

    async def probe_failed(
        self, url: str, status: int | None, location: str | None = None
    ) -> Decision | None:
        """Tell the mirror detector a probe could not be checked (an error, a 404, a redirect to
        ``location``, not HTML); its decision may ask for replacement probes."""
        self.stats.inc_value("dedup/probes_failed")
        return await self._report(methodcaller("probe_failed", url, status, location))

    async def fetch_failed(self, url: str, status: int | None) -> list[Decision]:
        """Tell the core that the crawl could not fetch ``url`` as a page; the decisions name
        the pages to crawl in its place (a rule's kept side lacks it: the pruned side's page)."""
        stand_ins = await self._call(methodcaller("fetch_failed", url, status)) or []
        for decision in stand_ins:
            self.stats.inc_value("dedup/stand_ins")
            self._record(decision)
        return stand_ins

    async def redirected(self, url: str, location: str, status: int) -> None:
        """Tell the core where a redirect the crawl followed sent it: a host that answers every
        URL alike teaches a redirect rule (``dedup/redirects_reported``,
        ``dedup/redirect_rules``); from then on its URLs are dropped for where they land."""
        self.stats.inc_value("dedup/redirects_reported")
        confirmed = await self._call(methodcaller("redirected", url, location, status))
        if confirmed:
            self.stats.inc_value("dedup/redirect_rules")
            self._knows_rules = True
            logger.info("dedup: learnt the redirect rule %s", confirmed)

    async def _report(self, call: Callable[[DedupFilter], Decision]) -> Decision | None:
        decision = await self._call(call)
        if decision is not None:
            self._record(decision)
        return decision

    async def probe_served(self, url: str) -> None:
        """The spider got a probe's page: tell the core its links are followed now."""
        await self._call(methodcaller("probe_served", url))

    async def pending_probes(self) -> list[str]:
        """Probes asked for earlier (maybe by a crawl that stopped) and never answered."""
        return await self._call(methodcaller("pending_probes")) or []

    def summary(self) -> str:
        stats = self.stats.get_stats()
        dropped = {
            key.removeprefix("dedup/dropped/"): value
            for key, value in stats.items()
            if key.startswith("dedup/dropped/")
        }
        counts = {key: stats.get(f"dedup/{key}", 0) for key in _SUMMARY_COUNTS}
        return (
            f"{counts['pages_checked']} pages and {counts['urls_checked']} URLs checked,"
            f" dropped {sum(dropped.values())} {dict(sorted(dropped.items()))},"
            f" {counts['mirror_rules']} mirror rules, {counts['probes']} probes,"
            f" {counts['bytes_not_parsed']} bytes not parsed, {counts['index_error']} index errors"
        )

    def _url_checked(self, decision: Decision) -> None:
        self.stats.inc_value("dedup/urls_checked")
        if decision.deferred:
            self._waiting.add(decision.url)
            if decision.alias_waits:
                self.stats.inc_value("dedup/url_aliases_deferred")
        self._record(decision)

    def _record(self, decision: Decision) -> None:
        for event, stat in _RULE_EVENTS.items():
            if count := len(decision.evidence.get(event, ())):
                self.stats.inc_value(stat, count)
        if decision.evidence.keys() & _RULE_NEWS:
            self._knows_rules = True
        for mirror in decision.evidence.get("mirrors_origin_lacking") or ():
            self.requeue_unpruned(mirror)
        if decision.dropped:
            self.stats.inc_value(f"dedup/dropped/{decision.reason}")
        if self._decision_log is not None:
            self._decision_log.write(decision)

    async def _call(self, call: Callable[[DedupFilter], T]) -> T | None:
        """``call(dedup)`` where the index's work runs, after all work before it; ``None``
        without an index, or when it failed (counted, logged)."""
        if self._worker is None:
            return None
        return await self._settled(self._worker.call(call))

    async def _settled(self, work: Deferred[T]) -> T | None:
        try:
            return await maybe_deferred_to_future(work)
        except DedupError as error:
            self._index_error(error)
            return None

    def _index_error(self, error: Exception) -> None:
        self.stats.inc_value("dedup/index_error")
        if not self._error_logged:
            logger.error(
                "dedup: index failure; the page or URL concerned goes on unfiltered (further"
                " failures counted as dedup/index_error, logged at DEBUG): %s",
                error,
            )
            self._error_logged = True
        else:
            logger.debug("dedup: index failure: %s", error)


def _url_free_meta(request: Request) -> dict[str, Any]:
    """``request``'s meta without what belongs to its fetch or its URL (``_URL_STATE``)."""
    return {key: value for key, value in request.meta.items() if key not in _URL_STATE}
