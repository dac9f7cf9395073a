"""Evidence against candidate rules (counterexamples) and for them (probes), from a kept page.

A page kept as unique (or changed) duplicates nothing held. If a rule would merge its URL with a
held URL whose page holds less than ``url_rules.counterexample_containment`` of its shingles (or
of the held page's, the smaller), the two hold other content: a counterexample, and the rule dies
for good. A pair closer than that proves nothing either way: a near copy the pair search missed
(as it does a few times in a hundred), a line inserted into a short page, the same words sorted
otherwise; nor does a pair of which a page is below the token floor (``text.min_tokens``), where
only an exact match tells anything (a 10-word page and its print view, 3 words longer, share
none of their few shingles). The tests look both ways: the page's rewrite under the rule is
held (``x?lang=fr`` kept, ``x`` held), or the page's own class has a held alias (``x`` kept,
``x?lang=fr`` held and filed under ``x``), or the URL the rule would build from it is held. A
single parameter whose removal gives a held URL is a counterexample even before any candidate
names it: the tombstone keeps the parameter from ever becoming a rule, alone or in a group.
Invariant: a dead rule never comes back to life.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from dedup_filter.config import Config
from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.matching import (
    below_token_floor,
    editions,
    resembles,
    shared_share,
)
from dedup_filter.urlrules.aliases import (
    Rewrite,
    Rules,
    canonical,
    file_alias,
    filing_key,
    matches,
    rewrites,
)
from dedup_filter.urlrules.editions import edition_copy
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.records import DEAD, UrlRule
from dedup_filter.urlrules.rewrite import (
    ANY,
    DROP,
    EDITION,
    LAYOUT,
    PARAMETER_KINDS,
    RuleKey,
    Scope,
    inverse,
    rewrite,
)
from dedup_filter.urlrules.store import UrlRuleStore

_MAX_TESTED_NAMES = 8  # parameters of one URL tested alone (a URL with more is tested on these)
# tokens a line inserted into a page adds, at most: a print view's note (3), a greeting (7)
_LINE_TOKENS = 12


def same_words(first: PageRecord, second: PageRecord) -> bool:
    """Whether two pages hold the same words in another order (a listing sorted by another
    column): the same token count and the same simhash, which is taken over term frequencies
    and so blind to order, where the shingles of the sketch are not."""
    return bool(first.simhash) and (first.simhash, first.token_count) == (
        second.simhash,
        second.token_count,
    )


def inserted_line(first: PageRecord, second: PageRecord, config: Config) -> bool:
    """Whether two pages of one host, no near duplicates, differ as a page does from itself
    with a line inserted: neither below the token floor, at most ``_LINE_TOKENS`` tokens apart
    (a listing that shows more items adds more), titled alike, no editions of one document, and
    the smaller's shingles held by the other at ``url_rules.suspect_containment`` (an edited or
    other page of one template loses more of them than it keeps)."""
    if below_token_floor(first, config) or below_token_floor(second, config):
        return False
    if abs(first.token_count - second.token_count) > _LINE_TOKENS:
        return False
    if first.title != second.title or editions(first, second, config):
        return False
    return shared_share(first, second, config) >= config.url_rules.suspect_containment


class Verdicts:
    """The tests of one page in one write transaction: rules killed, probes asked."""

    def __init__(self, store: UrlRuleStore, config: Config, now: float) -> None:
        self.store = store
        self.view = store.view
        self.config = config.url_rules
        self.pages_config = config
        self.now = now
        self.killed: list[str] = []

    def opened(self, key: RuleKey) -> UrlRule | None:
        """A new candidate, unless its host holds ``max_candidates_per_host`` already."""
        if len(self.store.of_host(key.host)) >= self.config.max_candidates_per_host:
            return None
        return UrlRule(key, created_at=self.now)

    def blocked(self, key: RuleKey) -> bool:
        """A parameter rule naming a parameter that was shown to select content."""
        if key.kind not in PARAMETER_KINDS or (key.kind == DROP and key.group == (key.name,)):
            return False
        return any(self._dead(RuleKey(key.host, DROP, name)) for name in key.group)

    def test(
        self,
        parts: UrlParts,
        page_id: int | None,
        rules: list[UrlRule],
        scope_of: Callable[[UrlRule], Scope],
    ) -> list[UrlRule]:
        """Test the rules of the page's host (``rules``) against it; the rules still alive after."""
        url, host = parts.url(), parts.authority
        for name in sorted(parts.names())[:_MAX_TESTED_NAMES]:
            held = self.holder(self.set_aside(parts.without((name,))), url, page_id)
            if held is not None and self._differ(page_id, held):
                self.kill(RuleKey(host, DROP, name), url, held, rules)
        alive = []
        for rule in rules:
            if rule.state == DEAD or rule.key.label in self.killed:
                continue
            held = self._counterpart(rule.key, parts, page_id, scope_of(rule))
            if held is None or not self._differ(page_id, held):
                alive.append(rule)
            else:
                self.kill(rule.key, url, held, rules)
        return [rule for rule in alive if rule.key.label not in self.killed]

    def kill(self, key: RuleKey, alias: str, held: str, rules: list[UrlRule]) -> None:
        """Record a counterexample: the rule dies (and with a single parameter, every parameter
        rule of the host that names it)."""
        rule = self.store.rule(key) or self.opened(key)
        if rule is None or rule.state == DEAD or key.label in self.killed:
            return
        counterexamples = rule.counterexamples + 1
        self.store.put(
            replace(
                rule,
                state=DEAD,
                counterexamples=counterexamples,
                changed_at=self.now,
                example=(alias, held),
            )
        )
        self.killed.append(key.label)
        if key.kind == DROP and key.group == (key.name,):
            for other in rules:
                named = other.key.kind in PARAMETER_KINDS and key.name in other.key.group
                if named and other.key != key:
                    self.kill(other.key, alias, held, [])

    def probe(self, rule: UrlRule, parts: UrlParts, scope: Scope, unless: str = "") -> list[str]:
        """The URL the thin candidate would merge with this page, to be fetched (at most
        ``max_probes`` a candidate, never a held URL nor ``unless``, the pair's alias): built
        on the page's URL without its well-known parameters where it can be (``x?part=2`` for
        ``x?sessionid=S``, a URL the site links, where ``x?sessionid=S&part=2`` may not even be
        served), and only from a page shaped like the held side of the candidate's pairs (a
        directory for a rule seen on listings, ``d/?C=N;O=D``: a document's sorted view tells
        nothing)."""
        if rule.probes_asked >= self.config.max_probes or not _shaped_like(parts, rule.example[1]):
            return []
        built = inverse(rule.key, self.set_aside(parts), scope) or inverse(rule.key, parts, scope)
        if built is None:
            return []
        if built.params and not parts.params:  # spelt as its pairs were (``?C=N;O=D``)
            separator = UrlParts.parse(rule.example[0] or built.url()).separator
            built = UrlParts(built.origin, built.path, built.params, separator)
        if built.url() == unless or self.view.page_id_for_url(built.url()) is not None:
            return []
        self.store.put(replace(rule, probes_asked=rule.probes_asked + 1))
        return [built.url()]

    def file_classes(self, parts: UrlParts, page_id: int, rules: Rules) -> None:
        """File the kept page as the held page of the classes its URL falls in under ``rules``."""
        for filing in dict.fromkeys(found.filing_key for found in rewrites(parts, rules)):
            file_alias(self.view, self.store, filing, page_id)

    def evidence(self) -> dict[str, Any]:
        return {"url_rules_killed": self.killed} if self.killed else {}

    def well_known(self, parts: UrlParts) -> Rules:
        """Drop rules for the URL's well-known parameters that no counterexample killed on its
        host: set aside to explain a pair or find a counterexample, never to prune."""
        keys = (RuleKey(parts.authority, DROP, name) for name in sorted(parts.names()))
        return [
            (key, ANY)
            for key in keys
            if matches(key.name, self.config.known_parameters) and not self._dead(key)
        ]

    def set_aside(self, parts: UrlParts) -> UrlParts:
        """The URL without its well-known parameters (``well_known``)."""
        return canonical(parts, self.well_known(parts))

    def _counterpart(
        self, key: RuleKey, parts: UrlParts, page_id: int | None, scope: Scope
    ) -> str | None:
        """A held URL of other content that the rule would merge with the page, if any (for an
        ``edition`` rule, only a held page that declares editions and does not name the page's
        URL: a translation it names is no counterexample; for a ``layout`` rule, the URL held
        on the other host, the page on either)."""
        url, base = parts.url(), self.set_aside(parts)
        if key.kind == EDITION:
            found = edition_copy(self.view, base, key, scope)
            return found.held if found is not None and found.held != url else None
        if key.kind == LAYOUT:  # the page on either host, the other's URL held
            moved = rewrite(key, parts) or inverse(key, parts, scope)
            return self._held(moved.url(), url) if moved is not None else None
        rewritten = rewrite(key, base, scope)
        if rewritten is not None:
            held = self.holder(rewritten, url, page_id)
            if held is not None:
                return held
        wanted = Rewrite(url, (rewritten or base).class_key(), (), "")
        held = self._filed(
            replace(wanted, filing_key=filing_key(key, base, rewritten)), page_id, key, scope
        )
        if held is not None:
            return held
        built = inverse(key, base, scope)
        return None if built is None else self._held(built.url(), url)

    def _filed(
        self, wanted: Rewrite, page_id: int | None, key: RuleKey, scope: Scope
    ) -> str | None:
        """A held page of other content filed where ``wanted`` would be, in its class."""
        filed_id = self.store.alias(wanted.filing_key)
        record = self.view.page(filed_id) if filed_id not in (None, page_id) else None
        if record is None:
            return None
        held = UrlParts.parse(record.url)
        classed = self.set_aside(rewrite(key, held, scope) or held)
        return record.url if classed.class_key() == wanted.class_key else None

    def holder(self, wanted: UrlParts, own: str, page_id: int | None) -> str | None:
        """A held URL of ``wanted``'s class other than the page itself: the URL, or the page filed
        for the class when its URL without its well-known parameters is the class's."""
        held = self._held(wanted.url(), own)
        if held is not None:
            return held
        filed_id = self.store.alias(wanted.class_key())
        record = self.view.page(filed_id) if filed_id not in (None, page_id) else None
        if record is None:
            return None
        classed = self.set_aside(UrlParts.parse(record.url)).class_key() == wanted.class_key()
        return record.url if classed else None

    def _differ(self, page_id: int | None, held: str) -> bool:
        """Whether the kept page and the held page are other content (unknown counts as other)."""
        held_id = self.view.page_id_for_url(held)
        own = self.view.page(page_id) if page_id is not None else None
        other = self.view.page(held_id) if held_id is not None else None
        if own is None or other is None:
            return True
        if below_token_floor(own, self.pages_config) or below_token_floor(other, self.pages_config):
            return False  # a pair proves nothing there
        if resembles(own, other, self.pages_config) or same_words(own, other):
            return False
        return shared_share(own, other, self.pages_config) < self.config.counterexample_containment

    def _held(self, url: str, own: str) -> str | None:
        return url if url != own and self.view.page_id_for_url(url) is not None else None

    def _dead(self, key: RuleKey) -> bool:
        rule = self.store.rule(key)
        return rule is not None and rule.state == DEAD


def _shaped_like(parts: UrlParts, example: str) -> bool:
    """Whether the URL is a directory exactly when ``example`` is (any URL when it is empty)."""
    if not example:
        return True
    return parts.path.endswith("/") == UrlParts.parse(example).path.endswith("/")
