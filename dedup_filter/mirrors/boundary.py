"""The replica boundary: how far up a confirmed mirror rule may widen (Zhang, Jia & Li).

When a pair is confirmed and both directories have the same name, their parents are tried: if
the parents' index pages replicate, or another rule already pairs two children of the same
parents, the parents become a candidate (a parent index page the crawl has not fetched is probed,
and the parents tried again when it arrives), sampled like any other, and a confirmed wider rule
absorbs the rules it contains. Parents that have no index page (their probes failed) become a
candidate on a sibling rule alone: documentation trees often serve no page at their top. The
topmost confirmed pair is the boundary, possibly renamed on one side. Invariant: the search
climbs at most ``max_boundary_levels`` levels and never pairs a directory with one that contains
it.
"""

from __future__ import annotations

from dataclasses import dataclass

from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import directory_name, nested, parent_directory
from dedup_filter.mirrors.records import EXPIRED, OPEN, Candidate, DirEntry, Rule, side_naming
from dedup_filter.mirrors.store import MirrorStore, pair_reference


@dataclass(frozen=True, slots=True)
class Widening:
    """The next step above a rule: a parent candidate to sample, or the parent index pages to
    probe before the parents can be compared (neither when the search stops here)."""

    candidate: Candidate | None = None
    probes: tuple[str, ...] = ()


def parent_pair(rule: Rule, max_levels: int) -> tuple[str, str] | str:
    """The parent pair (mirror, origin) to try next, or why the boundary cannot lie above."""
    mirror_parent, origin_parent = parent_directory(rule.mirror), parent_directory(rule.origin)
    if mirror_parent is None or origin_parent is None:
        return "host_root"
    if directory_name(rule.mirror) != directory_name(rule.origin):
        return "renamed"
    if rule.level >= max_levels:
        return "level_limit"
    if nested(mirror_parent, origin_parent):
        return "nested_parents"
    return mirror_parent, origin_parent


def widen(store: MirrorStore, rule: Rule, max_levels: int, now: float, index_file: str) -> Widening:
    """What to do next above a newly confirmed ``rule`` (``index_file``: the name a directory's
    index page is asked as when its own URL fails)."""
    parents = parent_pair(rule, max_levels)
    if isinstance(parents, str) or store.candidate(pair_reference(*parents)) is not None:
        return Widening()
    entries = _index_entries(store, parents)
    # each unknown index page is probed (the origin's is one the crawl fetches anyway; waiting
    # for the crawl to meet it, late in random orders, leaves the copy's other subdirectories
    # unruled meanwhile), under the file name of the child's index page (a server naming its
    # index pages ``index.html`` may answer 404 for the directory's URL); the detector tries the
    # parents again when one arrives, or when the last of them fails
    names = (
        _index_name(rule.mirror, rule.mirror_index),
        _index_name(rule.origin, rule.origin_index),
    )
    asked = [
        _to_ask(store, parent, name, index_file) if entry is None else None
        for parent, name, entry in zip(parents, names, entries, strict=True)
    ]
    unknown = [url for url in asked if url is not None]
    if unknown:
        return Widening(probes=tuple(unknown))
    mirror_index, origin_index = entries
    replicate = (
        mirror_index is not None
        and origin_index is not None
        and mirror_index.same_content(origin_index)
    )
    if not (replicate or _sibling_rule(store, rule, parents)):
        return Widening()
    mirror_parent, origin_parent = parents
    naming = rule.sides_naming  # the rule's, where a parent's index page is not held
    for side, index in (("mirror", mirror_index), ("origin", origin_index)):
        if index is not None:
            naming |= side_naming(side, index)
    candidate = Candidate(
        mirror_parent,
        origin_parent,
        mirror_parent + (mirror_index.relative if mirror_index is not None else ""),
        origin_parent + (origin_index.relative if origin_index is not None else ""),
        now,
        level=rule.level + 1,
        **naming,
    )
    return Widening(candidate=candidate)


