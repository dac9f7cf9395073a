"""Mirrored directories, detected during the crawl (Zhang, Jia & Li, made online) and pruned.

Life of a pair: an index page whose content duplicates the index page of another directory makes
the two directories a *candidate*; that index page is kept, and its links followed, because
look-alike listings and templates head unrelated directories. Coordinate sampling
(``sampling.py``) confirms or rejects the candidate, asking for probes where the crawl has not
fetched the mirror's counterpart yet. A confirmed candidate becomes a *rule* mirror -> origin; the
rule widens to the parent directories while their index pages replicate and sampling confirms
them too (the replica boundary), and a wider rule absorbs the rules it contains.

Invariants: every change happens in the caller's write transaction, so outcomes depend only on the
order of commits to the shared index; no rule prunes a directory that is, contains or lies within
the origin of another rule (pages of an origin are never dropped by a rule); no rule is made from
index pages alone unless ``mirror.samples = 0``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .config import Config
from .decision import Decision
from .directories import (
    IndexPages,
    Placement,
    directory_depth,
    directory_name,
    nested,
    own_placement,
    parent_directory,
    placements,
    usable_directory,
)
from .lmdb_index import IndexView
from .mirror_store import (
    MISSING,
    OPEN,
    OUTCOME_NAMES,
    PARENT_PROBE,
    PENDING,
    REJECTED,
    SAMPLE_PROBE,
    Candidate,
    DirEntry,
    MirrorStore,
    Rule,
    candidate_key,
)
from .sampling import CoordinateSampler, Verdict

CANDIDATE = "mirror_candidate"
ORIGIN = "mirror_origin"
LOOK_ALIKE = "look_alike_index"
MIRRORED = "mirrored_directory"


@dataclass(frozen=True, slots=True)
class Pair:
    """Two directories whose index pages duplicate each other, oriented: ``mirror`` is the side a
    rule would prune, ``origin`` the side it keeps; ``page_is_origin`` says which side the page
    that made the pair lies in."""

    mirror: Placement
    origin: Placement
    page_is_origin: bool = False


@dataclass(slots=True)
class _Work:
    """What one call changed: probes to hand out and rules confirmed."""

    probes: list[str] = field(default_factory=list)
    confirmed: list[Rule] = field(default_factory=list)


class MirrorDetector:
    """Candidates, sampling, rules and boundaries over the mirror tables of one index."""

    def __init__(self, config: Config) -> None:
        self.config = config.mirror
        self._index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        self._sampler = CoordinateSampler(self.config)

    # questions the filter asks
    def pair_for(self, view: IndexView, url: str, original_url: str) -> Pair | None:
        """The candidate pair when ``url`` is an index page duplicating another directory's.

        The shallower directory is taken for the origin (copies are usually filed deeper, under
        ``mirrors/`` or ``pub/``), the one indexed first when both are as deep: in a breadth-first
        crawl that is the first seen, and in other orders it keeps the original from being pruned.
        """
        if not self.config.enabled:
            return None
        page = own_placement(url, self.config.max_depth)
        original = own_placement(original_url, self.config.max_depth)
        if page is None or original is None:
            return None
        if not (self._index_pages.is_index(page) and self._index_pages.is_index(original)):
            return None
        if nested(page.directory, original.directory):
            return None
        if not (usable_directory(page.directory) and usable_directory(original.directory)):
            return None
        if _rule_over(MirrorStore(view), placements(url, self.config.max_depth)) is not None:
            return None
        if directory_depth(page.directory) < directory_depth(original.directory):
            return Pair(original, page, page_is_origin=True)
        return Pair(page, original)

    def protects(self, view: IndexView, url: str, original_url: str) -> bool:
        """Whether ``url`` lies in the origin of an open candidate or a rule whose mirror holds
        ``original_url`` at the same relative path: then it is kept although it duplicates it."""
        if not self.config.enabled:
            return False
        store = MirrorStore(view)
        original = original_url.lower()
        for place in placements(url, self.config.max_depth):
            mirrors = store.mirrors_of_origin(place.directory)
            if any((mirror + place.relative).lower() == original for mirror in mirrors):
                return True
        return False

    def check_url(self, view: IndexView, url: str) -> Decision:
        """Drop a URL under the mirror side of a rule, unless it is an outstanding probe."""
        if not self.config.enabled or view.count("rules") == 0:
            return Decision(url, "keep", "not_mirrored")
        store = MirrorStore(view)
        found = _rule_over(store, placements(url, self.config.max_depth))
        if found is None:
            return Decision(url, "keep", "not_mirrored")
        rule, place = found
        if store.probes_for(url):
            return Decision(url, "keep", "probe", evidence={"mirror_rule": rule.mirror})
        return Decision(
            url,
            "drop",
            MIRRORED,
            rule.origin + place.relative,
            {"mirror_rule": self.describe(store, rule)},
        )

    # what the filter tells
    def observe(
        self,
        view: IndexView,
        decision: Decision,
        representative: int,
        exact: int,
        links: Iterable[str] = (),
        pair: Pair | None = None,
        now: float = 0.0,
    ) -> Decision:
        """Record a checked page under its directories and move the candidates it concerns.

        Args:
            decision: the page's decision so far (``mirror_candidate`` when ``pair`` is given).
            representative: the indexed page standing for its content (its own id when kept).
            exact: its exact fingerprint.
            links: absolute URLs it links to (URL mode only).
            pair: the candidate pair it heads, from ``pair_for``.
        """
        places = placements(decision.url, self.config.max_depth)
        if not self.config.enabled or not places:
            return decision
        store = MirrorStore(view)
        if decision.reason != "unchanged" or not self._recorded(store, places[-1]):
            # a replay keeps the representative found the first time (a near-duplicate's original)
            self._record(store, places, DirEntry(representative, exact, ""))
        for link in links:
            store.add_link(link)
        level = self._answer_probes(store, decision.url)
        work = _Work()
        if pair is not None:
            self._open(store, pair, level, now, work)
        for key, relative in self._concerned(store, places).items():
            candidate = store.candidate(key)
            if candidate is not None and candidate.state == OPEN:
                self._advance(store, candidate, now, work, relative)
        return self._annotate(store, decision, places, pair, work)

    def probe_failed(self, view: IndexView, url: str, status: int | None, now: float) -> Decision:
        """A probe could not be fetched: its sample could not be checked; maybe probe another."""
        store = MirrorStore(view)
        work = _Work()
        outstanding = store.probes_for(url)
        for kind, reference in outstanding:
            store.delete_probe(url, kind, reference)
            candidate = store.candidate(b"c" + reference) if kind == SAMPLE_PROBE else None
            if candidate is None or candidate.state != OPEN:
                continue
            for sample in candidate.samples:
                if (
                    sample.outcome == PENDING
                    and (candidate.mirror + sample.relative).lower() == url.lower()
                ):
                    candidate = candidate.with_outcome(sample.relative_hash, MISSING)
            self._advance(store, candidate, now, work)
        evidence: dict[str, Any] = {"status": status, "outstanding_probe": bool(outstanding)}
        if work.confirmed:
            evidence["mirrors_confirmed"] = [rule.mirror for rule in work.confirmed]
        return Decision(url, "keep", "probe_failed", evidence=evidence, probes=tuple(work.probes))

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
        """A rule with its evidence, as decisions and the ``mirrors`` command show it."""
        return {
            "mirror": rule.mirror,
            "origin": rule.origin,
            "mirror_index": rule.mirror_index,
            "origin_index": rule.origin_index,
            "mode": rule.mode,
            "samples": rule.checked,
            "matches": rule.matches,
            "unchecked": rule.missing,
            "resemblance": round(rule.resemblance, 4),
            "created_at": rule.created_at,
            "level": rule.level,
            "boundary": self._boundary(store, rule),
        }

    # recording pages
    def _record(self, store: MirrorStore, places: list[Placement], content: DirEntry) -> None:
        for place in places:
            entry = replace(content, relative=place.relative)
            store.put_entry(place.directory_key, self._relative_key(place), entry)

    def _recorded(self, store: MirrorStore, place: Placement) -> bool:
        return store.entry(place.directory_key, self._relative_key(place)) is not None

    def _relative_key(self, place: Placement) -> str:
        """A directory's own index page is filed under "" whatever its file name."""
        return "" if place.is_own and self._index_pages.is_index(place) else place.relative_key

    def _answer_probes(self, store: MirrorStore, url: str) -> int:
        """Forget the probes of ``url`` (it arrived); the boundary level a parent probe asked."""
        level = 0
        for kind, reference in store.probes_for(url):
            store.delete_probe(url, kind, reference)
            child = (
                store.rule(reference.decode("utf-8", "surrogatepass"))
                if kind == PARENT_PROBE
                else None
            )
            if child is not None:
                level = max(level, child.level + 1)
        return level

    @staticmethod
    def _concerned(store: MirrorStore, places: list[Placement]) -> dict[bytes, str]:
        """Candidates whose mirror or origin is one of the page's directories: key -> its path."""
        concerned: dict[bytes, str] = {}
        for place in places:
            for candidate in store.candidates_of_mirror(place.directory):
                concerned[candidate.key] = place.relative
            for candidate in store.candidates_of_origin(place.directory):
                concerned[candidate.key] = place.relative
        return concerned

    # candidates
    def _open(self, store: MirrorStore, pair: Pair, level: int, now: float, work: _Work) -> None:
        mirror, origin = pair.mirror.directory, pair.origin.directory
        if store.candidate(candidate_key(mirror, origin)) is None:
            candidate = Candidate(
                mirror, origin, pair.mirror.url, pair.origin.url, now, level=level
            )
            self._advance(store, candidate, now, work)

    def _advance(
        self,
        store: MirrorStore,
        candidate: Candidate,
        now: float,
        work: _Work,
        arrived: str | None = None,
    ) -> None:
        candidate, probes = self._sampler.advance(store, candidate, arrived)
        verdict = self._sampler.verdict(candidate)
        if verdict is Verdict.CONFIRMED:
            self._confirm(store, candidate, now, work)
            return
        if verdict is Verdict.REJECTED:
            self._reject(store, candidate)
            return
        for url in probes:
            if (SAMPLE_PROBE, candidate.key[1:]) not in store.probes_for(url):
                store.add_probe(url, SAMPLE_PROBE, candidate.key[1:])
                work.probes.append(url)
        store.put_candidate(candidate)

    def _reject(self, store: MirrorStore, candidate: Candidate) -> None:
        self._forget_probes(store, candidate)
        store.put_candidate(replace(candidate, state=REJECTED))

    @staticmethod
    def _forget_probes(store: MirrorStore, candidate: Candidate) -> None:
        for sample in candidate.samples:
            if sample.outcome == PENDING:
                store.delete_probe(
                    candidate.mirror + sample.relative, SAMPLE_PROBE, candidate.key[1:]
                )

    # rules
    def _confirm(self, store: MirrorStore, candidate: Candidate, now: float, work: _Work) -> None:
        candidate = self._collapse_origin(store, candidate)
        if _conflicts(store, candidate.mirror, candidate.origin, self.config.max_depth):
            self._reject(store, candidate)
            return
        for contained in store.rules_under(candidate.mirror):
            store.delete_rule(contained)
        for other in store.candidates_under(candidate.mirror):
            self._forget_probes(store, other)
            store.delete_candidate(other)
        rule = Rule(
            candidate.mirror,
            candidate.origin,
            candidate.mirror_index,
            candidate.origin_index,
            now,
            self.config.mode,
            candidate.count(1) + candidate.count(2),
            candidate.count(1),
            candidate.count(MISSING),
            candidate.level,
        )
        store.put_rule(rule)
        work.confirmed.append(rule)
        self._widen(store, rule, now, work)

    def _collapse_origin(self, store: MirrorStore, candidate: Candidate) -> Candidate:
        """If the origin was ruled a mirror meanwhile, point at that rule's origin instead."""
        found = _rule_over(store, placements(candidate.origin, self.config.max_depth))
        if found is None:
            return candidate
        rule, place = found
        origin = rule.origin + place.relative
        return replace(
            candidate,
            origin=origin,
            origin_index=origin + candidate.origin_index[len(candidate.origin) :],
        )

    def _widen(self, store: MirrorStore, rule: Rule, now: float, work: _Work) -> None:
        """Top of the replica boundary search: try the parents of a newly confirmed pair."""
        parents = self._parents(rule)
        if isinstance(parents, str) or store.candidate(candidate_key(*parents)) is not None:
            return
        mirror_parent, origin_parent = parents
        origin_index = store.entry(origin_parent.lower(), "")
        mirror_index = store.entry(mirror_parent.lower(), "")
        if origin_index is None:
            return
        if mirror_index is None:
            if not store.probes_for(mirror_parent):
                store.add_probe(
                    mirror_parent,
                    PARENT_PROBE,
                    rule.mirror.lower().encode("utf-8", "surrogatepass"),
                )
                work.probes.append(mirror_parent)
            return
        if mirror_index.same_content(origin_index):
            candidate = Candidate(
                mirror_parent,
                origin_parent,
                mirror_parent + mirror_index.relative,
                origin_parent + origin_index.relative,
                now,
                level=rule.level + 1,
            )
            self._advance(store, candidate, now, work)

    def _parents(self, rule: Rule) -> tuple[str, str] | str:
        """The parent pair to try next, or why the boundary cannot be above ``rule``."""
        mirror_parent, origin_parent = parent_directory(rule.mirror), parent_directory(rule.origin)
        if mirror_parent is None or origin_parent is None:
            return "host_root"
        if directory_name(rule.mirror) != directory_name(rule.origin):
            return "renamed"
        if rule.level >= self.config.max_boundary_levels:
            return "level_limit"
        if nested(mirror_parent, origin_parent):
            return "nested_parents"
        return mirror_parent, origin_parent

    def _boundary(self, store: MirrorStore, rule: Rule) -> str:
        """Why the rule's pair is (so far) the topmost: the state of the search above it."""
        parents = self._parents(rule)
        if isinstance(parents, str):
            return parents
        candidate = store.candidate(candidate_key(*parents))
        if candidate is not None:
            return "parents_pending" if candidate.state == OPEN else "parents_look_alike"
        mirror_index, origin_index = (store.entry(parent.lower(), "") for parent in parents)
        if mirror_index is None or origin_index is None:
            return "parents_unknown"
        return "parents_pending" if mirror_index.same_content(origin_index) else "parents_differ"

    # the decision
    def _annotate(
        self,
        store: MirrorStore,
        decision: Decision,
        places: list[Placement],
        pair: Pair | None,
        work: _Work,
    ) -> Decision:
        evidence = dict(decision.evidence)
        if work.confirmed:
            evidence["mirrors_confirmed"] = [rule.mirror for rule in work.confirmed]
        probes = decision.probes + tuple(work.probes)
        found = _rule_over(store, places)
        if found is not None:
            rule, place = found
            if pair is not None and not pair.page_is_origin:
                evidence |= {"mirror_rule": self.describe(store, rule)}
                counterpart = rule.origin + place.relative
                return replace(
                    decision,
                    action="drop",
                    reason=MIRRORED,
                    duplicate_of=counterpart,
                    evidence=evidence,
                    probes=probes,
                )
            evidence["mirror_rule"] = rule.mirror
        if pair is not None:
            candidate = store.candidate(candidate_key(pair.mirror.directory, pair.origin.directory))
            if candidate is not None:
                evidence["mirror"] = _summary(candidate)
                if candidate.state == REJECTED:
                    return replace(decision, reason=LOOK_ALIKE, evidence=evidence, probes=probes)
        return replace(decision, evidence=evidence, probes=probes)


def _rule_over(store: MirrorStore, places: list[Placement]) -> tuple[Rule, Placement] | None:
    """The rule whose mirror side holds the URL these places describe, widest first."""
    for place in places:
        rule = store.rule(place.directory)
        if rule is not None:
            return rule, place
    return None


def _conflicts(store: MirrorStore, mirror: str, origin: str, max_depth: int) -> bool:
    """Whether a rule mirror -> origin would prune an origin, or is already implied."""
    if nested(mirror, origin) or store.has_origin_under(mirror):
        return True
    return any(
        store.has_origin_at(place.directory) or store.rule(place.directory) is not None
        for place in placements(mirror, max_depth)
    )


def _summary(candidate: Candidate) -> dict[str, Any]:
    return {
        "mirror": candidate.mirror,
        "origin": candidate.origin,
        "state": "open" if candidate.state == OPEN else "rejected",
        "samples": {sample.relative: OUTCOME_NAMES[sample.outcome] for sample in candidate.samples},
    }
