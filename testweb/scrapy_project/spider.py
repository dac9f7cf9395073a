"""The test-web spider: follow every link on ``*.test`` hosts, record every page it parses, and
every request the filter dropped as its errback sees it (the errback of docs/scrapy.md)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import scrapy
from dedup_filter.scrapy import DedupIgnoreRequest
from scrapy.http import Response, TextResponse
from twisted.python.failure import Failure


class TestWebSpider(scrapy.Spider):
    """Arguments: ``start_file`` (one URL a line), ``stats_file`` (stats as JSON at close) and
    ``errback`` ("no": requests carry no errback, as in most spiders; a drop then reaches no
    spider code, and is not recorded)."""

    name = "testweb"
    allowed_domains: ClassVar[list[str]] = ["test"]

    def __init__(
        self, start_file: str, stats_file: str | None = None, errback: str = "yes", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._errback = None if errback == "no" else self.dropped
        self.start_urls = Path(start_file).read_text(encoding="utf-8").split()
        self.stats_file = stats_file
        self._reactor_cpu_s = time.thread_time()  # the reactor's thread, as start() and closed()

    async def start(self) -> AsyncIterator[Any]:
        self._reactor_cpu_s = time.thread_time()
        # unlike Scrapy's default, start URLs go through the dupefilter: a later link to one of
        # them is not fetched a second time
        for url in self.start_urls:
            yield scrapy.Request(url, errback=self._errback)

    def parse(self, response: Response) -> Iterator[Any]:
        yield {"url": response.url, "bytes": len(response.body)}
        if isinstance(response, TextResponse):
            yield from response.follow_all(css="a::attr(href)", errback=self._errback)

    def dropped(self, failure: Failure) -> Iterator[Any]:
        """A request that got no response: the filter's drops carry their decision."""
        if failure.check(DedupIgnoreRequest):
            decision = failure.value.decision
            yield {"dropped": decision.url, "reason": decision.reason, "of": decision.duplicate_of}

    def closed(self, reason: str) -> None:
        if self.stats_file:
            stats = self.crawler.stats.get_stats()
            # spider opened to closed, without interpreter start-up (elapsed_time_seconds is
            # set after this handler)
            elapsed_s = (datetime.now(tz=UTC) - stats["start_time"]).total_seconds()
            reactor_cpu_s = time.thread_time() - self._reactor_cpu_s
            stats |= {
                "finish_reason": reason,
                "crawl_seconds": elapsed_s,
                "reactor_cpu_seconds": reactor_cpu_s,
            }
            Path(self.stats_file).write_text(
                json.dumps(stats, default=str, sort_keys=True), "utf-8"
            )
