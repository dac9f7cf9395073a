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
translation. Where that page was never fetched, dropped before its fetch for a page of another
host (a mirror's, a layout's), that page's bar says it by the languages it names
(``edition_elsewhere``): the filter asks it (``filter._by_edition_elsewhere``).
Rows are read back only while the page they name is held (``gc`` leaves them).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import NamedTuple

from dedup_filter.features.alternates import Editions, language_undeclared, undeclared
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id, url_key
from dedup_filter.languages import language_tag, languages_of
from dedup_filter.urlrules.aliases import Rules
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import EDITION, EDITION_JOINER, LAYOUT, RuleKey, Scope, rewrite

_TABLE = "url_editions"
# rows: a fetched page's editions; a host's first copy of a page; the languages a host's bars name
_PAGE, _FIRST_COPY, _NAMED = b"u", b"c", b"n"
_NAMED_CAP = 64  # languages a host's row keeps (Apache's manual names 10)
_ID_BYTES = len(encode_id(0))
_KEY = struct.Struct(">I")
_SEED = 0x65646974
# directories named by a language tried for a copy's source: a hostile URL may name one in each
# of a thousand segments, and each try asks the mirror and layout rules
_SOURCE_TRIES = 2


class Undeclared(NamedTuple):
    """A fetched page that declared editions and not the URL asked about: the held page for its
    text, how many editions it declared, and the language it declared itself in."""

    held: str
    declared: int
    language: str


class Elsewhere(NamedTuple):
    """An ``edition`` rule's drop by a page of another host: the page it names the URL a copy
    of, the rule's label, and the URL of the page whose bar names none of its languages."""

    copy: Undeclared
    label: str
    bar_of: str


def file_editions(view: IndexView, url: str, held: str, editions: Editions) -> None:
    """Remember that the page fetched at ``url`` declared ``editions`` and that the held page
    ``held`` (``url`` itself when kept) stands for its text; and ``url`` as its host's first page
    of that text, unless one came before."""
    page_id = view.page_id_for_url(held)
    if page_id is None or not editions.keys:
        return
    texts = (editions.language, ",".join(editions.languages))
    spelt = [text.encode("ascii", "replace")[:255] for text in texts]
    keys = b"".join(map(_KEY.pack, editions.keys))
    row = b"".join(bytes([len(text)]) + text for text in spelt)
    view.put(_TABLE, _PAGE + url_key(url), encode_id(page_id) + row + keys)
    first = _first_copy_key(url, page_id)
    if view.get(_TABLE, first) is None:
        view.put(_TABLE, first, url.encode("utf-8", "surrogatepass"))
    _file_named(view, url, editions.languages)


def _file_named(view: IndexView, url: str, languages: tuple[str, ...]) -> None:
    """Add ``languages`` to those the bars of ``url``'s host have named (``named_by_host``)."""
    if not languages:
        return
    key = _NAMED + _host_hash(url)
    named = _named(view, key)
    if named.issuperset(languages) or len(named) >= _NAMED_CAP:
        return
    merged = sorted(named.union(languages))[:_NAMED_CAP]
    view.put(_TABLE, key, ",".join(merged).encode("ascii", "replace"))


def _named(view: IndexView, key: bytes) -> frozenset[str]:
    row = view.get(_TABLE, key)
    return frozenset(bytes(row).decode("ascii").split(",")) if row is not None else frozenset()


def named_by_host(view: IndexView, url: str, segment: str) -> bool:
    """Whether a bar of ``url``'s host has named a language of the path segment ``segment``:
    only then does a bar of that host that does not name it say the page is untranslated. A
    copier that cut a language from all its bars never named it (issue 11: a copier must not get
    pages it does not hold pruned)."""
    return not languages_of(segment).isdisjoint(_named(view, _NAMED + _host_hash(url)))


def first_copy(view: IndexView, url: str, held: str) -> str | None:
    """The first page of ``url``'s host filed (``file_editions``) for the text of the held page
    ``held``, other than ``url``; None when there is none."""
    page_id = view.page_id_for_url(held)
    row = view.get(_TABLE, _first_copy_key(url, page_id)) if page_id is not None else None
    first = bytes(row).decode("utf-8", "surrogatepass") if row is not None else None
    return first if first != url else None


def _first_copy_key(url: str, page_id: int) -> bytes:
    return _FIRST_COPY + _host_hash(url) + encode_id(page_id)


def _host_hash(url: str) -> bytes:
    authority = url.partition("://")[2].partition("/")[0]
    return hash64(authority, _SEED).to_bytes(8, "big")


