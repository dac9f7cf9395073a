"""Candidate pairs of directories: which index pages make one, and how each is settled.

An index page whose content duplicates the index page of another directory makes the two
directories a candidate pair. Coordinate sampling (``sampling.py``) then confirms it into a rule
(``mirror_rules.py``), which tries to widen to the parents (``boundary.py``), or rejects it.
Invariants: pairs are oriented by evidence (``orientation.py``); nested directories are never a
pair; every change happens in the caller's write transaction.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from dedup_filter.config import MirrorConfig
from dedup_filter.features.simhash import agreement
from dedup_filter.mirrors.boundary import Widening, parent_pair, twins, widen
from dedup_filter.mirrors.deferrals import lacks_directory
from dedup_filter.mirrors.directories import (
    IndexPages,
    Placement,
    directory_depth,
    index_file_name,
    nested,
    own_placement,
    parent_directory,
    placements,
    usable_directory,
)
from dedup_filter.mirrors.listings import LISTING_KEYS, listing, listing_keys
from dedup_filter.mirrors.named_editions import named_editions
from dedup_filter.mirrors.orientation import Orientation
from dedup_filter.mirrors.precedence import absences_before, held_before
from dedup_filter.mirrors.probes import (
    ask_parent,
    ask_sample,
    fetchable,
    forget_samples,
    partial_origin,
    partial_origin_pending,
)
from dedup_filter.mirrors.pruning import Protection
from dedup_filter.mirrors.records import (
    EDITION,
    MISMATCH,
    MISSING,
    OPEN,
    OTHER_TEXT,
    PENDING,
    REJECTED,
    SUPERSEDED,
    Candidate,
    DirectoryPair,
    Rejection,
    Rule,
)
from dedup_filter.mirrors.rules import (
    as_rule,
    collapse_origin,
    conflicts,
    install,
    repoint,
    reweigh_through,
    rule_over,
    turn_to_newer,
)
from dedup_filter.mirrors.sampling import Arrival, CoordinateSampler
from dedup_filter.mirrors.sequential import Verdict
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.soft404 import ask as ask_absent
from dedup_filter.mirrors.store import MirrorStore, pair_reference, relative_hash
from dedup_filter.releases import numbered_against_moving, release_editions, release_left_open

# what a sample judged its two pages to be that tells a copy apart from its origin
_UNLIKE = (MISMATCH, EDITION, OTHER_TEXT)


@dataclass(frozen=True, slots=True)
class Pair:
    """Two directories whose index pages duplicate each other, oriented: ``mirror`` is the side a
    rule would prune, ``origin`` the side it keeps; ``page_is_origin`` says which side the page
    that made the pair lies in."""

    mirror: Placement
    origin: Placement
    page_is_origin: bool = False
    listed: bool = True  # the page that made it is an index page listing the pair's documents

    @property
    def reference(self) -> bytes:
        return pair_reference(self.mirror.directory, self.origin.directory)

    def names_editions(self, config: MirrorConfig, orientation: Orientation) -> bool:
        """Whether the two directories are editions named apart (``named_editions.py``), as
        their index pages declare their languages."""
        mirror, origin = self.mirror.directory, self.origin.directory
        return (
            named_editions(mirror, origin, config, lambda: orientation.declared(mirror, origin))
            is not None
        )


def index_pair(
    url: str, original_url: str, index_pages: IndexPages, orientation: Orientation
) -> Pair | None:
    """The oriented pair when both URLs are index pages of unrelated, usable directories."""
    max_depth = orientation.max_depth
    page, original = own_placement(url, max_depth), own_placement(original_url, max_depth)
    if page is None or original is None:
        return None
    if not all(index_pages.stands_for_directory(place) for place in (page, original)):
        return None
    if nested(page.directory, original.directory):
        return None
    if not (usable_directory(page.directory) and usable_directory(original.directory)):
        return None
    if orientation.page_is_origin(url, page.directory, original_url, original.directory):
        return Pair(original, page, page_is_origin=True)
    return Pair(page, original)


def listing_pair(
    orientation: Orientation,
    arrival: Arrival,
    index_pages: IndexPages,
    config: MirrorConfig,
    min_agreement: int,
) -> Pair | None:
    """Record the listing of an index page indexed under its own URL, and pair its directory
    with another whose index page lists mostly the same entries (at least
    ``listing_min_resemblance`` of them, estimated) and whose text is close (at least
    ``min_agreement`` simhash bits agree: a banner or a header added, not another site's home
    page over the same theme's pages). None when a rule prunes either side, or the listing is too
    short, or the text too small, to tell directories apart."""
    url, store = arrival.placed_url, orientation.store
    fingerprint, links = arrival.fingerprint, arrival.links
    place = own_placement(url, config.max_depth)
    if config.listing_min_links == 0 or place is None:
        return None
    if not index_pages.stands_for_directory(place):
        return None
    if not usable_directory(place.directory):  # its name is a key
        return None
    entries = listing(place.directory, links, index_pages)
    if len(entries) < config.listing_min_links:
        return None
    keys = listing_keys(entries)
    # the index pages recorded with a listing that resembles this one
    strip = orientation.sessions.strip
    least = math.ceil(config.listing_min_resemblance * LISTING_KEYS)
    alike = [
        (strip(other), simhash, shared)
        for other, simhash, shared in store.listed_alike(keys, least)
    ]
    if url not in (other for other, _, _ in alike):
        page_id = store.view.page_id_for_url(fingerprint.url)
        if page_id is not None:
            store.put_listing(keys, place.directory, page_id)
    if not fingerprint.has_features:
        return None
    # the closest listing first, then the closest text: a manual's editions side by side list
    # nearly what each other lists, and a pair opened with one of them is opened for good
    ranked = sorted(
        (
            (shared, agreement(fingerprint.simhash, simhash), other)
            for other, simhash, shared in alike
            if simhash
        ),
        reverse=True,
    )
    for _, agreeing, other in ranked:
        if agreeing < min_agreement:
            continue
        pair = index_pair(url, other, index_pages, orientation)
        if pair is None or ruled(store, (url, pair.mirror.url), config.max_depth):
            continue
        if not pair.names_editions(config, orientation):
            return pair
    return None


def origins_pair(orientation: Orientation, url: str, ruled_url: str) -> Pair | None:
    """The pair of index page ``url``'s directory with the directory that the rule over index
    page ``ruled_url`` points at, when both are index pages of unrelated directories no rule
    prunes: two directories that replicate one mirror replicate each other. A partial copy of a
    copy, paired with the whole copy before the true origin was, is so found to be a copy of the
    origin (the rules pointing at it are then pointed at the origin: ``rules.repoint``)."""
    store, max_depth = orientation.store, orientation.max_depth
    found = rule_over(store, placements(ruled_url, max_depth))
    if found is None:
        return None
    rule, place = found
    twin_url = rule.origin + place.relative
    if ruled(store, (url, twin_url), max_depth):
        return None
    twin = own_placement(twin_url, max_depth)
    if twin is not None and lacks_directory(store, twin.directory, twin_url):
        return None  # the rule's origin lacks the directory: the copy renamed its own
    return index_pair(url, twin_url, orientation.index_pages, orientation)


def ruled(store: MirrorStore, urls: Iterable[str], max_depth: int) -> bool:
    """Whether a rule prunes any of ``urls``."""
    return any(rule_over(store, placements(url, max_depth)) is not None for url in urls)


def pruned(store: MirrorStore, urls: Iterable[str], max_depth: int) -> bool:
    """Whether any of ``urls`` lies on a rule's mirror side that the rule prunes (not one held
    first: the crawl fetches that side, so what its pages duplicate elsewhere still counts)."""
    found = (rule_over(store, placements(url, max_depth)) for url in urls)
    return any(rule is not None and rule[0].prunes_mirror for rule in found)


class CandidateUpdate:
    """The candidates one call moves inside its write transaction, and what that produced: the
    probes to hand out and the rules confirmed."""

    def __init__(
        self,
        store: MirrorStore,
        config: MirrorConfig,
        sampler: CoordinateSampler,
        now: float,
        arrival: Arrival | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.now = now
        self.arrival = arrival  # the page this call checks, if any
        self.probes: list[str] = []
        self.confirmed: list[Rule] = []
        self.repointed: list[Rule] = []  # rules a confirmation pointed at its new origin
        # the mirror sides of the rules turned by absence: at their confirmation
        # (``_counted_absences``), or by the page this call checks (the detector's)
        self.turned: list[str] = []
        self._sampler = sampler
        self._sessions = SessionParameters(config.session_parameters).of(store)

    def open(self, pair: Pair, level: int) -> None:
        """Start sampling a new pair (a pair already known is moved by ``advance`` instead)."""
        if self.store.candidate(pair.reference) is None:
            mirror, origin = pair.mirror, pair.origin
            links = self.arrival.links if self.arrival is not None else ()
            directories = (mirror.directory, origin.directory)
            closed = (
                self._sampler.listing_closed(directories, links)
                if pair.listed
                else all(map(self.store.lists_few, directories))
            )
            candidate = Candidate(
                mirror.directory,
                origin.directory,
                mirror.url,
                origin.url,
                self.now,
                level=level,
                closed=closed,
                from_documents=not pair.listed,
                **self._sides_naming(mirror, origin),
            )
            self.advance(candidate)

    def advance(self, candidate: Candidate, arrived: str | None = None) -> None:
        """Sample what can be sampled now (``arrived``: the relative path of a page that just
        arrived), then confirm, reject, or store the candidate with the probes it needs."""
        if self._covered(candidate):
            return
        if self._editions(candidate):
            self._reject(candidate, Rejection.NAMED_EDITIONS)
            return
        candidate, wanted = self._sampler.advance(self.store, candidate, arrived, self.arrival)
        verdict = self._sampler.verdict(self.store, candidate)
        # a sample that may yet be a mismatch holds a confirmation back
        awaiting = self._sampler.awaits_absent_answer(self.store, candidate)
        if verdict is Verdict.CONFIRMED and not awaiting:
            if self._closer_pair_open(candidate):
                self.store.put_candidate(candidate)  # confirmed once that pair settles
                return
            told = self._sampler.other_text(self.store, candidate)
            if told.count(OTHER_TEXT):  # another document under a shared name: no copy
                self._reject(told, Rejection.OTHER_TEXT)
            else:
                self._confirm(candidate)
            return
        if verdict is Verdict.REJECTED:
            if self._turn_partial_origin(candidate):
                return
            if not partial_origin_pending(self.store, candidate):
                self._reject(candidate, Rejection.SAMPLES_DIFFER)
                return
        for url in wanted:
            if ask_sample(self.store, url, candidate):
                self.probes.append(url)
        if awaiting:
            self.probes.extend(filter(None, [ask_absent(self.store, candidate.mirror)]))
        self.store.put_candidate(candidate)

    def handed_out(self) -> tuple[str, ...]:
        """The probes to hand to the crawler: each once, and only those still outstanding (a rule
        confirmed later in the same call may have withdrawn some)."""
        return tuple(
            fetchable(self.store, self._sessions, url)
            for url in dict.fromkeys(self.probes)
            if self.store.probes_for(url)
        )

    def evidence(self) -> dict[str, Any]:
        """What a decision says about this update: the mirror sides of the rules it confirmed,
        and of those turned by absence."""
        confirmed = [rule.mirror for rule in self.confirmed]
        return ({"mirrors_confirmed": confirmed} if confirmed else {}) | (
            {"mirrors_turned_by_absence": self.turned} if self.turned else {}
        )

    def widen(self, rule: Rule) -> Widening:
        """Try the parents of ``rule`` (again, once a parent index page it asked for arrived);
        what was tried."""
        index_file = index_file_name(self.config.index_names, self.config.index_extensions)
        step = widen(self.store, rule, self.config.max_boundary_levels, self.now, index_file)
        self.probes.extend(url for url in step.probes if ask_parent(self.store, url, rule))
        if step.candidate is not None:
            self.advance(step.candidate)
        return step

    def _widen_with_twins(self, rule: Rule) -> None:
        """``widen``, for ``rule`` and for the pair it makes with each of its twins (another
        mirror of its origin by the same name: ``boundary.twins``), whose parents may replicate
        though neither pairs with the other's origin."""
        self.widen(rule)
        for twin in twins(self.store, rule):
            self.widen(
                replace(
                    rule,
                    origin=twin.mirror,
                    origin_index=twin.mirror_index,
                    origin_bare=twin.mirror_bare,
                    origin_htm=twin.mirror_htm,
                )
            )

    def _covered(self, candidate: Candidate) -> bool:
        """Whether a rule already prunes the candidate's mirror side: then it is forgotten, since
        sampling inside a confirmed mirror would only waste probes, and the two origins the
        mirror replicates are paired instead."""
        if rule_over(self.store, placements(candidate.mirror, self.config.max_depth)) is None:
            return False
        forget_samples(self.store, candidate)
        self.store.delete_candidate(candidate)
        self._pair_origins(candidate)
        return True

    def _pair_origins(self, paired: Candidate | Rule) -> None:
        """Open the pair of the origin of a candidate (or of a rule a wider rule absorbed) and
        the origin the rule over its mirror side points at: both hold what one mirror holds
        (``origins_pair``)."""
        pair = origins_pair(self._orientation(), paired.origin_index, paired.mirror_index)
        if pair is not None and self.store.candidate(pair.reference) is None:
            mirror, origin = pair.mirror, pair.origin
            self.advance(
                Candidate(
                    mirror.directory,
                    origin.directory,
                    mirror.url,
                    origin.url,
                    self.now,
                    level=paired.level,
                    **self._sides_naming(mirror, origin),
                )
            )

    def _sides_naming(self, mirror: Placement, origin: Placement) -> dict[str, bool]:
        """How a new pair's sides name their documents, as their held index pages say."""
        return self.store.naming_as(mirror.directory, "mirror") | self.store.naming_as(
            origin.directory, "origin"
        )

    def _reoriented(self, candidate: Candidate) -> Candidate:
        """The candidate under its other orientation, in place of this one."""
        forget_samples(self.store, candidate)
        self.store.delete_candidate(candidate)
        return self._turned(candidate)

    def _turned(self, candidate: Candidate) -> Candidate:
        """The candidate the other way round. A mismatch whose page the new mirror lacks was its
        origin lacking a page the mirror held (no rule that way round); this way round it is a
        page a partial copy lacks: missing."""
        turned, mirror = _reversed(candidate), candidate.origin.lower()
        for sample in turned.samples:
            absent = self.store.entry_by_hash(mirror, sample.relative_hash) is None
            if sample.outcome == MISMATCH and absent:
                turned = turned.with_outcome(sample.relative_hash, MISSING)
        return turned

    def _turn_partial_origin(self, candidate: Candidate) -> bool:
        """Pair ``candidate``, confirmed or rejected, the other way round, when its samples were
        refuted only by pages its origin lacks (``probes.partial_origin``): the origin is a
        partial copy of the mirror, taken for the origin by depth (a copier's copy of part of a
        victim's directory, filed at its host's root), unless a name, a session id or a pin
        calls the mirror the copy, or the other way round was paired already. This way round
        is recorded rejected; the other way round those samples are pages the copy lacks
        (missing), and the 404s name the copy (``Orientation.names_the_copy``): its rule never
        prunes the victim. The third holdout web's copier was rejected so (seed 2: its 23 pages
        fetched in random order), or ruled the victim's origin, pruning nothing. Whether it
        was turned."""
        if (
            not partial_origin(self.store, candidate)
            or self._names_the_copy(candidate)
            or self.store.candidate(pair_reference(candidate.origin, candidate.mirror)) is not None
        ):
            return False
        turned = self._turned(candidate)
        self._reject(candidate, Rejection.TURNED_ROUND)
        self.advance(turned)
        return True

    def _turns_over(self, candidate: Candidate) -> bool:
        """Whether evidence that does not depend on the crawl's order takes the candidate's
        origin for the copy, while it was oriented by order (a pair found from documents, a
        boundary above such a rule, index pages a hair apart): the name, a session id or a pin,
        or, where those say nothing either way, an older release on its index page."""
        named, named_turned = (
            self._names_the_copy(candidate),
            self._names_the_copy(_reversed(candidate)),
        )
        if named != named_turned:
            return named_turned
        return self._names_older(_reversed(candidate))

    def _names_older(self, pair: DirectoryPair) -> bool:
        return self._orientation().names_older_release(pair.mirror, pair.origin)

    def _names_the_copy(self, pair: DirectoryPair, held_first: bool = False) -> bool:
        return self._orientation().names_the_copy(
            pair.mirror, pair.mirror_index, pair.origin, pair.origin_index, held_first
        )

    def _orientation(self) -> Orientation:
        config = self.config
        return Orientation(
            self.store,
            IndexPages(config.index_names, config.index_extensions),
            Protection(config.protected_prefixes),
            config.max_depth,
            self._sessions,
        )

    def _editions(self, pair: DirectoryPair) -> bool:
        """Whether the pair's directories name different editions (``named_editions.py``), as
        their index pages declare their languages."""

        def declared() -> tuple[str, str]:
            return self.store.language(pair.mirror), self.store.language(pair.origin)

        return named_editions(pair.mirror, pair.origin, self.config, declared) is not None

    def _other_release(self, pair: DirectoryPair) -> bool | None:
        """Whether the pair's paths leave open which release each side holds (one names none, or
        names the series the other's release is of: ``releases.release_left_open``) and their
        index pages name different releases (``Orientation.later_side``): one side holds a copy
        of another release, not of this one, and a rule either way prunes one release for
        another, whose rewritten pages (its release notes) are content no other URL may hold.
        On the versions web a mirror of LLVM 16's documentation, paired with ``/15/`` before
        ``/16/``'s index page was held, was ruled a copy of 15 in two orders of three runs. On a
        helper's web a copy of OpenSSL 3.0.20 filed under ``/openssl-3.0/`` was paired with the
        archive's ``/docs/3.0.17/``, met first, and crawled whole as the newer release (613
        fetches, two orders of six); rejected, it pairs with ``/docs/3.0.20/`` once that is met.
        The cost: a stale copy filed under its release's name beside an origin naming none
        (``/mirror/git-2.39.2/`` of ``/docs/``) is crawled whole. A moving release's name
        (``/latest/``) against another release's is one release only where both index pages
        name the very same releases, the numbered side's release among them
        (``releases.numbered_against_moving``): on the versions web, index pages naming the
        same numbers and no release (a format's ``7.0``) paired ``15/PDB/`` with
        ``latest/PDB/``, which serves 16. None while only their index pages could tell, and no
        other release is paired to tell by (``_release_told_by_index``)."""
        if not release_left_open(pair.mirror, pair.origin):
            return False
        numbered = numbered_against_moving(pair.mirror, pair.origin)
        if numbered:
            if self._orientation().same_releases(pair.mirror, pair.origin, numbered):
                return False
            told = self._release_told_by_index(pair)
            return None if told is None else not told
        return self._orientation().later_side(pair.mirror, pair.origin) != 0

    def _release_told_by_index(self, pair: DirectoryPair) -> bool | None:
        """Whether the pair's index pages, exact duplicates, say which release its moving side
        serves where they name none: every other release paired with either side has an index
        page of its own (a release's index page changes, and the moving side's is this one's).
        LLVM's index pages name no release; ``/latest/`` served 16 beside 13 to 15 and was
        crawled whole on the versions web. Where another release's index page is the same
        (LLVM's ``PDB/``, unchanged from 13 to 16), nothing tells; None where no other release
        is paired yet (one met later may tell)."""
        if self._index_closeness(pair) < 2:
            return False
        exact = self.store.index_entry(pair.mirror).exact
        partners = self._partners(pair.mirror) | self._partners(pair.origin)
        partners -= {pair.mirror.lower(), pair.origin.lower()}
        for moving in (pair.mirror, pair.origin):
            releases = [
                self.store.index_entry(other)
                for other in partners
                if numbered_against_moving(other, moving)
            ]
            if releases:
                return all(entry is not None and entry.exact != exact for entry in releases)
        return None

    def _partners(self, directory: str) -> set[str]:
        """The directories paired with ``directory`` either way, in any state, lower-cased
        (``directory`` among them)."""
        paired = self.store.candidates_of_mirror(directory) + self.store.candidates_of_origin(
            directory
        )
        return {
            side.lower() for candidate in paired for side in (candidate.mirror, candidate.origin)
        }

    def _closer_pair_open(self, candidate: Candidate) -> bool:
        """Whether another open pair of the candidate's mirror side, with another release than
        its origin (``releases.release_editions``), has index pages closer than the
        candidate's (``_index_closeness``): a copy is of the release whose index page it
        copies, before one whose index page only resembles it. Releases side by side carry most
        pages over unchanged, so samples of a copy of 16 match 15's pages as well: on the
        versions web, whose index pages name no release, a mirror of LLVM 16 was ruled a copy of
        14 or 15 in three orders of four, whichever pair's samples were fetched first. Only
        releases: the case it is made for (docs/mirrors.md, point 107). Neither waits once
        open too long (``expiry.py``): a pair whose samples never come (a side pruned by
        another rule) holds no other back for longer."""
        if candidate.reissued:
            return False
        closeness = self._index_closeness(candidate)
        return any(
            rival.state == OPEN
            and not rival.reissued
            and release_editions(rival.origin, candidate.origin)
            and self._index_closeness(rival) > closeness
            for rival in self.store.candidates_of_mirror(candidate.mirror)
        )

    def _index_closeness(self, pair: DirectoryPair) -> int:
        """2 where the pair's index pages are exact duplicates, 1 where one stands for the
        other (near-duplicates), 0 otherwise (paired by their listings, or one not held)."""
        mirror, origin = self.store.index_entry(pair.mirror), self.store.index_entry(pair.origin)
        if mirror is None or origin is None:
            return 0
        return 2 if mirror.exact == origin.exact else int(mirror.same_content(origin))

    def resume_waiting(self, closed: Candidate) -> None:
        """Advance again the open pairs of ``closed``'s mirror side that waited for it to settle
        (``_closer_pair_open``), now that it is rejected or expired."""
        for waiting in self.store.candidates_of_mirror(closed.mirror):
            if (
                waiting.state == OPEN  # ``closed`` is stored closed already
                and self._sampler.verdict(self.store, waiting) is Verdict.CONFIRMED
            ):
                self.advance(waiting)

    def _rejected(self, pair: DirectoryPair) -> bool:
        known = self.store.candidate(pair_reference(pair.mirror, pair.origin))
        return known is not None and known.state == REJECTED

    def _reject(self, candidate: Candidate, why: Rejection) -> None:
        forget_samples(self.store, candidate)
        self.store.put_candidate(replace(candidate, state=REJECTED, rejected_for=why))
        self.resume_waiting(candidate)

    def _confirm(self, candidate: Candidate) -> None:
        max_depth = self.config.max_depth
        if self._turn_partial_origin(candidate):
            return
        if self._turns_over(candidate):
            candidate = self._reoriented(candidate)
        paired = candidate
        collapsed, through = collapse_origin(self.store, paired, max_depth)
        other_release = self._other_release(collapsed)
        if other_release is None:  # another release paired later tells
            self.store.put_candidate(candidate)
            return
        if other_release:
            self._reject(candidate, Rejection.OTHER_RELEASE)
            return
        if through and self._editions(collapsed):
            self._reject(candidate, Rejection.EDITIONS_THROUGH_COPY)
            return
        if through and self._rejected(collapsed):
            # the pair it stands for was rejected, or revoked (an edition), and is never paired
            # again; the rule it collapses through may be revoked in turn (two editions paired
            # through a copy of one of them): it waits, open
            self.store.put_candidate(candidate)
            return
        if conflicts(self.store, collapsed.mirror, collapsed.origin, max_depth):
            if self._parents_tried(collapsed):
                return
            # the side taken for the mirror lies within an origin (a copier's victim whose
            # directory's parent was confirmed the origin of other copies): the pair matched,
            # so the other side is pruned instead, if no rule prunes the first side already and
            # that conflicts with nothing
            ruled_already = ruled(self.store, (candidate.mirror,), max_depth)
            paired = self._turned(candidate)
            collapsed, through = collapse_origin(self.store, paired, max_depth)
            if ruled_already or conflicts(
                self.store, collapsed.mirror, collapsed.origin, max_depth
            ):
                self._reject(candidate, Rejection.RULED_ALREADY)
                return
            forget_samples(self.store, candidate)
            self.store.delete_candidate(candidate)
        # the other origins this mirror was paired with: absorbed with the rule, paired with its
        # origin instead
        rivals = [
            rival
            for rival in self.store.candidates_of_mirror(collapsed.mirror)
            if rival.state == OPEN and rival.origin.lower() != collapsed.origin.lower()
        ]
        repointed = repoint(
            self.store, collapsed.mirror, collapsed.origin, self._orientation().with_evidence
        )
        # the rules the new one absorbs: their origins elsewhere are paired with its origin (a
        # copier of a copy's directory, paired with that copy before the copy's host was ruled
        # a mirror, would otherwise lose its pairing: a holdout crawl never named its boundary)
        absorbed = self.store.rules_under(collapsed.mirror)
        code_checked = self._sampler.coded_matches(self.store, candidate)
        rule = install(
            self.store,
            collapsed,
            self.config.mode,
            self.now,
            functools.partial(self._names_the_copy, collapsed),
            code_checked,
            through,
            self._names_older(collapsed),
            paired.origin if through else "",
        )
        rule, *repointed = self._newer_as_origins([rule, *repointed])
        rule = self._counted_absences(rule)
        self.confirmed.append(rule)
        self.repointed += repointed
        # what each side kept for the other answers for a page it lacks: nothing is pruned
        # before it is known
        kept = (rule.origin,) * rule.prunes_mirror + (rule.mirror,) * rule.prunes_origin
        self.probes.extend(url for side in kept if (url := ask_absent(self.store, side)))
        self._widen_with_twins(rule)
        for moved in repointed:
            # paired with a new origin, maybe beside a sibling pair of the same parents (a
            # banner copy's subdirectories, each paired with a third copy before its twin was
            # met: the eighth holdout web's banner host was never ruled whole)
            current = self.store.rule(moved.mirror)
            if current is not None:
                self._widen_with_twins(current)
        for rival in rivals:
            self.store.put_candidate(replace(rival, state=SUPERSEDED, samples=()))
            self._pair_origins(rival)
        for contained in absorbed:
            self._pair_origins(contained)

    def _counted_absences(self, rule: Rule) -> Rule:
        """``rule``, just made, with the absences known before it counted and stored
        (``precedence.absences_before``); a turn weighs the rules moved through it again."""
        index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        counted = absences_before(self.store, rule, index_pages.names_listing)
        if counted == rule:
            return rule
        self.store.put_rule(counted)
        if counted.turned_by_absence:
            reweigh_through(self.store, counted)
            self.turned.append(counted.mirror)
        return counted

    def _newer_as_origins(self, rules: list[Rule]) -> list[Rule]:
        """``rules``, made or moved by a confirmation, each as stored now and turned round
        where its mirror names the later release and nothing names it the copy
        (``Orientation.release_turn``). A rule whose origin was moved through a copy
        (``collapse_origin``, ``repoint``) was oriented against the pair it was found as, whose
        sides may name one release: on the eleventh holdout web (breadth first) the project's
        manual, paired with a copier's copy of it, was moved onto the stale copy the copier was
        ruled a mirror of, and the project and the stale copy were both crawled whole (1,007 URLs
        kept as the newer release)."""
        orientation, rules = self._orientation(), list(rules)
        for at, rule in enumerate(rules):
            current = self.store.rule(rule.mirror)
            if current is not None and orientation.release_turn(current) > 0:
                rules[at] = turn_to_newer(self.store, current, orientation.with_evidence)
        # as stored at the end: a turn moves the origins that lay in its new mirror
        return [self.store.rule(rule.mirror) or rule for rule in rules]

    def _parents_tried(self, candidate: Candidate) -> bool:
        """Whether a confirmed pair whose mirror side lies in the origin of other rules, one
        level down, waits for its parents instead of being turned round (``boundary.widen``: the
        parents are sampled, or their index pages asked for); it stays open until the parents'
        rule covers it (``_covered``), and is turned round as before where they cannot be tried
        or were rejected. Only where the turn would make the copy of the shallower side, which
        was crawled first: that origin is then a copy of it, taken for the origin of a copy of a
        copy met first (the eleventh holdout web, depth first: a renamed copy's section turned
        round, and the boundary search above it ruled the true origin's host a copy of the
        renamed directory; 525 of its pages fetched after the origin's). A copier at its host's
        root met after its victim is turned round, as depth alone would have it the origin."""
        parent = parent_directory(candidate.mirror)
        if parent is None or not self.store.has_origin_at(parent):
            return False
        if directory_depth(candidate.origin) >= directory_depth(candidate.mirror):
            return False
        if not held_before(self.store, candidate.origin, candidate.mirror):
            return False
        paired = as_rule(candidate, self.now, self.config.mode)
        parents = parent_pair(paired, self.config.max_boundary_levels)
        if isinstance(parents, str):
            return False
        known = self.store.candidate(pair_reference(*parents))
        if known is None:
            # probes asked as a rule's are; the pair is confirmed again when a page of it comes,
            # and its parents tried then
            step = self.widen(paired)
            if step.candidate is None and not step.probes:
                return False
        elif known.state != OPEN:
            return False
        if not self._covered(candidate):
            self.store.put_candidate(candidate)
        return True

    def reopen(self, mirrors: Iterable[str]) -> None:
        """Sample again the pairs that the rules of ``mirrors``, now revoked, superseded: a copy
        paired first with an edition of its guide (their index pages alike) has the guide among
        them, and no other index page may arrive to pair them again."""
        for mirror in mirrors:
            for candidate in self.store.candidates_of_mirror(mirror):
                if candidate.state == SUPERSEDED:
                    self.advance(replace(candidate, state=OPEN, created_at=self.now))

    def refold(self, places: Iterable[Placement], folded: dict[str, str]) -> None:
        """Sample again the rejected pairs that judged a page unlike its counterpart at a path
        where a side was just found serving one file under two names that differ only in case
        (``folded``, by directory key; ``records.FOLDED``): the other side's file there may be
        the other one of the pair, so the sample tells nothing (``MISSING`` once judged again).
        A case-insensitive mirror of GDK's reference was rejected for ``KEY_Abrevetilde``, an
        "edition" of ``KEY_abrevetilde``, and never pruned."""
        for place in places:
            if place.directory_key not in folded:
                continue
            rel_hash = relative_hash(place.relative)
            for candidate in (
                *self.store.candidates_of_mirror(place.directory),
                *self.store.candidates_of_origin(place.directory),
            ):
                judged = {sample.relative_hash: sample.outcome for sample in candidate.samples}
                if candidate.state == REJECTED and judged.get(rel_hash) in _UNLIKE:
                    again = candidate.with_outcome(rel_hash, PENDING)
                    self.advance(replace(again, state=OPEN, created_at=self.now, rejected_for=0))


def _reversed(candidate: Candidate) -> Candidate:
    return replace(candidate, **candidate.sides_reversed)
