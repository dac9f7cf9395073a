"""The language editions a page declares: the URLs its ``hreflang`` links name (a language bar,
``<link rel="alternate" hreflang>``), kept as 32-bit keys.

A site that installs a partial translation serves its untranslated pages as copies of the
source's (Debian's Apache manual: 223 of the German edition's 244 pages are the English ones),
and says which pages are translated: a page's language bar links its translations (Apache's
manual: ``hreflang`` anchors to each, never to itself), and a copy served in an edition's place
is the source's bytes, linking the source's translations, never the URL it is served under. So
a page that declares editions and does not name a URL of another language's directory tells
that the URL holds no translation of it (``urlrules``, the ``edition`` rule). The languages its
bar names say so too where its URL is not the one asked about: a copy of the page on another
host, laid out otherwise (Apache's own manual names ``core.html.fr`` beside ``core.html.en``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urljoin, urlsplit

from dedup_filter.features.hashing import hash64
from dedup_filter.languages import language_tag, languages_of, tags_apart
from dedup_filter.urls import normalize_url

MAX_ALTERNATES = 64  # a language bar names a few dozen at most; a hostile page names any number
_KEY_SEED = 0x68726566  # fixed: keys are stored, and compared with keys made at check time


@dataclass(frozen=True, slots=True)
class Editions:
    """What a page says of its editions: the keys of the URLs its language bar names, the
    language its ``<html>`` element declares ("" without one: an untranslated copy declares
    its source's, a translation its own), and the languages the bar names (``de`` of
    ``../de/core.html`` and of ``core.html.de``), sorted."""

    keys: tuple[int, ...] = ()
    language: str = ""
    languages: tuple[str, ...] = ()


NO_EDITIONS = Editions()


def alternate_key(url: str) -> int:
    """The key of a URL (in normal form, ``urls.normalize_url``) among a page's alternates."""
    return hash64(url, _KEY_SEED) >> 32


def declared_editions(
    page_url: str, base: str | None, hrefs: Iterable[str], language: str
) -> Editions:
    """The editions the links ``hrefs`` of a page declared in ``language`` name, resolved
    against the page's ``<base href>`` (or its URL); none unless each is the page's URL with one
    directory segment changed (``../../fr/mod/core.html`` of ``en/mod/core.html``) for one that
    differs only by its language tag (``languages.tags_apart``), or with its file name's language
    suffix changed or added (``core.html.fr`` of ``core.html.en`` or of ``core.html``), and
    they are at most ``MAX_ALTERNATES``.

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
        return NO_EDITIONS
    named.discard(page_url)  # ``#``: a bar whose links were cut names the page itself
    if not named or len(named) > MAX_ALTERNATES:
        return NO_EDITIONS
    page = urlsplit(page_url)
    tags = [_edition_tag(page, urlsplit(url)) for url in named]
    if not all(tags):
        return NO_EDITIONS
    languages = sorted(set().union(*(languages_of(tag) for tag in tags if tag)))
    return Editions(tuple(sorted(map(alternate_key, named))), language, tuple(languages))


def _edition_tag(page: SplitResult, other: SplitResult) -> str | None:
    """The language tag ``other`` names where it is ``page`` (both URLs in normal form) with one
    directory segment changed for one that differs only by its language tag (that segment), or
    with its file name's language suffix changed or added (that suffix); None where it is not."""
    if (page.scheme, page.netloc, page.query) != (other.scheme, other.netloc, other.query):
        return None
    segments, other_segments = page.path.split("/"), other.path.split("/")
    if segments[:-1] != other_segments[:-1]:
        return _changed_directory(segments, other_segments)
    stem, _, suffix = segments[-1].rpartition(".")
    if not (stem and language_tag(suffix)):
        stem = segments[-1]
    named_stem, _, tag = other_segments[-1].rpartition(".")
    return tag if stem and named_stem == stem and language_tag(tag) else None


def _changed_directory(segments: list[str], other_segments: list[str]) -> str | None:
    """The segment of ``other_segments`` that changes one directory of ``segments`` for one that
    differs from it only by its language tag; None where the two differ otherwise."""
    if len(segments) != len(other_segments) or segments[-1] != other_segments[-1]:
        return None
    changed = [(one, two) for one, two in zip(segments, other_segments, strict=True) if one != two]
    return changed[0][1] if len(changed) == 1 and tags_apart(*changed[0]) else None


def undeclared(alternates: tuple[int, ...], url: str) -> bool:
    """Whether a page that declares the editions ``alternates`` (some) does not name ``url``
    (in normal form) among them: no translation of it that the site declares."""
    return bool(alternates) and alternate_key(url) not in alternates


def language_undeclared(languages: tuple[str, ...], segment: str) -> bool:
    """Whether a page whose bar names ``languages`` (some) names none that the path segment
    ``segment`` names (``de``, ``apache-de``): no translation into its language. Languages
    compare without regions (``pt`` for ``pt-br``), so a near one counts as declared."""
    asked = languages_of(segment)
    return bool(languages) and bool(asked) and not asked.intersection(languages)
