"""Precision and recall of the filter's drops against the labels of a ``labelled_corpus``.

A drop is correct when the page is a labelled duplicate and the page it was dropped in favour of
belongs to the same family (the original, or another copy of it): which copy is kept depends only
on arrival order. Drops are grouped by the label's site relation, or, for a page that duplicates
nothing, by the relation the filter reported (pages that are neither count only overall and by
kind); Henzinger measures same-site and cross-site
precision separately because boilerplate makes them differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dedup_filter import Decision
from dedup_filter.urls import normalize_url

from .labelled import LabelledPage


def share(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is nothing to measure (``whole`` is 0)."""
    return part / whole if whole else None


OVERALL = "all"
SAME_SITE = "same_site"
CROSS_SITE = "cross_site"


@dataclass(slots=True)
class Tally:
    """Counts of one group of pages."""

    pages: int = 0
    expected: int = 0  # labelled duplicates: the drops a perfect filter makes
    dropped: int = 0
    correct: int = 0

    @property
    def precision(self) -> float | None:
        return share(self.correct, self.dropped)

    @property
    def recall(self) -> float | None:
        return share(self.correct, self.expected)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One page, its decision and whether the decision agrees with the label."""

    page: LabelledPage
    decision: Decision
    correct_drop: bool

    @property
    def false_drop(self) -> bool:
        return self.decision.dropped and not self.correct_drop

    @property
    def missed(self) -> bool:
        return self.page.duplicate_of is not None and not self.correct_drop


@dataclass(frozen=True, slots=True)
class Score:
    """Tallies overall, by site relation and by kind of page, and every outcome in input order."""

    by_relation: dict[str, Tally]
    by_kind: dict[str, Tally]
    outcomes: tuple[Outcome, ...]


def score(pages: Sequence[LabelledPage], decisions: Sequence[Decision]) -> Score:
    """Compare ``decisions`` (one per page, same order) with the pages' labels."""
    if len(pages) != len(decisions):
        msg = f"{len(pages)} pages but {len(decisions)} decisions"
        raise ValueError(msg)
    family = {
        normalize_url(page.url): normalize_url(page.duplicate_of or page.url) for page in pages
    }
    by_relation = {name: Tally() for name in (OVERALL, SAME_SITE, CROSS_SITE)}
    by_kind: dict[str, Tally] = {}
    outcomes = []
    for page, decision in zip(pages, decisions, strict=True):
        correct = (
            decision.dropped
            and page.duplicate_of is not None
            and decision.duplicate_of is not None
            and family.get(normalize_url(decision.duplicate_of)) == family[normalize_url(page.url)]
        )
        outcome = Outcome(page, decision, correct)
        outcomes.append(outcome)
        tallies = [by_relation[OVERALL], by_kind.setdefault(page.kind, Tally())]
        if page.duplicate_of is not None or decision.dropped:
            tallies.append(by_relation[_relation(outcome)])
        for tally in tallies:
            tally.pages += 1
            tally.expected += page.duplicate_of is not None
            tally.dropped += decision.dropped
            tally.correct += correct
    return Score(by_relation, by_kind, tuple(outcomes))


def _relation(outcome: Outcome) -> str:
    if outcome.page.duplicate_of is not None:
        return SAME_SITE if outcome.page.same_site else CROSS_SITE
    reported = outcome.decision.evidence.get("site_relation")
    return CROSS_SITE if reported == CROSS_SITE else SAME_SITE
