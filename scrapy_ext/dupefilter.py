"""Frontier pruning inside Scrapy: the scheduler's dupefilter also rejects URLs under mirror rules.

Enable it with::

    DUPEFILTER_CLASS = "dedup_filter.scrapy.DedupDupeFilter"

A URL under a mirrored directory is rejected before it is queued, so it costs neither a queue slot
nor a fetch. A directory's index page is queued ``DEDUP_INDEX_PRIORITY`` ahead of the requests
queued with it: listings pair mirrors, so the pages a rule would prune are still queued when it
comes. A kept request is marked, so the downloader middleware does not check it again unless
this crawl confirmed a rule since. The middleware checks just before the fetch what the dupefilter
did not: requests with ``dont_filter`` (they never reach a dupefilter), URLs queued before their
rule was confirmed, URLs met while the index's worker was writing (the check here never waits
for it), URLs whose page a probe brought (the middleware serves that answer: ``prunable``) and
URLs to be deferred (their wait is a write, the worker's; the middleware also probes
their counterpart).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Self

from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.job import job_dir

from .responses import is_exempt
from .session import DedupSession

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.utils.request import RequestFingerprinterProtocol
    from twisted.internet.defer import Deferred

logger = logging.getLogger(__name__)


class DedupDupeFilter(RFPDupeFilter):
    """``RFPDupeFilter`` plus the mirror rules of the shared index (``dedup/frontier_pruned``)."""

    def __init__(
        self,
        path: str | None = None,
        debug: bool = False,
        *,
        fingerprinter: RequestFingerprinterProtocol | None = None,
        session: DedupSession | None = None,
    ) -> None:
        super().__init__(path, debug, fingerprinter=fingerprinter)
        self._session = session
        self._pruned: Request | None = None
        self._pruned_logged = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(
            job_dir(crawler.settings),
            crawler.settings.getbool("DUPEFILTER_DEBUG"),
            fingerprinter=crawler.request_fingerprinter,
            session=DedupSession.of(crawler),
        )

    def open(self) -> Deferred[None] | None:
        """Scrapy opens the spider once this fires: the filter's start-up (its deciding process,
        its compiled kernels) is paid before the first request, not by the first pages."""
        return None if self._session is None else self._session.warmed()

    def request_seen(self, request: Request) -> bool:
        if super().request_seen(request) or self._under_mirror_rule(request):
            return True
        if self._session is not None and not is_exempt(request):
            self._session.put_index_page_first(request)
        return False

    def log(self, request: Request, spider: Spider) -> None:
        if request is self._pruned:  # counted and logged as a pruned URL, not as a duplicate
            return
        super().log(request, spider)

    def _under_mirror_rule(self, request: Request) -> bool:
        if self._session is None or is_exempt(request):
            return False
        decision = self._session.check_url_now(request)
        if decision is None or not decision.dropped or not self._session.prunable(request):
            return False
        self._session.stats.inc_value("dedup/frontier_pruned")
        self._session.url_pruned(request, decision)  # scheduled at once: Scrapy allows it
        self._pruned = request
        if self._pruned_logged:
            logger.debug(
                "dedup: pruned %s (%s of %s)", request.url, decision.reason, decision.duplicate_of
            )
        else:
            logger.info(
                "dedup: pruned %s (%s of %s); further pruned URLs not shown, set LOG_LEVEL=DEBUG",
                request.url,
                decision.reason,
                decision.duplicate_of,
            )
            self._pruned_logged = True
        return True
