"""Near-duplicate drops scored by exact resemblance, as issue 11 measures them on real webs.

A near-duplicate drop is right when the page shares at least 0.8 of its 8-token shingles (Jaccard,
exact sets, the filter's own tokens) with the page it names. Recall counts the labelled copies that
resemble their original that much and were dropped (exactly or as near-duplicates).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dedup_filter import Decision
from dedup_filter.urls import normalize_url
from testweb.labelled import LabelledPage, page_jaccard
from testweb.scoring import share

RIGHT = 0.8


@dataclass(slots=True)
class ResemblanceTally:
    near_drops: int = 0
    right: int = 0  # near-duplicate drops with Jaccard >= RIGHT to the page they name
    resembling: int = 0  # labelled copies with Jaccard >= RIGHT to their original
    resembling_dropped: int = 0
    distinct_dropped: int = 0  # pages labelled as duplicating nothing, dropped

    def add(self, other: ResemblanceTally) -> None:
        for name in self.__slots__:  # type: ignore[attr-defined]
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def precision(self) -> float | None:
        return share(self.right, self.near_drops)

    @property
    def recall(self) -> float | None:
        return share(self.resembling_dropped, self.resembling)


def resemblance_tally(
    pages: Sequence[LabelledPage], decisions: Sequence[Decision]
) -> ResemblanceTally:
    by_url = {normalize_url(page.url): page for page in pages}
    tally = ResemblanceTally()
    for page, decision in zip(pages, decisions, strict=True):
        if page.duplicate_of is None:
            tally.distinct_dropped += decision.dropped
        elif page_jaccard(page, by_url[normalize_url(page.duplicate_of)]) >= RIGHT:
            tally.resembling += 1
            tally.resembling_dropped += decision.dropped
        if decision.reason == "near_duplicate" and decision.duplicate_of is not None:
            tally.near_drops += 1
            named = by_url[normalize_url(decision.duplicate_of)]
            tally.right += page_jaccard(page, named) >= RIGHT
    return tally


def pooled(tallies: Iterable[ResemblanceTally]) -> ResemblanceTally:
    total = ResemblanceTally()
    for tally in tallies:
        total.add(tally)
    return total
