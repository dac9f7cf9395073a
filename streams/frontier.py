"""Frontier URLs: the URL and mirror rules, deferral, and optionally exact-URL dedup.

A URL under a mirror rule whose counterpart is not known yet is deferred: it is not forwarded, the
index remembers it, and ``settle`` (called with every batch and when the input is idle) releases it
to the kept URLs once its counterpart turns out missing or it waited ``stream.deferred_max_age_s``,
or drops it once the counterpart is held. The index forgets it only when ``release`` says its
outcome was delivered; a restarted frontier settles what an earlier process deferred.

Exact-URL dedup drops a URL that the index already holds as a fetched page, or that this process
kept recently (the last ``cache_size`` kept URLs). Keyed by URL, the frontier topic sends every copy
of a URL to the same partition and so to the same group member, which makes the cache exact for
repeats closer together than ``cache_size`` URLs; memory stays bounded at about 100 bytes a URL.

The links this process followed (kept) from dropped pages are remembered the same way, whether or
not exact-URL dedup is on: the process itself wrote them to the kept URLs, so one page's links
followed again from its copies would only repeat them (each pydoc page is linked from dozens of
others); those are not checked again.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

from dedup_filter import Decision, DedupFilter
from dedup_filter.decision import Reason
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.prepare import PreparedPage

from .messages import PageMessage

_FREE_PASS_S = 0.005  # a settle pass shorter than this is never held back
_PASS_SHARE = 0.1  # of the processor's time the longer passes take at most


class Frontier:
    """``check(urls)``: keep, or drop with the reason (mirrored directory, fetched, seen)."""

    def __init__(
        self,
        dedup: DedupFilter,
        cache_size: int,
        deferred_max_age_s: float,
        followed_memory: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._dedup = dedup
        self._deferred_max_age_s = deferred_max_age_s
        self._recent = RecentUrls(cache_size)
        self._followed = RecentUrls(followed_memory)
        self.deferring = dedup.any_deferred()  # whether a deferred URL may still wait
        self._clock = clock
        self._next_settle = 0.0  # when a settle pass may run again (``settle``)

    def look_for_deferred(self) -> None:
        """Settle the URLs other processes deferred too: a member of the group that stopped
        with URLs waiting left them in the shared index, and its partitions come to another
        member, which never deferred one itself (a red team's handover: held past their
        ``deferred_max_age_s`` until the new member deferred a URL of its own)."""
        self.deferring = self.deferring or self._dedup.any_deferred()

    def settle(self) -> list[Decision]:
        """Final decisions on deferred URLs whose fate is known now (in the order they settle).

        A pass checks every waiting URL again (about 0.1 ms each), so one that takes longer than
        ``_FREE_PASS_S`` is followed by none for ``1 / _PASS_SHARE`` times as long: the passes
        take at most that share of the processor's time, and the URLs settle later the more
        wait. Every batch and idle poll passed before: 20,000 waiting URLs took 63 s to read in
        (0.2 s for 500 plain ones), and an idle processor used 74 % of a core (a red team)."""
        started = self._clock()
        if not self.deferring or started < self._next_settle:
            return []
        settled = self._dedup.settle_deferred(self._deferred_max_age_s)
        took = self._clock() - started
        self._next_settle = started + took / _PASS_SHARE if took > _FREE_PASS_S else 0.0
        return settled

    def release(self, settled: Sequence[Decision]) -> None:
        """Forget settled URLs, once their outcome was delivered."""
        self._dedup.release_deferred(decision.url for decision in settled)

    def check(self, urls: Sequence[str]) -> list[Decision]:
        """Decisions in order: the mirror rules in one read transaction, then exact-URL dedup of
        the URLs they keep (any other action of the core is passed on as it is)."""
        return self._deduplicated(self._dedup.check_urls(urls) if urls else [])

    def follow(
        self, decision: Decision, page: PageMessage, prepared: PreparedPage | None
    ) -> list[Decision]:
        """``check`` of the links to follow from a page's ``decision``
        (``DedupFilter.check_links_to_follow``: the URL checks that chose them decide them); a
        link this frontier followed recently is dropped as seen, unchecked."""
        decisions = self._deduplicated(
            self._dedup.check_links_to_follow(
                decision, page.body, page.headers, prepared, followed=self._followed
            )
        )
        self._followed.update(d.url for d in decisions if d.action == "keep")  # what is written
        return decisions

    def _deduplicated(self, decisions: list[Decision]) -> list[Decision]:
        self.deferring = self.deferring or any(d.deferred for d in decisions)
        if not self._recent.size or not decisions:
            return decisions
        with self._dedup.index.read() as view:
            return [self._exact(view, d) if d.action == "keep" else d for d in decisions]

    def _exact(self, view: IndexView, decision: Decision) -> Decision:
        if decision.url in self._recent:
            return Decision(decision.url, "drop", Reason.URL_SEEN, evidence={"rule": "exact_url"})
        if view.page_id_for_url(decision.url) is not None:
            return Decision(
                decision.url, "drop", Reason.URL_FETCHED, evidence={"rule": "exact_url"}
            )
        self._recent.update((decision.url,))
        return decision


class RecentUrls:
    """The last ``size`` URLs added (64-bit hashes, about 100 bytes each); ``in`` refreshes a URL
    found. A size of 0 holds nothing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._keys: OrderedDict[int, None] = OrderedDict()

    def __contains__(self, url: object) -> bool:
        if not self._keys or not isinstance(url, str):
            return False
        key = hash64(url, 0)
        if key not in self._keys:
            return False
        self._keys.move_to_end(key)
        return True

    def update(self, urls: Iterable[str]) -> None:
        if not self.size:
            return
        keys = self._keys
        for url in urls:
            keys[hash64(url, 0)] = None
        while len(keys) > self.size:
            keys.popitem(last=False)
