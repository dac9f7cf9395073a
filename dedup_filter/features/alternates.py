"""The language editions a page declares: the URLs its ``hreflang`` links name (a language bar,
``<link rel="alternate" hreflang>``), kept as 32-bit keys.

A site that installs a partial translation serves its untranslated pages as copies of the
source's (Debian's Apache manual: 223 of the German edition's 244 pages are the English ones),
and says which pages are translated: a page's language bar links its translations (Apache's
manual: ``hreflang`` anchors to each, never to itself), and a copy served in an edition's place
is the source's bytes, linking the source's translations, never the URL it is served under. So
a page that declares editions and does not name a URL of another language's directory tells
that the URL holds no translation of it (``urlrules``, the ``edition`` rule).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urljoin, urlsplit

from dedup_filter.features.hashing import hash64
from dedup_filter.languages import tags_apart
from dedup_filter.urls import normalize_url

MAX_ALTERNATES = 64  # a language bar names a few dozen at most; a hostile page names any number
_KEY_SEED = 0x68726566  # fixed: keys are stored, and compared with keys made at check time


@dataclass(frozen=True, slots=True)
class Editions:
    """What a page says of its editions: the keys of the URLs its language bar names, and the
    language its ``<html>`` element declares ("" without one): an untranslated copy declares
    its source's, a translation its own."""

    keys: tuple[int, ...] = ()
    language: str = ""


NO_EDITIONS = Editions()


def alternate_key(url: str) -> int:
    """The key of a URL (in normal form, ``urls.normalize_url``) among a page's alternates."""
    return hash64(url, _KEY_SEED) >> 32


def declared_alternates(page_url: str, base: str | None, hrefs: Iterable[str]) -> tuple[int, ...]:
    """The keys of the URLs ``hrefs`` name, resolved against the page's ``<base href>`` (or its
    URL), sorted; none unless each is the page's URL with one directory segment changed
    (``../../fr/mod/core.html`` of ``en/mod/core.html``) for one that differs only by its
    language tag (``languages.tags_apart``), and they are at most ``MAX_ALTERNATES``.

    Debian's Apache manual gives its top-level pages the bar of pages a level deeper
    (``en/dso.html`` names ``../../fr/dso.html``, outside the manual): such a bar names none of
    the translations that exist, which would all be taken as untranslated
    (``bench/translations.py`` lost two Brazilian pages so); served under another name
    (``apache-de/``), the tree's bars name ``../../en/``, no sibling of ``apache-de/`` either
    (the evaluation web lost English pages so). Nor may a bar name a translation under another
    spelling (``de/mod/`` for ``de/mod/index.html``), on other hosts or with a query. Links to
    the page itself are left out: a copy whose bar's links were all cut to ``#`` (the holdout
    webs cut every link that leaves a tree so) names nothing, and read as naming itself, lost
    sixteen Japanese translations.
    """
    try:
        start = urljoin(page_url, base) if base else page_url
        named = {normalize_url(urljoin(start, href.strip())) for href in set(hrefs)}
    except ValueError:  # an href that is no URL (an invalid IPv6 literal): the page declares none
        return ()
    named.discard(page_url)  # ``#``: a bar whose links were cut names the page itself
    if not named or len(named) > MAX_ALTERNATES:
        return ()
    page = urlsplit(page_url)
    if not all(_sibling(page, urlsplit(url)) for url in named):
        return ()
    return tuple(sorted(map(alternate_key, named)))


def _sibling(page: SplitResult, other: SplitResult) -> bool:
    """Whether ``other`` is ``page`` (both URLs in normal form) with one directory segment
    changed for one that differs only by its language tag."""
    if (page.scheme, page.netloc, page.query) != (other.scheme, other.netloc, other.query):
        return False
    segments, other_segments = page.path.split("/"), other.path.split("/")
    if len(segments) != len(other_segments) or segments[-1] != other_segments[-1]:
        return False
    changed = [(one, two) for one, two in zip(segments, other_segments, strict=True) if one != two]
    return len(changed) == 1 and tags_apart(*changed[0])


def undeclared(alternates: tuple[int, ...], url: str) -> bool:
    """Whether a page that declares the editions ``alternates`` (some) does not name ``url``
    (in normal form) among them: no translation of it that the site declares."""
    return bool(alternates) and alternate_key(url) not in alternates
