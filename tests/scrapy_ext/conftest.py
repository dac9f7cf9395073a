"""Real Scrapy crawler objects (``get_crawler``) over a real LMDB index in ``tmp_path``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from dedup_filter.scrapy import DedupMiddleware
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.reactor import install_reactor, is_reactor_installed
from scrapy.utils.test import get_crawler

MakeCrawler = Callable[..., Crawler]


@pytest.fixture(scope="session", autouse=True)
def _reactor() -> None:
    """Crawler objects want a reactor installed (Scrapy < 2.19 refuses to build them without)."""
    if not is_reactor_installed():
        install_reactor("twisted.internet.selectreactor.SelectReactor")


@pytest.fixture
def make_crawler(tmp_path: Path) -> Iterator[MakeCrawler]:
    """Crawlers on the index ``tmp_path/index``; those left open by a test are closed after it."""
    crawlers: list[Crawler] = []

    def make(**settings: Any) -> Crawler:
        defaults = {"DEDUP_INDEX_PATH": str(tmp_path / "index"), "LOGSTATS_INTERVAL": 0}
        crawler = get_crawler(settings_dict=defaults | settings)
        crawlers.append(crawler)
        return crawler

    yield make
    for crawler in crawlers:
        if crawler in _open:
            close_spider(crawler)


_open: set[Crawler] = set()


def open_spider(crawler: Crawler) -> None:
    """Send ``spider_opened`` as the engine does (the dedup session opens the index)."""
    _open.add(crawler)
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)


def close_spider(crawler: Crawler) -> None:
    _open.discard(crawler)
    crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")


@pytest.fixture
def crawler(make_crawler: MakeCrawler) -> Crawler:
    return make_crawler()


@pytest.fixture
def middleware(crawler: Crawler) -> DedupMiddleware:
    """A middleware whose spider is open."""
    mw = build_from_crawler(DedupMiddleware, crawler)
    open_spider(crawler)
    return mw


def html_response(
    url: str, body: str | bytes, status: int = 200, method: str = "GET"
) -> HtmlResponse:
    data = body.encode() if isinstance(body, str) else body
    headers = {"Content-Type": "text/html; charset=utf-8"}
    return HtmlResponse(
        url, status=status, body=data, headers=headers, request=Request(url, method=method)
    )


def stamped(html: str, stamp: str) -> str:
    """The page with a time stamp added: a near-duplicate (Henzinger's commonest difference)."""
    return html.replace("</body>", f"<p>Served at {stamp}</p></body>", 1)
