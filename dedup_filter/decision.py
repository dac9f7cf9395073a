"""What the filter says about a URL or a page, and why: the only place reasons are spelled."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

from dedup_filter.urls import path_of

Action = Literal["keep", "drop", "defer"]


class Reason(StrEnum):
    """Why a page or URL was kept or dropped (a ``str``: compares and serialises as its value)."""

    # pages kept
    UNIQUE = "unique"  # nothing like it is held
    CHANGED = "changed"  # its URL was held with other content: the record is replaced
    UNCHANGED = "unchanged"  # its URL was held with the same content (a recrawl or a replay)
    EMPTY = "empty"  # no terms at all: nothing to compare
    MIRROR_CANDIDATE = "mirror_candidate"  # heads a directory that may replicate another
    MIRROR_ORIGIN = "mirror_origin"  # the origin side of a mirror pair, kept although met second
    LOOK_ALIKE_INDEX = "look_alike_index"  # its directory was sampled and does not replicate
    CANDIDATE_EXPIRED = "candidate_expired"  # its directory stayed a candidate too long: closed
    # pages dropped
    EXACT_DUPLICATE = "exact_duplicate"
    NEAR_DUPLICATE = "near_duplicate"
    # URLs, before the fetch
    NOT_MIRRORED = "not_mirrored"
    PROBE = "probe"  # a URL the mirror detector asked for: fetch it
    MIRRORED_DIRECTORY = "mirrored_directory"  # under a mirror rule whose origin page is held
    URL_SEEN = "url_seen"  # the stream frontier kept (exact-URL dedup) or followed it recently
    URL_FETCHED = "url_fetched"  # its page is held, or this crawl got it already (exact URL)
    DUPLICATE_URL = "duplicate_url"  # an alias, under a URL rule, of a held page's URL
    COUNTERPART_PENDING = "counterpart_pending"  # deferred: under a rule, its counterpart not held
    # deferred: under the mirror side of a pair being sampled, which may become a rule
    MIRROR_PENDING = "mirror_pending"
    COUNTERPART_MISSING = "counterpart_missing"  # under a rule, but its counterpart does not exist
    COUNTERPART_TIMED_OUT = "counterpart_timed_out"  # deferred too long: fetch it
    # under a rule that prunes its origin for a copy held first, whose page the crawl may have
    # pruned under a rule revoked since: it never comes, so this URL is fetched
    COUNTERPART_PRUNED = "counterpart_pruned"
    # under a rule, but its side's index page names a later release than the kept side's: it
    # may hold newer text than its counterpart (a stale copy taken for the kept side)
    NEWER_RELEASE = "newer_release"
    CANDIDATE_PENDING = "candidate_pending"  # deferred: an alias of a held page, under a rule
    # not confirmed yet whose evidence already holds its class
    PROTECTED = "protected"  # under a rule, but under a prefix the operator says never to prune
    ALREADY_HELD = "already_held"  # under a rule, but its own page is held: never pruned
    CRAWLED_FIRST = "crawled_first"  # under a rule's side held first: the other side is pruned
    # under a rule whose origin lacks a page its mirror side holds: the mirror may be the newer
    # side (a copy's pages may not link pages added since), so its URLs are fetched
    ORIGIN_INCOMPLETE = "origin_incomplete"
    STAND_IN = "stand_in"  # a rule's kept side lacks the page: its pruned side's page is crawled
    # an index page below a rule's own on its mirror side, which only counts, depth or order
    # took for the copy: fetched, since it may be the origin, its listing naming pages the
    # other side lacks
    LISTING = "listing"
    # a page of an edition (a rule revoked for its code) whose counterpart, crawled, has no code
    EDITION_PROSE = "edition_prose"
    # a rule revoked for its code: a page of its pruned side is crawled where its kept side's
    # page has code blocks (``fetch_back`` in the revoking decision's evidence)
    FETCHED_BACK = "fetched_back"
    # probes that could not be fetched
    PROBE_FAILED = "probe_failed"


# the reasons of decisions on fetched pages; every other reason is a URL's, before its fetch
PAGE_REASONS = frozenset(
    {
        Reason.UNIQUE,
        Reason.CHANGED,
        Reason.UNCHANGED,
        Reason.EMPTY,
        Reason.MIRROR_CANDIDATE,
        Reason.MIRROR_ORIGIN,
        Reason.LOOK_ALIKE_INDEX,
        Reason.CANDIDATE_EXPIRED,
        Reason.EXACT_DUPLICATE,
        Reason.NEAR_DUPLICATE,
    }
)


@dataclass(frozen=True, slots=True)
class Decision:
    """One verdict: ``action`` with its ``reason``, the URL it duplicates and the evidence.

    ``probes`` lists URLs the mirror detector or the URL rules want fetched and fed back through
    ``check_page``. A ``defer`` is neither a keep nor a drop: the URL waits until its
    counterpart's fate is known.
    """

    url: str
    action: Action
    reason: Reason
    duplicate_of: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    probes: tuple[str, ...] = ()

    @property
    def dropped(self) -> bool:
        return self.action == "drop"

    @property
    def dropped_under_rule(self) -> bool:
        """Dropped under a mirror rule (its evidence names the rule): for a fetched page, its
        links may name what its kept twin does not (``DedupFilter.links_to_follow``)."""
        return self.dropped and "mirror_rule" in self.evidence

    @property
    def links_may_differ(self) -> bool:
        """A fetched page dropped under a mirror rule, or as the duplicate of a page in another
        directory or under another file name: its links may name what its twin's do not
        (``DedupFilter.links_to_follow``). Not an alias of its twin's file (a query, a print
        view): the same document's links."""
        if not self.dropped or self.reason not in PAGE_REASONS:
            return False
        twin = self.duplicate_of or self.url
        return self.dropped_under_rule or path_of(self.url) != path_of(twin)

    @property
    def deferred(self) -> bool:
        """Not to be fetched yet: ``DedupFilter.settle_deferred`` gives the final decision."""
        return self.action == "defer"

    @property
    def alias_waits(self) -> bool:
        """Deferred by a URL rule: an alias waiting for its canonical URL, or for its rule."""
        return self.deferred and bool(self.evidence.keys() & {"url_rule", "url_rule_candidate"})

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "action": self.action,
            "reason": str(self.reason),
            "duplicate_of": self.duplicate_of,
            "evidence": self.evidence,
            "probes": list(self.probes),
        }

    def to_json(self) -> str:
        """One line of JSON (the decision-log format shared by every integration).

        Lone surrogates (from malformed URLs) become ``\\uXXXX`` escapes, so the line always encodes
        as UTF-8 and still decodes to the same values.
        """
        line = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return line.encode("utf-8", "backslashreplace").decode("utf-8")


class Waiting(Protocol):
    """A deferred URL, waiting since ``since``."""

    @property
    def url(self) -> str: ...

    @property
    def since(self) -> float: ...


def settle_waiting(
    waiting: Iterable[Waiting], check: Callable[[str], Decision], now: float, max_age_s: float
) -> list[Decision]:
    """Final decisions (``check`` again) for the deferred URLs whose wait is over: decided now,
    or waited ``max_age_s`` or longer (then fetched: ``counterpart_timed_out``)."""
    settled = []
    for deferred in waiting:
        decision, waited = check(deferred.url), now - deferred.since
        if decision.deferred and waited < max_age_s:
            continue
        if decision.deferred:
            evidence = decision.evidence | {"waited_s": round(waited, 3)}
            decision = Decision(
                deferred.url, "keep", Reason.COUNTERPART_TIMED_OUT, evidence=evidence
            )
        settled.append(decision)
    return settled
