"""How far a URL rule reaches: the values it merges and the classes it needs to be confirmed.

Invariant: a rule's reach only ever widens with evidence (more values seen, more hosts that
confirmed it), never by configuration alone, except for the operator's trusted parameters.
"""

from __future__ import annotations

from dedup_filter.config import UrlRulesConfig
from dedup_filter.urlrules.aliases import matches
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.records import UrlRule
from dedup_filter.urlrules.rewrite import ANY, DROP, IGNORE, RuleKey, Scope
from dedup_filter.urlrules.store import UrlRuleStore


class RuleReach:
    """The scope and the needed support of the rules of one configuration."""

    def __init__(self, config: UrlRulesConfig) -> None:
        self.config = config

    def confirmed(self, store: UrlRuleStore, host: str) -> list[tuple[RuleKey, Scope]]:
        return [(rule.key, self.scope(rule)) for rule in store.confirmed(host)]

    def scope(self, rule: UrlRule) -> Scope:
        """A drop rule merges only the values seen until it saw ``min_values`` of them (or names a
        well-known parameter); an ignore rule saw two values in its first pair already."""
        if rule.key.kind != DROP:
            return Scope(rule.values, any_value=True)
        any_value = self.known(rule.key) or len(rule.values) >= self.config.min_values
        return Scope(rule.values, any_value)

    def needed(self, store: UrlRuleStore, key: RuleKey) -> int:
        needed = self.config.min_support
        if self.known(key):
            needed = min(needed, self.config.min_support_known)
        if self._learnt_elsewhere(store, key):
            needed = min(needed, self.config.min_support_learnt)
        return needed

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
        return [
            (RuleKey(parts.authority, DROP, name), ANY)
            for name in sorted(parts.names())
            if matches(name, patterns)
        ]
