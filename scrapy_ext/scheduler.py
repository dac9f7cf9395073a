"""Scrapy's scheduler, asking the filter again as it hands out a request.

Enable it with::

    SCHEDULER = "dedup_filter.scrapy.DedupScheduler"

Links are queued as a page is parsed, mostly before the probes that confirm their directory's
rule have landed. A request whose rule came while it waited is pruned here, before the engine,
the downloader middlewares and Scrapy's handling of a dropped request take it up (the same
check as the dupefilter's, counted as ``dedup/dequeue_pruned``). Only requests the dupefilter
saw are pruned so: requests with an errback go on to ``DedupMiddleware``, which drops them with
the decision for the errback to see, and so do redirected ones (the middleware reports the hop)
and the filter's own (deferred requests, stand-ins: ``dont_filter``), whose ends the middleware
tells the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.core.scheduler import Scheduler

from .dupefilter import DedupDupeFilter

if TYPE_CHECKING:
    from scrapy import Request


class DedupScheduler(Scheduler):
    """``Scheduler`` whose ``next_request`` skips the requests a mirror rule now prunes."""

    def next_request(self) -> Request | None:
        request = super().next_request()
        while request is not None and self._pruned(request):
            request = super().next_request()
        return request

    def _pruned(self, request: Request) -> bool:
        return (
            request.errback is None
            and not request.dont_filter
            and not request.meta.get("redirect_urls")
            and isinstance(self.df, DedupDupeFilter)
            and self.df.pruned_at_dequeue(request)
        )
