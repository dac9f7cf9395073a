"""Requests held out of Scrapy's scheduler while their URL waits for its counterpart's fate.

The dupefilter meets most of a crawl's deferred URLs: a copy's pages linked before the origin's
counterparts are fetched. Queued, each would pass the scheduler and the downloader middlewares
once for every deferral and once more to be dropped, and on a web of documentation trees those
passes were about a tenth of what the filter costs the reactor a request (docs/benchmarks.md). So
the session holds them here instead (``DedupSession.hold``): decided again when the crawl decides
their counterpart's page, and released to the scheduler (checked there as any deferred request)
when the counterpart cannot be fetched, when the crawl has nothing else to do, or when a paused
crawl resumes. A held request is never lost: each leaves by a drop that its URL's check gave, or
by the scheduler.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from scrapy import Request

#: how many requests one crawl holds at most; beyond that they are queued, as before
CAPACITY = 100_000
# evidence naming the mirror sides of rules a decision made or changed
_RULES_CHANGED = (
    "mirrors_confirmed",
    "mirrors_revoked",
    "mirrors_turned_by_absence",
    "mirrors_turned_to_newer",
    "mirrors_older",
    "mirrors_side_by_side",
    "mirrors_origin_lacking",
    "mirrors_origin_partial",
)


def directories_decided(evidence: Mapping[str, Any]) -> set[str]:
    """The directories whose URLs a decision may have decided otherwise: the mirror sides of the
    rules it made or changed, both sides of a candidate pair it closed (a document of a pair
    being sampled waits for its verdict, not for a page)."""
    named = {
        directory
        for key in _RULES_CHANGED
        for directory in evidence.get(key) or ()
        if isinstance(directory, str)
    }
    candidate = evidence.get("mirror")
    if isinstance(candidate, dict) and candidate.get("state") != "open":
        named |= {side for side in (candidate.get("mirror"), candidate.get("origin")) if side}
    return named


@dataclass(slots=True)
class Held:
    """A request, the normalised URL the index decides, and the page it waits for."""

    request: Request
    url: str
    counterpart: str | None
    since: float


class WaitingRoom:
    """The held requests, by URL and by the counterpart they wait for."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._held: dict[str, Held] = {}
        self._by_counterpart: dict[str, set[str]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, url: str, request: Request, counterpart: str | None) -> bool:
        """Hold ``request`` for ``url``; False when the room is full or holds that URL already
        (the request is then queued)."""
        if url in self._held or len(self._held) >= self._capacity:
            return False
        self._held[url] = Held(request, url, None, time.monotonic())
        self.wait_for(url, counterpart)
        return True

    def wait_for(self, url: str, counterpart: str | None) -> None:
        """``url`` waits for ``counterpart`` (as the index wrote its wait) from now on."""
        held = self._held.get(url)
        if held is None or held.counterpart == counterpart:
            return
        if held.counterpart is not None:
            self._by_counterpart.get(held.counterpart, set()).discard(url)
        held.counterpart = counterpart
        if counterpart is not None:
            self._by_counterpart.setdefault(counterpart, set()).add(url)

    def get(self, url: str) -> Held | None:
        return self._held.get(url)

    def waiting_on(self, counterpart: str) -> list[Held]:
        """The requests waiting for ``counterpart``, in the order they were held."""
        urls = self._by_counterpart.get(counterpart, ())
        return sorted((self._held[url] for url in urls), key=lambda held: held.since)

    def under(self, directories: Iterable[str]) -> list[Held]:
        """The requests for URLs below any of ``directories``."""
        prefixes = tuple(directories)
        return [held for held in self._held.values() if held.url.startswith(prefixes)]

    def all(self) -> list[Held]:
        return list(self._held.values())

    def take(self, url: str) -> Held | None:
        """Stop holding ``url``'s request and hand it back."""
        held = self._held.pop(url, None)
        if held is not None and held.counterpart is not None:
            waiting = self._by_counterpart.get(held.counterpart)
            if waiting is not None:
                waiting.discard(url)
                if not waiting:
                    del self._by_counterpart[held.counterpart]
        return held