def _to_ask(store: MirrorStore, parent: str, name: str, index_file: str) -> str | None:
    """The URL to ask a parent's unknown index page as (``name``, its child's index file name;
    when that is the directory's own URL, ``index_file`` once that failed); None when every such
    URL is known to have failed."""
    deferrals = Deferrals(store.view)
    names = (name,) if name else ("", index_file)
    return next((parent + n for n in names if deferrals.absent(parent + n) is None), None)


def _index_name(directory: str, index_url: str) -> str:
    """The file name of a directory's index page (``""`` for the directory's own URL)."""
    return index_url[len(directory) :] if index_url.lower().startswith(directory.lower()) else ""


def _sibling_rule(store: MirrorStore, rule: Rule, parents: tuple[str, str]) -> bool:
    """Whether another rule pairs two children of the same parents, in either orientation, or
    two rules pair two of their children by the same name with one origin (twins, copies of one
    directory by their samples): then the parents are worth sampling although their index pages
    differ (a mirror's banner, its own header), since two replicated subdirectories side by side
    are as good a hint as two replicated index pages. Which side of each pair was taken for the
    copy is the crawl's order (a breadth-first holdout crawl ruled one subdirectory each way, and
    never tried the hosts); which origin is the crawl's too (the eighth holdout web's banner host
    and its origin each had a guide paired with a third site's partial copy, one guide with the
    other: the hosts were never tried in round-robin order)."""
    lowered = {parent.lower() for parent in parents}
    return any(
        other.mirror.lower() != rule.mirror.lower()
        and (
            _namesakes_of(lowered, other.mirror, other.origin)
            or any(_children_of(lowered, other.mirror, twin.mirror) for twin in twins(store, other))
        )
        for side in lowered
        for other in store.rules_under(side)
    )


def twins(store: MirrorStore, rule: Rule) -> list[Rule]:
    """The other rules with ``rule``'s origin whose mirror has the name of ``rule``'s mirror:
    copies of one directory, each by its own samples."""
    name = directory_name(rule.mirror)
    return [
        other
        for other in store.rules_with_origin_at(rule.origin)
        if other.mirror.lower() != rule.mirror.lower() and directory_name(other.mirror) == name
    ]


def _namesakes_of(parents: set[str], first: str, second: str) -> bool:
    """Whether directories ``first`` and ``second`` lie one in each of ``parents`` under one
    name: the same place of both, as in two replicated parents. Two children under other names
    say nothing of their parents: on the eighth holdout web (random order) a guide's code
    edition ruled a copy of a library's partial copy of the guide made the guide's host and the
    library's ``debian/`` a pair, sampled where the guide's own rule had paired them already,
    and the whole host was ruled a copy of ``debian/`` (62 % saved, two wrong rules)."""
    return _children_of(parents, first, second) and directory_name(first) == directory_name(second)


def _children_of(parents: set[str], first: str, second: str) -> bool:
    """Whether directories ``first`` and ``second`` lie one in each of ``parents``."""
    return {
        (parent_directory(first) or "").lower(),
        (parent_directory(second) or "").lower(),
    } == parents


def boundary_reason(store: MirrorStore, rule: Rule, max_levels: int) -> str:
    """Why the rule's pair is (so far) the topmost: the state of the search above it."""
    parents = parent_pair(rule, max_levels)
    if isinstance(parents, str):
        return parents
    candidate = store.candidate(pair_reference(*parents))
    if candidate is not None:
        if candidate.state == EXPIRED:
            return "parents_expired"
        return "parents_pending" if candidate.state == OPEN else "parents_look_alike"
    mirror_index, origin_index = _index_entries(store, parents)
    if mirror_index is None or origin_index is None:
        return "parents_unknown"
    return "parents_pending" if mirror_index.same_content(origin_index) else "parents_differ"


def _index_entries(
    store: MirrorStore, directories: tuple[str, str]
) -> tuple[DirEntry | None, DirEntry | None]:
    """The recorded index pages of two directories (filed under the relative path "")."""
    first, second = directories
    return store.entry(first.lower(), ""), store.entry(second.lower(), "")
