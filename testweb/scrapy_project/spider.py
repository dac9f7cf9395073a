"""The test-web spider: follow every link on ``*.test`` hosts, record every page it parses."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import scrapy
from scrapy.http import Response, TextResponse


class TestWebSpider(scrapy.Spider):
    """Arguments: ``start_file`` (one URL a line) and ``stats_file`` (stats as JSON at close)."""

    name = "testweb"
    allowed_domains: ClassVar[list[str]] = ["test"]

    def __init__(self, start_file: str, stats_file: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.start_urls = Path(start_file).read_text(encoding="utf-8").split()
        self.stats_file = stats_file

    async def start(self) -> AsyncIterator[Any]:
        # unlike Scrapy's default, start URLs go through the dupefilter: a later link to one of
        # them is not fetched a second time
        for url in self.start_urls:
            yield scrapy.Request(url)

    def parse(self, response: Response) -> Iterator[Any]:
        yield {"url": response.url, "bytes": len(response.body)}
        if isinstance(response, TextResponse):
            yield from response.follow_all(css="a::attr(href)")

    def closed(self, reason: str) -> None:
        if self.stats_file:
            stats = self.crawler.stats.get_stats()
            # spider opened to closed, without interpreter start-up (elapsed_time_seconds is
            # set after this handler)
            elapsed_s = (datetime.now(tz=UTC) - stats["start_time"]).total_seconds()
            stats |= {"finish_reason": reason, "crawl_seconds": elapsed_s}
            Path(self.stats_file).write_text(
                json.dumps(stats, default=str, sort_keys=True), "utf-8"
            )
