"""The façade every integration calls: a URL or a fetched page in, a ``Decision`` out.

Features are computed outside the write transaction (no lock held while hashing); the decisions
of a batch are taken inside one write transaction, so they depend only on the order of commits
to the shared index, never on which process saw a page first.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Self

from .config import Config
from .decision import Decision
from .fingerprint import Fingerprint, Fingerprinter
from .lmdb_index import IndexView, LmdbIndex, PageRecord
from .matching import Match, find_exact, find_near
from .urls import normalize_url

logger = logging.getLogger(__name__)

PageInput = tuple[str, bytes, Mapping[Any, Any] | None] | tuple[str, bytes]


class DedupFilter:
    """Exact and near-duplicate pages, and URLs under mirrored directories, against one index.

    Example:
        >>> with DedupFilter.open("crawl-index", Config.default()) as dedup:  # doctest: +SKIP
        ...     decision = dedup.check_page("https://a.example/x.html", body)
        ...     if decision.dropped:
        ...         print(decision.reason, decision.duplicate_of)
    """

    def __init__(self, index: LmdbIndex, config: Config, clock: Callable[[], float] = time.time) -> None:
        self.index = index
        self.config = config
        self.counters: Counter[str] = Counter()
        self._fingerprinter = Fingerprinter(config)
        self._clock = clock
        self._duplicates_logged = 0

    @classmethod
    def open(cls, path: str | os.PathLike[str], config: Config | None = None) -> Self:
        """Open (or create) the shared index at ``path``."""
        config = config or Config.default()
        return cls(LmdbIndex.open(path, config), config)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.index.close()

    def check_page(self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None) -> Decision:
        """Decide on one fetched page and, unless it is dropped, add it to the index."""
        return self.check_pages([(url, body, headers)])[0]

    def check_pages(self, pages: Iterable[PageInput]) -> list[Decision]:
        """Decide on a batch of ``(url, body[, headers])`` in order, in one write transaction."""
        fingerprints = [self.fingerprint(url, body, *headers) for url, body, *headers in pages]
        now = self._clock()
        decisions = self.index.transact(lambda view: [self._decide(view, fp, now) for fp in fingerprints])
        for decision in decisions:
            self._count(decision)
        return decisions

    def check_url(self, url: str) -> Decision:
        """Pre-fetch check of a URL against the mirror rules."""
        decision = Decision(normalize_url(url), "keep", "not_mirrored")
        self.counters["urls_checked"] += 1
        return decision

    def fingerprint(self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None) -> Fingerprint:
        return self._fingerprinter.fingerprint(normalize_url(url), body or b"", headers)

    def _decide(self, view: IndexView, fingerprint: Fingerprint, now: float) -> Decision:
        if fingerprint.token_count == 0 and not fingerprint.binary:
            return Decision(fingerprint.url, "keep", "empty", evidence=_page_evidence(fingerprint))
        own_id = view.page_id_for_url(fingerprint.url)
        own = view.page(own_id) if own_id is not None else None
        if own is not None and own.exact == fingerprint.exact:
            view.touch_page(own, now)
            return Decision(fingerprint.url, "keep", "unchanged", evidence=_page_evidence(fingerprint))
        match = find_exact(view, fingerprint, own_id) or find_near(view, fingerprint, own_id, self.config)
        if match is not None:
            return _drop(fingerprint, match)
        page_id = own_id if own_id is not None else view.new_page_id()
        view.put_page(
            PageRecord(
                page_id, fingerprint.url, fingerprint.exact, fingerprint.token_count,
                fingerprint.features, fingerprint.simhash, now,
            )
        )
        reason = "changed" if own is not None else "unique"
        return Decision(fingerprint.url, "keep", reason, evidence=_page_evidence(fingerprint))

    def _count(self, decision: Decision) -> None:
        self.counters["pages_checked"] += 1
        self.counters[f"{decision.action}/{decision.reason}"] += 1
        if not decision.dropped:
            return
        if self._duplicates_logged == 0:
            logger.info(
                "dropped %s: %s of %s (further drops not shown; set log level DEBUG)",
                decision.url, decision.reason, decision.duplicate_of,
            )
        else:
            logger.debug("dropped %s: %s of %s", decision.url, decision.reason, decision.duplicate_of)
        self._duplicates_logged += 1


def _drop(fingerprint: Fingerprint, match: Match) -> Decision:
    evidence = _page_evidence(fingerprint) | match.evidence
    return Decision(fingerprint.url, "drop", match.reason, match.original.url, evidence)


def _page_evidence(fingerprint: Fingerprint) -> dict[str, Any]:
    evidence: dict[str, Any] = {"tokens": fingerprint.token_count, "encoding": fingerprint.encoding}
    if fingerprint.truncated:
        evidence["truncated"] = True
    if not fingerprint.has_features and not fingerprint.binary:
        evidence["below_token_floor"] = True
    return evidence