class _Filed(NamedTuple):
    """A ``u`` row: the held page's id, the language the page declared, the languages its bar
    names, and the keys of the URLs it names."""

    page_id: int
    language: str
    languages: tuple[str, ...]
    keys: tuple[int, ...]


def _filed(view: IndexView, fetched: str) -> _Filed | None:
    """The ``u`` row of the page fetched at ``fetched``; None when it declared no editions."""
    row = view.get(_TABLE, _PAGE + url_key(fetched))
    if row is None:
        return None
    row = bytes(row)
    texts, start = [], _ID_BYTES
    for _ in range(2):
        end = start + 1 + row[start]
        texts.append(row[start + 1 : end].decode("ascii"))
        start = end
    keys = tuple(key for (key,) in _KEY.iter_unpack(row[start:]))
    languages = tuple(texts[1].split(",")) if texts[1] else ()
    return _Filed(decode_id(row[:_ID_BYTES]), texts[0], languages, keys)


def _undeclared(view: IndexView, filed: _Filed) -> Undeclared | None:
    """What the row ``filed`` tells as an ``Undeclared``, while the page for its text is held."""
    record = view.page(filed.page_id)
    return None if record is None else Undeclared(record.url, len(filed.keys), filed.language)


def undeclared_by(view: IndexView, fetched: str, url: str) -> Undeclared | None:
    """The page fetched at ``fetched``, when it declared editions and not ``url`` and the page
    for its text is still held; else None."""
    filed = _filed(view, fetched)
    return _undeclared(view, filed) if filed is not None and undeclared(filed.keys, url) else None


def edition_copy(view: IndexView, parts: UrlParts, key: RuleKey, scope: Scope) -> Undeclared | None:
    """The page the ``edition`` rule ``key`` merges the URL with: its rewrite, fetched, declaring
    editions without naming the URL, in a language the rule's pairs showed on their held side
    (``scope.values``): a translation there, which need not name its source, is no copy of it."""
    rewritten = rewrite(key, parts, scope)
    found = undeclared_by(view, rewritten.url(), parts.url()) if rewritten is not None else None
    return found if found is not None and found.language in scope.values else None


def edition_elsewhere(
    view: IndexView, fetched: str, key: RuleKey, scope: Scope
) -> Undeclared | None:
    """The page fetched at ``fetched`` (on another host, held for the URL the ``edition`` rule
    ``key`` rewrites the URL into) when its bar names none of the languages of the directory the
    rule replaces, though another bar of its host named one (``named_by_host``), and it declared
    a language the rule's pairs showed on their held side."""
    filed = _filed(view, fetched)
    segment = key.name.partition(EDITION_JOINER)[0]
    if filed is None or filed.language not in scope.values:
        return None
    silent = language_undeclared(filed.languages, segment)
    return _undeclared(view, filed) if silent and named_by_host(view, fetched, segment) else None


def source_elsewhere(
    view: IndexView, parts: UrlParts, held: str, held_elsewhere: Callable[[str], str | None]
) -> tuple[str, Undeclared] | None:
    """The URL of the source page of ``parts`` (``en/x.html`` of ``ja/x.html``: a directory
    named by a language tag alone, put in the language the held page ``held`` declared), when
    it was never fetched but ``held_elsewhere`` names a page of another host for it that holds
    the same text as ``held`` and whose bar names none of that directory's languages; None
    else. A copy of the held page's text under ``ja/`` that the source's own bar, read on another
    host, says is untranslated: the pair an ``edition`` rule learns from."""
    page_id = view.page_id_for_url(held)
    source_row = _filed(view, held) if page_id is not None else None
    if source_row is None or not language_tag(source_row.language):
        return None
    segments = parts.path.split("/")
    tagged = [
        number
        for number, segment in enumerate(segments[1:-1], start=1)
        if language_tag(segment) and segment != source_row.language
    ]
    for number in tagged[:_SOURCE_TRIES]:
        segment = segments[number]
        source = parts.with_path(
            "/".join([*segments[:number], source_row.language, *segments[number + 1 :]])
        )
        fetched = held_elsewhere(source.url())
        filed = _filed(view, fetched) if fetched is not None else None
        if (
            filed is not None
            and filed.page_id == page_id
            and filed.language == source_row.language
            and language_undeclared(filed.languages, segment)
        ):
            found = _undeclared(view, filed)
            return (source.url(), found) if found is not None else None
    return None


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
