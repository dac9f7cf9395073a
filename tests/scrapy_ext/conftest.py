"""Real Scrapy crawler objects (``get_crawler``) over a real LMDB index in ``tmp_path``, with a
real reactor turned by ``settle`` while a hook waits for the index's worker thread."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from dedup_filter.scrapy import DedupMiddleware
from dedup_filter.scrapy.session import _sessions
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.reactor import install_reactor, is_reactor_installed
from scrapy.utils.test import get_crawler
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from testweb.scrapy_project.run import CrawlRun, scrapy_crawl
from testweb.server import serve
from testweb.site import TestWeb

MakeCrawler = Callable[..., Crawler]
T = TypeVar("T")


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
        defaults = {
            "DEDUP_INDEX_PATH": str(tmp_path / "index"),
            "LOGSTATS_INTERVAL": 0,
            "DEDUP_PREPARE_PROCESSES": 0,  # pages prepared in the worker thread: no start-up
        }
        crawler = get_crawler(settings_dict=defaults | settings)
        crawlers.append(crawler)
        return crawler

    yield make
    for crawler in crawlers:  # release the index of every crawler whose components were built
        close_spider(crawler)


def settle(work: Awaitable[T] | Deferred[T], timeout_s: float = 10.0) -> T:
    """Run a hook's coroutine (or a Deferred) to its end, turning the reactor meanwhile: the
    index's worker thread hands its results back through it."""
    from twisted.internet import reactor

    deferred = work if isinstance(work, Deferred) else Deferred.fromCoroutine(work)
    deadline = time.monotonic() + timeout_s
    while not deferred.called:
        if time.monotonic() > deadline:
            msg = f"not settled within {timeout_s} s"
            raise TimeoutError(msg)
        reactor.iterate(0.001)  # type: ignore[attr-defined]
    outcome: list[Any] = []
    deferred.addBoth(outcome.append)
    if isinstance(outcome[0], Failure):
        outcome[0].raiseException()
    return outcome[0]


def open_spider(crawler: Crawler) -> None:
    """Send ``spider_opened`` as the engine does (the middleware re-issues pending probes)."""
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)


def close_spider(crawler: Crawler) -> None:
    """What ``spider_closed`` does to the dedup session: it releases the index once every
    decision is committed (the one handler of that signal that matters here)."""
    session = _sessions.get(crawler)
    if session is not None:
        settle(session.spider_closed())


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


def logged_crawl(
    web: TestWeb, workdir: Path, name: str, overrides: dict[str, Any] | None = None
) -> tuple[CrawlRun, set[str], list[dict[str, Any]]]:
    """A real crawl of ``web`` one request at a time, with the filter (``overrides``: its
    ``DEDUP_OVERRIDES``) and a decision log: the run, the URLs the server was asked for, and
    the decisions."""
    settings = {"CONCURRENT_REQUESTS": 1, "DEDUP_DECISION_LOG": "decisions.jsonl"}
    settings |= {"DEDUP_OVERRIDES": overrides} if overrides else {}
    with serve(web) as server:
        run = scrapy_crawl(workdir, server.proxy_url, web.start_urls, name=name, settings=settings)
        fetched = set(server.request_log.urls())
    assert run.returncode == 0, run.log[-3000:]
    log = workdir / ".scrapy" / "decisions.jsonl"
    return run, fetched, [json.loads(line) for line in log.read_text().splitlines()]
