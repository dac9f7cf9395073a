"""Before the fetch: what a mirror rule does to a URL. Rules never cost content.

A URL on a rule's pruned side (its mirror side, or its origin side too: ``precedence.py``) is
dropped only when its counterpart on the other side is *held*: fetched and kept, or represented
by a kept copy (its entry under its own directory names an indexed page). An origin's index
pages are never pruned (they link its pages; a copy's listing may not). Under a rule that prunes
only its mirror, a URL whose counterpart is not known yet is deferred (``deferrals.py``), and
its counterpart asked for as a probe (the crawl fetches an origin's pages anyway); under a rule
that prunes its origin, an origin's document waits too, unprobed, for the copy held first, which
the crawl fetches whole (a probed page's links are followed only if the crawl asks for it),
unless the crawl may have pruned that copy's page under a rule revoked since (then it is
fetched: ``_against_copy``); and a copy's URL whose counterpart lies where another rule prunes
the origin for a copy held first waits for that copy's page too (probing the origin's page would
make the copy's own fetch a duplicate), unless the origin's page is held or the copy's is known
absent; a counterpart on a side another rule prunes (a renamed copy inside the origin) is that
rule's origin page, held, waited for and probed under the name the crawl keeps. A copy held
first still gives way to another rule's copy of its counterpart that the crawl fetched: its twin
under a renamed copy inside the origin, or a third site's copy held before it
(``_copy_held_before``), and a side held first beside its origin waits for a probe out for
its counterpart (a sample of the pair the rule came from) and is dropped for its answer, which
the spider then crawls in its place. One whose counterpart could not be fetched is fetched itself (a
counterpart fetched as a file, reported with a 2xx status, is held by the crawl), as is a URL
under a prefix the operator protects, and a URL whose own page the index holds already (pages
held first are never pruned in favour of a copy met later), or whose side's index page names a
later release than the kept side's (``_newer_side``: a stale copy taken for the kept side).
A side shown to hold pages its origin lacks (a copier's partial copy at its host's root) is never
pruned for the origin's pages, only for those of another mirror of that origin, fetched whole and
kept for both (``_kept_sibling``).
Nothing is dropped before the rule's origin has shown what it answers for a page it lacks, and a
counterpart that is the origin's soft-404 page is no copy (``soft404.py``).
Invariant: nothing is dropped unless a copy of it is held, whatever the orientation.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from dedup_filter.config import MirrorConfig
from dedup_filter.decision import Decision, Reason, settle_waiting
from dedup_filter.features.versions import later_release
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.index.page_records import PageRecord
from dedup_filter.languages import variant_in_named_edition
from dedup_filter.matching import Sketched
from dedup_filter.mirrors.code_checks import CodeBudget
from dedup_filter.mirrors.deferrals import Deferrals, ProbeTally, lacks_directory
from dedup_filter.mirrors.directories import (
    IndexPages,
    Placement,
    authority,
    copier_at_root,
    named_bare,
    own_placement,
    parent_directory,
    placements,
    side_by_side,
    spellings,
)
from dedup_filter.mirrors.precedence import held_before
from dedup_filter.mirrors.probes import ask_counterpart, fetchable
from dedup_filter.mirrors.records import COLLIDING, FOLDED, OPEN, Rule
from dedup_filter.mirrors.rules import MAX_CHAIN, rule_over, rules_holding, rules_with_origin_over
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.soft404 import AbsentAnswer, absent_url, answer_of, ask
from dedup_filter.mirrors.store import COUNTERPART_PROBE, MirrorStore, directory_name
from dedup_filter.urls import path_of

# the reasons a URL is dropped before its fetch for another URL's page
_DROPPED_FOR_A_PAGE = (Reason.MIRRORED_DIRECTORY, Reason.EDITION_PROSE)
# whether a held page (first) is a side's answer for a page it lacks (second: None if unknown)
Soft404Test = Callable[[Sketched, AbsentAnswer | None], bool]
# a mirror rule's decision as the caller sees it (the filter: through the URL rules)
Seen = Callable[[Decision], Decision]
_SOFT_404_SCAN = 4_096  # a side's pages read for those it served as its soft-404 page


@dataclass(frozen=True, slots=True)
class _Copy:
    """A copy of a held-first page's counterpart that another rule shows
    (``UrlPruner._copy_held_before``)."""

    rule: Rule
    page: str  # the copy's page
    holder: str  # the directory holding it (whose soft-404 page counts)
    copied: str  # the directory it copies, where the counterpart lies
    may_stand_there: bool  # whether it may stand for the page from a third site
    across: bool  # the origin of the rule over the counterpart: that pair may join two editions


class Protection:
    """Hosts and URL prefixes (``mirror.protected_prefixes``) that no rule ever prunes."""

    def __init__(self, entries: tuple[str, ...]) -> None:
        self._prefixes = tuple(entry.lower() for entry in entries if "://" in entry)
        self._hosts = frozenset(entry.lower() for entry in entries if "://" not in entry)

    def covers(self, url: str) -> bool:
        lowered = url.lower()
        return lowered.startswith(self._prefixes) or authority(lowered) in self._hosts


class UrlPruner:
    """``check_url`` for the mirror rules, and the settling of the URLs it deferred."""

    def __init__(
        self,
        config: MirrorConfig,
        index_pages: IndexPages,
        sessions: SessionParameters,
        describe: Callable[[MirrorStore, Rule], dict[str, Any]],
        is_answer: Soft404Test,
    ) -> None:
        self.config = config
        self._is_answer = is_answer
        self._index_pages = index_pages
        self._sessions = sessions
        self._describe = describe
        self.protection = Protection(config.protected_prefixes)
        self._code_budget = CodeBudget.configured(config)
        self._following = threading.local()  # ``active``: inside ``_dropped_for_crawled``

    def check(self, view: IndexView, url: str) -> Decision:
        """The decision on ``url`` before its fetch (read only: a ``defer`` is recorded by
        ``defer``, in a write transaction)."""
        store = MirrorStore(view)
        if not self.config.enabled:
            return Decision(url, "keep", Reason.NOT_MIRRORED)
        places, index = self._placed(store, url)
        if not store.has_rules():
            return self._while_sampled(store, url, places, index) or Decision(
                url, "keep", Reason.NOT_MIRRORED
            )
        found = rule_over(store, places)
        origins_over: list[tuple[Rule, Placement]] = []
        if found is None and not index:
            # an origin's index pages are always fetched: they are what links its pages, and a
            # copy's listing (generated, or its own) may not link the pages the copy lacks
            origins_over = rules_with_origin_over(store, places)
        under_origins = [(rule, place) for rule, place in origins_over if rule.prunes_origin]
        if found is None and not under_origins:
            return (
                self._beside_mirror(store, url, origins_over)
                or self._beside_edition(store, url, places, index)
                or self._while_sampled(store, url, places, index)
                or Decision(url, "keep", Reason.NOT_MIRRORED)
            )
        rule = found[0] if found is not None else under_origins[0][0]
        if store.probes_for(url):
            return Decision(url, "keep", Reason.PROBE, evidence={"mirror_rule": rule.mirror})
        if found is not None:
            rule, place = found
            counterpart = store.on_origin(rule, place.relative)
            if index and rule.keeps_mirror_listings and "/" in place.relative:
                # as an origin's listings are (below); the rule's own listing paired the sides
                evidence = {"mirror_rule": rule.mirror, "counterpart": counterpart}
                return Decision(url, "keep", Reason.LISTING, evidence=evidence)
            if not rule.prunes_mirror:  # held first, and nothing else names it the copy
                return self._held_first(store, url, rule, counterpart, places, index)
            if not rule.drops_mirror_urls:
                # its origin lacks pages it holds (``origin_lacks``): another copy may stand
                sibling = None if index else self._kept_sibling(store, rule)
                if sibling is not None:
                    return self._against_sibling(store, url, rule, sibling, place.relative)
                evidence = {"mirror_rule": rule.mirror, "counterpart": counterpart}
                return Decision(url, "keep", Reason.ORIGIN_INCOMPLETE, evidence=evidence)
            return self._against_origin(store, url, rule, counterpart)
        decisions = [self._against_copy(store, url, rule, place) for rule, place in under_origins]
        dropped = next((decision for decision in decisions if decision.dropped), None)
        if dropped is None and decisions[0].deferred:
            # the copy's page may never come (``_held_beside``)
            beside = self._beside_mirror(store, url, origins_over)
            # where it waits, it waits only for the mirror's answer for a page it lacks
            if beside is not None and (
                beside.dropped or "awaiting_absent_answer_of" in beside.evidence
            ):
                return beside
        return dropped or decisions[0]

    def _placed(self, store: MirrorStore, url: str) -> tuple[list[Placement], bool]:
        """The places of ``url`` (session parameters stripped), and whether it names an index
        page."""
        places = placements(self._sessions.of(store).strip(url), self.config.max_depth)
        own = places[-1] if places and places[-1].is_own else None
        return places, own is not None and self._index_pages.is_index(own)

    def _against_origin(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str
    ) -> Decision:
        """``url`` on the mirror side of ``rule``, against its ``counterpart`` in the origin; or,
        when another rule prunes that origin where a copy held first holds it, against the
        copy's page: held, or waited for (the crawl fetches that copy whole), rather than the
        origin's page probed beside it, which would make the copy's own fetch a duplicate. A
        counterpart on a side another rule prunes (a renamed copy inside the origin) stands for
        that rule's origin page, which is the page held, waited for and probed: probing the
        pruned page would fetch what the crawl then fetches again under the kept name."""
        kept = rule.origin
        for _ in range(MAX_CHAIN):
            found = rule_over(store, placements(counterpart, self.config.max_depth))
            if found is None or not found[0].prunes_mirror:
                break
            kept, counterpart = found[0].origin, store.on_origin(found[0], found[1].relative)
        held_first = self._held_first_copy(store, counterpart)
        if (
            held_first is None
            or self.held_page(store, counterpart) is not None
            or Deferrals(store.view).absent(held_first[1]) is not None
        ):
            return self._against(store, url, rule, counterpart, kept, True)
        copy_rule, copy_counterpart = held_first
        if self._pruned_by_revoked(store, copy_counterpart) is not None:
            # the origin's page is fetched in place of the copy's (``_against_copy``)
            return self._against(store, url, rule, counterpart, kept, False)
        beside = self._held_beside(store, counterpart)
        return self._against(store, url, rule, copy_counterpart, copy_rule.mirror, False, beside)

    def _against_copy(self, store: MirrorStore, url: str, rule: Rule, place: Placement) -> Decision:
        """``url`` on the origin side of ``rule``, which prunes its origin for a copy held first
        and crawled whole: against the copy's page at its place, waited for while the crawl may
        still fetch it. A copy page the crawl may have pruned under a rule revoked since (an
        edition paired with the copy, revoked for its code) never comes: ``url`` is fetched. On
        the first holdout web (breadth-first) a guide's pages waited for a library's partial
        copy dropped under its rpm edition's rule, and a host mirror's pages waited with them
        until their waits ran out: 40 pages fetched twice. A page of an edition's prose is
        dropped for the edition's page instead, as beside any revoked pair (``_beside_edition``).
        """
        copy = rule.mirror + place.relative
        decision = self._against(store, url, rule, copy, rule.mirror, False)
        revoked = self._pruned_by_revoked(store, copy) if decision.deferred else None
        if revoked is None:
            return decision
        prose = self._beside_edition(store, url, *self._placed(store, url))
        if prose is not None:
            return prose
        evidence = {"mirror_rule": rule.mirror, "counterpart": copy, "revoked_partner": revoked}
        return Decision(url, "keep", Reason.COUNTERPART_PRUNED, evidence=evidence)

    def _held_first(
        self,
        store: MirrorStore,
        url: str,
        rule: Rule,
        counterpart: str,
        places: list[Placement],
        index: bool,
    ) -> Decision:
        """``url`` on the mirror side of ``rule``, held first: fetched (``crawled_first``) unless
        a page the crawl fetched stands for it: its origin's beside it (``_beside_origin``),
        another copy's held before it (``_copy_held_before``), a wider rule's mirror's
        (``_pruned_as_origin``), or its edition's, where the two editions' prose is the same
        (``_beside_edition``; on the mirror side too where the origin's editions were paired:
        a partner host held first fetched both editions of its guide whole, 58 pages twice, on
        the holdout web in random order). An index page is always fetched."""
        if not index:
            beside = rule.prunes_mirror_beside
            held = (
                (self._beside_origin(store, url, rule, counterpart) if beside else None)
                or self._copy_held_before(store, url, rule, counterpart)
                or self._pruned_as_origin(store, url, places)
                or self._beside_edition(store, url, places, index, (rule, counterpart))
            )
            if held is not None:
                return held
        evidence = {"mirror_rule": rule.mirror, "counterpart": counterpart}
        return Decision(url, "keep", Reason.CRAWLED_FIRST, evidence=evidence)

    def _pruned_as_origin(
        self, store: MirrorStore, url: str, places: list[Placement]
    ) -> Decision | None:
        """``url``, on the mirror side of a rule that keeps it (held first), dropped where it
        also lies on the origin side of a wider rule that prunes its origin (that rule's mirror
        was held before it) and that mirror holds its counterpart as a page the crawl fetched.
        On the eighth holdout web (breadth first) a partner host's archive of a guide, held
        before the guide beside it on the same host, was fetched whole (680 pages) after the
        project host's archive, held before the whole partner host, had been. It waits only
        for that mirror's answer for a page it lacks (a copy's soft-404 page is no copy). None
        otherwise: the side held first is fetched."""
        for rule, place in _origins_pruned_over(store, places):
            decision = self._against_copy(store, url, rule, place)
            if decision.dropped or "awaiting_absent_answer_of" in decision.evidence:
                return decision
        return None

    def _kept_sibling(self, store: MirrorStore, rule: Rule) -> Rule | None:
        """The mirror of ``rule``'s origin kept for ``rule``, whose side holds pages the origin
        lacks (``Rule.origin_lacks``): of the mirrors fetched whole (held first, or so marked;
        none named a copy), the one whose index page names no earlier release than another's,
        then the one held first, then the rule made first. None when that is ``rule`` itself."""
        whole = [
            sibling
            for sibling in store.rules_with_origin_at(rule.origin)
            if not sibling.drops_mirror_urls and not sibling.copy_named
        ]
        releases = {sibling.mirror: store.releases(sibling.mirror) for sibling in whole}
        newest = [
            sibling
            for sibling in whole
            if not any(
                later_release(releases[other.mirror], releases[sibling.mirror]) > 0
                for other in whole
            )
        ]
        kept = min(
            newest,
            key=lambda sibling: (not sibling.mirror_held_first, sibling.created_at, sibling.mirror),
            default=None,
        )
        return None if kept is None or kept.mirror == rule.mirror else kept

    def _against_sibling(
        self, store: MirrorStore, url: str, rule: Rule, sibling: Rule, relative: str
    ) -> Decision:
        """``url`` on the mirror side of ``rule``, whose origin lacks pages it holds (so the
        origin's pages never stand for its own), against its counterpart under ``sibling``,
        another mirror of that origin, fetched whole and kept for the others
        (``_kept_sibling``): dropped once the crawl fetched that page as itself, waited for
        until then, fetched where it is missing. The two sides are copies of one directory by
        their rules' samples; a page of the origin, or one the crawl only probed, stands for
        neither. On the second and third holdout webs a copier at its host's root was the
        origin of a project's manual and of the manual's stale copy, and lacked a page of
        each: both were fetched whole (33 and 41 URLs in random order, run r8)."""
        counterpart = sibling.mirror + relative
        pair = replace(
            rule,
            origin=sibling.mirror,
            origin_index=sibling.mirror_index,
            origin_bare=sibling.mirror_bare,
            origin_htm=sibling.mirror_htm,
            origin_lacks=False,
            through="",
        )
        decision = self._against(store, url, pair, counterpart, sibling.mirror, False, crawled=True)
        return replace(decision, evidence=decision.evidence | {"origin_lacking": rule.origin})

    def _pruned_by_revoked(self, store: MirrorStore, url: str) -> str | None:
        """The other side of a rule revoked for its code under whose side ``url`` lies, a page
        not held: the crawl may have dropped ``url`` under that rule and asks for it no more.
        None otherwise."""
        if not store.has_revoked() or self.held_page(store, url) is not None:
            return None
        places = placements(url, self.config.max_depth)
        return next((other for _, other in _revoked_over(store, places)), None)

    def _beside_origin(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str
    ) -> Decision | None:
        """``url`` on the mirror side of ``rule``, held first but crawled side by side with the
        origin (``Rule.prunes_mirror_beside``): dropped where the origin holds its ``counterpart``
        as a page the crawl fetched and followed, or a copy held first of that origin does.
        None otherwise: fetched, as the side held first always is, unless another copy held
        before it stands for it (``_copy_held_before``)."""
        holders = [(counterpart, rule.origin)]
        inside = self._copy_inside(store, rule, counterpart)
        holders += [inside] if inside is not None else []
        for holder, kept in holders:
            decision = self._against_crawled(store, url, rule, holder, kept, probe_answers=True)
            if decision is not None:
                return decision
        return None

    def _beside_mirror(
        self, store: MirrorStore, url: str, origins_over: list[tuple[Rule, Placement]]
    ) -> Decision | None:
        """``url`` under no rule's pruned side, and on the origin side of the rules
        ``origins_over`` (none for an index page): where one was crawled side by side with its
        mirror (``Rule.prunes_origin_beside``), dropped if the mirror holds its counterpart as
        a page the crawl fetched and followed; None otherwise (fetched, as the side held first
        always is, unless ``_beside_edition`` drops it). Where the origin lacks pages the mirror
        holds (``Rule.origin_lacks``: a copier's partial copy at its host's root, crawled beside
        its victim), the mirror is crawled whole, so the origin's document waits for the
        mirror's page rather than being fetched beside it: on the fourth holdout web (round
        robin) the copier and its victim were otherwise fetched whole, 116 and 106 fetches. A
        name of a kind the origin's host answers with 404s waits for the mirror's page
        (``_names_lacked``)."""
        for rule, place in origins_over:
            counterpart = rule.mirror + place.relative
            if rule.prunes_origin_beside:
                decision = self._against_crawled(store, url, rule, counterpart, rule.mirror)
                if decision is not None:
                    return decision
            decision = self._names_lacked(store, url, rule, counterpart)
            if decision is not None and (decision.dropped or decision.deferred):
                return decision  # a mirror that lacks it too leaves it to the next
            beside = rule.prunes_origin_beside and rule.origin_lacks
            if beside and self._kept_sibling(store, rule) is None:
                return self._against(
                    store, url, rule, counterpart, rule.mirror, False, crawled=True
                )
        return None

    def _names_lacked(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str
    ) -> Decision | None:
        """``url`` on the origin side of ``rule``, held first, where its host answers names of
        its extension with 404s (``Deferrals.name_tally``: an English-only copy of a negotiated
        manual links each page's ``core.html.fr``): the mirror's page is asked first and stands
        for it, where every sample matched and the mirror may stand for the origin; fetched
        only if the mirror lacks it too. Each such name cost a 404 and then the mirror's page
        (the fourth helper's web: about 500 404s in four orders of six). None otherwise."""
        if rule.mirror_held_first or not (rule.exchangeable and rule.mirror_stands_for_origin):
            return None
        deferrals = Deferrals(store.view)
        lacked = deferrals.name_tally(url)
        if not lacked.mostly_absent:
            return None
        decision = self._against(
            store,
            url,
            rule,
            counterpart,
            rule.mirror,
            True,
            crawled=True,
            probe_answers=True,
            kind_not_lacked=not deferrals.name_tally(counterpart).mostly_absent,
        )
        names = {"answered": lacked.answered, "absent": lacked.absent}
        return replace(decision, evidence=decision.evidence | {"names_lacked": names})

    def _held_beside(self, store: MirrorStore, page: str) -> str | None:
        """The page the crawl fetched and followed that stands for ``page``, an origin's page
        waiting for a copy held first, on a mirror crawled beside that origin
        (``_beside_mirror``). The copy's page may never come: on the eighth holdout web
        (breadth first) a guide's code edition, held first, had its pages dropped for a
        library's partial copy under a rule repointed since, and 477 of the guide's pages and
        441 of a banner host's, waiting for them through the guide, were fetched when their
        waits ran out."""
        over = rules_with_origin_over(store, placements(page, self.config.max_depth))
        decision = self._beside_mirror(store, page, over)
        return decision.duplicate_of if decision is not None and decision.dropped else None

    def _beside_edition(
        self,
        store: MirrorStore,
        url: str,
        places: list[Placement],
        index: bool,
        through: tuple[Rule, str] | None = None,
    ) -> Decision | None:
        """``url`` on a side of a pair revoked for its code (an edition of a guide:
        ``MirrorStore.revoked_partners``): dropped where the other side holds its counterpart as a
        page the crawl fetched as itself and that page has no code blocks. Editions differ in
        their code (their prose samples matched when the rule was made), and the pages with code
        blocks are fetched back (``code_checks``); without this, the pages fetched back led the
        crawl through the rest of the edition, on the holdout web 76 of 83 pages identical to
        the other edition's. ``through``: a rule whose mirror side, held first, holds ``url``
        (with its counterpart): see ``_edition_pairs``. Never an index page, a protected or a
        held URL (``places``: the URL's, ``index``: whether it names an index page)."""
        if index or not places or not places[-1].is_own or not store.has_revoked():
            return None
        if self.protection.covers(url):
            return None
        for directory, other, relative in _edition_pairs(
            store, places, through, self.config.max_depth
        ):
            counterpart = other + relative
            held = self._crawled_page(store, counterpart)
            if held is None or held.code or not self._prose_alike(store, directory, other):
                continue
            if store.view.page_id_for_url(self._sessions.of(store).strip(url)) is not None:
                return None
            evidence = {"edition_of": other, "counterpart": counterpart}
            return Decision(url, "drop", Reason.EDITION_PROSE, held.url, evidence)
        return None

    def _prose_alike(self, store: MirrorStore, directory: str, other: str) -> bool:
        """Whether two editions' documents without code blocks are the same pages, on the
        evidence of those both hold (the first ``_PROSE_PAIRS_READ`` of ``directory``'s): one
        such pair at least, and none of other text. The C and C++ editions of a guide name their
        API inline (``DB_ENV->rep_sync()`` for ``DbEnv::rep_sync()``): their pages differ
        although neither has a code block. On the twelfth holdout web (random order, fifty-fifth
        session) two of Berkeley DB's C++ replication pages were dropped so, unfetched, for the
        C edition's, on the origin and on both its copies: their text was lost."""
        alike = False
        view, other_key = store.view, other.lower()
        for rel_hash, entry in itertools.islice(
            store.subtree(directory.lower()), _PROSE_PAIRS_READ
        ):
            twin = store.entry_by_hash(other_key, rel_hash)
            if twin is None or self._index_pages.names_listing(entry.relative):
                continue
            page, twin_page = view.page(entry.representative), view.page(twin.representative)
            if page is None or twin_page is None or page.code or twin_page.code:
                continue
            if entry.exact != twin.exact:
                return False
            alike = True
        return alike

    def _while_sampled(
        self, store: MirrorStore, url: str, places: list[Placement], index: bool
    ) -> Decision | None:
        """``url`` under no rule, a document on the mirror side of a pair being sampled
        (``mirror.defer_while_sampled``): deferred until the pair is ruled or rejected, then
        decided by the rule, or fetched. Between an index page pairing two directories and the
        samples confirming them, a crawl fetched 20-58 such documents of the evaluation webs'
        mirrors per crawl (s27 runs, every web and order). Its counterpart is not probed (the
        pair may be no copy), and nothing is deferred that a probe asked for, a protected URL,
        an index page, a page held, or one whose counterpart is known absent."""
        if not self.config.defer_while_sampled or index:
            return None
        sampled = (
            (candidate, place)
            for place in places
            for candidate in store.candidates_of_mirror(place.directory)
            if candidate.state == OPEN
        )
        found = next(sampled, None)
        if found is None:  # most URLs: no pair is being sampled over them
            return None
        candidate, place = found
        counterpart = candidate.origin + place.relative
        if self.protection.covers(url) or store.probes_for(url):
            return None
        if Deferrals(store.view).absent(counterpart) is not None:
            return None
        if self.held_as_itself(store, self._sessions.of(store).strip(url)) is not None:
            return None
        evidence = {"mirror_candidate": candidate.mirror, "counterpart": counterpart}
        return Decision(url, "defer", Reason.MIRROR_PENDING, counterpart, evidence)

    def _copy_held_before(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str
    ) -> Decision | None:
        """``url`` on the mirror side of ``rule``, held first: another rule's copy of its
        ``counterpart`` stands for ``url`` too where the crawl fetched it as itself. Inside the
        origin, a renamed copy (a rule with both sides there) is on the mirror side too, so
        ``url`` has a twin on its own side (one site's two names for a page): that rule's kept
        page, or, where every checked sample matched and nothing names its mirror the copy, its
        mirror's page (a stale copy's page may be the older text). On a third site, a copy that
        its rule prunes the origin for (held first, or crawled side by side with it; every
        sample matched), or the origin of a rule whose mirror holds ``counterpart`` (every
        sample matched; a page without code blocks, as such a pair may join two editions of a
        guide), that was not met after ``url``'s side: held before it or crawled side by side
        with it (a side held first is never pruned for a copy met later; side by side, which
        was held first is a coin flip). On the eighth holdout web a banner host held first
        beside its origin was crawled whole, and 523 pages of its guide's code edition were
        fetched after a library's copy of them, held before (breadth first), had been; 448 in
        random order, where the library had led the edition by 17 documents, side by side.
        Only where every checked sample of ``rule`` matched (a stale copy's pages are other
        versions of its origin's). None: no such copy crawled."""
        if not rule.exchangeable:
            return None
        origin = rule.origin.lower()
        places = placements(counterpart, self.config.max_depth)
        inner = rule_over(store, places)
        copies = []
        if inner is not None:
            over, place = inner
            page = over.origin + place.relative
            copies.append(_Copy(over, page, over.origin, over.mirror, over.exchangeable, True))
        copies += [
            _Copy(
                other,
                other.mirror + place.relative,
                other.mirror,
                other.origin,
                other.prunes_origin or other.side_by_side,
                False,
            )
            for other, place in rules_with_origin_over(store, places)
            if other.exchangeable and other != rule
        ]
        awaited = None
        for copy in copies:
            page, holder = copy.page, copy.holder
            third_site = not page.lower().startswith(origin)
            if not third_site:
                page, holder = rule.mirror + page[len(rule.origin) :], rule.mirror  # its twin
            elif not copy.may_stand_there:
                continue
            crawled = self._crawled_page(store, page)
            other = copy.rule
            editions = side_by_side(other.mirror, other.origin) or (third_site and copy.across)
            if crawled is None and third_site and awaited is None:
                own, theirs = _weighed_parts(rule, holder, copy.copied)
                # never both of two copies wait (the same two parts weighed either way), and
                # only for a page the crawl will fetch
                if held_before(store, theirs, own) and self._crawled_whole(store, page, other):
                    awaited = page, holder, other
            coded = crawled is not None and crawled.code and editions
            if crawled is None or (coded and not self._code_budget.spent(other)):
                # editions of a guide lie side by side and differ in their code alone, and a
                # third site's copy across a pair may be of either: a coded page under a pair
                # confirmed on prose was never shown a copy of this page (first holdout web, run
                # t3: seven coded rpm pages lost so), unless the pair compared its code up to
                # its budget (twenty-third holdout web, depth first: a guide and its edition,
                # paired after 64 coded pages compared alike, were both fetched whole on the
                # host held before the copy holding the pair, 102 fetches)
                continue
            if third_site and self._met_later(store, holder, copy.copied, rule):
                continue
            return self._for_copy(store, url, rule, page, holder, other)
        if awaited is not None:
            # two copies of one origin, both held before it: the one met later waits for the
            # other's page, which the crawl fetches as it fetches that copy whole (depth first,
            # the eleventh holdout web's two copies of a Javadoc were both crawled whole, 1,105
            # fetches); a page that copy lacks answers the wait (a 404), and the URL is fetched
            return self._for_copy(store, url, rule, *awaited)
        return None

    def _crawled_whole(self, store: MirrorStore, page: str, rule: Rule) -> bool:
        """Whether the crawl fetches ``page`` as itself: it lies on ``rule``'s mirror side, held
        first and pruned for nothing, with no rule inside it (a copy crawled side by side with
        its origin is pruned where the origin holds its pages: on the eighth holdout web a
        partner's edition waited for such a copy's guide, whose pages waited for the partner's,
        until every wait ran out: 549 fetches)."""
        if rule.prunes_mirror or rule.prunes_mirror_beside:
            return False
        inner = rule_over(store, placements(page, self.config.max_depth))
        return inner is not None and inner[0].mirror == rule.mirror

    def _for_copy(
        self, store: MirrorStore, url: str, rule: Rule, page: str, holder: str, other: Rule
    ) -> Decision:
        """``url`` against ``page``, held or to be crawled by the copy ``other`` rules."""
        decision = self._against(store, url, rule, page, holder, False)
        if decision.dropped:
            return replace(decision, evidence=decision.evidence | {"copy_rule": other.mirror})
        return decision

    @staticmethod
    def _met_later(store: MirrorStore, holder: str, copied: str, rule: Rule) -> bool:
        """Whether the crawl held first, not side by side, the part of ``rule``'s mirror side
        that stands where ``copied``, the directory ``holder`` copies, lies in ``rule``'s
        origin: then ``holder`` (its part standing where that origin lies) was met later."""
        return held_before(store, *_weighed_parts(rule, holder, copied))

    def _copy_inside(self, store: MirrorStore, rule: Rule, url: str) -> tuple[str, str] | None:
        """The counterpart of ``url``, a page of ``rule``'s origin, in the widest copy held
        first that lies inside that origin (a renamed archive of its guide, which a rule prunes
        the guide for), with that copy's directory: it holds its content. Not ``rule``'s own
        mirror, nor a third site's copy (``_copy_held_before`` asks whether that was held
        before). On the first holdout web (random order of run r3) a partner host held
        first beside the project's asked for the widest rule pruning the project's guide page,
        its own, and 113 of its pages were fetched after the project's archive held them."""
        inside = rule.origin.lower()
        copies = _origins_pruned_over(store, placements(url, self.config.max_depth))
        return next(
            (
                (other.mirror + place.relative, other.mirror)
                for other, place in copies
                if other != rule and other.mirror.lower().startswith(inside)
            ),
            None,
        )

    def _held_first_copy(self, store: MirrorStore, url: str) -> tuple[Rule, str] | None:
        """The rule that prunes its origin where ``url`` lies (its copy was held first), and
        the URL's counterpart in that copy; None when no such rule holds ``url``."""
        found = _origins_pruned_over(store, placements(url, self.config.max_depth))
        if not found:
            return None
        rule, place = found[0]
        return rule, rule.mirror + place.relative

    def _against(
        self,
        store: MirrorStore,
        url: str,
        rule: Rule,
        counterpart: str,
        kept: str,
        probed: bool,
        stands_for: str | None = None,
        crawled: bool = False,
        probe_answers: bool = False,
        kind_not_lacked: bool = False,
    ) -> Decision:
        """``url`` on the pruned side of ``rule``, whose side ``kept`` holds ``counterpart``;
        deferred while the counterpart's fate is unknown, its counterpart ``probed`` (an origin's
        page) or left to the crawl (a copy held first, crawled whole). ``stands_for``: what
        ``_dropped_for_crawled`` gave for the counterpart already, if the caller asked it.
        ``crawled``: only a page the crawl fetched as itself holds the counterpart, as under a
        rule that prunes both sides; ``probe_answers``: or a probe's answer, then crawled in the
        URL's place (``_against_crawled``); ``kind_not_lacked``: the counterpart's host has not
        shown it lacks names of its extension (``Deferrals.name_tally``), which is what the
        probe asks, so the rule's probe tallies, which mix every kind of name, are not read."""
        view, deferrals = store.view, Deferrals(store.view)
        evidence: dict[str, Any] = {"mirror_rule": rule.mirror, "counterpart": counterpart}
        if self.protection.covers(url):
            return Decision(url, "keep", Reason.PROTECTED, evidence=evidence)
        if view.page_id_for_url(url) is not None:  # held as itself before the rule came
            return Decision(url, "keep", Reason.ALREADY_HELD, evidence=evidence)
        if self._twin_unseen(store, url, counterpart):
            # its name has a case twin that the counterpart's side did not show to be another
            # file: a side that folds case serves one file under both, maybe the twin's
            evidence["counterpart_case_twin"] = True
            return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
        newer = self._newer_side(store, url, rule, counterpart, kept)
        if newer is not None:
            evidence["newer_release"] = newer
            twin = self._sibling_twin(store, url, rule, newer)
            if twin is None:
                return Decision(url, "keep", Reason.NEWER_RELEASE, evidence=evidence)
            evidence["counterpart_dropped_for"] = twin.url
            return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, twin.url, evidence)
        if not (rule.prunes_mirror_beside or crawled):
            held = self.held_page(store, counterpart)
        elif probe_answers:
            held = self._crawled_or_probed(store, counterpart)
        else:
            held = self._crawled_page(store, counterpart)
        if held is None and self._folds_case(
            store, own_placement(counterpart, self.config.max_depth)
        ):
            # its side serves one file under this name and another that differs only in case:
            # which of the two this URL's file is, nothing held tells
            evidence["counterpart_folds_case"] = True
            return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
        if held is not None:
            answer = answer_of(view, kept)
            if answer is None:  # asked for when the rule was made (``defer`` asks again)
                evidence["awaiting_absent_answer_of"] = kept
                return Decision(url, "defer", Reason.COUNTERPART_PENDING, counterpart, evidence)
            if self._is_answer(held, answer):
                evidence["soft_404"] = absent_url(kept)
                return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
            evidence["mirror_rule"] = self._describe(store, rule)
            if deferrals.probed(held.url):
                # a probe's answer, which the crawler's parser never saw: it is crawled in this
                # URL's place (served from the probe), or what only it links is reached by
                # nothing (its own side's pages that link it may be dropped duplicates)
                evidence["crawl_instead"] = held.url
            # the page as its side names it, where the counterpart's case was only guessed
            named = held.url if held.url.lower() in spellings(counterpart) else counterpart
            return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, named, evidence)
        status = deferrals.absent(counterpart)
        if status is not None:
            evidence["status"] = status or None
            if 200 <= status < 300:  # fetched by the crawl, a file rather than a page: held
                evidence["mirror_rule"] = self._describe(store, rule)
                return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, counterpart, evidence)
            twin = self._twin_beside_absent(store, url, rule)
            if twin is not None:
                evidence["mirror_rule"] = self._describe(store, rule)
                evidence["counterpart_dropped_for"] = twin
                return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, twin, evidence)
            awaited = self._twin_awaited(store, url, rule)
            if awaited is not None:  # a page the crawl fetches: not probed (``defer``)
                evidence["awaiting_crawl_of"] = awaited
                return Decision(url, "defer", Reason.COUNTERPART_PENDING, awaited, evidence)
        # a copier's page not held is never probed where its victim is crawled whole: the
        # victim's page comes either way, and the copier may lack this one (a 404 fetched)
        sibling = self._kept_beside_copier(store, rule) if probed and kept == rule.origin else None
        if sibling is not None:
            relative = self._sessions.of(store).strip(url)[len(rule.mirror) :]
            return self._against_sibling(store, url, rule, sibling, relative)
        if status is not None:
            return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
        if probed:
            # an origin's page that the crawl drops as an edition's prose, or beside a copy, is
            # never fetched as itself: the page it is dropped for stands for it (probing it
            # would fetch that)
            stands_for = self._edition_twin(store, counterpart) or self._copy_twin(
                store, counterpart
            )
        else:
            stands_for = stands_for or self._dropped_for_crawled(store, url, counterpart)
        if stands_for is not None:
            evidence["mirror_rule"] = self._describe(store, rule)
            evidence["counterpart_dropped_for"] = stands_for
            return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, stands_for, evidence)
        if not probed:
            # an origin's document waits for the copy held first, which the crawl fetches whole
            # but for the pages another copy stands for, and is not probed there: a page
            # fetched as a probe has its links followed only if the crawl asks for it
            evidence["awaiting_crawl_of"] = counterpart
        elif kept == rule.origin and rule.origin_names_guessed:
            # the case of the origin's name is a guess (its copy upper-cased every name): the
            # crawl fetches the page under its own name, which holds this one
            evidence["awaiting_crawl_of"] = counterpart
        elif variant_in_named_edition(counterpart):
            # a negotiated manual's ``x.html.es`` against Debian's ``manual/en/``, which names
            # its pages plainly: a probe would be a 404 (docs/mirrors.md, point 104)
            evidence["variant_in_named_edition"] = True
            return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
        else:
            missing = self._section_missing(store, url, rule, counterpart, kept)
            if missing is not None:  # a section renamed: no probe of each of its pages
                evidence["section_missing"] = missing
                return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
            tallies = {} if kind_not_lacked else _tallies(deferrals, rule, counterpart)
            for scope, tally in tallies.items():
                if tally.mostly_absent:  # its names do not map: a probe would cost a 404 more
                    evidence[scope] = {"answered": tally.answered, "absent": tally.absent}
                    return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
            if any(tally.awaiting_answers for tally in tallies.values()):
                # no more are asked until those in flight say whether they find pages
                evidence["awaiting_probe_answers"] = counterpart
        return Decision(url, "defer", Reason.COUNTERPART_PENDING, counterpart, evidence)

    def _section_missing(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str, kept: str
    ) -> str | None:
        """The index page of ``counterpart``'s directory, a section below ``kept``, where that
        side lacks the section (``lacks_directory``) while ``url``'s own directory has an index
        page: the copy filed the section under a name of its own (``part0-pages/`` for
        ``part0/``), or the kept side never had it, so each of its pages' counterparts would be
        a 404 probed too (Python's guides so copied, the copy crawled first: 247 requests
        against 236 without the filter)."""
        max_depth = self.config.max_depth
        own = own_placement(self._sessions.of(store).strip(url), max_depth)
        there = own_placement(counterpart, max_depth)
        if own is None or there is None or there.directory_key == kept.lower():
            return None
        index = store.entry(own.directory_key, "")
        if index is None or not index.relative:  # held under its directory URL: no file name
            return None
        spelled = rule.origin_spelling if kept == rule.origin else rule.mirror_spelling
        missing = there.directory + spelled(index.relative)
        return missing if lacks_directory(store, there.directory, missing) else None

    def _newer_side(
        self, store: MirrorStore, url: str, rule: Rule, counterpart: str, kept: str
    ) -> str | None:
        """The directory of ``url``, or an ancestor of it on its side of ``rule``, whose index
        page names a later release than the index page at the same place on the kept side
        (``kept``, holding ``counterpart``), the nearest that tells deciding: ``url``'s side may
        hold newer text there, so it is never dropped for its counterpart, whatever the
        orientation. On the first holdout web a stale copy of a project's `docs/` listing (no
        release named there) was paired with the project by order, its older side taken for
        the origin; the project's two edited pages were dropped for the stale copy's older text
        (run r5, breadth-first), though each manual's index page named its release. None
        otherwise."""
        sides = (rule.mirror.lower(), rule.origin.lower())
        top = next((side for side in sides if url.lower().startswith(side)), None)
        own_place = own_placement(url, self.config.max_depth)
        other_place = own_placement(counterpart, self.config.max_depth)
        if top is None or own_place is None or other_place is None:
            return None
        own, other = own_place.directory, other_place.directory
        while own.lower().startswith(top) and other.lower().startswith(kept.lower()):
            releases = store.releases(own)  # none named: nothing to compare, and no read
            verdict = later_release(releases, store.releases(other)) if releases else 0
            if verdict:
                return own if verdict > 0 else None
            own, other = parent_directory(own) or "", parent_directory(other) or ""
        return None

    def _sibling_twin(
        self, store: MirrorStore, url: str, rule: Rule, level: str, faithful: bool = False
    ) -> PageRecord | None:
        """The page at ``url``'s place on another mirror of ``rule``'s origin that the crawl
        fetched as itself (``_sibling_twins``). The two sides are copies of one origin by their
        rules' samples, of one release: ``url`` is a copy of that page. On the first holdout web
        (round robin, run r7) the project, its session-id copy and a copier were all ruled
        mirrors of the stale copy (``level``: the project's directory naming the later
        release), and each was fetched whole. None otherwise, or when ``url`` is no mirror
        side's."""
        held = (
            self._crawled_page(store, twin)
            for _, twin in self._sibling_twins(store, url, rule, level, faithful)
        )
        return next((page for page in held if page is not None), None)

    def _sibling_twins(
        self, store: MirrorStore, url: str, rule: Rule, level: str, faithful: bool
    ) -> Iterator[tuple[Rule, str]]:
        """The other mirrors of ``rule``'s origin whose page at ``url``'s place may stand for
        it, each with that page's URL: where the directory at ``level``'s place there
        (``level``: ``url``'s directory or an ancestor, on ``rule``'s mirror side) names the
        very releases ``level`` names. ``faithful``: only under ``Rule.faithful`` rules. Never a
        side a name, a session id or a pin calls a copy for ``url`` on a side nothing does: a
        copy made before its origin gained pages names the same release and links none of them
        (on the tenth holdout web, random order, the project's page was dropped for its
        session-id copy's, and the page the project gained, linked only from it, was lost)."""
        stripped = self._sessions.of(store).strip(url)  # a session copy's ids are no path
        if not stripped.lower().startswith(rule.mirror.lower()):
            return
        releases = store.releases(level)
        relative, below = stripped[len(rule.mirror) :], level[len(rule.mirror) :]
        for other in store.rules_with_origin_at(rule.origin):
            if other.mirror.lower() == rule.mirror.lower():
                continue
            if faithful and not other.faithful:
                continue
            if other.copy_named and not rule.copy_named:
                continue  # a named copy stands for no page of a side nothing names a copy
            if store.releases(other.mirror + below) == releases:
                yield other, other.mirror + relative

    def _twin_beside_absent(self, store: MirrorStore, url: str, rule: Rule) -> str | None:
        """``url``'s twin on another mirror of ``rule``'s origin (``_sibling_twin``, releases
        compared at ``url``'s side's top), where the origin answered ``url``'s counterpart with
        a 404 or an error: a partial copy taken for the origin of complete ones. Only a twin
        without code blocks: two mirrors may be editions of one guide (other commands, the
        same prose), which the origin's samples cannot tell apart where it lacks the page. On
        the eighth holdout web (breadth-first) a guide's partial copy, held first, was the
        origin of the guide, of its code edition and of their copies on a banner host: each
        page the partial copy lacks was fetched four times (400 fetches). None otherwise."""
        if not self._twins_stand_in(rule):
            return None
        twin = self._sibling_twin(store, url, rule, rule.mirror, faithful=True)
        return None if twin is None or twin.code else twin.url

    def _twin_awaited(self, store: MirrorStore, url: str, rule: Rule) -> str | None:
        """The twin ``url`` waits for where the origin lacks its counterpart
        (``_twin_beside_absent`` finds none held yet): its page on the first
        (``_first_fetched``) of the origin's mirrors that may stand for it, neither held nor known
        missing yet. The first mirror's page is fetched; the others' wait for the crawl to fetch
        it, and are dropped for it, or fetched once it is missing or the wait is over. Released
        together when the origin's 404 came, every mirror's page was fetched at once (on the
        twenty-fourth holdout web, breadth first, a partial copy of SDL2's reference held first
        was the origin of the reference and of its copy, and pages it lacks were fetched on both
        within a few hundredths of a second). None when ``url``'s mirror is that first one."""
        if not self._twins_stand_in(rule):
            return None
        deferrals, own = Deferrals(store.view), _first_fetched(rule)
        siblings = self._sibling_twins(store, url, rule, rule.mirror, True)
        ahead = sorted((_first_fetched(other), twin) for other, twin in siblings)
        return next(
            (
                twin
                for order, twin in ahead
                if order < own
                and deferrals.absent(twin) is None
                and self.held_as_itself(store, twin) is None
            ),
            None,
        )

    @staticmethod
    def _twins_stand_in(rule: Rule) -> bool:
        """Whether another mirror's page may stand for a page of ``rule``'s mirror that its
        origin lacks: only under a rule whose every sample matched (a page no sample checked is
        taken for its twin's, and a copy that altered a sampled page may have altered others),
        and not under a copier at its host's root taken for the origin (the page fetched is
        what shows its mirror side holds pages the copier lacks: ``Rule.origin_lacks``)."""
        copier = copier_at_root(rule.origin, rule.mirror) and not rule.copy_named
        return rule.faithful and not copier

    def _kept_beside_copier(self, store: MirrorStore, rule: Rule) -> Rule | None:
        """The mirror kept for the others of ``rule``'s origin, a copier at its host's root
        (``_kept_sibling``: crawled whole, it holds pages the copier lacks), for a URL whose
        counterpart the copier lacks on ``rule``'s mirror side, named a copy (a name, a session
        id or a pin: such a side is never marked ``origin_lacks``, and is pruned): that side
        copies the copier's victim too, which the crawl fetches whole. On the ninth holdout web
        (random order) a copier held first was the origin of its victim, of the victim's stale
        copy and of its session-id copy; the session copy's 82 pages the copier lacks were
        fetched, then the victim's same pages. A side no name calls a copy is fetched there: the
        page shows it holds what the copier lacks (``origin_lacks``), and point 24 takes over.
        None where no mirror is kept so."""
        if not rule.copy_named or not copier_at_root(rule.origin, rule.mirror):
            return None
        return self._kept_sibling(store, rule)

    def _edition_twin(self, store: MirrorStore, url: str) -> str | None:
        """The crawled page ``url`` is dropped for as an edition's prose (``_beside_edition``);
        None when it is not. On the holdout web a host mirror's rpm edition waited for the
        kept host's rpm pages, which the crawl dropped for the English edition's, and probed
        them: 52 fetches of pages held already, in each of two orders."""
        twin = self._beside_edition(store, url, *self._placed(store, url))
        return twin.duplicate_of if twin is not None else None

    def _copy_twin(self, store: MirrorStore, url: str) -> str | None:
        """The crawled page of a copy that ``url``, an origin's page, is dropped for as the
        copy's side by side (``_beside_mirror``); None when it is not. On the ninth holdout web
        (breadth first) a copy of a copy, turned partial, was pruned beside its origin, and a
        second copy's URLs probed the origin's pages that the first had fetched: 256 fetches
        of pages held already."""
        origins_over = rules_with_origin_over(store, placements(url, self.config.max_depth))
        twin = self._beside_mirror(store, url, origins_over)
        return twin.duplicate_of if twin is not None and twin.dropped else None

    def _against_crawled(
        self,
        store: MirrorStore,
        url: str,
        rule: Rule,
        counterpart: str,
        kept: str,
        probe_answers: bool = False,
    ) -> Decision | None:
        """``_against``, for a side held first, where the crawl fetched and followed the page
        holding ``counterpart``'s content: its own, or the one it is dropped for before its
        fetch (``_dropped_for_crawled``, asked once); with ``probe_answers`` (a mirror held
        first beside its origin, whose every sample matched), also where a probe fetched the
        counterpart or is out for it (a sample of the pair the rule came from): the URL waits
        for its answer and is dropped for it, the spider crawling that page in its place
        (``crawl_instead``), rather than both sides fetched. None otherwise (the side is
        fetched)."""
        stands_for = None
        if self._crawled_page(store, counterpart) is None:
            stands_for = self._dropped_for_crawled(store, url, counterpart)
            probed = probe_answers and self._probed(store, counterpart)
            if stands_for is None and not probed:
                return None
        return self._against(
            store, url, rule, counterpart, kept, False, stands_for, probe_answers=probe_answers
        )

    def _probed(self, store: MirrorStore, url: str) -> bool:
        """Whether a probe fetched ``url``'s page (held, the spider never saw it) or is out."""
        if store.probes_for(url):
            return True
        held = self.held_as_itself(store, url)
        return held is not None and Deferrals(store.view).probed(held.url)

    def _dropped_for_crawled(self, store: MirrorStore, url: str, counterpart: str) -> str | None:
        """The page that ``url``'s ``counterpart`` is dropped for before its fetch, where the
        crawl fetched that page as itself (so followed its links) on the host of ``url`` or of
        its counterpart: a copy held first is crawled whole but for the pages another copy
        stands for (``_copy_held_before``: its twin under a renamed copy; ``_beside_origin``),
        an origin's page whose copy page the crawl pruned is dropped as an edition's prose
        (``_against_copy``), and a URL waiting for such a page as a crawled page would wait for
        ever, then be fetched. Between the two hosts of a rule, its precedence said which gives
        way (and a host's twin is one site's two names for a page); a third site's page stands
        for ``url`` only where it was not met after ``url``'s side: the counterpart was dropped
        for it as a copy not met after the counterpart's side (``_copy_held_before``), and
        ``url``'s directory did not lead the copy's either. On the eighth holdout web (random
        order) a guide's code edition waited for a banner host's pages that a library's copy
        stood for, until its waits ran out: 407 fetches. None otherwise, and inside such a
        check: one link of a chain is followed, so two sides that wait for each other never
        recurse."""
        if getattr(self._following, "active", False):
            return None
        self._following.active = True
        try:
            decision = self.check(store.view, counterpart)
        finally:
            self._following.active = False
        held = decision.duplicate_of
        if decision.reason not in _DROPPED_FOR_A_PAGE or held is None:
            return None
        if authority(held.lower()) not in (authority(url.lower()), authority(counterpart.lower())):
            own, copy = parent_directory(url), parent_directory(held)
            if "copy_rule" not in decision.evidence or own is None or copy is None:
                return None
            if held_before(store, own, copy):  # a side held first is never pruned for it
                return None
        return held if self._crawled_page(store, held) is not None else None

    def stand_ins(self, view: IndexView, url: str) -> list[Decision]:
        """The pages to crawl in place of ``url``, which the crawl could not fetch: its
        counterparts on the pruned sides of the rules whose kept side holds ``url``, where not
        held. The pruned side's documents are dropped, so their links are never followed: a
        page linked from the kept side, which that side lacks, is reached through nothing else.
        An origin pruned beside its mirror (``Rule.prunes_origin_beside``) is such a side too: on
        the tenth holdout web (round robin) a partial copy of a copy, held first, then turned,
        answered four pages with 404s, and their origin's pages were never asked for.
        Likewise on the other side of a pair revoked for its code, whose prose pages are dropped
        for this side's (``_beside_edition``): on the second holdout web (run t4, random) a
        library's partial copy of a guide, revoked as an edition, stood for the guide's prose
        pages, and a page it lacks, linked from one of them, was lost."""
        store = MirrorStore(view)
        if not self.config.enabled or not (store.has_rules() or store.has_revoked()):
            return []
        sessions = self._sessions.of(store)
        return [  # asked for as the pruned side serves it (a copy served under session ids)
            Decision(fetchable(store, sessions, counterpart), "keep", Reason.STAND_IN, evidence=why)
            for _, why, counterpart in self._counterparts_beside(store, sessions, url)
            if self.held_page(store, counterpart) is None
            # a negotiated manual's ``x.html.es``, which its copy lacks, is no page of Debian's
            # ``manual/en/`` either: asked there, each was a 404 more (docs/mirrors.md, point 104)
            and not variant_in_named_edition(counterpart)
        ]

    def soft_404_stand_ins(self, view: IndexView, url: str, page: Sketched) -> list[str]:
        """The pages to crawl in place of ``url``, whose page is the answer of a rule's kept
        side for a page it lacks (a soft 404: a 404 in disguise, ``soft404.py``): as
        ``stand_ins``. The twelfth holdout web's copy of a copy, held first, answered 450 paths
        so; their origin's pages linked only from pages the rule pruned were lost (119 in one
        breadth-first crawl)."""
        store = MirrorStore(view)
        if not self.config.enabled or not store.has_rules():
            return []
        sessions = self._sessions.of(store)
        return [  # as ``stand_ins`` names them, before ``fetchable``; never an index page (the
            # crawl asks for those itself: they are never pruned)
            counterpart
            for kept, _, counterpart in self._counterparts_beside(store, sessions, url)
            if kept is not None
            and not self._index_pages.names_listing(path_of(counterpart))
            and self._is_answer(page, answer_of(view, kept))
            and self.held_page(store, counterpart) is None
        ]

    def folded_back(
        self, store: MirrorStore, places: list[Placement], folded: dict[str, str]
    ) -> list[str]:
        """The pruned side's URLs, not held, at both names of a path whose kept side was just
        found serving one file under names that differ only in case (``folded``: the other
        name, by directory key; ``records.FOLDED``): either may have been dropped for the
        other's file (a red team's case-insensitive mirror of GDK's reference, held first:
        283 pages lost under 5 of 10 keys)."""
        back = []
        for rule, place, on_mirror in rules_holding(store, places):
            other = folded.get(place.directory_key)
            if other is None or not (rule.prunes_origin if on_mirror else rule.prunes_mirror):
                continue
            on_pruned = store.on_origin if on_mirror else store.on_mirror
            for relative in (place.relative, other):
                url = on_pruned(rule, relative)
                if store.view.page_id_for_url(url) is None:
                    back.append(url)
        return back

    def soft_404s_held(self, view: IndexView, side: str) -> list[str]:
        """``soft_404_stand_ins`` for the pages ``side`` served before its answer for a page it
        lacks was known (that answer just arrived), over its first ``_SOFT_404_SCAN`` pages; the
        URLs of those pages are remembered absent."""
        store = MirrorStore(view)
        answer = answer_of(view, side)
        if answer is None or answer.page is None or not store.has_rules():
            return []
        stand_ins: list[str] = []
        for _, entry in itertools.islice(store.subtree(side.lower()), _SOFT_404_SCAN):
            record = view.page(entry.representative)
            if record is None or not self._is_answer(record, answer):
                continue
            url = side + entry.relative
            found = self.soft_404_stand_ins(view, url, record)
            if found:
                Deferrals(view).mark_absent(url, 404)
                stand_ins.extend(found)
        return stand_ins

    def _counterparts_beside(
        self, store: MirrorStore, sessions: SessionParameters, url: str
    ) -> list[tuple[str | None, dict[str, Any], str]]:
        """The counterparts of ``url`` on the pruned sides of the rules whose kept side holds it,
        and of the pairs revoked beside it: (the kept side, None for a revoked pair; why; the
        counterpart)."""
        places = placements(sessions.strip(url), self.config.max_depth)
        found = rule_over(store, places)
        counterparts: list[tuple[str | None, dict[str, Any], str]] = [
            (rule.origin, _missing(rule, url), store.on_mirror(rule, place.relative))
            for rule, place in rules_with_origin_over(store, places)
            if rule.prunes_mirror or rule.prunes_mirror_beside
        ]
        if found is not None and (found[0].prunes_origin or found[0].prunes_origin_beside):
            rule, place = found
            counterparts.append(
                (rule.mirror, _missing(rule, url), store.on_origin(rule, place.relative))
            )
        counterparts += [
            (None, _edition_missing(place, url), other + place.relative)
            for place, other in _revoked_over(store, places)
        ]
        return counterparts

    def defer(self, view: IndexView, url: str, now: float) -> Decision:
        """``check`` inside a write transaction: a deferred URL is remembered, and its
        counterpart asked for as a probe unless it is being fetched already."""
        decision = self.check(view, url)
        if not decision.deferred or decision.duplicate_of is None:
            return decision
        counterpart = decision.duplicate_of
        Deferrals(view).defer(url, counterpart, now)
        store = MirrorStore(view)
        kept = decision.evidence.get("awaiting_absent_answer_of")
        if kept is not None:  # the counterpart is held: what its side answers is asked
            asked = ask(store, kept)
            return replace(decision, probes=(asked,)) if asked else decision
        # left to the crawl, to the probes in flight, probed already, or a pair's document (its
        # samples are probed)
        unprobed = (
            "awaiting_crawl_of" in decision.evidence
            or "awaiting_probe_answers" in decision.evidence
            or decision.reason == Reason.MIRROR_PENDING
        )
        if unprobed or store.probes_for(counterpart):
            return decision
        ask_counterpart(store, counterpart, _rule_named(decision))
        probes: tuple[str, ...] = (counterpart,)
        if "names_lacked" in decision.evidence:
            # the mirror answers for its origin here: what it serves for a page it lacks, too
            answer = ask(store, decision.evidence["mirror_rule"])
            probes += (answer,) if answer else ()
        return Decision(url, "defer", decision.reason, counterpart, decision.evidence, probes)

    def settle(
        self, view: IndexView, now: float, max_age_s: float, through: Seen
    ) -> list[Decision]:
        """Final decisions for the deferred URLs whose counterpart's fate is known (``through``
        the caller's view of a decision: a counterpart the URL rules drop as an alias of a held
        page), or that waited ``max_age_s`` or longer; they wait on until released
        (``Deferrals.release``)."""
        waiting = Deferrals(view).waiting()
        return settle_waiting(waiting, lambda url: through(self.check(view, url)), now, max_age_s)

    def held_page(self, store: MirrorStore, url: str) -> PageRecord | None:
        """The indexed page that holds the content of ``url``: its own (kept under its URL), the
        kept page that represents it (it was checked and dropped as a duplicate), or, for a URL
        another rule prunes (a renamed copy inside a rule's origin), its counterpart's there."""
        held = self.held_as_itself(store, url)
        if held is not None:
            return held
        found = rule_over(store, placements(url, self.config.max_depth))
        if found is None:
            return None
        rule, place = found
        if rule.prunes_mirror:
            return self.held_as_itself(store, rule.origin + place.relative)
        if rule.prunes_mirror_beside:
            return self._crawled_page(store, rule.origin + place.relative)
        return None

    def _crawled_page(self, store: MirrorStore, url: str) -> PageRecord | None:
        """The page holding the content of ``url`` that the crawler fetched as itself, so
        followed its links: kept under ``url``, or the page a duplicate ``url`` was dropped for.
        A page pruned for it leaves nothing unreached that the crawl had not given up already:
        a dropped duplicate's links are not followed, and its copy on the other side of an
        exchangeable rule (every sample matched) duplicates the same page, so its fetch would
        be dropped alike. Not a probe's answer (the spider never saw it)."""
        return _unprobed(store, self.held_as_itself(store, url))

    def _crawled_or_probed(self, store: MirrorStore, url: str) -> PageRecord | None:
        """``_crawled_page``, or the page a probe fetched for ``url``: a URL dropped for that
        one has the spider crawl it in its place (``crawl_instead``)."""
        held = self.held_as_itself(store, url)
        return held if held is not None and held.url == url else _unprobed(store, held)

    def _twin_unseen(self, store: MirrorStore, url: str, counterpart: str) -> bool:
        """Whether an index page of either side lists ``counterpart``'s name beside a name that
        differs from it only in case (``listings.case_twins``) while the counterpart's side has
        not shown them two files (``COLLIDING``): a side that folds case, whose second name the
        crawl never fetches (its host's URL ``case`` rule), never shows a fold either."""
        if not store.case_twin(counterpart, url):
            return False
        there = own_placement(counterpart, self.config.max_depth)
        if there is None:
            return False
        entry = store.entry(there.directory_key, self._index_pages.entry_key(there))
        return entry is None or entry.role != COLLIDING

    def _folds_case(self, store: MirrorStore, place: Placement | None) -> bool:
        """Whether the side of a URL at ``place`` serves one file under its name and another
        that differs only in case (``records.FOLDED``)."""
        if place is None or not store.folds_at(place.directory_key):
            return False
        entry = store.entry(place.directory_key, self._index_pages.entry_key(place))
        return entry is not None and entry.role == FOLDED

    def held_as_itself(self, store: MirrorStore, url: str) -> PageRecord | None:
        """The page held for ``url`` on its own side: fetched under it, or under a name its
        directory keys alike (another case, ``.htm``, bare), where that is one file."""
        view = store.view
        own = view.page_id_for_url(url)
        place = own_placement(url, self.config.max_depth)
        if own is not None:  # unless its side serves one file under both names of a pair
            return None if self._folds_case(store, place) else view.page(own)
        if place is None:
            return None
        key = self._index_pages.entry_key(place)
        entry = store.entry(place.directory_key, key)
        if entry is None or entry.other_file(None):  # two files collided at its path
            return None
        spelt_apart = entry.relative.lower() != place.relative.lower()
        if key and spelt_apart and not (named_bare(entry.relative) or named_bare(place.relative)):
            # ``.htm`` for ``.html``: only a URL spelled as its side names it (a page named
            # bare, ``intro``, is the one a pretty host serves for ``intro.html``, either way)
            return None
        if place.relative and not entry.relative and not entry.bare_names:
            # held under its directory's URL, which a server may answer with a listing it
            # generates where the file is missing: the file is not known to exist (an index
            # page naming its documents bare is the one a pretty host serves there)
            return None
        return view.page(entry.representative)


