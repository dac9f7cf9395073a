"""Alias classes: the URLs a set of rules makes one, and the held page that stands for a class.

A URL's classes under some rules are the class keys of its rewrites: by each rule alone and by all
of them together. A class is *held* when a page of the index has a URL of it: the rewritten URL
itself, the page an ``url_aliases`` row names, re-checked against the rules (a row may be stale:
its page deleted by ``gc``, or filed under a rule that since died), or a URL a rule would build
from it (``dir/index.html`` held for ``dir/``). Rows are filed for pages kept while a rule of
their host was alive, so a page held before any rule of its kind existed is found by its URL
only: the first alias of it is fetched, dropped, and files the row. Invariant: a URL is only ever
answered with a page that is held now, never with itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import DROP, PARAMETER_KINDS, RuleKey, Scope, inverse, rewrite
from dedup_filter.urlrules.store import UrlRuleStore

Rules = Sequence[tuple[RuleKey, Scope]]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A URL rewritten into a class: its spelling, its class key, the key its held page is filed
    under (``filing_key``) and the rules that did it."""

    url: str
    class_key: str
    labels: tuple[str, ...]
    filing_key: str


def filing_key(key: RuleKey, parts: UrlParts, rewritten: UrlParts | None) -> str:
    """Where the held page of the URL's class under one rule is filed: the URL without the rule's
    parameters (and the kin of its family) for a parameter rule (so the rows a page files for a
    well-known parameter, before any rule names it, serve a drop or an ignore rule learnt later),
    else the class key."""
    if key.kind == DROP and rewritten is not None:
        return rewritten.class_key()
    if key.kind in PARAMETER_KINDS:
        return parts.without(key.group).class_key()
    return (rewritten or parts).class_key()


def rewrites(parts: UrlParts, rules: Rules) -> list[Rewrite]:
    """The URL under each rule that applies, then under all of them (when more than one does)."""
    found, combined, labels = [], parts, []
    for key, scope in rules:
        single = rewrite(key, parts, scope)
        if single is not None:
            filing = filing_key(key, parts, single)
            found.append(Rewrite(single.url(), single.class_key(), (key.label,), filing))
        together = rewrite(key, combined, scope)
        if together is not None:
            combined, labels = together, [*labels, key.label]
    if len(labels) > 1:
        class_key = combined.class_key()
        found.append(Rewrite(combined.url(), class_key, tuple(labels), class_key))
    return found


def canonical(parts: UrlParts, rules: Rules) -> UrlParts:
    """The URL rewritten by every rule that applies, one after the other."""
    for key, scope in rules:
        parts = rewrite(key, parts, scope) or parts
    return parts


def held_alias(
    view: IndexView, parts: UrlParts, rules_of: Callable[[UrlParts], Rules]
) -> tuple[str, tuple[str, ...]] | None:
    """A held page of one of the URL's classes other than the URL itself, and the rules that merge
    them; None when no class of the URL has a held page."""
    url, store, rules = parts.url(), UrlRuleStore(view), rules_of(parts)
    own = Rewrite(url, parts.class_key(), (), parts.class_key())
    for candidate in (*rewrites(parts, rules), own):
        if candidate.url != url and view.page_id_for_url(candidate.url) is not None:
            return candidate.url, candidate.labels
        found = filed(view, store, candidate, rules_of)
        if found is not None and found[0] != url:
            return found[0], candidate.labels or found[1]
    for key, scope in rules:  # the URL is the canonical one: dir/ for a held dir/index.html
        built = inverse(key, parts, scope)
        if built is not None and view.page_id_for_url(built.url()) is not None:
            return built.url(), (key.label,)
    return None


def filed(
    view: IndexView, store: UrlRuleStore, wanted: Rewrite, rules_of: Callable[[UrlParts], Rules]
) -> tuple[str, tuple[str, ...]] | None:
    """The held page filed where ``wanted`` would be, if the rules put it in the same class."""
    page_id = store.alias(wanted.filing_key)
    record = view.page(page_id) if page_id is not None else None
    if record is None:
        return None
    held = UrlParts.parse(record.url)
    for candidate in rewrites(held, rules_of(held)):
        if candidate.class_key == wanted.class_key:
            return record.url, candidate.labels
    return None


def file_alias(view: IndexView, store: UrlRuleStore, class_key: str, page_id: int) -> None:
    """File ``page_id`` as the held page of a class, unless a page still held stands for it."""
    existing = store.alias(class_key)
    if existing != page_id and (existing is None or view.page(existing) is None):
        store.put_alias(class_key, page_id)


def matches(name: str, patterns: tuple[str, ...]) -> bool:
    """Whether a parameter name is one of ``patterns`` (lower-cased; "utm_*" is a prefix)."""
    lowered = name.lower()
    return any(
        lowered.startswith(pattern[:-1]) if pattern.endswith("*") else lowered == pattern
        for pattern in patterns
    )
