"""Mirrored directories, detected during the crawl (Zhang, Jia & Li, made online) and pruned.

Life of a pair: an index page whose content duplicates the index page of another directory makes
the two directories a *candidate* (``candidates.py``); that index page is kept, and its links
followed, because look-alike listings and templates head unrelated directories. Coordinate
sampling (``sampling.py``) confirms or rejects the candidate, asking for probes (``probes.py``)
where the crawl has not fetched the mirror's counterpart yet. A confirmed candidate becomes a
*rule* mirror -> origin (``mirror_rules.py``); the rule widens to the parent directories while
their index pages replicate and sampling confirms them too (``boundary.py``).

This module is what the filter talks to, twice a page: ``before`` the page rules decide (the
page's places, and its record when it is a replay), and ``after`` (it records the page under its
directories, moves the candidates it concerns, and returns the final decision, which only
``verdict.final_decision`` edits). Invariants: every
change happens in the caller's write transaction, so outcomes depend only on the order of commits
to the shared index; no rule is made from index pages alone unless ``mirror.samples = 0``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Any

from dedup_filter.config import Config
from dedup_filter.decision import Decision, Reason
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.languages import variant_in_named_edition
from dedup_filter.mirrors.audits import audit, audit_held
from dedup_filter.mirrors.candidates import (
    CandidateUpdate,
    Pair,
    index_pair,
    listing_pair,
    origins_pair,
    ruled,
)
from dedup_filter.mirrors.code_checks import (
    CodeCheck,
    check_code,
    check_held_code,
    code_probe_failed,
)
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import (
    IndexPages,
    Placement,
    authority,
    copier_at_root,
    own_placement,
    placements,
)
from dedup_filter.mirrors.documents import DocumentPairing, document_pair
from dedup_filter.mirrors.editions import coded_namesake
from dedup_filter.mirrors.expiry import settle_open
from dedup_filter.mirrors.listings import case_twins, names_bare, names_htm
from dedup_filter.mirrors.orientation import Orientation
from dedup_filter.mirrors.precedence import (
    after_absence,
    held_under,
    met_well_before,
    side_by_side_by_now,
)
from dedup_filter.mirrors.probes import (
    answer,
    ask_index,
    fetchable,
    tally,
    withdraw_failed,
)
from dedup_filter.mirrors.pruning import Protection, Seen, UrlPruner
from dedup_filter.mirrors.records import DROPPED_AS_MIRROR, OPEN, DirEntry, Rule
from dedup_filter.mirrors.rules import (
    absorbed,
    describe,
    implied,
    mark_older,
    moved_through_at,
    on_through,
    reweigh_through,
    rule_over,
    rules_with_origin_over,
    turn_to_newer,
)
from dedup_filter.mirrors.sampling import Arrival, CoordinateSampler
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.soft404 import answer_of, is_answer, record_error, record_page
from dedup_filter.mirrors.soft404 import ask as ask_absent
from dedup_filter.mirrors.store import (
    ABSENT_PROBE,
    CODE_PROBE,
    COUNTERPART_PROBE,
    INDEX_PROBE,
    PARENT_PROBE,
    SAMPLE_PROBE,
    MirrorStore,
    host_hash,
    pair_reference,
)
from dedup_filter.mirrors.verdict import (
    CheckedPage,
    MirrorPage,
    Stance,
    final_decision,
    role,
    summary,
)
from dedup_filter.statuses import LACKING_STATUSES, REDIRECT_STATUSES

_LINKED_HOSTS = 16  # other hosts an index page's entry remembers, for orienting pairs
# entries of a rule's origin read for the URLs a rule marked ``origin_lacks`` may have pruned
_UNPRUNED_SCANNED = 4096


# probes whose failure is remembered (``Deferrals.absent``)
_REMEMBERED_ABSENT = frozenset((COUNTERPART_PROBE, INDEX_PROBE, PARENT_PROBE, SAMPLE_PROBE))


class MirrorDetector:
    """Candidates, sampling, rules and boundaries over the mirror tables of one index."""

    def __init__(self, config: Config) -> None:
        self.config = config.mirror
        self._index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        self._sampler = CoordinateSampler(config)
        self._page_config = config
        # tracking parameters are content-free on every host (the URL rules trust them): no path
        self._sessions = SessionParameters(
            self.config.session_parameters, tracking=config.url_rules.trusted_parameters
        )
        self._is_answer = functools.partial(is_answer, config=config)
        self._pruner = UrlPruner(
            self.config, self._index_pages, self._sessions, self.describe, self._is_answer
        )
        self._code_checks = config.text.code_blocks_apart and self.config.mode == "content"
        # pages each rule's sides must still record before it is weighed side by side again
        self._pages_to_wait: dict[tuple[str, str, float], float] = {}
        self._listing_agreement = math.ceil(
            config.mirror.listing_min_agreement * config.simhash.bits
        )

    # the two calls of the filter, around the page rules' verdict
    def before(self, view: IndexView, fingerprint: Fingerprint) -> MirrorPage:
        """The page's places, and its record when ``url`` was checked before with this very
        content (a replay, or a recrawl of an unchanged page)."""
        store = MirrorStore(view)
        url = self._sessions.of(store).strip(fingerprint.url)
        places = placements(url, self.config.max_depth) if self.config.enabled else []
        if not places:
            return MirrorPage(url, places)
        place = places[-1]
        entry = store.entry(place.directory_key, self._index_pages.entry_key(place))
        if entry is None or entry.exact != fingerprint.exact or entry.relative != place.relative:
            entry = None
        return MirrorPage(url, places, entry)

    def after(
        self,
        view: IndexView,
        page: MirrorPage,
        checked: CheckedPage,
        now: float,
    ) -> Decision:
        """Record a checked page under its directories, move the candidates it concerns, and
        return its final decision (``verdict.final_decision`` owns every change to it)."""
        if not page.places:
            return checked.decision
        store = MirrorStore(view)
        sessions = self._sessions.of(store)
        learnt = self.config.learn_session_parameters and sessions.learn(
            checked.fingerprint.url, checked.links
        )
        if learnt:
            page = self.before(view, checked.fingerprint)  # placed without what was learnt
        links = sessions.strip_all(checked.links)
        fingerprint = checked.fingerprint
        orientation = self._orientation(store, sessions).holding(
            page, fingerprint.releases, fingerprint.language
        )
        pair, stance = self._stance(
            store, sessions, orientation, page, checked.fingerprint.url, checked.original_url
        )
        documents = DocumentPairing()
        if pair is None and stance is Stance.PLAIN and checked.original_url is not None:
            original = sessions.strip(checked.original_url)
            documents = document_pair(orientation, page.url, original)
        if stance is Stance.ORIGIN or (
            pair is not None and pair.names_editions(self.config, orientation)
        ):
            # an original met second is indexed although it duplicates, as is an index page of
            # its own edition: a copy of it met later is matched with it, not with the edition
            # it resembles (a mirror's copy of Debian's amd64 guide whose index page came after
            # amd64's, itself taken for a near-duplicate of i386's, was paired with i386 alone)
            checked.index_anyway()
        representative = checked.representative
        outstanding = store.probes_for(page.url)
        # the sides whose answer for a page they lack this is: no document of theirs
        answering = [
            side.decode("utf-8", "surrogatepass")
            for kind, side in outstanding
            if kind == ABSENT_PROBE
        ]
        folded: dict[str, str] = {}
        if not answering:
            role_of = role(page, stance)
            folded = self._record(store, page, checked.fingerprint, links, representative, role_of)
            Deferrals(view).count_name(page.url, "answered")
        ruled = store.has_rules()
        found = rule_over(store, page.places) if ruled else None
        origins_over = rules_with_origin_over(store, page.places) if ruled else []
        beside = self._side_by_side_by_now(store, found, origins_over)
        lacking = self._origin_lacking(store, found)
        turned, kept_sides, partial = self._turned_by_absence(store, found, origins_over)
        newer, older = self._weighed_by_release(
            store, orientation, page, checked.fingerprint, found, origins_over
        )
        origins_over = origins_over if not newer else rules_with_origin_over(store, page.places)
        if self.config.mode == "url":
            for link in links:
                store.add_link(link, representative)
        arrival = Arrival(checked.fingerprint, links, page.url)
        update = CandidateUpdate(store, self.config, self._sampler, now, arrival)
        update.turned += turned
        # sides crawled whole that other copies' pages may be dropped for: their answer for a
        # page they lack is asked (a drop waits for it)
        kept_whole = [*kept_sides, *lacking]
        update.probes.extend(filter(None, (ask_absent(store, side) for side in kept_whole)))
        if outstanding:
            Deferrals(view).mark_probed(page.url)
            tally(store, page.url, outstanding, 200)
        record_page(store, page.url, outstanding, checked.fingerprint)  # a rule's origin's answer
        children = answer(store, page.url, outstanding)  # rules whose parent index page it is
        level = max((child.level + 1 for child in children), default=0)
        code = CodeCheck()
        if self._code_checks:  # an edition met after its rule was made revokes it
            code = check_code(
                store, page.places, fingerprint.code, self._page_config, now, representative
            )
            update.probes.extend(code.probes)
        audited = audit(store, page.places, fingerprint, self._index_pages, self._page_config, now)
        update.probes.extend(audited.probes)
        code.revoked += audited.revoked
        code.fetch_back += audited.fetch_back
        if folded:  # what the pruned sides' pages at those names dropped for it
            code.fetch_back += self._pruner.folded_back(store, page.places, folded)
        pair = pair or listing_pair(
            orientation,
            arrival,
            self._index_pages,
            self.config,
            self._listing_agreement,
        )
        update.probes.extend(url for url in documents.index_pages if ask_index(store, url))
        for opened in (pair, documents.pair):
            if opened is not None:
                update.open(opened, level)
        self._advance_concerned(update, page.places)
        update.refold(page.places, folded)
        update.reopen(code.revoked)
        for rule in update.confirmed:  # a copier crawled whole before its victim gains nothing
            held = audit_held(store, rule, self._index_pages, self._page_config)
            update.probes.extend(held.probes)
        if self._code_checks:  # an edition crawled before its rule came revokes it too
            # those confirmed by a reopened pair too, and those pointed at a new origin: an
            # edition paired with a partial copy, whose coded page the copy lacks, and moved onto
            # the guide once the copy was ruled the guide's, dropped the guide's page with other
            # code for its own (the fifth holdout web, breadth first: Apache's install.html,
            # both its copies, on the project's host and its partner's, were never fetched)
            for rule in (*update.confirmed, *update.repointed):
                held = check_held_code(store, rule, self._page_config, now)
                update.probes.extend(held.probes)
                code.revoked.extend(held.revoked)
                code.fetch_back.extend(held.fetch_back)  # from related rules it revoked
                update.reopen(held.revoked)
        if answering:  # what those sides served so before counts as a 404 too
            for side in answering:
                code.fetch_back.extend(self._pruner.soft_404s_held(view, side))
        else:
            soft_404 = self._pruner.soft_404_stand_ins(view, page.url, fingerprint)
            if soft_404:  # a 404 in disguise: its counterparts are crawled in its place
                Deferrals(view).mark_absent(sessions.strip(page.url), 404)
                code.fetch_back.extend(soft_404)
            for rule, on_mirror in self._lacked(store, found, origins_over, fingerprint):
                self._count_absence(store, rule, on_mirror, 404)
        if code.revoked:
            edition = self._edition_pair(sessions, orientation, page, checked, code.revoked)
            if edition is not None:
                update.open(edition, 0)
        for child in children:
            current = store.rule(child.mirror)  # not absorbed meanwhile
            if current is not None:
                update.widen(current)
        decision = replace(
            final_decision(
                checked,
                page,
                stance,
                rule_over(store, page.places),
                store.candidate(pair.reference) if pair is not None else None,
                update.evidence()
                | ({"mirrors_revoked": code.revoked} if code.revoked else {})
                | _fetching_back(store, sessions, code.fetch_back)
                | ({"mirrors_side_by_side": beside} if beside else {})
                | ({"mirrors_origin_lacking": lacking} if lacking else {})
                | ({"mirrors_origin_partial": partial} if partial else {})
                | ({"mirrors_turned_to_newer": newer} if newer else {})
                | ({"mirrors_older": older} if older else {})
                | ({"session_learnt": sessions.filed(page.url)} if learnt else {}),
                lambda rule: self.describe(store, rule),
            ),
            probes=checked.decision.probes + update.handed_out(),
        )
        if page.recorded is None and decision.reason == Reason.MIRRORED_DIRECTORY:
            # replays will drop it again
            self._record(store, page, checked.fingerprint, links, representative, DROPPED_AS_MIRROR)
        return decision

    def no_page(self, view: IndexView, url: str) -> None:
        """A fetched URL held no page to check (empty): a rule's origin that answers a page it
        lacks that way answers with no page."""
        store, stripped = MirrorStore(view), self._stripped(view, url)
        record_error(store, stripped, store.probes_for(stripped))

    def wants_links(self, url: str) -> bool:
        """Whether the page's links are needed: every page's in URL mode (its links show what the
        mirror has), an index page's in content mode (its listing names documents to sample, and
        pairs it with a directory listing the same ones)."""
        if not self.config.enabled:
            return False
        if self.config.mode == "url" or self.is_index_page(url):
            return True
        # its links may teach its host's session id
        return self.config.learn_session_parameters and self._sessions.strip_likely(url) != url

    def is_index_page(self, url: str) -> bool:
        """Whether ``url`` names a directory's index page, under its own name or a
        language-negotiated one: what pairs mirrors (read from the URL alone: without the
        session parameters it likely carries)."""
        place = own_placement(self._sessions.strip_likely(url), self.config.max_depth)
        return place is not None and self._index_pages.stands_for_directory(place)

    def check_url(self, view: IndexView, url: str) -> Decision:
        """A URL before its fetch: dropped under a rule when its counterpart is held, deferred
        while the counterpart's fate is unknown (read only; ``defer`` records it)."""
        return self._pruner.check(view, url)

    def defer(self, view: IndexView, url: str, now: float) -> Decision:
        """``check_url`` in a write transaction, remembering a deferred URL."""
        return self._pruner.defer(view, url, now)

    def settle_deferred(
        self, view: IndexView, now: float, max_age_s: float, through: Seen
    ) -> list[Decision]:
        return self._pruner.settle(view, now, max_age_s, through)

    def release_deferred(self, view: IndexView, urls: Iterable[str]) -> None:
        deferrals = Deferrals(view)
        for url in urls:
            deferrals.release(url)

    def any_deferred(self, view: IndexView) -> bool:
        return Deferrals(view).any_waiting()

    def counterpart_failed(
        self, view: IndexView, url: str, status: int | None, now: float
    ) -> Decision:
        """An origin page could not be fetched: the URLs waiting for it are fetched instead."""
        Deferrals(view).mark_absent(url, status)
        return self.probe_failed(view, url, status, now)

    def stand_ins(self, view: IndexView, url: str) -> list[Decision]:
        """The pages to crawl in place of ``url``, a page the crawl could not fetch on a rule's
        kept side (read only; ``fetch_failed`` records the failure)."""
        return self._pruner.stand_ins(view, url)

    def fetch_failed(self, view: IndexView, url: str, status: int | None) -> list[Decision]:
        """``stand_ins`` in a write transaction: the page is remembered absent (a 404 or 410 even
        under no rule: ``precedence.absences_before``), so a counterpart waiting for it, or
        checked later, is fetched; where the other side holds its counterpart already, an
        absence of the side held first is counted (``lacked``)."""
        stand_ins = self.stand_ins(view, url)
        if stand_ins or status in LACKING_STATUSES:  # a rule made later counts a 404 too
            Deferrals(view).mark_absent(self._stripped(view, url), status)
        if status in LACKING_STATUSES:
            Deferrals(view).count_name(url, "absent")
        store = MirrorStore(view)
        for rule, on_mirror in self.lacked(view, url):
            self._count_absence(store, rule, on_mirror, status)
        return stand_ins

    def lacked(self, view: IndexView, url: str) -> list[tuple[Rule, bool]]:
        """The rules whose side held first is that of ``url``, a page the crawl could not fetch,
        while their other side holds its counterpart (there, or on the copy the rule was moved
        through), each with whether that side is the mirror (read only). An absence counts
        whichever of the two pages the crawl met first: counted only where the held counterpart
        came after the failure, a partial copy of a copy held first on the twelfth and eleventh
        holdout webs turned late or never, its origin's pages fetched before its own."""
        store = MirrorStore(view)
        if not self.config.enabled or not store.has_rules():
            return []
        places = placements(self._stripped(view, url), self.config.max_depth)
        return self._lacked(store, rule_over(store, places), rules_with_origin_over(store, places))

    def _lacked(
        self,
        store: MirrorStore,
        found: tuple[Rule, Placement] | None,
        origins_over: list[tuple[Rule, Placement]],
        served: Fingerprint | None = None,
    ) -> list[tuple[Rule, bool]]:
        """``lacked`` for a page under ``found`` (the rule whose mirror side holds it) and
        ``origins_over`` (those whose origin side does); with ``served``, the page its URL
        served, only where that is its side's answer for a page it lacks (a soft 404)."""
        lacked = []
        for rule, relative, on_mirror in self._sides(store, found, origins_over):
            if rule.mirror_held_first != on_mirror:
                continue
            side = rule.mirror if on_mirror else rule.origin
            if served is not None and not self._is_answer(served, answer_of(store.view, side)):
                continue
            other = rule.on_origin(relative) if on_mirror else rule.on_mirror(relative)
            if self._held(store, other) or (
                on_mirror and self._held(store, on_through(store, rule, relative))
            ):
                lacked.append((rule, not on_mirror))
        return lacked

    def probe_failed(self, view: IndexView, url: str, status: int | None, now: float) -> Decision:
        """A probe could not be fetched: its sample could not be checked; maybe probe another;
        a counterpart probe's absence releases the URLs waiting for it."""
        store = MirrorStore(view)
        update = CandidateUpdate(store, self.config, self._sampler, now)
        asked = self._stripped(view, url)  # probes are recorded without session parameters
        outstanding = store.probes_for(asked)
        record_error(store, asked, outstanding)  # a rule's origin answered with an error
        tally(store, asked, outstanding, status or 0)
        if status in LACKING_STATUSES or any(kind in _REMEMBERED_ABSENT for kind, _ in outstanding):
            # what waits for it is fetched instead; an index page is not asked for again (a
            # parent without one is paired on its children's rules: ``boundary.widen``); a
            # sample drawn later at its path is settled at once (``probes.known_absent``): a
            # probe withdrawn in flight too, which a crawler fetching each URL once never answers
            # again when another pair draws it
            Deferrals(view).mark_absent(asked, status)
        if status in LACKING_STATUSES:
            Deferrals(view).count_name(asked, "absent")
        for kind, reference in outstanding:
            if kind == CODE_PROBE:
                code_probe_failed(store, reference)
            if kind == ABSENT_PROBE:  # samples waiting for that answer are judged now
                directory = reference.decode("utf-8", "surrogatepass")
                for waiting in store.candidates_of_mirror(directory):
                    if waiting.state == OPEN:
                        update.advance(waiting)
            candidate = withdraw_failed(store, asked, kind, reference, status)
            if candidate is not None:
                update.advance(candidate)
            retry = asked + self._index_pages.file_name
            index_kind = kind in (PARENT_PROBE, INDEX_PROBE)
            if index_kind and asked.endswith("/") and not store.probes_for(retry):
                # a server that serves its index pages under their file name only
                store.add_probe(retry, kind, reference)
                update.probes.append(retry)
            elif kind == PARENT_PROBE:
                child = store.rule(reference.decode("utf-8", "surrogatepass"))
                if child is not None:  # not absorbed meanwhile
                    update.widen(child)
        evidence = {"status": status, "outstanding_probe": bool(outstanding)} | update.evidence()
        return Decision(
            url, "keep", Reason.PROBE_FAILED, evidence=evidence, probes=update.handed_out()
        )

    def settle_candidates(self, view: IndexView, now: float, max_age_s: float) -> list[Decision]:
        """Decisions on the candidates open ``max_age_s`` or longer: probes handed out again
        (``probe``), or closed (``candidate_expired``)."""
        update = CandidateUpdate(MirrorStore(view), self.config, self._sampler, now)
        decisions = []
        for settled in settle_open(update, max_age_s):
            reason = Reason.CANDIDATE_EXPIRED if settled.expired else Reason.PROBE
            evidence = {"mirror": summary(settled.candidate)} | update.evidence()
            url = settled.candidate.mirror_index
            decisions.append(Decision(url, "keep", reason, evidence=evidence))
        if decisions:  # every probe once, on the first decision
            decisions[0] = replace(decisions[0], probes=update.handed_out())
        return decisions

    # listing and maintenance
    def candidates(self, view: IndexView) -> list[dict[str, Any]]:
        """Every candidate pair that is not a rule, with its state and samples."""
        return [
            summary(candidate) | {"created_at": candidate.created_at}
            for candidate in MirrorStore(view).candidates_under("")
        ]

    def rules(self, view: IndexView) -> list[dict[str, Any]]:
        """The rules, then the absorbed rules that say more than the rule over them (listed
        with ``absorbed_by``), then the pairs rules imply on a wider rule's mirror side (listed
        with ``implied_by``); these two kinds prune nothing themselves."""
        store = MirrorStore(view)
        listed = [self.describe(store, rule) for rule in store.rules_under("")]
        listed += [
            self.describe(store, rule) | {"pruned": [], "absorbed_by": wider.mirror}
            for rule, wider in absorbed(store, self.config.max_depth)
        ]
        named = {entry["mirror"].lower() for entry in listed}
        return listed + [
            self.describe(store, twin)
            | {"pruned": [], "boundary": "implied", "implied_by": [wider.mirror, rule.mirror]}
            for twin, wider, rule in implied(store, named)
        ]

    def unpruned(self, view: IndexView, mirror: str) -> list[str]:
        """The mirror side's counterparts of the pages a rule marked ``origin_lacks`` holds on
        its origin, where the mirror side holds no page: what the rule pruned before the mark,
        or had yet to meet (over the origin's first ``_UNPRUNED_SCANNED`` entries, hash order)."""
        store = MirrorStore(view)
        rule = store.rule(mirror)
        if rule is None or not rule.origin_lacks:
            return []
        entries = itertools.islice(store.subtree(rule.origin.lower()), _UNPRUNED_SCANNED)
        return list(store.lacking(rule.mirror, entries))

    def session_hosts(self, view: IndexView) -> list[dict[str, Any]]:
        """The hosts whose session ids are stripped from their URLs, with the pairs filed."""
        return [
            {"host": host, "session": list(pairs)}
            for host, pairs in MirrorStore(view).session_hosts()
        ]

    def remove_rule(self, view: IndexView, directory: str) -> bool:
        store = MirrorStore(view)
        rule = store.rule(directory)
        if rule is not None:
            store.delete_rule(rule)
        return rule is not None

    def probed(self, view: IndexView, url: str) -> bool:
        """Whether ``url``'s page arrived as a probe and the spider has not had it since."""
        return Deferrals(view).probed(self._stripped(view, url))

    def held(self, view: IndexView, url: str) -> str | None:
        """The URL of the indexed page that holds ``url``'s content as itself: fetched under
        it, or the kept page it was dropped for; None when none is. Not its counterpart's under
        a rule: a rule is its directory's verdict, not this page's (a rule pairing a partial
        translation with its source holds a translated page by the source's)."""
        if not self.config.enabled:
            return None
        held = self._pruner.held_as_itself(MirrorStore(view), url)
        return held.url if held is not None else None

    def met_well_before(self, view: IndexView, first: str, second: str) -> bool:
        """Whether the crawl held the directory ``first`` first by more than a crawl fetches
        at once (``precedence.met_well_before``)."""
        return met_well_before(MirrorStore(view), first, second)

    def protects(self, url: str) -> bool:
        """Whether ``url`` lies under ``mirror.protected_prefixes``, which no rule prunes."""
        return self._pruner.protection.covers(url)

    def probe_served(self, view: IndexView, url: str) -> None:
        Deferrals(view).crawled(self._stripped(view, url))

    def pending_probes(self, view: IndexView) -> list[str]:
        """Every probe asked for and not answered yet (for an integration that restarts)."""
        return sorted(set(MirrorStore(view).probe_urls()))

    def describe(self, store: MirrorStore, rule: Rule) -> dict[str, Any]:
        return describe(store, rule, self.config.max_boundary_levels)

    # recording pages
    def _record(
        self,
        store: MirrorStore,
        page: MirrorPage,
        fingerprint: Fingerprint,
        links: Iterable[str],
        representative: int,
        role: int,
    ) -> dict[str, str]:
        """Record the page under each of its directories; returns, by directory key, the other
        spelling of its name there that it was just found served under (``store.put_entry``)."""
        record, length = store.view.page(representative), fingerprint.token_count
        folded = {}
        for place in page.places:
            key = self._index_pages.entry_key(place)
            own_index = place.is_own and not key
            hosts = _linked_hosts(page.url, links) if own_index else ()
            twins = case_twins(place.directory, links) if own_index else []
            if twins:
                store.put_case_twins(place.directory_key, twins)
            bare = own_index and names_bare(place.directory, links, self._index_pages)
            htm = own_index and names_htm(place.directory, links)
            few = own_index and self._sampler.listing_closed((place.directory,), links)
            releases = fingerprint.releases if own_index else ()
            language = fingerprint.language if own_index else ""
            under_another = own_index and not held_under(record, place.directory_key)
            met = store.view.next_page_id() if under_another else 0  # when the crawl met it
            entry = DirEntry(
                representative,
                fingerprint.exact,
                place.relative,
                role,
                hosts,
                length,
                releases,
                met,
                bare,
                few,
                htm,
                language,
            )
            other = store.put_entry(place.directory_key, key, entry, record)
            if other is not None:
                folded[place.directory_key] = other
        return folded

    def _side_by_side_by_now(
        self,
        store: MirrorStore,
        found: tuple[Rule, Placement] | None,
        origins_over: list[tuple[Rule, Placement]],
    ) -> list[str]:
        """The mirrors of the rules whose sides hold this page (``found``: the rule over it;
        ``origins_over``: the rules whose origin side holds it) that count as crawled side by
        side by now (``precedence.side_by_side_by_now``), each weighed again once its sides
        recorded the pages it said could change that (a weighing reads up to 2,048 entries)."""
        rules = [found[0]] if found is not None else []
        rules += [rule for rule, _ in origins_over]
        made = []
        for rule in rules:
            key = (rule.mirror, rule.origin, rule.created_at)  # a rule repointed is weighed anew
            waiting = self._pages_to_wait.get(key, 0) - 1
            if waiting > 0:
                self._pages_to_wait[key] = waiting
                continue
            reweighed = side_by_side_by_now(store, rule)
            self._pages_to_wait[key] = reweighed.pages_to_wait
            if reweighed.rule is not None:
                store.put_rule(reweighed.rule)
                made.append(rule.mirror)
        return made

    def _origin_lacking(
        self, store: MirrorStore, found: tuple[Rule, Placement] | None
    ) -> list[str]:
        """The mirror of the rule over this document (``found``) whose origin, a
        host's root paired with a directory below another host's, is known to lack the
        counterpart (a 404, an error: ``Deferrals.absent``), if no name, session id or pin calls
        the mirror the copy: marked ``origin_lacks``, its mirror side is no longer pruned. A
        copier files its copy of a victim's directory at its own host's root, where depth takes
        it for the origin, and a copy made before the victim gained pages links none of them:
        the third holdout web lost a page linked only from its victim's documents pruned for
        the copier's. A partial copy filed in a directory keeps its rule (the origin's pages it
        lacks are fetched, the others pruned): filing copies deeper is what mirrors do, and
        where one was paired with a complete copy filed deeper still, the holdout web's round
        robin fetched that copy whole (120 URLs) when any depth counted."""
        if found is None:
            return []
        rule, place = found
        if not rule.drops_mirror_urls or rule.copy_named:
            return []
        if not copier_at_root(rule.origin, rule.mirror):
            return []
        if self._index_pages.names_listing(place.relative):
            return []  # an origin may serve its directory without an index page of its own
        counterpart, deferrals = store.on_origin(rule, place.relative), Deferrals(store.view)
        status = deferrals.absent(counterpart)
        if status is None or 200 <= status < 300 or deferrals.moved(counterpart):
            return []  # a page moved is no page the origin lacks
        # as it stands now: the side-by-side weighing may have rewritten it
        store.put_rule(replace(store.rule(rule.mirror) or rule, origin_lacks=True))
        return [rule.mirror]

    def _turned_by_absence(
        self,
        store: MirrorStore,
        found: tuple[Rule, Placement] | None,
        origins_over: list[tuple[Rule, Placement]],
    ) -> tuple[list[str], list[str], list[str]]:
        """The mirrors of the rules whose side held first answered this document's counterpart
        with a 404 or 410, counted, where held first passed to this document's side
        (``precedence.after_absence``); the sides now held first, whose answer for a page they
        lack is asked (pages are dropped for theirs only once it is known); and the mirrors of
        the rules whose origin this absence marked partial (``Rule.origin_partial``). The fourth
        holdout web's partial copy of a copy, held first, cost 35 such answers in each of
        three orders; the eighth's, a manual of 1,154 pages crawled first breadth-first, 328."""
        turned: list[str] = []
        kept: list[str] = []
        partial: list[str] = []
        for current, relative, on_mirror in self._sides(store, found, origins_over, True):
            on_other_side = current.on_origin if on_mirror else current.on_mirror
            counterpart = on_other_side(relative)  # as that side spells its names
            status = Deferrals(store.view).absent(counterpart)
            after = self._count_absence(store, current, on_mirror, status)
            if after is not None and after.turned_by_absence:
                turned.append(after.mirror)
                kept.append(after.mirror if after.mirror_held_first else after.origin)
            if after is not None and after.origin_partial:
                partial.append(after.mirror)
        return turned, kept, partial

    def _sides(
        self,
        store: MirrorStore,
        found: tuple[Rule, Placement] | None,
        origins_over: list[tuple[Rule, Placement]],
        moved_through: bool = False,
    ) -> Iterator[tuple[Rule, str, bool]]:
        """The rules whose sides hold a page, each read when its turn comes (a count before may
        have turned or weighed it again), with the page's relative path there and whether that
        is the mirror side: ``found`` (its mirror side) and ``origins_over`` (their origin
        side); with ``moved_through``, the rules moved through ``found``'s, whose former origin
        holds it (``rules.moved_through_at``: counted as their origin side's). Listings left
        out."""
        sides = [(found[0], found[1].relative, True)] if found is not None else []
        sides += [(rule, place.relative, False) for rule, place in origins_over]
        if found is not None and moved_through:  # the copy they were paired with
            sides += [
                (rule, relative, False)
                for rule, relative in moved_through_at(store, found[0], found[1].relative)
            ]
        for rule, relative, on_mirror in sides:
            if self._index_pages.names_listing(relative):
                continue
            current = store.rule(rule.mirror)
            if current is not None and current.origin == rule.origin:
                yield current, relative, on_mirror

    def _held(self, store: MirrorStore, url: str | None) -> bool:
        return url is not None and self._pruner.held_page(store, url) is not None

    def _count_absence(
        self, store: MirrorStore, rule: Rule, on_mirror: bool, status: int | None
    ) -> Rule | None:
        """``precedence.after_absence`` stored, the rules moved through a turned rule weighed
        again; the rule as it changed (None: unchanged)."""
        after = after_absence(store, rule, on_mirror, status)
        if after is not None:
            store.put_rule(after)
        if after is not None and after.turned_by_absence:
            reweigh_through(store, after)
        return after

    def _weighed_by_release(
        self,
        store: MirrorStore,
        orientation: Orientation,
        page: MirrorPage,
        fingerprint: Fingerprint,
        found: tuple[Rule, Placement] | None,
        origins_over: list[tuple[Rule, Placement]],
    ) -> tuple[list[str], list[str]]:
        """The rules whose sides this index page, naming a release, tells apart
        (``Orientation.later_side``): turned the other way round where their mirror is the
        newer side and nothing independent of the order named it the copy, marked a stale copy
        (``Rule.mirror_older``) where their mirror is the older. A rule is made from its top
        index pages, often before the pages below name their releases; on the ninth holdout
        web a stale copy's host was ruled its origin's origin by order, and both were crawled
        whole. The mirrors of the rules turned, and of those marked."""
        own = page.places[-1]
        if not fingerprint.releases or not own.is_own or not self._index_pages.is_index(own):
            return [], []
        rules = [found[0]] if found is not None else []
        rules += [rule for rule, _ in origins_over]
        turned, older = [], []
        for rule in rules:
            current = store.rule(rule.mirror)  # not turned or absorbed meanwhile
            if current is None or current.origin != rule.origin:
                continue
            later = orientation.release_turn(current)
            if later > 0:
                turned.append(turn_to_newer(store, current, orientation.with_evidence).mirror)
            elif later < 0 and not current.mirror_older:
                older.append(mark_older(store, current).mirror)
        return turned, older

    @staticmethod
    def _edition_pair(
        sessions: SessionParameters,
        orientation: Orientation,
        page: MirrorPage,
        checked: CheckedPage,
        revoked: list[str],
    ) -> Pair | None:
        """The pair a page opens whose code just revoked its own directory's rule: its
        directory with the directory of the same-named page it duplicates, or else whose code
        it shares (``editions.coded_namesake``): the edition its directory copies, when the rule
        had paired it with another edition of one guide."""
        if page.places[-1].directory not in revoked:
            return None
        namesake = checked.original_url or coded_namesake(
            orientation.store, page.places, checked.fingerprint.code, orientation.max_depth
        )
        if namesake is None:
            return None
        return document_pair(orientation, page.url, sessions.strip(namesake), witnessed=True).pair

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

    def redirected(self, view: IndexView, url: str, status: int | None, location: str) -> None:
        """``url`` answered ``status`` with ``location``: remembered as a page moved when that is
        another document of its host (not the host's root, not an index page, which is where a
        host that lacks a page sends its visitors)."""
        if status not in REDIRECT_STATUSES or not location:
            return
        target = own_placement(location, self.config.max_depth)
        if (
            target is None
            or authority(location.lower()) != authority(url.lower())
            or self._index_pages.is_index(target)
            or location == url
        ):
            return
        Deferrals(view).mark_moved(self._stripped(view, url))

    def _stripped(self, view: IndexView, url: str) -> str:
        """``url`` without the session parameters configured or learnt for its host."""
        return self._sessions.of(MirrorStore(view)).strip(url)

    def _orientation(self, store: MirrorStore, sessions: SessionParameters) -> Orientation:
        """Orientation over ``store``, with the session parameters bound to it (``of``)."""
        return Orientation(
            store, self._index_pages, self._pruner.protection, self.config.max_depth, sessions
        )

    def _stance(
        self,
        store: MirrorStore,
        sessions: SessionParameters,
        orientation: Orientation,
        page: MirrorPage,
        fetched_url: str,
        original: str | None,
    ) -> tuple[Pair | None, Stance]:
        """The candidate pair a duplicate heads, and what the page is to the mirror detector:
        an index page duplicating another directory's is kept (its links followed) until its
        directory is confirmed; a page in the origin of a pair whose mirror holds what it
        duplicates is kept and indexed although seen second (a copy met first never cuts an
        original off, even one that duplicates another page of its directory)."""
        if original is None:
            return None, Stance.PLAIN
        with_session = sessions.carries(fetched_url), sessions.carries(original)
        original = sessions.strip(original)
        pair = index_pair(page.url, original, self._index_pages, orientation)
        if pair is not None and ruled(store, (page.url, pair.mirror.url), self.config.max_depth):
            # a rule prunes the page, or the directory that would be sampled: then the page's
            # directory is paired with where that rule points
            pruned = ruled(store, (page.url,), self.config.max_depth)
            pair = None if pruned else origins_pair(orientation, page.url, original)
        if pair is not None:
            pair = _away_from_sessions(pair, *with_session, self._pruner.protection)
            return pair, Stance.ORIGIN if pair.page_is_origin else Stance.CANDIDATE
        lowered = original.lower()
        mirrors = (store.mirrors_of_origin(place.directory) for place in page.places)
        if any(lowered.startswith(mirror) for found in mirrors for mirror in found):
            return None, Stance.ORIGIN
        return None, Stance.PLAIN


