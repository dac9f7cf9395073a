"""How far a URL rule reaches: the values it merges and the classes it needs to be confirmed.

Invariant: a rule's reach only ever widens with evidence (more values seen, more hosts that
confirmed it), never by configuration alone, except for the operator's trusted parameters.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import islice

from dedup_filter.config import UrlRulesConfig
from dedup_filter.urlrules.aliases import matches
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.records import DEAD, UrlRule
from dedup_filter.urlrules.rewrite import ANY, DROP, EDITION, IGNORE, LAYOUT, RuleKey, Scope
from dedup_filter.urlrules.store import UrlRuleStore

# hosts of one kind and name read to pool candidates and values: check_url reads them, so a name
# thousands of hosts saw with one value each (format=print) costs a bounded scan
_POOL_SCAN = 32


class RuleReach:
    """The scope and the needed support of the rules of one configuration."""

    def __init__(self, config: UrlRulesConfig) -> None:
        self.config = config

    def confirmed(self, store: UrlRuleStore, host: str) -> tuple[tuple[RuleKey, Scope], ...]:
        """The confirmed rules of ``host`` and their scopes (read once a committed state of the
        index: every URL check of the host asks). A drop rule whose parameters all
        belong to one well-known family (``utm_medium&utm_source`` of ``utm_*``) reaches the
        family's other parameters (``utm_campaign``) unless a rule naming them died on the host:
        a tracking family is read by the page's analytics script, not by the server, and the
        host showed that it ignores the family."""
        return store.view.memoised(("url_rules", host), lambda: self._confirmed(store, host))

    def _confirmed(self, store: UrlRuleStore, host: str) -> tuple[tuple[RuleKey, Scope], ...]:
        rules = store.confirmed(host)
        families = {rule.key: self.family(rule.key) for rule in rules}
        excluded = self._dead_names(store, host) if any(families.values()) else ()
        return tuple(
            (
                rule.key,
                replace(self.scope(rule), family=families[rule.key], excluded=excluded),
            )
            for rule in rules
        )

    def family(self, key: RuleKey) -> str:
        """The prefix of the well-known family (a ``*`` pattern of ``known_parameters``) that
        names every parameter of a drop rule; "" when there is none."""
        if key.kind != DROP:
            return ""
        for pattern in self.config.known_parameters:
            prefix = pattern[:-1].lower()
            if pattern.endswith("*") and all(name.lower().startswith(prefix) for name in key.group):
                return prefix
        return ""

    @staticmethod
    def _dead_names(store: UrlRuleStore, host: str) -> tuple[str, ...]:
        """The parameters named by a rule that died on ``host``: each was shown to select
        content there, alone or in its group."""
        names = {
            name
            for rule in store.unconfirmed(host)
            if rule.state == DEAD and rule.key.kind in (DROP, IGNORE)
            for name in rule.key.group
        }
        return tuple(sorted(names))

    def scope(self, rule: UrlRule) -> Scope:
        """A drop rule merges only the values seen on its own host until it saw ``min_values``
        of them there (or names a well-known parameter); an ignore rule saw two values in its
        first pair already. Values seen on other hosts never widen it: a parameter may select
        content on one host and not on others (``id``), and a rule confirmed from one pair
        (``item`` and ``item?id=1``, the first item shown by default) on the strength of other
        hosts' rules would have dropped every ``item?id=N`` of a catalogue unfetched."""
        if rule.key.kind != DROP:
            return Scope(rule.values, any_value=True)
        any_value = self.known(rule.key) or len(rule.values) >= self.config.min_values
        return Scope(rule.values, any_value)

    def needed(self, store: UrlRuleStore, key: RuleKey) -> int:
        """The classes a rule needs on its host. What other hosts learnt lowers it for every
        kind but an ignore rule: one pair of two values answered alike (two unknown ids
        answered with one "not found" page) would merge every value of the host, where a drop
        rule merges only the values its host showed (``scope``); an edition rule: which
        pages a host left untranslated is its own doing; and a layout rule: which host copies
        which is the two hosts' own doing."""
        needed = self.config.min_support
        if self.known(key):
            needed = min(needed, self.config.min_support_known)
        if key.kind not in (IGNORE, EDITION, LAYOUT) and (
            self._learnt_elsewhere(store, key) or self._pooled(store, key)
        ):
            needed = min(needed, self.config.min_support_learnt)
        return needed

    def _pooled(self, store: UrlRuleStore, key: RuleKey) -> bool:
        """Whether the support of this kind and name on ``learnt_from_hosts`` other hosts, with
        the ``min_support_learnt`` classes the host itself needs, covers ``min_support`` classes:
        hosts of one listing each never confirm ``drop C&O`` alone, but three such listings prove
        Apache's sorted views as one host's three listings would."""
        hosts, classes = 0, self.config.min_support_learnt
        for count in self._elsewhere(store, key):
            hosts, classes = hosts + 1, classes + count
            if hosts >= self.config.learnt_from_hosts and classes >= self.config.min_support:
                return True
        return False

    def _elsewhere(self, store: UrlRuleStore, key: RuleKey) -> Iterator[int]:
        """The classes of the live rules of this kind and name on other hosts (among
        the first ``_POOL_SCAN`` hosts read); none when pooling is off (``learnt_from_hosts``
        0) or a rule of this kind and name died anywhere."""
        if self.config.learnt_from_hosts == 0 or store.died_anywhere(key.kind, key.name):
            return
        for host, classes in islice(store.supporting_hosts(key.kind, key.name), _POOL_SCAN):
            if host != key.host:
                yield classes

    def _learnt_elsewhere(self, store: UrlRuleStore, key: RuleKey) -> bool:
        """Whether ``learnt_from_hosts`` other hosts confirmed a rule of this kind and name: the
        same software aliases the same way on every site (Apache's sorted listings, a CMS's
        print view), so such a rule is a well-known candidate on a new host."""
        wanted = self.config.learnt_from_hosts
        if wanted == 0:
            return False
        hosts = store.confirming_hosts(key.kind, key.name, wanted + 1)
        return len([host for host in hosts if host != key.host]) >= wanted

    def known(self, key: RuleKey) -> bool:
        return key.kind in (DROP, IGNORE) and all(
            matches(name, self.config.known_parameters) for name in key.group
        )

    @staticmethod
    def virtual(parts: UrlParts, patterns: tuple[str, ...]) -> list[tuple[RuleKey, Scope]]:
        """Single-parameter drop rules for the URL's parameters that ``patterns`` name."""
        if not patterns:  # none trusted (the default): asked at every URL check, nothing to build
            return []
        return [
            (RuleKey(parts.authority, DROP, name), ANY)
            for name in sorted(parts.names())
            if matches(name, patterns)
        ]