def _unprobed(store: MirrorStore, held: PageRecord | None) -> PageRecord | None:
    """``held``, unless a probe fetched it (the spider never parsed a probe's answer)."""
    return None if held is None or Deferrals(store.view).probed(held.url) else held


_PROSE_PAIRS_READ = 256  # documents of one edition read for ``_prose_alike``


def _first_fetched(rule: Rule) -> tuple[bool, float, str]:
    """Which mirror of one origin has its page fetched where the origin lacks it: one no name
    calls a copy (a named copy's page stands for no page of such a side), then the one ruled
    first."""
    return rule.copy_named, rule.created_at, rule.mirror


def _revoked_over(store: MirrorStore, places: list[Placement]) -> Iterator[tuple[Placement, str]]:
    """Each of ``places`` with the other side of every pair revoked for its code that has the
    place's directory as a side, widest first (nothing read in a crawl without revocations)."""
    if not store.has_revoked():
        return
    for place in places:
        for other in store.revoked_partners(place.directory):
            yield place, other


def _edition_pairs(
    store: MirrorStore, places: list[Placement], through: tuple[Rule, str] | None, max_depth: int
) -> Iterator[tuple[str, str, str]]:
    """The pairs of editions over ``places`` (a URL's) as (its directory, the edition's
    directory, the URL's path below them): those revoked for their code. ``through`` a rule
    holding the URL on its mirror side, held first (with its counterpart): only those on the
    URL's own site (a side held first is never pruned for another site's copy), then the
    origin's pairs inside that origin, moved onto the mirror (a whole copy of a site copies its
    editions)."""
    own_site = authority(places[-1].directory_key) if through is not None else None
    for place, other in _revoked_over(store, places):
        if own_site is None or authority(other.lower()) == own_site:
            yield place.directory, other, place.relative
    if through is None:
        return
    rule, counterpart = through
    origin = rule.origin.lower()
    for place, other in _revoked_over(store, placements(counterpart, max_depth)):
        if place.directory_key.startswith(origin) and other.lower().startswith(origin):
            directory = rule.mirror + place.directory[len(origin) :]
            yield directory, rule.mirror + other[len(origin) :], place.relative


