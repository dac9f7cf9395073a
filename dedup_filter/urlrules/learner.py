"""URL rules, learnt during the crawl (DUST made online) and proven before they prune a URL.

Life of a rule: a duplicate pair of URLs on one host that one rule explains (``induction.py``)
opens a *candidate* and supports it; a kept page that the candidate would merge with a held page
of other content is a *counterexample* and kills it for good (``evidence.py``), and so does one
found for a single parameter before any candidate exists (the parameter selects content: a trap
never becomes a rule). A candidate whose pairs cover ``min_support`` distinct classes (fewer for
the well-known session and tracking parameters, and for rules other hosts confirmed) with no
counterexample is *confirmed*; while its support is thin, kept pages of its host ask for probes
of the URLs it would merge. ``check_url`` drops a URL whose class under the confirmed rules of
its host has a held page (``aliases.py``).

This module is what the filter talks to. Invariants: every change happens in the caller's write
transaction; nothing is pruned unless a page of its class is held; every decision a rule causes
names it (evidence ``url_rule``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from dedup_filter.config import Config
from dedup_filter.decision import Decision, Reason, settle_waiting
from dedup_filter.features.alternates import NO_EDITIONS, Editions
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.matching import missed_same_site_copy
from dedup_filter.urlrules.aliases import (
    Rules,
    canonical,
    file_alias,
    filing_key,
    held_alias,
    matches,
)
from dedup_filter.urlrules.deferrals import (
    UrlDeferrals,
    awaiting_candidate,
    awaiting_canonical,
)
from dedup_filter.urlrules.editions import (
    Elsewhere,
    Undeclared,
    apart,
    copy_by_rules,
    edition_elsewhere,
    file_editions,
    first_copy,
    source_elsewhere,
    undeclared_by,
)
from dedup_filter.urlrules.evidence import Verdicts, inserted_line, same_words
from dedup_filter.urlrules.induction import MAX_GROUP, Explanation, explain
from dedup_filter.urlrules.layouts import LaidOut, layout_named
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.reach import RuleReach
from dedup_filter.urlrules.records import CONFIRMED, DEAD, OPEN, STATE_NAMES, UrlRule
from dedup_filter.urlrules.redirects import RedirectRules
from dedup_filter.urlrules.rewrite import CASE, EDITION, KIND_NAMES, LAYOUT, RuleKey, rewrite
from dedup_filter.urlrules.store import UrlRuleStore
from dedup_filter.urlrules.witnesses import note, witnesses

_DUPLICATES = (Reason.EXACT_DUPLICATE, Reason.NEAR_DUPLICATE)
_KEPT_UNIQUE = (Reason.UNIQUE, Reason.CHANGED)
Supported = tuple[dict[str, Any], list[str]]  # a pair's evidence, and the probes it asks for


class UrlRuleLearner:
    """Candidates, evidence and confirmed rules over the URL-rule tables of one index."""

    def __init__(self, config: Config) -> None:
        self.config = config.url_rules
        self.pages_config = config
        self._documents = tuple("/" + name for name in self.config.default_documents)
        self._reach = RuleReach(self.config)
        self.redirects = RedirectRules(self.config)

    # before the fetch
    def check_url(self, view: IndexView, url: str) -> Decision | None:
        """A drop when the URL's class under the confirmed rules of its host (and the trusted
        parameters, named apart: ``_trusted_named``) has a held page; a ``defer`` when it has
        none but the rules rewrite the URL into another (its canonical URL) or its class already
        supports an open candidate (``deferrals.py``); None when no rule applies (the URL is
        fetched and stands for its class)."""
        if not self.config.enabled:
            return None
        authority = _authority(url)
        store = UrlRuleStore(view)
        editions, confirmed = apart(self._reach.confirmed(store, authority))
        # a trusted parameter rewrites only a URL that carries one
        ruled = bool(confirmed) or (bool(self.config.trusted_parameters) and "?" in url)
        defer = self.config.defer_aliases
        may_wait = defer and ("?" in url or url.endswith(self._documents))
        if not ruled and not may_wait and not editions:
            return None
        parts = UrlParts.parse(url)
        if view.page_id_for_url(url) is not None:
            return None  # held itself: a recrawl is the page's own business
        copy = copy_by_rules(view, parts, editions) if editions else None
        if copy is not None:
            found, label = copy
            evidence = {"url_rule": [label], "editions_declared": found.declared}
            return _dropped_for(view, url, found.held, evidence)

        def rules_of(held: UrlParts) -> Rules:
            return [*confirmed, *self._reach.virtual(held, self.config.trusted_parameters)]

        found = held_alias(view, parts, rules_of) if ruled else None
        if found is not None:
            held, labels = found
            drop = _dropped_for(view, url, held, {"url_rule": list(labels)})
            return _trusted_named(drop, confirmed)
        waits = awaiting_canonical(view, parts, rules_of(parts)) if ruled and defer else None
        if waits is not None:
            return _trusted_named(waits, confirmed)
        if not may_wait:
            return None
        candidates = [
            (rule, self._reach.scope(rule))
            for rule in store.unconfirmed(authority)
            if rule.state == OPEN and rule.key.kind != EDITION
        ]
        return awaiting_candidate(view, parts, candidates)

    def edition_elsewhere(
        self, view: IndexView, url: str, held_elsewhere: Callable[[str], str | None]
    ) -> Elsewhere | None:
        """The page a confirmed ``edition`` rule of the URL's host merges it with where the
        rule's rewrite of it was never fetched, and ``held_elsewhere`` names the page fetched on
        another host that holds the rewrite's content: its bar names none of the languages of
        the directory the rule replaces (``editions.edition_elsewhere``)."""
        if not self.config.enabled:
            return None
        editions, _ = apart(self._confirmed(view, url))
        if not editions:
            return None
        parts = UrlParts.parse(url)
        for key, scope in editions:
            rewritten = rewrite(key, parts, scope)
            fetched = held_elsewhere(rewritten.url()) if rewritten is not None else None
            if fetched is not None:
                found = edition_elsewhere(view, fetched, key, scope)
                if found is not None:
                    return Elsewhere(found, key.label, fetched)
        return None

    def learn_elsewhere(
        self,
        view: IndexView,
        decision: Decision,
        held_elsewhere: Callable[[str], str | None],
        now: float,
    ) -> Decision:
        """An exact copy of another host's page under a language's directory that nothing else
        explains, whose source URL on its host was never fetched but is dropped for a page of
        that text on another host whose bar names no such translation
        (``editions.source_elsewhere``): the pair (``ja/x.html``, ``en/x.html``) supports
        ``ja>en`` as it would had the source been fetched here. Debian's English pages dropped
        for Apache's by a mirror rule otherwise left the untranslated pages nothing to pair
        with: on the fourth helper's web 150 were fetched depth first before their rules."""
        explained = "url_rule_support" in decision.evidence
        if not self.config.enabled or decision.reason != Reason.EXACT_DUPLICATE or explained:
            return decision
        parts = UrlParts.parse(decision.url)
        found = source_elsewhere(view, parts, decision.duplicate_of or "", held_elsewhere)
        if found is None:
            return decision
        source, declared = found
        store = UrlRuleStore(view)
        evidence, probes = self._support(store, decision.url, source, now, True, declared)
        if not evidence:
            return decision
        return replace(
            decision,
            evidence=decision.evidence | evidence | {"editions_of": declared.held},
            probes=decision.probes + tuple(probes),
        )

    def refute(
        self, view: IndexView, label: str, url: str, held: str, now: float
    ) -> dict[str, Any]:
        """Kill the rule ``label``: the page kept at ``url`` is no copy of ``held``, which the
        rule merges it with; the evidence to name in the page's decision."""
        key = RuleKey.from_label(label)
        if key is None:
            return {}
        verdicts = Verdicts(UrlRuleStore(view), self.pages_config, now)
        verdicts.kill(key, url, held, [])
        return verdicts.evidence()

    def asks_other_hosts(self, view: IndexView, url: str) -> bool:
        """Whether the URL's host has a confirmed rule that drops its URLs for other hosts'
        pages (``layout``, or ``edition`` through another host's bar): most hosts none, and the
        filter asks nothing more of them."""
        if not self.config.enabled:
            return False
        kinds = (EDITION, LAYOUT) if self.config.language_layouts else (EDITION,)
        return any(key.kind in kinds for key, _ in self._confirmed(view, url))

    def _confirmed(self, view: IndexView, url: str) -> Rules:
        """The confirmed rules of the URL's host, with their scopes (``RuleReach.confirmed``)."""
        return self._reach.confirmed(UrlRuleStore(view), _authority(url))

    def layout_counterparts(self, view: IndexView, url: str) -> list[LaidOut]:
        """The URLs of other hosts that the confirmed ``layout`` rules of the URL's host move it
        to: the filter drops the URL where one is held."""
        if not self.config.enabled or not self.config.language_layouts:
            return []
        keys = [key for key, _ in self._confirmed(view, url) if key.kind == LAYOUT]
        if not keys:
            return []
        parts = UrlParts.parse(url)
        laid_out = []
        for key in keys:
            layout = layout_named(key.name)
            moved = layout.moved(parts) if layout is not None else None
            if layout is not None and moved is not None:
                laid_out.append(LaidOut(moved.url(), key.label, *layout.sides))
        return laid_out

    def defer(self, view: IndexView, decision: Decision, now: float) -> Decision:
        """Remember an alias ``check_url`` deferred (in a write transaction); one waiting for a
        candidate that has the classes it needs by now (a rule learnt on other hosts since)
        confirms it, and is decided again."""
        label = decision.evidence.get("url_rule_candidate")
        if label and self._confirm_if_due(UrlRuleStore(view), label, now):
            again = self.check_url(view, decision.url)
            if again is not None and not again.deferred:
                return replace(again, evidence=again.evidence | {"url_rules_confirmed": [label]})
        UrlDeferrals(view).defer(decision.url, decision.duplicate_of or "", now)
        return decision

    def _confirm_if_due(self, store: UrlRuleStore, label: str, now: float) -> bool:
        """Confirm the open candidate ``label`` if it has the classes it needs by now."""
        key = RuleKey.from_label(label)
        rule = store.rule(key) if key is not None else None
        if (
            rule is None
            or rule.state != OPEN
            or len(rule.classes) < self._reach.needed(store, rule.key)
        ):
            return False
        store.put(replace(rule, state=CONFIRMED, changed_at=now))
        return True

    def counterpart_failed(self, view: IndexView, url: str, status: int | None) -> None:
        """A URL was not fetched as a page: the aliases waiting for it are fetched instead."""
        deferrals = UrlDeferrals(view)
        if deferrals.awaited(url):
            deferrals.settle(url, status or 0)

    # what the filter tells
    def observe(
        self, view: IndexView, decision: Decision, now: float, editions: Editions = NO_EDITIONS
    ) -> Decision:
        """Learn from a page's final decision: a same-host duplicate pair supports a candidate, a
        page kept as unique tests every candidate of its host and files its alias classes, a page
        that declares language editions files them (``editions.py``)."""
        if not self.config.enabled:
            return decision
        store = UrlRuleStore(view)
        self._fate(view, decision)
        duplicate = decision.dropped and decision.reason in _DUPLICATES
        if editions.keys and (duplicate or not decision.dropped):
            held = decision.duplicate_of if duplicate else decision.url
            file_editions(view, decision.url, held or "", editions)
        moved = self.redirects.served(view, decision.url)
        if moved is not None:
            killed = [*decision.evidence.get("url_rules_killed", ()), moved]
            decision = replace(decision, evidence=decision.evidence | {"url_rules_killed": killed})
        if duplicate and decision.duplicate_of:
            return self._learn(store, decision, now)
        if decision.reason in _KEPT_UNIQUE:
            self._witness(store.view, decision)
            return self._test(store, decision, now)
        return decision

    def _witness(self, view: IndexView, decision: Decision) -> None:
        """Remember a long kept page of its host under a URL of well-known parameters at most
        (``witnesses``)."""
        if decision.evidence.get("tokens", 0) < self.config.witness_min_tokens:
            return
        parts = UrlParts.parse(decision.url)
        if self._well_known(parts.names()):
            note(view, parts.authority, decision.url, self.config.max_probes)

    def settle(
        self,
        view: IndexView,
        check: Callable[[IndexView, str], Decision],
        now: float,
        max_age_s: float,
    ) -> list[Decision]:
        """Final decisions (by ``check``) for deferred aliases whose wait is over."""
        if not self.config.enabled:
            return []
        waiting = UrlDeferrals(view).waiting()
        return settle_waiting(waiting, lambda url: check(view, url), now, max_age_s)

    @staticmethod
    def release_deferred(view: IndexView, urls: Iterable[str]) -> None:
        deferrals = UrlDeferrals(view)
        for url in urls:
            deferrals.release(url)

    @staticmethod
    def any_deferred(view: IndexView) -> bool:
        return UrlDeferrals(view).any_waiting()

    @staticmethod
    def _fate(view: IndexView, decision: Decision) -> None:
        """An awaited canonical URL fetched: its aliases drop as duplicates of what holds it, or
        are fetched when nothing does."""
        deferrals = UrlDeferrals(view)
        if not deferrals.awaited(decision.url) or view.page_id_for_url(decision.url) is not None:
            return
        duplicate = decision.dropped and decision.reason in _DUPLICATES
        deferrals.settle(decision.url, 200, (duplicate and decision.duplicate_of) or "")

    def _learn(self, store: UrlRuleStore, decision: Decision, now: float) -> Decision:
        exact, held = decision.reason == Reason.EXACT_DUPLICATE, decision.duplicate_of or ""
        evidence, probes = self._support(store, decision.url, held, now, exact)
        sibling = first_copy(store.view, decision.url, held) if not evidence else None
        if sibling is not None and self._explains_edition(decision.url, sibling):
            evidence, probes = self._support(store, decision.url, sibling, now, exact)
        if not evidence:
            return decision
        return replace(
            decision,
            evidence=decision.evidence | evidence,
            probes=decision.probes + tuple(probes),
        )

    def _support(
        self,
        store: UrlRuleStore,
        alias: str,
        held: str,
        now: float,
        exact: bool = False,
        declared: Undeclared | None = None,
    ) -> Supported:
        """Let the pair (``alias``, ``held``), pages of one content (``exact``: the same text),
        support the rule that explains it; the evidence to name in the decision (none when no
        rule does), and the probes a candidate still thin asks on its host's long pages
        (``witnesses``). For an ``edition`` rule, ``declared`` is the page whose bar tells that
        ``alias`` is untranslated, where ``held`` was never fetched (``learn_elsewhere``).

        A ``case`` rule takes exact copies only: a server whose file names ignore case serves
        one file's bytes under both spellings, where a wiki serves a title's redirect as its
        target's page with a line naming the redirect. Three such redirects (``Apple_Pie`` of
        ``Apple_pie``) confirmed a red team's ``case`` rule, which then pruned ``CAN`` for
        ``Can`` and ``US`` for ``Us``, other articles (sixty-seventh session)."""
        verdicts = Verdicts(store, self.pages_config, now)
        explained = self._explain(store, verdicts, alias, held)
        if explained is None:
            return {}, []
        explanation, held_parts = explained
        key = explanation.key
        if key.kind in (CASE, LAYOUT) and not exact:
            return {}, []
        if key.kind == LAYOUT and not self.config.language_layouts:
            return {}, []
        values = explanation.values
        if key.kind == EDITION:  # the language the held page declared: the source's
            found = declared or undeclared_by(store.view, held, alias)
            if found is None:  # a translation the held page declares, or one that declares none
                return {}, []
            values = (found.language,)
        rule = store.rule(key) or verdicts.opened(key)
        if rule is None or rule.state == DEAD or verdicts.blocked(key):
            return {}, []
        rule = rule.supported(alias, held, explanation.canonical, values)
        evidence: dict[str, Any] = {"url_rule_support": key.label}
        if rule.state == OPEN and len(rule.classes) >= self._reach.needed(store, key):
            rule = replace(rule, state=CONFIRMED, changed_at=now)
            evidence["url_rules_confirmed"] = [key.label]
        store.put(rule)
        page_id = store.view.page_id_for_url(held)
        if page_id is not None and key.kind not in (EDITION, LAYOUT):  # they ask held pages
            scope = self._reach.scope(rule)
            filing = filing_key(key, held_parts, rewrite(key, held_parts, scope))
            file_alias(store.view, store, filing, page_id)
        return evidence, self._witness_probes(store, verdicts, rule, alias)

    def _explains_edition(self, alias: str, other: str) -> bool:
        """Whether the pair (``alias``, ``other``) of one host is explained by an ``edition``
        rule: two copies of one held page support no other kind (a copy met under two names
        tells nothing of how its host names one page)."""
        config = self.config
        explanation = explain(alias, other, config.default_documents, config.negotiated_languages)
        return explanation is not None and explanation.key.kind == EDITION

    def _suspect(self, store: UrlRuleStore, alias: str, held: str, now: float) -> Supported:
        """Let a pair of one host that differs by a line inserted into a short page (``evidence.
        inserted_line``) open the rule that explains it, without supporting it, and ask the
        probes of its host's long pages (``witnesses``), where such a line is a small part of the
        page: the pair tells where to look, the probes decide. Once a duplicate pair (a probe's)
        supports the rule, such pairs support it too. A news item's print view met before any
        long page's (a depth-first crawl of a portal's archive, holdout22: 80 print views of
        31-46-token items fetched, J 0.76) opened nothing and the rule waited for the manual's
        chapters."""
        verdicts = Verdicts(store, self.pages_config, now)
        explained = self._explain(store, verdicts, alias, held)
        if explained is None or explained[0].key.kind in (CASE, EDITION, LAYOUT):
            return {}, []
        explanation = explained[0]
        key = explanation.key
        rule = store.rule(key)
        if rule is not None and rule.state == OPEN and rule.support:
            return self._support(store, alias, held, now)
        if rule is None and not verdicts.blocked(key):
            rule = verdicts.opened(key)
            if rule is not None:  # its probes name the values the pair shows
                rule = replace(rule, values=explanation.values, example=(alias, held))
                store.put(rule)
        if rule is None or rule.state != OPEN:
            return {}, []
        probes = self._witness_probes(store, verdicts, rule, alias)
        return ({"url_rule_suspected": key.label}, probes) if probes else ({}, [])

    def _witness_probes(
        self, store: UrlRuleStore, verdicts: Verdicts, rule: UrlRule, alias: str
    ) -> list[str]:
        """The probes an open candidate asks on its host's long pages (``witnesses``)."""
        if rule.state != OPEN or rule.key.kind == LAYOUT or self._well_known(rule.key.group):
            return []
        scope, probes = self._reach.scope(rule), []
        for witness in witnesses(store.view, rule.key.host):
            stored = store.rule(rule.key) or rule  # each probe asked is counted in the rule
            probes += verdicts.probe(stored, UrlParts.parse(witness), scope, unless=alias)
        return probes

    def _well_known(self, names: Iterable[str]) -> bool:
        """Whether every one of the parameter ``names`` is well-known (session ids, tracking
        tags; so is an empty set: a URL without a query). A rule of such parameters asks no
        witness's probe: their aliases are mostly exact copies, which the crawl's own pairs show
        on pages of any length, and they need fewer classes. A page under such parameters is a
        witness: they are set aside when its probe is built."""
        return all(matches(name, self.config.known_parameters) for name in names)

    def _explain(
        self, store: UrlRuleStore, verdicts: Verdicts, alias: str, held: str
    ) -> tuple[Explanation, UrlParts] | None:
        """The rule that explains the pair, and the held side as the rule sees it: the URLs as
        they are, or else the held URL without what the confirmed rules of its host and the
        well-known parameters no counterexample killed there set aside, beside the alias as the
        confirmed rules (and then those parameters too) leave it: a print view or a session-id
        URL dropped against the tracking URL the crawl met its page under is explained as an
        alias of the page."""
        documents, negotiated = self.config.default_documents, self.config.negotiated_languages
        explanation = explain(alias, held, documents, negotiated)
        if explanation is not None:
            return explanation, UrlParts.parse(held)
        alias_parts, held_parts = UrlParts.parse(alias), UrlParts.parse(held)
        confirmed = apart(self._reach.confirmed(store, held_parts.authority))[1]
        held_class = canonical(held_parts, [*confirmed, *verdicts.well_known(held_parts)])
        for rules in (confirmed, [*confirmed, *verdicts.well_known(alias_parts)]):
            alias_class = canonical(alias_parts, rules)
            if (alias_class, held_class) == (alias_parts, held_parts):
                continue
            explanation = explain(alias_class.url(), held_class.url(), documents, negotiated)
            if explanation is not None:
                return explanation, held_class
        return None

    def _test(self, store: UrlRuleStore, decision: Decision, now: float) -> Decision:
        parts = UrlParts.parse(decision.url)
        rules = self._tested(store, parts.authority)
        if not rules and not parts.params:
            return decision  # most pages: nothing to test, nothing to file
        page_id = store.view.page_id_for_url(decision.url)
        verdicts = Verdicts(store, self.pages_config, now)
        missed, probes = self._missed_pair(store, verdicts, parts, page_id, now)
        if missed:
            rules = self._tested(store, parts.authority)
        known = self._reach.virtual(
            parts, self.config.known_parameters + self.config.trusted_parameters
        )
        survivors = verdicts.test(parts, page_id, rules, self._reach.scope)
        for rule in survivors:
            if rule.state != OPEN or rule.key.kind == LAYOUT:  # a layout asks no probe
                continue
            if len(rule.classes) < self._reach.needed(store, rule.key):
                probes += verdicts.probe(rule, parts, self._reach.scope(rule))
        if page_id is not None:
            scoped = [
                (rule.key, self._reach.scope(rule))
                for rule in survivors
                if rule.key.kind not in (EDITION, LAYOUT)
            ]
            verdicts.file_classes(parts, page_id, [*scoped, *known])
        evidence = missed | verdicts.evidence()
        if not evidence and not probes:
            return decision
        return replace(
            decision,
            evidence=decision.evidence | evidence,
            probes=decision.probes + tuple(probes),
        )

    @staticmethod
    def _tested(store: UrlRuleStore, host: str) -> list[UrlRule]:
        """The rules a kept page of ``host`` tests: its host's, and the ``layout`` rules of other
        hosts that move URLs onto it (a page kept here, whose URL there is held with other
        content, kills the rule as one kept there would)."""
        return [*store.of_host(host), *store.laid_onto(host)]

    def _missed_pair(
        self,
        store: UrlRuleStore,
        verdicts: Verdicts,
        parts: UrlParts,
        page_id: int | None,
        now: float,
    ) -> Supported:
        """A page kept as unique beside a held page of its URL without some of its parameters
        that holds the same words in another order (``d/?C=N;O=D`` beside ``d/``: the shingles
        tell them apart, but the parameter only sorts), or the same text as far as every test of
        a same-site drop but the super-shingles can tell (a print view that adds a line to a short
        news item: ``matching.missed_same_site_copy``): the pair supports its rule as a duplicate
        would. The held page may stand under its URL with well-known parameters (a news item met
        through a newsletter's tracking link)."""
        view = store.view
        own = view.page(page_id) if page_id is not None else None
        if own is None or not parts.params or len(parts.params) > MAX_GROUP:
            return {}, []
        bare = parts.without(tuple(parts.names()))
        singles = (parts.without((name,)) for name in sorted(parts.names()))
        for other in dict.fromkeys((bare, *singles)):
            held_url = verdicts.holder(verdicts.set_aside(other), parts.url(), page_id)
            held_id = view.page_id_for_url(held_url) if held_url is not None else None
            held = view.page(held_id) if held_id not in (None, page_id) else None
            if held is None:
                continue
            if same_words(own, held) or missed_same_site_copy(own, held, self.pages_config):
                return self._support(store, parts.url(), held.url, now)
            if inserted_line(own, held, self.pages_config):
                return self._suspect(store, parts.url(), held.url, now)
        return {}, []

    # listing and maintenance
    def rules(self, view: IndexView, with_candidates: bool = False) -> list[dict[str, Any]]:
        store = UrlRuleStore(view)
        listed = [self.describe(store, rule) for rule in store.every(with_candidates)]
        return listed + self.redirects.rules(view, with_candidates)

    def remove_rule(self, view: IndexView, label: str, now: float) -> bool:
        """Kill the rule named ``label`` ("host kind name"): it prunes nothing from now on and is
        never learnt again (it stays listed among the candidates, as removed)."""
        key = RuleKey.from_label(label)
        if key is None:
            return self.redirects.remove(view, label)
        store = UrlRuleStore(view)
        rule = store.rule(key)
        if rule is None or rule.state == DEAD:
            return False
        store.put(replace(rule, state=DEAD, changed_at=now, example=("removed", "")))
        return True

    def describe(self, store: UrlRuleStore, rule: UrlRule) -> dict[str, Any]:
        scope = self._reach.scope(rule)
        return {
            "rule": rule.key.label,
            "host": rule.key.host,
            "kind": KIND_NAMES[rule.key.kind],
            "name": rule.key.name,
            "state": STATE_NAMES[rule.state],
            "support": rule.support,
            "classes": len(rule.classes),
            "needed": self._reach.needed(store, rule.key),
            "counterexamples": rule.counterexamples,
            "values": list(rule.values),
            "any_value": scope.any_value,
            "probes": rule.probes_asked,
            "created_at": rule.created_at,
            "changed_at": rule.changed_at,
            "example": {"alias": rule.example[0], "held": rule.example[1]},
        }


def _dropped_for(view: IndexView, url: str, held: str, evidence: dict[str, Any]) -> Decision:
    """The URL dropped as an alias of the held page ``held``, which the crawl is told to crawl
    instead where it was fetched as a probe for an alias (maybe never parsed by the crawl: what
    only it links is reached when a dropped alias hands its request to it)."""
    if UrlDeferrals(view).awaited(held):
        evidence["crawl_instead"] = held
    return Decision(url, "drop", Reason.DUPLICATE_URL, held, evidence)


def _trusted_named(decision: Decision, confirmed: Rules) -> Decision:
    """``decision`` naming apart the rules it applied that no pair confirmed
    (``trusted_parameter_rules``): the configuration's ``trusted_parameters``, which
    ``dedup-filter rules`` does not list."""
    learnt = {key.label for key, _ in confirmed}
    trusted = [label for label in decision.evidence.get("url_rule", ()) if label not in learnt]
    if not trusted:
        return decision
    return replace(decision, evidence=decision.evidence | {"trusted_parameter_rules": trusted})


def _authority(url: str) -> str:
    """The host[:port] of a URL in normal form."""
    return url.partition("://")[2].partition("/")[0]
