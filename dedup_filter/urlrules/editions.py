"""``edition`` rules: a language's directory whose untranslated pages are its source's copies.

A partial translation serves its source's page where nothing was translated (Debian's Apache
manual: 223 of the German edition's 244 pages, 151 of the Japanese edition's), and its language
bar names the translations that exist (``features.alternates``). A pair ``ja/x.html`` dropped as
a copy of ``en/x.html``, whose page declares editions and not ``ja/x.html``, supports ``ja>en``;
a translation that the held page declares supports nothing and tells nothing against it. Once
confirmed, the rule drops a URL only for a held page that declares editions without naming it;
it never waits for that page (the page, not the rule, says whether the URL is a translation).
"""

from __future__ import annotations

from dedup_filter.features.alternates import undeclared
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.urlrules.aliases import Rules
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import EDITION, rewrite


def undeclared_by(view: IndexView, held: str, url: str) -> int:
    """How many editions the held page ``held`` declares when it does not name ``url`` among
    them; 0 when it names it, declares none or is not held."""
    page_id = view.page_id_for_url(held)
    record = view.page(page_id) if page_id is not None else None
    if record is None or not undeclared(record.alternates, url):
        return 0
    return len(record.alternates)


def edition_copy(view: IndexView, parts: UrlParts, rules: Rules) -> tuple[str, str, int] | None:
    """The held page an ``edition`` rule (of ``rules``) merges the URL with, the rule's label and
    the editions the page declares without naming the URL; None when no rule does."""
    url = parts.url()
    for key, scope in rules:
        rewritten = rewrite(key, parts, scope) if key.kind == EDITION else None
        if rewritten is None:
            continue
        declared = undeclared_by(view, rewritten.url(), url)
        if declared:
            return rewritten.url(), key.label, declared
    return None


def apart(rules: Rules) -> tuple[Rules, Rules]:
    """``rules`` as the ``edition`` rules, then the others."""
    return [rule for rule in rules if rule[0].kind == EDITION], [
        rule for rule in rules if rule[0].kind != EDITION
    ]
