"""``edition`` rules: a language's directory whose untranslated pages are its source's copies.

A partial translation serves its source's page where nothing was translated (Debian's Apache
manual: 223 of the German edition's 244 pages, 151 of the Japanese edition's), and its language
bar names the translations that exist (``features.alternates``). So every fetched page that
declares editions files them, with the held page that stands for its text (itself when kept,
the page it duplicates when dropped as a copy), in ``url_editions``. A pair ``ja/x.html``
dropped as a copy of ``en/x.html``, whose page declares editions and not ``ja/x.html``, supports
``ja>en``; a translation that the page declares supports nothing and tells nothing against it.
Two pages of one host met as copies of one held page are such a pair too (``first_copy``): where
another host's manual was crawled first, the source edition's pages and their copies in the
translations' directories are all dropped for its pages, and no pair of one host forms.
Once confirmed, the rule drops a URL only where the page of its rewrite was fetched, declared
editions without naming the URL and, as its pairs' held pages did, the source's language (a
translation need not name its source), and its text is held (by that page or the one it
duplicates). It never waits for that page: the page, not the rule, says whether the URL is a
translation. Rows are read back only while the page they name is held (``gc`` leaves them).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from dedup_filter.features.alternates import Editions, undeclared
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id, url_key
from dedup_filter.urlrules.aliases import Rules
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import EDITION, LAYOUT, RuleKey, Scope, rewrite

_TABLE = "url_editions"
_PAGE, _FIRST_COPY = b"u", b"c"  # rows: a fetched page's editions; a host's first copy of a page
_ID_BYTES = len(encode_id(0))
_KEY = struct.Struct(">I")
_SEED = 0x65646974


class Undeclared(NamedTuple):
    """A fetched page that declared editions and not the URL asked about: the held page for its
    text, how many editions it declared, and the language it declared itself in."""

    held: str
    declared: int
    language: str


def file_editions(view: IndexView, url: str, held: str, editions: Editions) -> None:
    """Remember that the page fetched at ``url`` declared ``editions`` and that the held page
    ``held`` (``url`` itself when kept) stands for its text; and ``url`` as its host's first page
    of that text, unless one came before."""
    page_id = view.page_id_for_url(held)
    if page_id is None or not editions.keys:
        return
    language = editions.language.encode("ascii", "replace")[:255]
    keys = b"".join(map(_KEY.pack, editions.keys))
    view.put(
        _TABLE, _PAGE + url_key(url), encode_id(page_id) + bytes([len(language)]) + language + keys
    )
    first = _first_copy_key(url, page_id)
    if view.get(_TABLE, first) is None:
        view.put(_TABLE, first, url.encode("utf-8", "surrogatepass"))


def first_copy(view: IndexView, url: str, held: str) -> str | None:
    """The first page of ``url``'s host filed (``file_editions``) for the text of the held page
    ``held``, other than ``url``; None when there is none."""
    page_id = view.page_id_for_url(held)
    row = view.get(_TABLE, _first_copy_key(url, page_id)) if page_id is not None else None
    first = bytes(row).decode("utf-8", "surrogatepass") if row is not None else None
    return first if first != url else None


def _first_copy_key(url: str, page_id: int) -> bytes:
    authority = url.partition("://")[2].partition("/")[0]
    return _FIRST_COPY + hash64(authority, _SEED).to_bytes(8, "big") + encode_id(page_id)


def undeclared_by(view: IndexView, fetched: str, url: str) -> Undeclared | None:
    """The page fetched at ``fetched``, when it declared editions and not ``url`` and the page
    for its text is still held; else None."""
    row = view.get(_TABLE, _PAGE + url_key(fetched))
    if row is None:
        return None
    row = bytes(row)
    start = _ID_BYTES + 1 + row[_ID_BYTES]
    alternates = tuple(key for (key,) in _KEY.iter_unpack(row[start:]))
    if not undeclared(alternates, url):
        return None
    record = view.page(decode_id(row[:_ID_BYTES]))
    language = row[_ID_BYTES + 1 : start].decode("ascii")
    return None if record is None else Undeclared(record.url, len(alternates), language)


def edition_copy(view: IndexView, parts: UrlParts, key: RuleKey, scope: Scope) -> Undeclared | None:
    """The page the ``edition`` rule ``key`` merges the URL with: its rewrite, fetched, declaring
    editions without naming the URL, in a language the rule's pairs showed on their held side
    (``scope.values``): a translation there, which need not name its source, is no copy of it."""
    rewritten = rewrite(key, parts, scope)
    found = undeclared_by(view, rewritten.url(), parts.url()) if rewritten is not None else None
    return found if found is not None and found.language in scope.values else None


def copy_by_rules(view: IndexView, parts: UrlParts, rules: Rules) -> tuple[Undeclared, str] | None:
    """The page one of the ``edition`` rules of ``rules`` merges the URL with, and its label."""
    for key, scope in rules:
        found = edition_copy(view, parts, key, scope) if key.kind == EDITION else None
        if found is not None:
            return found, key.label
    return None


def apart(rules: Rules) -> tuple[Rules, Rules]:
    """``rules`` as the ``edition`` rules, then those that merge a URL into a class of its host:
    not the ``layout`` rules either, which the filter asks (``learner.layout_counterparts``)."""
    return [rule for rule in rules if rule[0].kind == EDITION], [
        rule for rule in rules if rule[0].kind not in (EDITION, LAYOUT)
    ]
