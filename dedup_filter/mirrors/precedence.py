"""Which side of a rule the crawl held first, and so which side its URLs may be dropped from.

Orientation (``orientation.py``) names the copy for explanations; held first does not orient.
Pruning asks another question: which side's URLs may be dropped for a held counterpart on the
other side? The side the crawl held first is never pruned, unless evidence independent of the
crawl's order names it the copy (``Orientation.names_the_copy``: the origin pinned, the copy
reached through session ids, named a mirror, or lacking pages the origin holds; an index page
linking the other's host at equal depths names the copy only where neither side was held first):
a copier met after its victim never gets the victim pruned, though a copier at its host root is
shallower than its victim and taken for the origin, or on a forge the victim's index page links.

``Rule.prunes_mirror``: the origin was held first, or the copy is named one (as before: deferred
URLs, probed counterparts). ``Rule.prunes_origin``: the mirror was held first, is not named a
copy, and every checked sample matched; an origin's document met after the copy held its
counterpart is then dropped (``pruning.py``, the same guards: never a page held as itself, never
under ``mirror.protected_prefixes``, not before the copy's answer for a page it lacks is known),
its index pages are fetched, and a document whose counterpart the copy has not fetched yet
waits for the crawl to fetch it (never probed: the copy is crawled whole, since it is never
pruned). A rule accepted with mismatching samples,
or whose mirror's index page names an older release (``Rule.mirror_older``), never prunes its
origin: it pairs versions of one directory (a stale copy with edited pages), the copy's page may
be the older version, and dropping the origin's page for it would lose the current text, and the
links to pages the origin gained since; held first and not named a copy, it prunes neither side.
A stale copy crawled side by side with its origin is pruned as one met later, though held first
(a coin flip, below): the origin is fetched whole anyway, so the copy's URLs wait for its pages.

Both sides are pruned at once only where neither was crawled first: two directories crawled side by
side (no lead of more than one document, or of more than half of what each side held and made after
the other side's first page, when the rule was made or since: ``Rule.side_by_side``,
``side_by_side_by_now``), every checked sample matched, and nothing names the mirror the copy
nor an older release (``Rule.prunes_mirror_beside``).
Which side was held first is then a coin flip, and the side held first loses a URL whose
counterpart the other side holds as a page the crawler fetched as itself (or, for a mirror held
first, a copy held first of the origin does); otherwise it is fetched. The other side is pruned as
usual: the origin side, under a rule that prunes its origin (``Rule.prunes_origin``), waits for
the mirror's page; the mirror side, under one that prunes its mirror
(``Rule.prunes_origin_beside``), waits for the origin's page, probed. A page the crawler fetched as
itself had its links followed, so what it links is asked for on its side; a probe's answer (the
spider never saw it: ``Deferrals.probed``) did not, and with both sides pruned the pages only it
links would be reached through nothing (on the evaluation web, pruning both sides for any held page
lost 14-23 contents, pages linked only from probes' answers). A counterpart dropped as a duplicate,
or before its fetch, stands by the page the crawler fetched for it (``pruning._crawled_page``,
``pruning._dropped_for_crawled``): its links were the crawl's to give up, and were, and its copy
would be dropped alike; waiting for it as a page of its own waits for ever. A copier crawled
beside its victim thus stands in for the victim's pages it holds, as a copy met first would for
any page; a victim crawled first, by more than one document before any page of the copier, is
never pruned, unless that lead is within a crawl's concurrency and the copier holds eight times
its documents (``_outheld``: the crawl held the copier, not the victim).

Where two sides crawled side by side differ in what they hold, the coin may fall on a partial
copy (a copy of a copy lacking pages, reached early): its URLs are fetched while the other
side's wait for them, and each page it lacks costs a 404 before the other side's page is
fetched. So once the side held first answers a page's counterpart with a 404 or 410 and the
other side holds that page, the other side is held first instead, once (``turned_by_absence``):
the partial side's URLs then wait for the complete side's pages. Either way round both sides are
pruned only for pages held, so the turn costs no content. A mirror crawled first turns only once
shown partial (``after_absence``), and its origin is then pruned beside it: what the mirror
fetched before the turn stands for the origin's pages.

"Held first" is read from the index at confirmation, from the pages each side holds as
themselves (page ids: their counters, one index's writers each counting their own; over the first
``_SCANNED`` entries of each side in hash order, a sample of a large side). An index page fetched
early is not a directory crawled first: two hosts crawled side by side (breadth-first, or in
turns) fetch their index pages one after the other, and which came first is a coin flip; so the
side that held documents, more than one, before the other's first document was crawled first (a
copier's victim whose index page and first pages preceded it; a side's index page held as the
other side's copy counts as met when it was: ``DirEntry.met``); when neither led by more than one,
the side holding more documents is held first, the earliest page deciding a tie, and so it is
where a lead of at most ``_SIDE_BY_SIDE_DOCUMENTS`` faces eight times the leader's documents
(``_outheld``). A stale copy
that led by fewer than ``_SIDE_BY_SIDE_DOCUMENTS`` is side by side even so (``_held_first``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore, relative_hash
from dedup_filter.statuses import LACKING_STATUSES

_SCANNED = 1024  # entries of each side read for its held pages
# a lead of one document is two directories crawled side by side, not one crawled first
_SIDE_BY_SIDE_LEAD = 1
_SIDE_BY_SIDE_DOCUMENTS = 8  # held on each side before a lead of more than one is side by side
_OUTHELD = 8  # times the leader's documents the other side holds for a small lead to say nothing
_OWN_INDEX_PAGE = relative_hash("")  # the key of a directory's own index page under it
_COUNTER = (1 << 48) - 1  # the counter bits of a page id (the high bits name its writer)
# a side crawled first lacked this many pages the other side holds, one in this many of its
# documents (``after_absence``): the other side is held first
_ABSENCES_TO_TURN, _SHARE_TO_TURN = 8, 16


@dataclass(frozen=True, slots=True)
class HeldFirst:
    """Which side of a pair the crawl held first, and whether the two were crawled side by
    side (``_side_by_side``)."""

    mirror: bool
    side_by_side: bool


def held_first(
    store: MirrorStore, mirror: str, origin: str, mirror_older: bool = False
) -> HeldFirst:
    """Whether the crawl held ``mirror`` first: documents of it, more than one, before any of
    ``origin``; else, when neither led by more than one, more documents of it, or as many and
    a page of it (its index page counted) first. ``mirror_older``: the mirror is a stale copy
    (``_held_first``)."""
    return _held_first(_held(store, mirror), _held(store, origin), mirror_older)


def held_first_through(
    store: MirrorStore, mirror: str, origin: str, moved_from: str, mirror_older: bool = False
) -> HeldFirst:
    """``held_first`` for a rule whose origin was moved to ``origin`` from ``moved_from``, the
    same place under the mirror side of another rule (``rules.collapse_origin``, ``repoint``):
    the mirror counts as held first only if it led both. That other rule may keep its mirror
    side (held first: a copier's victim, its host-root copier taken for the origin and pruned),
    so the pages of the content the crawl holds may lie there: a copy crawled beside the victim
    is not held first for leading the pruned copier."""
    held = held_first(store, mirror, origin, mirror_older)
    if not moved_from or not held.mirror:
        return held
    before = held_first(store, mirror, moved_from, mirror_older)
    return held if before.mirror else before


def held_before(store: MirrorStore, first: str, second: str) -> bool:
    """Whether the crawl held ``first`` first, not side by side with ``second``. Settled for
    good (``IndexView.settled``): yes, once ``first`` led before ``second`` was met; no, once
    ``second`` did, or both hold documents (the leads are fixed then, and a side by side that
    more documents make stays so)."""

    def weighed() -> tuple[bool, bool]:
        sides = _held(store, first), _held(store, second)
        held = _held_first(*sides)
        if held.mirror and not held.side_by_side:
            return True, _met_first(*sides)
        return False, all(side.documents for side in sides) or _met_first(*sides[::-1])

    return store.view.settled(("held_before", first.lower(), second.lower()), weighed)


def met_well_before(store: MirrorStore, first: str, second: str) -> bool:
    """Whether the crawl held more than ``_SIDE_BY_SIDE_DOCUMENTS`` documents under the
    directory ``first`` before any page under ``second``: crawled first beyond what a crawl
    fetches at once, as a copier's victim is. A lead of a few documents among a crawl's first
    requests is a coin flip of its concurrency: on the fourth helper's web, Debian's Apache
    manual led Apache's own by 3-5 documents (its languages' index pages) in two orders of
    six, and by 4 side by side in another. Settled for good once ``second`` holds a page."""

    def weighed() -> tuple[bool, bool]:
        first_held, second_held = _held(store, first), _held(store, second)
        lead = first_held.held_before(second_held.first)
        return lead > _SIDE_BY_SIDE_DOCUMENTS, second_held.first != math.inf

    return store.view.settled(("met_well_before", first.lower(), second.lower()), weighed)


def _held_first(mirror_held: _Held, origin_held: _Held, mirror_older: bool = False) -> HeldFirst:
    """``held_first`` from the two sides' held pages. A stale copy that led by fewer than
    ``_SIDE_BY_SIDE_DOCUMENTS`` documents counts as side by side with its origin even if its
    lead came before any page of the origin: a lead within what a crawl fetches at once is a
    coin flip, and its origin, never pruned for the older text, is fetched whole anyway. A
    victim of a copier stands as a stale copy only where the copier claims a newer release; its
    pages are then dropped only for the copier's pages held (on the seventh and eighth holdout
    webs, round robin and random, stale copies led by two documents and were crawled whole
    beside their origins: 130 and 860 fetches)."""
    mirror_lead, origin_lead = (
        mirror_held.lead_over(origin_held),
        origin_held.lead_over(mirror_held),
    )
    leader, other = (
        (mirror_held, origin_held) if mirror_lead >= origin_lead else (origin_held, mirror_held)
    )
    lead = max(mirror_lead, origin_lead)
    side_by_side = _side_by_side(lead, mirror_held, origin_held) and not _met_first(leader, other)
    if mirror_older and origin_lead < mirror_lead < _SIDE_BY_SIDE_DOCUMENTS:
        side_by_side = True
    if lead > _SIDE_BY_SIDE_LEAD and not _outheld(leader, other, lead):
        return HeldFirst(mirror_lead > origin_lead, side_by_side)
    if len(mirror_held.documents) != len(origin_held.documents):
        return HeldFirst(len(mirror_held.documents) > len(origin_held.documents), side_by_side)
    return HeldFirst(mirror_held.first < origin_held.first, side_by_side)


@dataclass(frozen=True, slots=True)
class Reweighed:
    """A rule weighed again (``side_by_side_by_now``): made side by side, or how many more pages
    its sides must record before that can change (a page adds at most one document)."""

    rule: Rule | None
    pages_to_wait: float = 0


def side_by_side_by_now(store: MirrorStore, rule: Rule) -> Reweighed:
    """``rule`` made side by side when its two sides count as crawled side by side by now,
    though they did not when it was made. A lead is fixed once both sides hold a document
    (later documents come after the other side's first), and each side's documents only grow: a
    lead of three documents against a side holding five when the rule was made is side by side
    once both hold eight or more, as it would have been had the rule come then. Only where the
    side held first led after the other side's first page (its index page counted) had come: a
    side whose documents preceded the other side's every page (a copier's victim whose index
    page and first pages came before the copier was met) stays the side crawled first, for
    good. The side held first stays the same; only a rule whose every sample matched and whose
    copy is named by nothing prunes by it (``Rule.exchangeable``)."""
    if rule.side_by_side or not rule.exchangeable:
        return Reweighed(None, math.inf)
    sides = _held(store, rule.mirror), _held(store, rule.origin)
    held = _held_first(*sides)
    if held.side_by_side and held.mirror == rule.mirror_held_first:
        return Reweighed(replace(rule, side_by_side=True))
    first, second = sides if rule.mirror_held_first else sides[::-1]
    if _met_first(first, second):
        return Reweighed(None, math.inf)
    if held.mirror != rule.mirror_held_first:
        return Reweighed(None, _SIDE_BY_SIDE_DOCUMENTS)  # counts decide: they may turn again
    fewer = min(len(side.documents) for side in sides)
    return Reweighed(None, max(_SIDE_BY_SIDE_DOCUMENTS, 2 * first.lead_over(second)) - fewer)


def after_absence(
    store: MirrorStore, rule: Rule, on_mirror: bool, counterpart_status: int | None
) -> Rule | None:
    """``rule`` once a page of its side not held first (``on_mirror``: the mirror side) was
    found whose counterpart the side held first answered with ``counterpart_status``: a 404 or
    410 is counted. Crawled side by side, held first passes to the page's side at the first
    one, unless the side lacking it is the origin of several copies: the copy that turned it
    was crawled whole beside the others (the eighth holdout web's banner copy of a guide, in
    round-robin order, 401 pages), and each page it lacks is fetched once between them anyway
    (``pruning.UrlPruner._twin_beside_absent``). Otherwise, once the side held first is shown
    partial (``_shown_partial``): a mirror held first (a partial copy of a copy crawled first)
    passes held first to its origin; an origin held first, which the orientation's evidence
    took for the origin, keeps it (the mirror may be one of several copies of it, and held first
    it would be crawled whole) and is marked ``origin_partial``: its URLs are dropped where the
    mirror holds their pages, crawled (``Rule.prunes_origin_beside``), its 404s spared. Only
    while every sample matched, nothing names a copy, and no absence turned or marked it before
    (two partial copies would turn it back and forth). None: nothing changes."""
    if not rule.exchangeable or rule.turned_by_absence or rule.origin_partial:
        return None
    if rule.origin_lacks or rule.mirror_held_first == on_mirror:
        return None
    if counterpart_status not in LACKING_STATUSES:
        return None
    counted = replace(rule, absences=rule.absences + 1)
    lacking = rule.origin if on_mirror else rule.mirror
    if rule.side_by_side and len(store.rules_with_origin_at(lacking)) > 1:
        return None  # pruned beside its copies already
    if not rule.side_by_side:
        if not _shown_partial(store, lacking, counted.absences):
            return counted
        if on_mirror:  # the origin lacks the page
            return replace(counted, origin_partial=True)
    return replace(counted, mirror_held_first=on_mirror, turned_by_absence=True)


def absences_before(store: MirrorStore, rule: Rule, is_listing: Callable[[str], bool]) -> Rule:
    """``rule``, just made, with the absences the crawl knew already counted
    (``after_absence``, one by one until it turns): pages its side not held first holds whose
    counterparts the side held first answered with a 404 or 410 before the pair was a rule
    (listings left out, as ``after_absence``'s callers leave them). Counted only from then on,
    the fifteenth holdout web's partial copy of a copy, held first, knew five at its rule and
    turned 300 fetches later, each page it lacks costing a 404 meanwhile."""
    on_mirror = not rule.mirror_held_first  # the side whose held pages are read
    side = rule.mirror if on_mirror else rule.origin
    lowered, deferrals, counted = side.lower(), Deferrals(store.view), rule
    for rel_hash, entry in itertools.islice(store.subtree(lowered), _SCANNED):
        record = store.view.page(entry.representative)
        if rel_hash == _OWN_INDEX_PAGE or not held_under(record, lowered):
            continue
        relative = record.url[len(side) :]
        if is_listing(relative):
            continue
        counterpart = counted.on_origin(relative) if on_mirror else counted.on_mirror(relative)
        after = after_absence(store, counted, on_mirror, deferrals.absent(counterpart))
        if after is not None:
            counted = after
        if counted.turned_by_absence or counted.origin_partial:
            break
    return counted


def _shown_partial(store: MirrorStore, side: str, absences: int) -> bool:
    """Whether a side crawled first lacked enough pages of the other's to be taken for a
    partial copy: ``_ABSENCES_TO_TURN``, and a ``_SHARE_TO_TURN`` of the documents it holds (a
    partial copy of a copy lacks a third of its pages; a copier's victim crawled first lacks
    none that its copier holds, and a copier serving pages at the victim's broken links would
    need one link in sixteen broken)."""
    if absences < _ABSENCES_TO_TURN:
        return False
    return absences * _SHARE_TO_TURN >= len(_held(store, side).documents)


def _outheld(leader: _Held, other: _Held, lead: int) -> bool:
    """Whether ``other`` holds ``_OUTHELD`` times the documents of ``leader``, whose lead is
    within what a crawl fetches at once (``_SIDE_BY_SIDE_DOCUMENTS``): the crawl held the other
    side's pages while the leader's were pruned or never reached, and the lead of its first
    pages was a coin flip. Counts decide then. A renamed copy on the twelfth holdout web (round
    robin) led its origin by two documents, was pruned through a partial copy of it until that
    copy turned, and then, weighed against the origin alone (6 documents against 437), was held
    first and crawled whole: 944 fetches. A victim crawled first holds its documents while its
    copier, pruned, holds few."""
    outheld = len(other.documents) >= _OUTHELD * len(leader.documents)
    return lead <= _SIDE_BY_SIDE_DOCUMENTS and outheld


def _met_first(first: _Held, second: _Held) -> bool:
    """Whether ``first`` held documents, more than one, before any page of ``second`` (its index
    page counted): a side crawled before the other was met at all, as a copier's victim is."""
    return first.held_before(second.first) > _SIDE_BY_SIDE_LEAD


def _side_by_side(lead: int, *sides: _Held) -> bool:
    """Neither side was crawled first: no lead beyond one document, or both sides hold
    ``_SIDE_BY_SIDE_DOCUMENTS`` documents or more and the lead is at most half of the fewer (a
    crawl that fetches many pages at once interleaves two hosts by a few pages; a victim
    crawled first holds its pages before its copier holds any)."""
    fewer = min(len(side.documents) for side in sides)
    if lead <= _SIDE_BY_SIDE_LEAD:
        return True
    return fewer >= _SIDE_BY_SIDE_DOCUMENTS and lead * 2 <= fewer


@dataclass(frozen=True, slots=True)
class _Held:
    documents: tuple[int, ...]  # page counters of the pages held as themselves, but its index
    first: float  # the smallest page counter among them and its index page's

    def lead_over(self, other: _Held) -> int:
        """How many of these documents were held before the first document of ``other``."""
        return self.held_before(min(other.documents, default=math.inf))

    def held_before(self, counter: float) -> int:
        """How many of these documents were held before the page counter ``counter``."""
        return sum(1 for document in self.documents if document < counter)


def held_under(record: PageRecord | None, directory_key: str) -> bool:
    """Whether the page standing for an entry (``record``) lies under the directory (lower-cased
    ``directory_key``): a page held as itself there, not a copy's page standing for it."""
    return record is not None and record.url.lower().startswith(directory_key)


def _held(store: MirrorStore, directory: str) -> _Held:
    """The pages held as themselves under ``directory``, and when it was met: its first page
    held, or its index page, held or standing under another side's page (``DirEntry.met``: an
    exact copy of the index page held first, met a moment after it, is a side met all the same,
    though the pages of it the crawl fetches next duplicate pages held already)."""
    lowered, documents, first = directory.lower(), [], math.inf
    for rel_hash, entry in itertools.islice(store.subtree(lowered), _SCANNED):
        if entry.met and rel_hash == _OWN_INDEX_PAGE:
            first = min(first, entry.met & _COUNTER)
        if not held_under(store.view.page(entry.representative), lowered):
            continue
        counter = entry.representative & _COUNTER
        first = min(first, counter)
        if rel_hash != _OWN_INDEX_PAGE:
            documents.append(counter)
    return _Held(tuple(documents), first)
