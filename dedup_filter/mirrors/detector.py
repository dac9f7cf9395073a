"""Mirrored directories, detected during the crawl (Zhang, Jia & Li, made online) and pruned.

Life of a pair: an index page whose content duplicates the index page of another directory makes
the two directories a *candidate* (``candidates.py``); that index page is kept, and its links
followed, because look-alike listings and templates head unrelated directories. Coordinate
sampling (``sampling.py``) confirms or rejects the candidate, asking for probes (``probes.py``)
where the crawl has not fetched the mirror's counterpart yet. A confirmed candidate becomes a
*rule* mirror -> origin (``mirror_rules.py``); the rule widens to the parent directories while
their index pages replicate and sampling confirms them too (``boundary.py``).

This module is what the filter talks to: it records every checked page under its directories,
moves the candidates the page concerns and says so in the page's decision. Invariants: every
change happens in the caller's write transaction, so outcomes depend only on the order of commits
to the shared index; no rule is made from index pages alone unless ``mirror.samples = 0``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from dedup_filter.config import Config
from dedup_filter.decision import Decision, Reason
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.mirrors.candidates import (
    CandidateUpdate,
    Pair,
    index_pair,
    links_back,
    listing_pair,
    ruled,
)
from dedup_filter.mirrors.directories import (
    IndexPages,
    Placement,
    authority,
    own_placement,
    placements,
)
from dedup_filter.mirrors.probes import answer, withdraw_failed
from dedup_filter.mirrors.records import (
    DROPPED_AS_MIRROR,
    KEPT_AS_CANDIDATE,
    OPEN,
    ORDINARY,
    OUTCOME_NAMES,
    REJECTED,
    Candidate,
    DirEntry,
    Rule,
)
from dedup_filter.mirrors.rules import describe, rule_over
from dedup_filter.mirrors.sampling import Arrival, CoordinateSampler
from dedup_filter.mirrors.store import MirrorStore, host_hash, pair_reference

_LINKED_HOSTS = 16  # other hosts an index page's entry remembers, for orienting pairs


@dataclass(frozen=True, slots=True)
class CheckedPage:
    """What the filter tells the detector about a page it decided on."""

    decision: Decision  # so far (``mirror_candidate`` when ``pair`` is given)
    representative: int  # the indexed page standing for its content (its own id when kept)
    fingerprint: Fingerprint
    pair: Pair | None = None  # the candidate pair it heads, from ``pair_for``
    recorded: DirEntry | None = None  # from ``recorded``: it was checked before as it is
    links: Iterable[str] = ()  # absolute URLs it links to (those ``wants_links`` asks for)


class MirrorDetector:
    """Candidates, sampling, rules and boundaries over the mirror tables of one index."""

    def __init__(self, config: Config) -> None:
        self.config = config.mirror
        self._index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        self._sampler = CoordinateSampler(config)
        self._listing_agreement = math.ceil(
            config.mirror.listing_min_agreement * config.simhash.bits
        )

    # questions the filter asks
    def pair_for(self, view: IndexView, url: str, original_url: str) -> Pair | None:
        """The candidate pair when ``url`` is an index page duplicating another directory's
        (none when a rule already prunes ``url`` or the pair's mirror side)."""
        if not self.config.enabled:
            return None
        store = MirrorStore(view)
        pair = index_pair(
            url,
            original_url,
            self._index_pages,
            self.config.max_depth,
            links_back(store, original_url, url, self.config.max_depth),
        )
        if pair is None or ruled(store, (url, pair.mirror.url), self.config.max_depth):
            return None  # a rule prunes the page, or the directory that would be sampled
        return pair

    def wants_links(self, url: str) -> bool:
        """Whether the page's links are needed: every page's in URL mode (its links show what the
        mirror has), an index page's in content mode (its listing names documents to sample, and
        pairs it with a directory listing the same ones)."""
        if not self.config.enabled:
            return False
        if self.config.mode == "url":
            return True
        place = own_placement(url, self.config.max_depth)
        return place is not None and self._index_pages.is_index(place)

    def protects(self, view: IndexView, url: str, original_url: str) -> bool:
        """Whether ``url`` lies in the origin of an open candidate or a rule whose mirror holds
        ``original_url``: then it is kept although it duplicates it (a copy met first never cuts
        an original off, even one that duplicates another page of its directory)."""
        if not self.config.enabled:
            return False
        store = MirrorStore(view)
        original = original_url.lower()
        for place in placements(url, self.config.max_depth):
            if any(
                original.startswith(mirror) for mirror in store.mirrors_of_origin(place.directory)
            ):
                return True
        return False

    def check_url(self, view: IndexView, url: str) -> Decision:
        """Drop a URL under the mirror side of a rule, unless it is an outstanding probe."""
        store = MirrorStore(view)
        found = self._rule_over(store, url) if self.config.enabled and store.has_rules() else None
        if found is None:
            return Decision(url, "keep", Reason.NOT_MIRRORED)
        rule, place = found
        if store.probes_for(url):
            return Decision(url, "keep", Reason.PROBE, evidence={"mirror_rule": rule.mirror})
        evidence = {"mirror_rule": self.describe(store, rule)}
        return Decision(
            url, "drop", Reason.MIRRORED_DIRECTORY, rule.origin + place.relative, evidence
        )

    def recorded(self, view: IndexView, url: str, exact: int) -> DirEntry | None:
        """The page's record when ``url`` was checked before with this very content (a replay,
        or a recrawl of an unchanged page): it names what the page duplicated and its role."""
        places = placements(url, self.config.max_depth)
        if not self.config.enabled or not places:
            return None
        place = places[-1]
        entry = MirrorStore(view).entry(place.directory_key, self._index_pages.entry_key(place))
        if entry is None or entry.exact != exact or entry.relative != place.relative:
            return None
        return entry

    # what the filter tells
    def observe(self, view: IndexView, page: CheckedPage, now: float) -> Decision:
        """Record a checked page under its directories and move the candidates it concerns."""
        places = placements(page.decision.url, self.config.max_depth)
        if not self.config.enabled or not places:
            return page.decision
        store = MirrorStore(view)
        self._record(store, places, page, _role(page))
        if self.config.mode == "url":
            for link in page.links:
                store.add_link(link, page.representative)
        arrival = Arrival(page.fingerprint, page.links)
        update = CandidateUpdate(store, self.config, self._sampler, now, arrival)
        level = answer(store, page.decision.url)
        pair = page.pair or listing_pair(
            store,
            page.fingerprint,
            page.links,
            self._index_pages,
            self.config,
            self._listing_agreement,
        )
        if pair is not None:
            update.open(pair, level)
        self._advance_concerned(update, places)
        decision = self._annotate(store, page, places, update, pair)
        if (
            page.recorded is None and decision.reason == Reason.MIRRORED_DIRECTORY
        ):  # replays will drop it again
            self._record(store, places, page, DROPPED_AS_MIRROR)
        return decision

    def probe_failed(self, view: IndexView, url: str, status: int | None, now: float) -> Decision:
        """A probe could not be fetched: its sample could not be checked; maybe probe another."""
        store = MirrorStore(view)
        update = CandidateUpdate(store, self.config, self._sampler, now)
        outstanding = store.probes_for(url)
        for kind, reference in outstanding:
            candidate = withdraw_failed(store, url, kind, reference, status)
            if candidate is not None:
                update.advance(candidate)
        evidence = {"status": status, "outstanding_probe": bool(outstanding)} | update.evidence()
        return Decision(
            url, "keep", Reason.PROBE_FAILED, evidence=evidence, probes=update.handed_out()
        )

    # listing and maintenance
    def rules(self, view: IndexView) -> list[dict[str, Any]]:
        store = MirrorStore(view)
        return [self.describe(store, rule) for rule in store.rules_under("")]

    def remove_rule(self, view: IndexView, directory: str) -> bool:
        store = MirrorStore(view)
        rule = store.rule(directory)
        if rule is not None:
            store.delete_rule(rule)
        return rule is not None

    def pending_probes(self, view: IndexView) -> list[str]:
        """Every probe asked for and not answered yet (for an integration that restarts)."""
        return sorted(set(MirrorStore(view).probe_urls()))

    def describe(self, store: MirrorStore, rule: Rule) -> dict[str, Any]:
        return describe(store, rule, self.config.max_boundary_levels)

    # recording pages
    def _record(
        self, store: MirrorStore, places: list[Placement], page: CheckedPage, role: int
    ) -> None:
        for place in places:
            key = self._index_pages.entry_key(place)
            hosts = _linked_hosts(page.decision.url, page.links) if place.is_own and not key else ()
            entry = DirEntry(
                page.representative, page.fingerprint.exact, place.relative, role, hosts
            )
            store.put_entry(place.directory_key, key, entry)

    @staticmethod
    def _advance_concerned(update: CandidateUpdate, places: list[Placement]) -> None:
        """Advance the open candidates whose mirror or origin is one of the page's directories."""
        concerned: dict[bytes, str] = {}  # candidate -> the page's relative path under it
        for place in places:
            for candidate in update.store.candidates_of_mirror(place.directory):
                concerned[pair_reference(candidate.mirror, candidate.origin)] = place.relative
            for candidate in update.store.candidates_of_origin(place.directory):
                concerned[pair_reference(candidate.mirror, candidate.origin)] = place.relative
        for reference, relative in concerned.items():
            current = update.store.candidate(reference)  # re-read: an advance may settle others
            if current is not None and current.state == OPEN:
                update.advance(current, relative)

    def _rule_over(self, store: MirrorStore, url: str) -> tuple[Rule, Placement] | None:
        return rule_over(store, placements(url, self.config.max_depth))

    # the decision
    def _annotate(
        self,
        store: MirrorStore,
        page: CheckedPage,
        places: list[Placement],
        update: CandidateUpdate,
        pair: Pair | None,
    ) -> Decision:
        """The page's decision with what the detector did (``pair``: the candidate it heads, by
        content or by listing; only the first drops the page when its own pair is confirmed)."""
        decision = replace(
            page.decision,
            evidence=page.decision.evidence | update.evidence(),
            probes=page.decision.probes + update.handed_out(),
        )
        found = rule_over(store, places)
        if found is None:
            return self._with_pair_state(store, decision, pair)
        first = page.recorded.role if page.recorded is not None else None
        if first == DROPPED_AS_MIRROR or (page.pair is not None and not page.pair.page_is_origin):
            # the page's directory was confirmed a mirror by this very page (now or the first time)
            return self._dropped_as_mirror(store, decision, *found)
        if first == KEPT_AS_CANDIDATE and decision.dropped:
            # a replay of a page kept as a candidate the first time, whose rule came since
            decision = replace(decision, action="keep", reason=Reason.MIRROR_CANDIDATE)
        evidence = decision.evidence | {"mirror_rule": found[0].mirror}
        return self._with_pair_state(store, replace(decision, evidence=evidence), pair)

    def _with_pair_state(
        self, store: MirrorStore, decision: Decision, pair: Pair | None
    ) -> Decision:
        """The state of the candidate pair the page heads, if any (rejected: a look-alike)."""
        candidate = store.candidate(pair.reference) if pair is not None else None
        if candidate is None:
            return decision
        reason = Reason.LOOK_ALIKE_INDEX if candidate.state == REJECTED else decision.reason
        return replace(
            decision, reason=reason, evidence=decision.evidence | {"mirror": _summary(candidate)}
        )

    def _dropped_as_mirror(
        self, store: MirrorStore, decision: Decision, rule: Rule, place: Placement
    ) -> Decision:
        """An index page whose directory was just confirmed a mirror: no reason left to keep it."""
        evidence = decision.evidence | {"mirror_rule": self.describe(store, rule)}
        counterpart = rule.origin + place.relative
        return replace(
            decision,
            action="drop",
            reason=Reason.MIRRORED_DIRECTORY,
            duplicate_of=counterpart,
            evidence=evidence,
        )


def _linked_hosts(url: str, links: Iterable[str]) -> tuple[int, ...]:
    """The other hosts an index page links, the first few in document order, hashed."""
    own = authority(url)
    hosts = [
        host for host in dict.fromkeys(authority(link) for link in links) if host and host != own
    ]
    return tuple(host_hash(host) for host in hosts[:_LINKED_HOSTS])


def _role(page: CheckedPage) -> int:
    """A replay keeps the role it had the first time; a new page takes it from its decision."""
    if page.recorded is not None:
        return page.recorded.role
    return KEPT_AS_CANDIDATE if page.decision.reason == Reason.MIRROR_CANDIDATE else ORDINARY


def _summary(candidate: Candidate) -> dict[str, Any]:
    return {
        "mirror": candidate.mirror,
        "origin": candidate.origin,
        "state": "open" if candidate.state == OPEN else "rejected",
        "samples": {sample.relative: OUTCOME_NAMES[sample.outcome] for sample in candidate.samples},
    }
