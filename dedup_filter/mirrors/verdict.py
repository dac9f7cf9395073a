"""A page's final decision: the page rules' verdict, with the mirror detector's word on it.

The façade decides what the page rules say (unique, changed, an exact or near duplicate) and
hands that ``CheckedPage`` to the detector once; every change the detector makes to the action
or the reason is made here, in ``final_decision``, from the page's ``Stance`` and what the call
learnt: a duplicate heading a candidate directory is kept (its links followed), a duplicate in an
origin is kept and indexed, the index page that confirmed its own mirror is dropped, a replay
repeats what it got the first time, a rejected candidate's index page says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from dedup_filter.decision import Decision, Reason
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.mirrors.directories import Placement
from dedup_filter.mirrors.named_editions import named_editions
from dedup_filter.mirrors.records import (
    DROPPED_AS_MIRROR,
    KEPT_AS_CANDIDATE,
    ORDINARY,
    OUTCOME_NAMES,
    REJECTED,
    STATE_NAMES,
    Candidate,
    DirEntry,
    Rejection,
    Rule,
)


def _nothing() -> None:
    return None


@dataclass(frozen=True, slots=True)
class MirrorPage:
    """What the detector knows of a page before the page rules decide (``MirrorDetector.before``):
    its places under its ancestor directories, and its record when it was checked before with
    this very content (a replay: it names what the page duplicated and its role)."""

    url: str
    places: list[Placement]
    recorded: DirEntry | None = None


@dataclass(frozen=True, slots=True)
class CheckedPage:
    """What the page rules say about a page: the decision, the indexed page standing for its
    content (its own id when kept), the URL of the page it duplicates (for a duplicate), its
    fingerprint and links, and how to index it when the detector keeps a duplicate."""

    decision: Decision
    representative: int
    fingerprint: Fingerprint
    links: Iterable[str] = ()  # absolute URLs it links to (those ``wants_links`` asks for)
    original_url: str | None = None
    index_anyway: Callable[[], object] = _nothing


class Stance(Enum):
    """What a page's place among the candidates and rules makes of it."""

    PLAIN = "plain"  # nothing: the page rules decide
    CANDIDATE = "candidate"  # a duplicate heading a directory that may be a mirror: kept
    ORIGIN = "origin"  # a duplicate in the origin of a pair: kept and indexed


def role(page: MirrorPage, stance: Stance) -> int:
    """A replay keeps the role it had the first time; a new page takes it from its stance."""
    if page.recorded is not None:
        return page.recorded.role
    return KEPT_AS_CANDIDATE if stance is Stance.CANDIDATE else ORDINARY


def final_decision(
    checked: CheckedPage,
    page: MirrorPage,
    stance: Stance,
    ruled: tuple[Rule, Placement] | None,
    candidate: Candidate | None,
    update: dict[str, Any],
    describe: Callable[[Rule], dict[str, Any]],
) -> Decision:
    """The page's decision (``ruled``: the rule over the page; ``candidate``: the pair the page
    heads; ``update``: the evidence of what the call moved)."""
    decision = checked.decision
    if stance is not Stance.PLAIN:
        reason = Reason.MIRROR_CANDIDATE if stance is Stance.CANDIDATE else Reason.MIRROR_ORIGIN
        decision = replace(decision, action="keep", reason=reason)
    decision = replace(decision, evidence=decision.evidence | update)
    first = page.recorded.role if page.recorded is not None else None
    if ruled is not None:
        rule, place = ruled
        if first == DROPPED_AS_MIRROR or stance is Stance.CANDIDATE:
            # the page's directory was confirmed a mirror by this very page (now or the first time)
            return replace(
                decision,
                action="drop",
                reason=Reason.MIRRORED_DIRECTORY,
                duplicate_of=rule.origin + place.relative,
                evidence=decision.evidence | {"mirror_rule": describe(rule)},
            )
        if first == KEPT_AS_CANDIDATE and decision.dropped:
            # a replay of a page kept as a candidate the first time, whose rule came since
            decision = replace(decision, action="keep", reason=Reason.MIRROR_CANDIDATE)
        decision = replace(decision, evidence=decision.evidence | {"mirror_rule": rule.mirror})
    if candidate is None:
        return decision
    reason = Reason.LOOK_ALIKE_INDEX if candidate.state == REJECTED else decision.reason
    return replace(
        decision, reason=reason, evidence=decision.evidence | {"mirror": summary(candidate)}
    )


def summary(candidate: Candidate) -> dict[str, Any]:
    """A candidate as decisions and the ``mirrors`` command show it; a rejected pair says why
    (``rejected_for``)."""
    shown = {
        "mirror": candidate.mirror,
        "origin": candidate.origin,
        "state": STATE_NAMES[candidate.state],
        "samples": {sample.relative: OUTCOME_NAMES[sample.outcome] for sample in candidate.samples},
    } | candidate.names_shown
    why = _rejected_for(candidate) if candidate.state == REJECTED else None
    return shown | {"rejected_for": why} if why else shown


def _rejected_for(candidate: Candidate) -> str | None:
    """Why a rejected pair was rejected; for naming different editions, which kind its paths name
    (``named_editions.py``; else its index pages declared them). An index written before the
    reason was kept tells it only for a pair rejected before any sample: it named editions."""
    why = candidate.rejected_for
    if why == Rejection.NAMED_EDITIONS or (not why and not candidate.samples):
        named = named_editions(candidate.mirror, candidate.origin)
        return named or (Rejection.NAMED_EDITIONS.name.lower() if why else None)
    return Rejection(why).name.lower() if why else None
