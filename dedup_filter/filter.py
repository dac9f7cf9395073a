"""The façade every integration calls: a URL or a fetched page in, a ``Decision`` out.

Features are computed outside the write transaction (no lock held while hashing), by a
``PagePreparer`` that needs no index, so they may be computed in other processes; the decisions
of a batch are taken inside one write transaction, so they depend only on the order of commits
to the shared index, never on which process saw a page first.
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import replace
from typing import Any, Self

from dedup_filter.config import Config
from dedup_filter.decision import Decision, Reason
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index import deferred_records
from dedup_filter.index.lmdb_index import IndexView, LmdbIndex, PageRecord
from dedup_filter.matching import LookAlikes, Match, duplicates, find_exact, find_near
from dedup_filter.mirrors.detector import MirrorDetector
from dedup_filter.mirrors.links import links_beyond_twin, page_links, resolve_links
from dedup_filter.mirrors.records import DirEntry
from dedup_filter.mirrors.verdict import CheckedPage
from dedup_filter.prepare import PagePreparer, PreparedPage
from dedup_filter.statuses import LACKING_STATUSES
from dedup_filter.urlrules.learner import UrlRuleLearner
from dedup_filter.urls import authority_of, normalize_url, redirect_target

logger = logging.getLogger(__name__)

PageInput = tuple[str, bytes, Mapping[Any, Any] | None] | tuple[str, bytes]


class DedupFilter:
    """Exact and near-duplicate pages, and URLs under mirrored directories, against one index.

    Example:
        >>> with DedupFilter.open("crawl-index", Config.default()) as dedup:  # doctest: +SKIP
        ...     decision = dedup.check_page("https://a.example/x.html", body)
        ...     if decision.dropped:
        ...         print(decision.reason, decision.duplicate_of)
    """

    def __init__(
        self, index: LmdbIndex, config: Config, clock: Callable[[], float] = time.time
    ) -> None:
        self.index = index
        self.config = config
        self.counters: Counter[str] = Counter()
        self.preparer = PagePreparer(config)
        self._mirrors = MirrorDetector(config)
        self._url_rules = UrlRuleLearner(config)
        self._clock = clock
        self._duplicates_logged = 0

    @classmethod
    def open(cls, path: str | os.PathLike[str], config: Config | None = None) -> Self:
        """Open (or create) the shared index at ``path``."""
        config = config or Config.default()
        return cls(LmdbIndex.open(path, config), config)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.index.close()

    def check_page(
        self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None
    ) -> Decision:
        """Decide on one fetched page and, unless it is dropped, add it to the index."""
        return self.check_pages([(url, body, headers)])[0]

    def check_pages(self, pages: Iterable[PageInput]) -> list[Decision]:
        """Decide on a batch of ``(url, body[, headers])`` in order, in one write transaction.

        A decision's ``probes`` are URLs the mirror detector or the URL rules want fetched soon
        (whatever the decision's action): fetch each and feed it back through ``check_page`` under
        the probe URL, or report ``probe_failed`` when it cannot be fetched as a 2xx page.
        """
        return self.check_prepared(
            [self.preparer.prepare(url, body, *headers) for url, body, *headers in pages]
        )

    def check_prepared(self, pages: Iterable[PreparedPage]) -> list[Decision]:
        """``check_pages`` for pages prepared beforehand, possibly in other processes, by a
        ``PagePreparer`` of this filter's configuration: the same decisions, in order, in one
        write transaction."""
        prepared = list(pages)
        now = self._clock()
        decisions = self.index.transact(
            lambda view: [self._decide(view, page, now) for page in prepared]
        )
        for decision in decisions:
            self._count(decision)
        return decisions

    def check_url(self, url: str) -> Decision:
        """Pre-fetch check of a URL: the URL rules of its host first (``duplicate_url`` drops), then
        the mirror rules: ``drop`` (``mirrored_directory``) when its counterpart under the origin is
        held, ``defer`` while that is not known yet."""
        return self.check_urls([url])[0]

    def check_urls(self, urls: Iterable[str]) -> list[Decision]:
        """``check_url`` for many URLs in one read transaction (frontier pruning); deferred URLs
        are then remembered in one write transaction (``settle_deferred`` gives their fate)."""
        return self._recorded(self._read_urls(urls))

    def _recorded(self, decisions: list[Decision]) -> list[Decision]:
        """URL ``decisions`` as ``check_urls`` gives them: the deferrals written, all counted."""
        if any(decision.deferred for decision in decisions):
            now = self._clock()
            decisions = self.index.transact(
                lambda view: [
                    self._defer(view, decision, now) if decision.deferred else decision
                    for decision in decisions
                ]
            )
        for decision in decisions:
            self._count_url(decision)
        return decisions

    def check_url_unless_deferred(self, url: str) -> Decision | None:
        """``check_url`` in a read transaction only: ``None`` for a URL that would be deferred
        (its wait is written by ``check_url``), so a thread or process that must never wait for
        the index's writer can check URLs and leave those to the writer."""
        decision = self._read_urls([url])[0]
        if decision.deferred:
            return None
        self._count_url(decision)
        return decision

    def _read_urls(self, urls: Iterable[str]) -> list[Decision]:
        return self._read_normal_urls([normalize_url(url) for url in urls])

    def _read_normal_urls(self, normals: Iterable[str]) -> list[Decision]:
        with self.index.read() as view:
            return [self._check_url(view, url) for url in normals]

    def is_index_page(self, url: str) -> bool:
        """Whether ``url`` names a directory's index page (``mirror.index_names``): a crawl that
        fetches these first lets mirrors be paired before the pages they would prune."""
        return self.config.mirror.enabled and self._mirrors.is_index_page(normalize_url(url))

    def settle_deferred(self, max_age_s: float) -> list[Decision]:
        """Final decisions for deferred URLs whose counterpart's fate became known (``drop`` when
        it is held, ``keep`` when it is missing) or that waited ``max_age_s`` or longer (``keep``,
        ``counterpart_timed_out``). They are given again until ``release_deferred`` says they
        were acted upon: a crash before that costs a repeated decision, never a lost URL."""
        now = self._clock()
        with self.index.read() as view:
            through = functools.partial(self._through_alias, view)
            decisions = self._mirrors.settle_deferred(view, now, max_age_s, through)
            decisions += self._url_rules.settle(view, self._check_url, now, max_age_s)
        for decision in decisions:
            self.counters[f"deferred/{decision.action}/{decision.reason}"] += 1
        return decisions

    def release_deferred(self, urls: Iterable[str]) -> None:
        """Forget deferred URLs whose final decision (``settle_deferred``) was acted upon."""
        urls = list(urls)
        if urls:
            self.index.transact(lambda view: self._release_deferred(view, urls))

    def _release_deferred(self, view: IndexView, urls: list[str]) -> None:
        self._mirrors.release_deferred(view, urls)
        self._url_rules.release_deferred(view, urls)
        deferred_records.forget(view, urls)

    def keep_deferred_records(self, records: Mapping[str, bytes]) -> None:
        """Keep the caller's bytes beside URLs it was told to defer, the first given for each,
        until ``release_deferred``: a stream keeps the record it read, to forward it as it came
        when the URL settles as a keep (after a crash, or in another process, too)."""
        if records:
            self.index.transact(lambda view: deferred_records.keep(view, records))

    def deferred_records(self, urls: Iterable[str]) -> dict[str, bytes]:
        """The bytes ``keep_deferred_records`` kept for each of ``urls`` that has some."""
        with self.index.read() as view:
            return deferred_records.kept(view, urls)

    def any_deferred(self) -> bool:
        """Whether some URL waits for its counterpart (a restarted frontier settles them)."""
        with self.index.read() as view:
            return self._mirrors.any_deferred(view) or self._url_rules.any_deferred(view)

    def settle_candidates(self, max_age_s: float) -> list[Decision]:
        """Candidate pairs open ``max_age_s`` or longer: advanced with what the index holds now,
        their outstanding probes handed out again once (``probe`` decisions: fetch the
        ``probes``), and closed when still open after twice that (``candidate_expired``)."""
        now = self._clock()
        decisions = self.index.transact(
            lambda view: self._mirrors.settle_candidates(view, now, max_age_s)
        )
        for decision in decisions:
            self.counters[f"candidates/{decision.reason}"] += 1
            self._count_mirror_work(decision)
        return decisions

    def _check_url(self, view: IndexView, url: str) -> Decision:
        """One normalised URL against the rules, in a read transaction: a URL rule's drop, else
        a mirror rule's drop or deferral, else what the URL rules say (an alias waiting for its
        canonical URL), else the mirror rules' keep; first of all, a redirect rule's drop."""
        by_redirect = self._url_rules.redirects.check_url(view, url, self._check_landed)
        return by_redirect if by_redirect is not None else self._check_landed(view, url)

    def _check_landed(self, view: IndexView, url: str) -> Decision:
        """``_check_url`` but for the redirect rules: where a URL they send elsewhere lands."""
        by_alias = self._url_rules.check_url(view, url)
        dropped = self._dropped_alias(view, url, by_alias)
        if dropped is not None:
            return self._in_place_of_probe(view, dropped)
        by_mirror = self._through_alias(view, self._mirrors.check_url(view, url))
        if by_alias is None or by_mirror.dropped or by_mirror.deferred:
            return by_mirror
        return by_alias

    def _dropped_alias(
        self, view: IndexView, url: str, by_alias: Decision | None
    ) -> Decision | None:
        """The URL rules' drop of ``url``: its host's rules' (``by_alias``, their decision),
        else a ``layout`` rule's, else an ``edition`` rule's by another host's page; None when
        none drops it."""
        if by_alias is not None and by_alias.dropped:
            return by_alias
        if not self._url_rules.asks_other_hosts(view, url) or self._pinned(view, url):
            return None
        return self._by_layout(view, url) or self._by_edition_elsewhere(view, url)

    def _pinned(self, view: IndexView, url: str) -> bool:
        """Whether ``url`` is held itself or protected: no rule of another host's pages drops
        it."""
        return view.page_id_for_url(url) is not None or self._mirrors.protects(url)

    def _by_layout(self, view: IndexView, url: str) -> Decision | None:
        """A URL dropped as a copy of the page held for its URL on another host, where a
        confirmed ``layout`` rule moves it there (``urlrules/layouts.py``); None where no rule
        does, its side was crawled first (well before the other:
        ``mirrors.precedence.met_well_before``), or no URL it moves to is held (it is fetched:
        the other host may lack that translation). The caller asks ``_pinned`` first."""
        laid_out = self._url_rules.layout_counterparts(view, url)
        for counterpart, label, side, other_side in laid_out:
            if self._mirrors.met_well_before(view, side, other_side):
                continue  # a victim crawled first is never pruned for its copier's pages
            held = self._held_url(view, counterpart)
            if held is not None:
                evidence = {"url_rule": [label], "counterpart": counterpart}
                return Decision(url, "drop", Reason.DUPLICATE_URL, held, evidence)
        return None

    def _by_edition_elsewhere(self, view: IndexView, url: str) -> Decision | None:
        """A URL dropped as an untranslated copy where a confirmed ``edition`` rule's rewrite of
        it (``de/x.html`` to ``en/x.html``) was never fetched, dropped for a page of another
        host (a mirror's counterpart, a layout's), and that page's language bar names none of
        the URL's languages (``urlrules.editions.edition_elsewhere``); None where it names one,
        declares none, or that host was crawled well before this one
        (``mirrors.precedence.met_well_before``): a copier crawled first, its bars cut, would
        get the translations it does not hold pruned. The caller asks ``_pinned`` first. On the
        fourth helper's web the English pages of Debian's Apache manual were pruned for an
        English-only copy's, and about 170 untranslated German and Japanese pages a crawl were
        fetched and dropped."""
        held_elsewhere = functools.partial(self._held_elsewhere, view)
        found = self._url_rules.edition_elsewhere(view, url, held_elsewhere)
        if found is None or self._mirrors.met_well_before(view, _root(found.bar_of), _root(url)):
            return None
        evidence = {
            "url_rule": [found.label],
            "editions_declared": found.copy.declared,
            "editions_of": found.bar_of,
        }
        return Decision(url, "drop", Reason.DUPLICATE_URL, found.copy.held, evidence)

    def _held_elsewhere(self, view: IndexView, url: str) -> str | None:
        """The URL of the page held for ``url``, a URL never fetched, under a rule that drops it
        for another's page: a mirror rule's counterpart, else a ``layout`` rule's page; None
        where it was fetched (its own bar speaks), is protected, or no rule drops it."""
        if self._mirrors.held(view, url) is not None or self._pinned(view, url):
            return None
        by_mirror = self._mirrors.check_url(view, url)
        dropped = by_mirror if by_mirror.dropped else self._by_layout(view, url)
        return dropped.duplicate_of if dropped is not None else None

    def _held_url(self, view: IndexView, url: str) -> str | None:
        """The URL of the held page for ``url``'s content: its own or the page it was dropped
        for (``mirrors.held``), or the page the URL rules of its host drop it for (``a.html.en``
        for ``a.html``). Not a page a mirror rule holds for it: with language editions paired
        (``mirror.language_editions_apart`` off), a rule holds a German translation by its
        English source, and ``bench/translations.py --layout negotiated`` lost 8-13 translated
        pages so."""
        held = self._mirrors.held(view, url)
        if held is not None:
            return held
        alias = self._url_rules.check_url(view, url)
        return alias.duplicate_of if alias is not None and alias.dropped else None

    def _in_place_of_probe(self, view: IndexView, alias: Decision) -> Decision:
        """An alias dropped for a page that arrived as a mirror probe's answer, which the spider
        has not had: named to crawl in its place (``crawl_instead``), or what only that page
        links is never reached. On an independent web (random order) an origin's index page
        was fetched to pair its listing, the spider's own request for its ``index.html`` was
        dropped as its alias, and 29 pages only it linked were lost."""
        held = alias.duplicate_of
        if not held or "crawl_instead" in alias.evidence or not self._mirrors.probed(view, held):
            return alias
        return replace(alias, evidence=alias.evidence | {"crawl_instead": held})

    def _through_alias(self, view: IndexView, decision: Decision) -> Decision:
        """A URL waiting for its mirror counterpart, when the URL rules drop that counterpart
        as an alias of a held page (a mirror's sorted view, whose origin view is never fetched
        once the origin's sort rule is learnt), or as a translation another host holds (a
        ``layout`` rule): dropped as a copy of that page. On the fourth helper's web an
        English-only copy's URLs for the origin's translations waited for them and probed
        them, and the probes fetched some 70 translations a crawl that the layout rule held
        on a third host. So too a URL fetched unasked because its counterpart's probes mostly
        found nothing (the copy's side lacks the translations): Apache's ``x.html.en`` against
        the English-only copy's, an alias of its ``x.html`` there, up to 136 a crawl."""
        if decision.reason == Reason.COUNTERPART_PENDING:
            counterpart = decision.duplicate_of
        elif (
            decision.reason == Reason.COUNTERPART_MISSING
            and _ABSENT_BY_TALLY & decision.evidence.keys()
        ):
            counterpart = decision.evidence.get("counterpart")
        else:
            return decision
        if counterpart is None or "awaiting_absent_answer_of" in decision.evidence:
            return decision
        alias = self._dropped_alias(view, counterpart, self._url_rules.check_url(view, counterpart))
        if alias is None:
            return decision
        evidence = decision.evidence | {"url_rule": alias.evidence["url_rule"]}
        return replace(
            decision,
            action="drop",
            reason=Reason.MIRRORED_DIRECTORY,
            duplicate_of=alias.duplicate_of,
            evidence=evidence,
        )

    def _defer(self, view: IndexView, decision: Decision, now: float) -> Decision:
        """Remember a deferred URL where the rule that deferred it keeps its waiting URLs."""
        if decision.alias_waits:
            return self._url_rules.defer(view, decision, now)
        return self._probe_past_aliases(view, self._mirrors.defer(view, decision.url, now))

    def _probe_past_aliases(self, view: IndexView, decision: Decision) -> Decision:
        """A mirror URL's counterpart that is itself an alias waiting under a URL rule is not
        probed (fetching it would fetch the alias): what the alias waits for is, if anything.
        Once that is held, the URL rules drop the counterpart and ``_through_alias`` the URL."""
        counterpart = decision.duplicate_of
        if counterpart not in decision.probes:
            return decision
        alias = self._url_rules.check_url(view, counterpart)
        if alias is None or not alias.alias_waits:
            return decision
        others = tuple(probe for probe in decision.probes if probe != counterpart)
        return replace(decision, probes=others + alias.probes)

    def probe_failed(
        self, url: str, status: int | None = None, location: str | None = None
    ) -> Decision:
        """Report a probe that could not be fetched as a 2xx page (404, error, redirect away;
        ``location``: where a redirect sends, when known).

        Its sample counts as "could not be checked", not as a mismatch; a deferred URL's
        counterpart that fails releases that URL (``settle_deferred`` keeps it). The decision's
        ``probes`` are replacement probes to fetch. A redirect to another document of the same
        host is a page moved, which its side does not lack (docs/mirrors.md, point 60).
        """
        self.counters["probes_failed"] += 1
        return self._report_failed(self._mirrors.probe_failed, url, status, location)

    def counterpart_failed(
        self, url: str, status: int | None = None, location: str | None = None
    ) -> Decision:
        """Report that the counterpart of a deferred URL (its ``duplicate_of``) could not be
        fetched, asked for as a probe or not: the URLs waiting for it are then kept
        (``location`` as for ``probe_failed``)."""
        return self._report_failed(self._mirrors.counterpart_failed, url, status, location)

    def fetch_failed(self, url: str, status: int | None = None) -> list[Decision]:
        """Report a URL the crawl could not fetch as a page (a 404, an error). The decisions
        name the pages to crawl in its place, as ordinary requests whose links are followed
        (reason ``stand_in``): where a rule's kept side lacks the URL, the counterpart on its
        pruned side. That side's documents are dropped unfetched, so a page linked only from
        them, which the kept side links but lacks, would otherwise never be fetched."""
        normal = normalize_url(url)
        redirects = self._url_rules.redirects
        with self.index.read() as view:  # most failures lie under no rule's side held first
            found = self._mirrors.stand_ins(view, normal) or self._mirrors.lacked(view, normal)
            if not found and not normal.endswith("/") and status not in LACKING_STATUSES:
                return []

        def failed(view: IndexView) -> list[Decision]:
            stand_ins = self._mirrors.fetch_failed(view, normal, status)
            landed = redirects.fetch_failed(view, normal)
            if landed is not None:  # the slash rule's directory of a file: the file instead
                evidence = {"redirect_rule": landed[1], "directory_failed": normal}
                stand_ins.append(Decision(landed[0], "keep", Reason.STAND_IN, evidence=evidence))
            return stand_ins

        stand_ins = self.index.transact(failed)
        self.counters["stand_ins"] += len(stand_ins)
        return stand_ins

    def redirected(self, url: str, location: str, status: int) -> str | None:
        """Report a redirect the crawl followed (``location``: where it sent, absolute or
        relative to ``url``). Permanent ones of a shape a whole host answers alike teach its
        redirect rule (``urlrules/redirects.py``); the label of a rule this one confirmed, if any
        (counted as ``redirect_rules_confirmed``)."""
        normal = normalize_url(url)
        redirects = self._url_rules.redirects
        confirmed = self.index.transact(
            lambda view: redirects.redirected(view, normal, location, status)
        )
        self.counters["redirects_reported"] += 1
        if confirmed is not None:
            self.counters["redirect_rules_confirmed"] += 1
        return confirmed

    def links_to_follow(
        self,
        decision: Decision,
        body: bytes,
        headers: Mapping[Any, Any] | None = None,
        prepared: PreparedPage | None = None,
    ) -> list[str]:
        """The links a crawl should still follow from a page this filter dropped (its
        ``check_page`` decision and the same body): a dropped page's links are otherwise never
        followed, and it may link what its kept twin does not. Under a mirror rule (a page the
        kept side never had, or lacks since): the links under a rule that its URL checks would
        not drop now; links under no rule are left out (another site's pages, the kept side's,
        its own site's navigation: its twin links them too, or the crawl came in through them).
        Under no rule (a copy's page met before a rule, or a copy no rule will cover: its index
        page named otherwise, its sampling rejected): the links its twin does not name by the
        same references (``links_beyond_twin``) that URL checks would not drop: in another
        directory those are other pages, perhaps held nowhere else. ``[]`` for a kept page.
        ``prepared``: the page as it was checked; its anchors, if kept, spare a second parse."""
        return [checked.url for checked in self._links_checked(decision, body, headers, prepared)]

    def check_links_to_follow(
        self,
        decision: Decision,
        body: bytes,
        headers: Mapping[Any, Any] | None = None,
        prepared: PreparedPage | None = None,
        followed: Container[str] = (),
    ) -> list[Decision]:
        """``links_to_follow`` as ``check_urls`` decides them (keep or defer, the deferrals
        written, counted), from the URL checks that chose them: a frontier needs no second. A
        link in ``followed`` (the caller follows it already) is dropped as seen, not checked."""
        return self._recorded(self._links_checked(decision, body, headers, prepared, followed))

    def _links_checked(
        self,
        decision: Decision,
        body: bytes,
        headers: Mapping[Any, Any] | None,
        prepared: PreparedPage | None,
        followed: Container[str] = (),
    ) -> list[Decision]:
        if not decision.links_may_differ:
            return []
        anchors = prepared.whole_anchors() if prepared is not None else None
        if anchors is not None:
            links = resolve_links(decision.url, anchors)
        else:
            links = page_links(decision.url, body, headers, self.config.text.fallback_encoding)
        if not decision.dropped_under_rule:
            links = links_beyond_twin(decision.url, decision.duplicate_of or decision.url, links)
        seen = {link for link in links if link in followed}
        checked = self._read_normal_urls(  # resolved links are normal
            [link for link in links if link not in seen] if seen else links
        )
        return [
            link
            for link in checked
            if not link.dropped
            and ("mirror_rule" in link.evidence or not decision.dropped_under_rule)
        ] + [
            Decision(link, "drop", Reason.URL_SEEN, evidence={"rule": "followed"}) for link in seen
        ]

    def _report_failed(
        self,
        report: Callable[..., Decision],
        url: str,
        status: int | None,
        location: str | None = None,
    ) -> Decision:
        normal, now = normalize_url(url), self._clock()

        def reported(view: IndexView) -> Decision:
            self._url_rules.counterpart_failed(view, normal, status)
            if location:
                self._mirrors.redirected(view, normal, status, redirect_target(normal, location))
            return report(view, normal, status, now)

        decision = self.index.transact(reported)
        self._count_mirror_work(decision)
        return decision

    def probe_served(self, url: str) -> None:
        """Report that the crawler handed a page it fetched as a probe to its spider (whose
        links are followed now). Until then a probe's page counts as held but not crawled: a
        URL on a side held first is pruned for it only naming it to crawl in its place
        (``crawl_instead``; ``mirrors/pruning.py``)."""
        normal = normalize_url(url)
        with self.index.read() as view:
            if not self._mirrors.probed(view, normal):
                return
        self.index.transact(lambda view: self._mirrors.probe_served(view, normal))

    def pending_probes(self) -> list[str]:
        """Probes asked for and not yet answered: re-issue them after a restart."""
        with self.index.read() as view:
            return self._mirrors.pending_probes(view)

    def mirror_candidates(self) -> list[dict[str, Any]]:
        """Every candidate pair not (yet) a rule: open, rejected or expired, with its samples."""
        with self.index.read() as view:
            return self._mirrors.candidates(view)

    def unpruned(self, mirror: str) -> list[str]:
        """The URLs that the rule whose mirror side is ``mirror``, marked ``origin_lacks`` (a
        page's decision names it under ``mirrors_origin_lacking``), may have dropped before
        their fetch: for a frontier that forwarded none of them, to check them again (the rule
        no longer drops them). Empty for any other rule (docs/mirrors.md, point 20)."""
        with self.index.read() as view:
            return self._mirrors.unpruned(view, normalize_url(mirror))

    def mirror_rules(self) -> list[dict[str, Any]]:
        """Every mirror rule with its evidence (samples, matches, resemblance, when, boundary)."""
        with self.index.read() as view:
            return self._mirrors.rules(view)

    def session_hosts(self) -> list[dict[str, Any]]:
        """The hosts seen writing a session id into their links (``host``, the ``session``
        pairs filed): their URLs are placed without it (docs/mirrors.md, point 11)."""
        with self.index.read() as view:
            return self._mirrors.session_hosts(view)

    def remove_mirror_rule(self, directory: str) -> bool:
        """Delete the rule whose mirror side is ``directory``; whether there was one."""
        normal = normalize_url(directory)
        return self.index.transact(lambda view: self._mirrors.remove_rule(view, normal))

    def url_rules(self, with_candidates: bool = False) -> list[dict[str, Any]]:
        """Every confirmed URL rule with its evidence (and the open and dead candidates)."""
        with self.index.read() as view:
            return self._url_rules.rules(view, with_candidates)

    def remove_url_rule(self, label: str) -> bool:
        """Kill the URL rule named ``label`` ("host kind name"); whether there was a live one."""
        now = self._clock()
        return self.index.transact(lambda view: self._url_rules.remove_rule(view, label, now))

    def fingerprint(
        self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None
    ) -> Fingerprint:
        return self.preparer.fingerprinter.fingerprint(normalize_url(url), body or b"", headers)

    def _decide(self, view: IndexView, page: PreparedPage, now: float) -> Decision:
        fingerprint = page.fingerprint
        if fingerprint.token_count == 0 and not fingerprint.binary:
            self._mirrors.no_page(view, fingerprint.url)
            return Decision(
                fingerprint.url, "keep", Reason.EMPTY, evidence=_page_evidence(fingerprint)
            )
        placed = self._mirrors.before(view, fingerprint)
        decision = self._mirrors.after(
            view, placed, self._verdict(view, page, placed.recorded, now), now
        )
        decision = self._url_rules.observe(view, decision, now, fingerprint.editions)
        return self._editions_elsewhere(view, decision, now)

    def _editions_elsewhere(self, view: IndexView, decision: Decision, now: float) -> Decision:
        """What a page tells the ``edition`` rules through another host's bars
        (``_by_edition_elsewhere``): an exact copy whose source URL here is dropped for that
        host's page supports a rule (``learner.learn_elsewhere``); a page kept as unique that a
        rule would have dropped so kills it, for that host's bar does not tell this one's
        translations (another release, which translated the page since)."""
        held_elsewhere = functools.partial(self._held_elsewhere, view)
        if decision.reason == Reason.EXACT_DUPLICATE:
            return self._url_rules.learn_elsewhere(view, decision, held_elsewhere, now)
        if decision.reason not in (Reason.UNIQUE, Reason.CHANGED):
            return decision
        found = self._url_rules.edition_elsewhere(view, decision.url, held_elsewhere)
        if found is None:
            return decision
        killed = self._url_rules.refute(view, found.label, decision.url, found.copy.held, now)
        return replace(decision, evidence=decision.evidence | killed)

    def _verdict(
        self, view: IndexView, page: PreparedPage, recorded: DirEntry | None, now: float
    ) -> CheckedPage:
        """What the page rules say about the page; indexes it when they keep it."""
        fingerprint = page.fingerprint
        own_id = view.page_id_for_url(fingerprint.url)
        own = view.page(own_id) if own_id is not None else None
        first = _first_original(view, recorded, own_id)
        if own is not None and own.exact == fingerprint.exact:
            view.touch_page(own, now)
            decision, representative = _unchanged(fingerprint, own, first)
            return CheckedPage(decision, representative, fingerprint, page.links())
        match = self._match(view, fingerprint, own_id, first)
        if isinstance(match, Match):
            original = match.original
            # the original counts as seen now: gc must not remove a page whose copies are still
            # met, or the next copy would be judged unique
            view.touch_page(original, now)
            return CheckedPage(
                _drop(fingerprint, match),
                original.page_id,
                fingerprint,
                page.links(),
                original.url,
                lambda: self._put(view, fingerprint, own_id, now),
            )
        page_id = self._put(view, fingerprint, own_id, now)
        reason = Reason.CHANGED if own is not None else Reason.UNIQUE
        kept = _kept_page(fingerprint, reason)
        if isinstance(match, LookAlikes):
            kept.evidence["look_alikes"] = match.evidence
        return CheckedPage(kept, page_id, fingerprint, page.links())

    def _match(
        self,
        view: IndexView,
        fingerprint: Fingerprint,
        own_id: int | None,
        first: PageRecord | None,
    ) -> Match | LookAlikes | None:
        if first is not None and (match := duplicates(fingerprint, first, self.config)):
            return match  # a replay names the page it duplicated the first time
        exact = find_exact(view, fingerprint, own_id)
        return exact or find_near(view, fingerprint, own_id, self.config)

    @staticmethod
    def _put(view: IndexView, fingerprint: Fingerprint, own_id: int | None, now: float) -> int:
        """Index a kept page (under its existing id when it was seen before); its page id."""
        page_id = own_id if own_id is not None else view.new_page_id()
        record = PageRecord(
            page_id,
            fingerprint.url,
            fingerprint.exact,
            fingerprint.token_count,
            fingerprint.features,
            fingerprint.simhash,
            now,
            fingerprint.title,
            fingerprint.sketch,
            fingerprint.code,
            fingerprint.title_apart,
        )
        view.put_page(record)
        return page_id

    def _count_url(self, decision: Decision) -> None:
        self.counters["urls_checked"] += 1
        self.counters[f"urls/{decision.action}/{decision.reason}"] += 1
        if decision.alias_waits:
            self.counters["url_aliases_deferred"] += 1
        self.counters["url_rules_confirmed"] += len(
            decision.evidence.get("url_rules_confirmed", ())
        )

    def _count(self, decision: Decision) -> None:
        self.counters["pages_checked"] += 1
        self.counters[f"{decision.action}/{decision.reason}"] += 1
        self._count_mirror_work(decision)
        for event in ("url_rules_confirmed", "url_rules_killed"):
            self.counters[event] += len(decision.evidence.get(event, ()))
        if not decision.dropped:
            return
        if self._duplicates_logged == 0:
            logger.info(
                "dropped %s: %s of %s (further drops not shown; set log level DEBUG)",
                decision.url,
                decision.reason,
                decision.duplicate_of,
            )
        else:
            logger.debug(
                "dropped %s: %s of %s", decision.url, decision.reason, decision.duplicate_of
            )
        self._duplicates_logged += 1

    def _count_mirror_work(self, decision: Decision) -> None:
        self.counters["probes"] += len(decision.probes)
        self.counters["mirror_rules_confirmed"] += len(
            decision.evidence.get("mirrors_confirmed", ())
        )


def _drop(fingerprint: Fingerprint, match: Match) -> Decision:
    evidence = _page_evidence(fingerprint) | match.evidence
    return Decision(fingerprint.url, "drop", match.reason, match.original.url, evidence)


def _first_original(
    view: IndexView, recorded: DirEntry | None, own_id: int | None
) -> PageRecord | None:
    """The indexed page a replayed page duplicated the first time (None: its own, or gone)."""
    if recorded is None or recorded.representative == own_id:
        return None
    return view.page(recorded.representative)


def _unchanged(
    fingerprint: Fingerprint, own: PageRecord, first: PageRecord | None
) -> tuple[Decision, int]:
    """An indexed page seen again as it was, and the page standing for it (an original kept
    although met second names, again, the copy it duplicates)."""
    decision = _kept_page(fingerprint, Reason.UNCHANGED)
    if first is None:
        return decision, own.page_id
    return replace(decision, duplicate_of=first.url), first.page_id


def _kept_page(fingerprint: Fingerprint, reason: Reason) -> Decision:
    return Decision(fingerprint.url, "keep", reason, evidence=_page_evidence(fingerprint))


def _page_evidence(fingerprint: Fingerprint) -> dict[str, Any]:
    evidence: dict[str, Any] = {"tokens": fingerprint.token_count, "encoding": fingerprint.encoding}
    if fingerprint.truncated:
        evidence["truncated"] = True
    if not fingerprint.has_features and not fingerprint.binary:
        evidence["below_token_floor"] = True
    return evidence


# a counterpart missing by the rule's probe tallies (``mirrors.pruning``), not by its own answer
_ABSENT_BY_TALLY = {"counterpart_probes", "section_probes"}


def _root(url: str) -> str:
    """The root directory of ``url``'s host (``http://a.test/``)."""
    return f"{url.partition('://')[0]}://{authority_of(url)}/"