def _linked_hosts(url: str, links: Iterable[str]) -> tuple[int, ...]:
    """The other hosts an index page links, the first few in document order, hashed."""
    own = authority(url)
    hosts = [
        host for host in dict.fromkeys(authority(link) for link in links) if host and host != own
    ]
    return tuple(host_hash(host) for host in hosts[:_LINKED_HOSTS])


def _away_from_sessions(
    pair: Pair, page_session: bool, original_session: bool, protection: Protection
) -> Pair:
    """The pair oriented so that a side reached through session ids (one side only) is the
    mirror, unless the operator pins it: its pages are served under URLs the crawl cannot rebuild
    from relative paths (a probe or a counterpart without the id may not be served), and its ids
    change from visit to visit."""
    if page_session == original_session or page_session != pair.page_is_origin:
        return pair
    if protection.covers(pair.mirror.directory) or protection.covers(pair.origin.directory):
        return pair
    return Pair(pair.origin, pair.mirror, not pair.page_is_origin)


def _fetching_back(
    store: MirrorStore, sessions: SessionParameters, urls: list[str]
) -> dict[str, list[str]]:
    """The evidence naming the pages to fetch back, as their sides serve them, but for a
    negotiated manual's language variants in a directory whose path names a language: Debian's
    ``manual/en/`` names its pages plainly, and a rule revoked between it and the negotiated
    manual asked it for every ``x.html.fr`` there, each a 404 (docs/mirrors.md, point 104)."""
    wanted = [fetchable(store, sessions, url) for url in urls if not variant_in_named_edition(url)]
    return {"fetch_back": wanted} if wanted else {}
