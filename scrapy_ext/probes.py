"""Probes: pages the mirror detector asks for, fetched once and kept for the spider.

A probe goes straight to the downloader (``engine.download_async``, as RobotsTxtMiddleware fetches
robots.txt): it skips the scheduler queue, so it is ahead of every queued request, it never meets
the dupefilter, and its response comes back here instead of to a spider callback (the spider may
not even want that URL). The outcome waits in a bounded cache keyed by request fingerprint; when
the spider later asks for the same URL it gets the probed response instead of a second fetch, and
a request that arrives while the probe is in flight waits for it.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy import Request
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.log import failure_to_exc_info
from twisted.internet.defer import Deferred

from .responses import PROBE

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from dedup_filter import Decision

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ProbeOutcome:
    """A fetched probe and the core's verdict on it (``None`` when it could not be judged)."""

    response: Response
    decision: Decision | None


class Prober:
    """Fetches probes, feeds them to ``check`` and keeps their outcomes for the spider."""

    def __init__(
        self,
        crawler: Crawler,
        judge: Callable[[Request, Response], Decision | None],
        on_failure: Callable[[str, int | None], None],
        cache_size: int,
    ) -> None:
        self._crawler = crawler
        self._judge = judge
        self._on_failure = on_failure
        self._cache_size = cache_size
        self._fingerprint = crawler.request_fingerprinter.fingerprint
        self._done: OrderedDict[bytes, ProbeOutcome] = OrderedDict()
        self._waiting: dict[bytes, list[Deferred[None]]] = {}
        self._fetches: set[Deferred[None]] = set()

    def schedule(self, urls: Iterable[str]) -> None:
        """Fetch each URL unless it is already probed, in flight or cached."""
        for url in urls:
            try:
                request = Request(url, callback=NO_CALLBACK, dont_filter=True, meta={PROBE: True})
            except ValueError:  # not a URL Scrapy can fetch: a probe that cannot be checked
                self._on_failure(url, None)
                continue
            key = self._fingerprint(request)
            if key in self._waiting or key in self._done:
                continue
            self._waiting[key] = []
            self._crawler.stats.inc_value("dedup/probes")  # type: ignore[union-attr]
            fetch = deferred_from_coro(self._fetch(key, request))
            self._fetches.add(fetch)
            fetch.addErrback(_log_failure, request.url)
            fetch.addBoth(lambda _, fetch=fetch: self._fetches.discard(fetch))

    def wait_for(self, request: Request) -> Deferred[None] | None:
        """A Deferred that fires when the probe of this request's URL lands; ``None`` if none is in flight."""
        waiters = self._waiting.get(self._fingerprint(request))
        if waiters is None:
            return None
        waiter: Deferred[None] = Deferred()
        waiters.append(waiter)
        return waiter

    def take(self, request: Request) -> ProbeOutcome | None:
        """The cached outcome of a probe of this request's URL (served once)."""
        return self._done.pop(self._fingerprint(request), None)

    async def _fetch(self, key: bytes, request: Request) -> None:
        try:
            response = await self._crawler.engine.download_async(request)  # type: ignore[union-attr]
        except Exception as error:  # any download failure is a failed probe, never a crash
            logger.debug("dedup: probe %s failed: %r", request.url, error)
            self._on_failure(request.url, None)
        else:
            self._keep(key, ProbeOutcome(response, self._judge(request, response)))
        finally:
            for waiter in self._waiting.pop(key, []):
                waiter.callback(None)

    def _keep(self, key: bytes, outcome: ProbeOutcome) -> None:
        if self._cache_size == 0:
            return
        self._done[key] = outcome
        while len(self._done) > self._cache_size:
            self._done.popitem(last=False)


def _log_failure(failure: Failure, url: str) -> None:
    logger.error("dedup: handling the probe of %s failed", url, exc_info=failure_to_exc_info(failure))
