"""The crawl orders the evaluation runs Scrapy in, and how each is obtained.

- ``breadth_first``: the test project's settings (``DEPTH_PRIORITY = 1`` with FIFO queues, Scrapy's
  "BFO" recipe), start URLs in the builder's order (the copy of a copy first).
- ``round_robin``: ``SCHEDULER_PRIORITY_QUEUE = DownloaderAwarePriorityQueue``, which hands out
  the next request of the host (download slot) with the fewest downloads under way, so hosts take
  turns; start URLs in the builder's order.
- ``random``: start URLs shuffled with the seed, ``DEPTH_PRIORITY = 0`` and ``RandomPriority``
  (a spider middleware) giving every request a priority drawn from a seeded generator.

Scrapy downloads 16 requests at a time, so an order is what the scheduler hands out, not the exact
sequence of fetches; two runs of one order may differ a little.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from random import Random
from typing import Any

from scrapy import Request

ORDERS = ("breadth_first", "round_robin", "random", "depth_first")
_MAX_PRIORITY = 1000


def order_settings(order: str, seed: int = 0) -> dict[str, Any]:
    """The Scrapy settings that give ``order``."""
    if order == "breadth_first":
        return {}
    if order == "round_robin":
        return {"SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue"}
    if order == "depth_first":
        return {
            "DEPTH_PRIORITY": 0,
            "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleLifoDiskQueue",
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.LifoMemoryQueue",
        }
    if order == "random":
        return {
            "DEPTH_PRIORITY": 0,
            "SPIDER_MIDDLEWARES": {f"{__name__}.RandomPriority": 50},  # after DepthMiddleware (900)
            "EVAL_ORDER_SEED": seed,
        }
    msg = f"unknown order {order!r}; one of {ORDERS}"
    raise ValueError(msg)


def order_starts(order: str, start_urls: list[str], seed: int = 0) -> list[str]:
    """The start URLs in the order ``order`` hands them to the spider."""
    if order != "random":
        return list(start_urls)
    shuffled = list(start_urls)
    Random(seed).shuffle(shuffled)
    return shuffled


class RandomPriority:
    """Every request the spider yields gets a priority from a generator seeded by
    ``EVAL_ORDER_SEED``, so the scheduler hands requests out in a seeded random order."""

    def __init__(self, seed: int) -> None:
        self._rng = Random(seed)

    @classmethod
    def from_crawler(cls, crawler: Any) -> RandomPriority:
        return cls(crawler.settings.getint("EVAL_ORDER_SEED"))

    async def process_spider_output(
        self, response: Any, result: AsyncIterable[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        async for item in result:
            if isinstance(item, Request):
                item.priority = self._rng.randrange(_MAX_PRIORITY)
            yield item