def _rule_named(decision: Decision) -> bytes:
    """The reference of a counterpart probe: the mirror of the rule that asks for it, whose
    probes are tallied (``probes.tally``); none for a pair's document."""
    mirror = decision.evidence.get("mirror_rule")
    return directory_name(mirror) if isinstance(mirror, str) else b""


def _tallies(deferrals: Deferrals, rule: Rule, counterpart: str) -> dict[str, ProbeTally]:
    """What the counterpart probes found so far: the rule's, and those asked into the
    counterpart's directory by any rule (a section renamed in a copy answers them with 404s,
    however well its other sections map)."""
    return {
        "counterpart_probes": deferrals.tally(directory_name(rule.mirror), COUNTERPART_PROBE),
        "section_probes": deferrals.section_tally(counterpart),
    }


def _missing(rule: Rule, url: str) -> dict[str, Any]:
    return {"mirror_rule": rule.mirror, "missing_on_kept_side": url}


def _edition_missing(place: Placement, url: str) -> dict[str, Any]:
    return {"edition_of": place.directory, "missing_on_kept_side": url}


def _weighed_parts(rule: Rule, holder: str, copied: str) -> tuple[str, str]:
    """The parts of ``rule``'s mirror side and of ``holder`` (another copy, of ``copied``) that
    stand where the narrower of ``rule``'s origin and ``copied`` lies: two copies of one origin
    are weighed part against part. A library's whole tree met before a copier's copy of one of
    its directories, whose own part came after the copier's, had each wait for the other (the
    fourth helper's web, depth first), until the waits ran out and the copier's pages were
    dropped unseen, two of its pages of other text lost."""
    return (
        _part_standing(rule.mirror, rule.origin, copied),
        _part_standing(holder, copied, rule.origin),
    )


def _part_standing(side: str, copied: str, directory: str) -> str:
    """The part of ``side``, a copy of ``copied``, that stands where ``directory`` lies in
    ``copied``; ``side`` itself where ``directory`` lies above it."""
    if directory.lower().startswith(copied.lower()):
        return side + directory[len(copied) :]
    return side


def _origins_pruned_over(
    store: MirrorStore, places: list[Placement]
) -> list[tuple[Rule, Placement]]:
    """The rules that prune their origin side (``Rule.prunes_origin``) whose origin holds the
    URL these places describe, widest first."""
    return [
        (rule, place) for rule, place in rules_with_origin_over(store, places) if rule.prunes_origin
    ]
