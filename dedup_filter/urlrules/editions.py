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
editions without naming the URL, and its text is held (by that page or the one it duplicates);
it never waits for that page: the page, not the rule, says whether the URL is a translation.
Rows are read back only while the page they name is held (``gc`` leaves them).
"""

from __future__ import annotations

import struct

from dedup_filter.features.alternates import undeclared
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id, url_key
from dedup_filter.urlrules.aliases import Rules
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import EDITION, rewrite

_TABLE = "url_editions"
_PAGE, _FIRST_COPY = b"u", b"c"  # rows: a fetched page's editions; a host's first copy of a page
_ID_BYTES = len(encode_id(0))
_KEY = struct.Struct(">I")
_SEED = 0x65646974


def file_editions(view: IndexView, url: str, held: str, alternates: tuple[int, ...]) -> None:
    """Remember that the page fetched at ``url`` declared ``alternates`` and that the held page
    ``held`` (``url`` itself when kept) stands for its text; and ``url`` as its host's first page
    of that text, unless one came before."""
    page_id = view.page_id_for_url(held)
    if page_id is None or not alternates:
        return
    keys = b"".join(map(_KEY.pack, alternates))
    view.put(_TABLE, _PAGE + url_key(url), encode_id(page_id) + keys)
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


def undeclared_by(view: IndexView, fetched: str, url: str) -> tuple[str, int] | None:
    """The held page that stands for the text of the page fetched at ``fetched`` and how many
    editions that page declared, when it declared some and not ``url``; else None."""
    row = view.get(_TABLE, _PAGE + url_key(fetched))
    if row is None:
        return None
    alternates = tuple(key for (key,) in _KEY.iter_unpack(row[_ID_BYTES:]))
    if not undeclared(alternates, url):
        return None
    record = view.page(decode_id(row[:_ID_BYTES]))
    return None if record is None else (record.url, len(alternates))


def edition_copy(view: IndexView, parts: UrlParts, rules: Rules) -> tuple[str, str, int] | None:
    """The held page an ``edition`` rule (of ``rules``) merges the URL with, the rule's label and
    the editions its rewrite's page declared without naming the URL; None when no rule does."""
    url = parts.url()
    for key, scope in rules:
        rewritten = rewrite(key, parts, scope) if key.kind == EDITION else None
        found = undeclared_by(view, rewritten.url(), url) if rewritten is not None else None
        if found is not None:
            return found[0], key.label, found[1]
    return None


def apart(rules: Rules) -> tuple[Rules, Rules]:
    """``rules`` as the ``edition`` rules, then the others."""
    return [rule for rule in rules if rule[0].kind == EDITION], [
        rule for rule in rules if rule[0].kind != EDITION
    ]
