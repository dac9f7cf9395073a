"""Mirror rules: a confirmed pair mirror -> origin, what it prunes and what it absorbs.

Invariants: no rule prunes a directory that is, contains or lies within the origin of another
rule, unless both its sides lie within that origin (a renamed copy on the origin's own host:
``pruning.held_page`` follows it from the other rule's mirror); a rule's origin is never itself
the mirror side of a rule (it is pointed at that rule's origin instead); a wider rule replaces the
rules and candidates below its mirror side, which are one key range (containment is a partial
order: one prefix scan, as in the paper).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from dedup_filter.mirrors.boundary import boundary_reason
from dedup_filter.mirrors.directories import Placement, nested, placements
from dedup_filter.mirrors.precedence import held_first_through
from dedup_filter.mirrors.probes import forget_samples
from dedup_filter.mirrors.records import MATCH, MISMATCH, MISSING, Candidate, Rule
from dedup_filter.mirrors.store import MirrorStore

# rules followed from a page to the page kept for it (a copy of a copy of a copy)
MAX_CHAIN = 4


def rule_over(store: MirrorStore, places: list[Placement]) -> tuple[Rule, Placement] | None:
    """The rule whose mirror side holds the URL these places describe, widest first."""
    for place in places:
        rule = store.rule(place.directory)
        if rule is not None:
            return rule, place
    return None


def rules_with_origin_over(
    store: MirrorStore, places: list[Placement]
) -> list[tuple[Rule, Placement]]:
    """The rules whose origin side holds the URL these places describe, widest first."""
    return [
        (rule, place) for place in places for rule in store.rules_with_origin_at(place.directory)
    ]


def rules_holding(
    store: MirrorStore, places: list[Placement]
) -> Iterator[tuple[Rule, Placement, bool]]:
    """Each rule a side of which holds the URL these places describe, with its place under that
    side and whether that side is the mirror: the rule over it, then those of its origins."""
    found = rule_over(store, places)
    if found is not None:
        yield found[0], found[1], True
    for rule, place in rules_with_origin_over(store, places):
        yield rule, place, False


def conflicts(store: MirrorStore, mirror: str, origin: str, max_depth: int) -> bool:
    """Whether a rule mirror -> origin would prune within an origin, or is already implied. A
    mirror side that is, or holds, the origin of other rules is no conflict: those rules are
    pointed at the new origin (``repoint``), unless one of them would then pair nested
    directories; one that pairs the same two directories the other way round (``reverses``:
    order made it, a side held first per directory) is replaced by the new rule."""
    if nested(mirror, origin):
        return True
    lowered, origin_key = mirror.lower(), origin.lower()
    for place in placements(mirror, max_depth):
        if store.rule(place.directory) is not None:
            return True
        within = place.directory_key != lowered and not origin_key.startswith(place.directory_key)
        if within and store.has_origin_at(place.directory):
            return True
    return any(
        nested(rule.mirror, origin + rule.origin[len(mirror) :])
        and not reverses(rule, mirror, origin)
        for rule in store.rules_with_origin_under(mirror)
    )


def reverses(rule: Rule, mirror: str, origin: str) -> bool:
    """Whether ``rule``, whose origin lies below ``mirror``, pairs its origin with the directory
    at the same relative path in ``origin``: a part of mirror -> origin, the other way round
    (the pair itself the other way round is no part of it: that rule stands)."""
    relative = rule.origin[len(mirror) :]
    return bool(relative) and rule.mirror.lower() == (origin + relative).lower()


def repoint(
    store: MirrorStore, mirror: str, origin: str, with_evidence: Callable[[Rule], Rule]
) -> list[Rule]:
    """Point the rules whose origin lies in ``mirror`` (about to become a mirror of ``origin``) at
    ``origin``: a copy of a copy taken for an origin resolves to the origin once it is found, and
    a rule's origin is never a mirror side. Which side each held first, and the evidence that
    names its mirror the copy or an older release (``with_evidence``), is weighed again against
    the new origin. A rule that ``reverses``
    a part of mirror -> origin is deleted: the new rule pairs its directories. The rules as
    repointed."""
    repointed = []
    for rule in store.rules_with_origin_under(mirror):
        store.delete_rule(rule)
        if reverses(rule, mirror, origin):
            continue
        moved = with_evidence(_moved(store, rule, mirror, origin, through=mirror))
        repointed.append(_weighed(store, moved, rule.origin))
        store.put_rule(repointed[-1])
    return repointed


def turn_to_newer(store: MirrorStore, rule: Rule, with_evidence: Callable[[Rule], Rule]) -> Rule:
    """``rule`` the other way round, its mirror being the newer side (``Orientation.later_side``):
    taken for the copy by order or counts before any index page below its sides named a
    release. The origin, now the mirror, absorbs the rules inside it, and the rules whose origin
    lies in it point at the new origin (``repoint``). The rule as turned."""
    store.delete_rule(rule)
    turned = replace(
        rule,
        **rule.sides_reversed,
        through="",
        origin_lacks=False,
        turned_by_absence=False,
        absences=0,
        origin_partial=False,
    )
    _absorb(store, turned.mirror)
    repoint(store, turned.mirror, turned.origin, with_evidence)
    turned = _weighed(store, with_evidence(turned), "")
    store.put_rule(turned)
    return turned


def mark_older(store: MirrorStore, rule: Rule) -> Rule:
    """``rule`` with its mirror a stale copy (``Rule.mirror_older``), which side held first
    weighed again (a stale copy's narrow lead is side by side: ``precedence.py``), stored."""
    marked = _weighed(store, replace(rule, mirror_older=True), "")
    store.put_rule(marked)
    return marked


def point_back(store: MirrorStore, revoked: Rule) -> None:
    """Move back the origins that ``repoint`` (or a confirmation's ``collapse_origin``) moved
    through ``revoked``, now revoked: the pair it stood for was no copy (a guide taken for a
    copy of its edition), so a copy of its mirror side is a copy of that side again, not of the
    edition."""
    for rule in store.rules_with_origin_under(revoked.origin):
        if rule.through == revoked.mirror:
            store.delete_rule(rule)
            moved = _moved(store, rule, revoked.origin, revoked.mirror, "")
            store.put_rule(_weighed(store, moved, ""))


def reweigh_through(store: MirrorStore, turned: Rule) -> None:
    """Weigh again, against their origins alone, the rules moved through ``turned`` (their
    origins lay in its mirror side), once held first passed from its mirror to its origin
    (``precedence.after_absence``): a rule moved through another counts its mirror held first
    only if it led that rule's mirror side too, which the crawl then kept (``_weighed``); now
    pruned, it keeps nothing for them. On the eighth holdout web (breadth first) a guide's code
    edition, crawled before the guide, was moved onto the guide through a library's partial copy
    crawled before both; the copy turned a second later, and the guide, still held first
    against its edition, was fetched whole after the edition's pages: 347 fetches."""
    if turned.mirror_held_first:
        return
    for rule in _moved_through(store, turned):
        store.put_rule(_weighed(store, rule, ""))


def moved_through_at(store: MirrorStore, rule: Rule, relative: str) -> list[tuple[Rule, str]]:
    """The rules moved through ``rule`` whose former origin holds the page at ``relative`` on
    ``rule``'s mirror side, each with the page's relative path under it: a page of a copy that
    a copy of the copy was paired with first, which that copy's rule, now against the origin,
    counts as its origin side's (``precedence.after_absence``)."""
    moved = []
    for other in _moved_through(store, rule):
        below = other.origin[len(rule.origin) :]  # where its origin lay under the mirror
        if relative.startswith(below):
            moved.append((other, relative[len(below) :]))
    return moved


def on_through(store: MirrorStore, rule: Rule, relative: str) -> str | None:
    """The page at ``relative`` under ``rule``'s origin, on the copy the origin was moved
    through (``moved_through_at``'s other way round); None for a rule not moved so."""
    through = store.rule(rule.through) if rule.through else None
    if through is None or not rule.origin.startswith(through.origin):
        return None
    return through.on_mirror(rule.origin[len(through.origin) :] + relative)


def _moved_through(store: MirrorStore, rule: Rule) -> list[Rule]:
    """The rules whose origin was moved through ``rule`` (it lay in ``rule``'s mirror side)."""
    return [
        other
        for other in store.rules_with_origin_under(rule.origin)
        if other.through == rule.mirror
    ]


def _moved(store: MirrorStore, rule: Rule, source: str, target: str, through: str) -> Rule:
    """``rule`` with its origin moved from under ``source`` to the same place under ``target``
    (spelt as its index page there names its documents): the 404s counted of the old origin,
    and its being partial, say nothing of the new one (on the eighth holdout web a guide,
    complete, inherited its partial copy's mark and was pruned beside its code edition)."""
    origin = target + rule.origin[len(source) :]
    return replace(
        rule,
        origin=origin,
        origin_index=target + rule.origin_index[len(source) :],
        **store.naming_as(origin, "origin"),
        through=through,
        absences=0,
        origin_partial=False,
    )


def _weighed(store: MirrorStore, rule: Rule, moved_from: str) -> Rule:
    """``rule``, moved, with which side held first weighed again against its new origin (and,
    moved through a rule's mirror, against ``moved_from``, the origin it had:
    ``held_first_through``)."""
    held = held_first_through(store, rule.mirror, rule.origin, moved_from, rule.mirror_older)
    return replace(rule, mirror_held_first=held.mirror, side_by_side=held.side_by_side)


def collapse_origin(
    store: MirrorStore, candidate: Candidate, max_depth: int
) -> tuple[Candidate, str]:
    """If the origin was ruled a mirror meanwhile, point at that rule's origin instead; with the
    mirror of the rule it was pointed through ("" if none)."""
    found = rule_over(store, placements(candidate.origin, max_depth))
    if found is None:
        return candidate, ""
    rule, place = found
    origin = rule.origin + place.relative
    collapsed = replace(
        candidate,
        origin=origin,
        origin_index=origin + candidate.origin_index[len(candidate.origin) :],
        **store.naming_as(origin, "origin"),
    )
    return collapsed, rule.mirror


def install(
    store: MirrorStore,
    candidate: Candidate,
    mode: str,
    now: float,
    names_the_copy: Callable[[bool], bool],
    code_checked: int = 0,
    through: str = "",
    mirror_older: bool = False,
    moved_from: str = "",
) -> Rule:
    """Turn a confirmed candidate into a rule that absorbs the rules and candidates below it
    (``names_the_copy``: ``Orientation.names_the_copy`` of its mirror side, given whether the
    crawl held that side first; ``code_checked``: its
    matched samples with code blocks, ``code_checks.py``; ``through``: the mirror of the rule
    its origin was collapsed through, ``collapse_origin``, and ``moved_from`` the origin it was
    paired with before; ``mirror_older``: ``Orientation.names_older_release`` of its mirror
    side)."""
    _absorb(store, candidate.mirror)
    held = held_first_through(store, candidate.mirror, candidate.origin, moved_from, mirror_older)
    rule = as_rule(
        candidate,
        now,
        mode,
        mirror_held_first=held.mirror,
        copy_named=names_the_copy(held.mirror),
        code_probes=code_checked,
        side_by_side=held.side_by_side,
        through=through,
        mirror_older=mirror_older,
    )
    store.put_rule(rule)
    return rule


def as_rule(candidate: Candidate, now: float, mode: str, **fields: Any) -> Rule:
    """The rule a confirmed candidate makes: its sides, its samples and its level, with
    ``fields`` (what ``install`` weighs; the defaults for a boundary search above the pair)."""
    return Rule(
        candidate.mirror,
        candidate.origin,
        candidate.mirror_index,
        candidate.origin_index,
        now,
        mode,
        candidate.count(MATCH) + candidate.count(MISMATCH),
        candidate.count(MATCH),
        candidate.count(MISSING),
        candidate.level,
        **fields,
        **candidate.sides_naming,
    )


def _absorb(store: MirrorStore, directory: str) -> None:
    """Delete the rules and candidates (with their probes) whose mirror side is in ``directory``;
    the rules are kept for the listing (``absorbed``)."""
    for contained in store.rules_under(directory):
        store.delete_rule(contained)
        store.put_absorbed(contained)
    for candidate in store.candidates_under(directory):
        forget_samples(store, candidate)
        store.delete_candidate(candidate)


def absorbed(store: MirrorStore, max_depth: int) -> list[tuple[Rule, Rule]]:
    """The absorbed rules that a rule made since confirms, with the rule over their mirror side:
    a renamed copy inside a host that a host rule then took whole, whose twin on the host's
    origin was paired the same way on its own samples. The host rule prunes the copy's pages and
    no rule may name that copy's boundary again; the two rules together do. An absorbed rule is
    no longer checked (an edition paired before a host rule took it is never revoked), so one
    that no current rule repeats is not listed, nor one that only repeats the wider rule (a
    boundary widened)."""
    found = []
    for rule in store.absorbed_rules():
        over = rule_over(store, placements(rule.mirror, max_depth))
        if over is None or over[0].mirror.lower() == rule.mirror.lower():
            continue
        wider, place = over
        twin = store.rule(wider.origin + place.relative)
        origin = rule.origin
        if origin.lower().startswith(wider.mirror.lower()):
            origin = wider.origin + origin[len(wider.mirror) :]
        if twin is not None and twin.origin.lower() == origin.lower():
            found.append((rule, wider))
    return found


def implied(store: MirrorStore, listed: set[str]) -> list[tuple[Rule, Rule, Rule]]:
    """The pairs that a rule inside another rule's origin implies on that rule's mirror side,
    each as ``(twin, wider, rule)``: a renamed copy inside a host mirrored whole is a renamed copy
    on the mirror host too, where the wider rule prunes its pages before anything pairs them
    (which host of the two is the origin, and so where the renamed copy is ruled, is the crawl's
    order). The twin prunes nothing; a twin whose mirror is ``listed`` (lower-cased) already is
    left out."""
    found, listed = [], set(listed)
    for wider in store.rules_under(""):
        source, target = wider.origin, wider.mirror
        for rule in store.rules_under(source):
            if rule.mirror.lower() == source.lower():
                continue
            twin = _moved_within(rule, source, target)
            if twin.mirror.lower() not in listed:
                listed.add(twin.mirror.lower())
                found.append((twin, wider, rule))
    return found


def _moved_within(rule: Rule, source: str, target: str) -> Rule:
    """``rule`` with each side lying under ``source`` moved to the same place under ``target``."""

    def moved(url: str) -> str:
        return target + url[len(source) :] if url.lower().startswith(source.lower()) else url

    return replace(
        rule,
        mirror=moved(rule.mirror),
        origin=moved(rule.origin),
        mirror_index=moved(rule.mirror_index),
        origin_index=moved(rule.origin_index),
    )


def pruned_sides(rule: Rule) -> tuple[tuple[str, bool], ...]:
    mirror = rule.drops_mirror_urls or rule.prunes_mirror_beside
    return (("mirror", mirror), ("origin", rule.prunes_origin or rule.prunes_origin_beside))


def describe(store: MirrorStore, rule: Rule, max_levels: int) -> dict[str, Any]:
    """A rule with its evidence, as decisions and the ``mirrors`` command show it."""
    return rule.names_shown | {
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
        "held_first": "mirror" if rule.mirror_held_first else "origin",
        "copy_named": rule.copy_named,
        "side_by_side": rule.side_by_side,
        "origin_lacks": rule.origin_lacks,
        "mirror_older": rule.mirror_older,
        "turned_by_absence": rule.turned_by_absence,
        "absences": rule.absences,
        "origin_partial": rule.origin_partial,
        "pruned": [side for side, pruned in pruned_sides(rule) if pruned],
        "boundary": boundary_reason(store, rule, max_levels),
        # the rules it was confirmed on, absorbed (``Rule.on_children``), if so
        "on_children": _children_of(store, rule) if rule.on_children else None,
        # the mirror of the rule its origin was moved through (``point_back``), if any
        "moved_through": rule.through or None,
    }


def _children_of(store: MirrorStore, rule: Rule) -> list[str]:
    """The mirror sides of the absorbed rules below ``rule``'s."""
    mirror = rule.mirror.lower()
    return sorted(
        child.mirror for child in store.absorbed_under(mirror) if child.mirror.lower() != mirror
    )
