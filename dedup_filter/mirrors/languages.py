"""Language editions named in directory paths are never paired.

A site's translations sit side by side under names that differ by a language tag (``en/`` and
``de/``, ``manual-en/`` and ``manual-fr/``, ``en-US/`` and ``fr-FR/``). A partial translation
installs its untranslated pages as copies of the source edition's (the Apache manual's German
edition: 56 of the 68 pages of its guides are the English pages), so coordinate sampling sees
matches, confirms, and the rule prunes the translated pages with the copies: content no other
URL holds (the fifth holdout web lost 9 pages so, docs/evaluation.md). Sampling cannot tell a
translation that few pages carry from a faithful copy; the names can. So two directories whose
paths carry language tags, and not the same ones, are never a candidate: their pages are fetched
and each is judged on its own (a copy is still dropped as a duplicate, after its fetch).

A tag is an ISO 639-1 code as a ``-``/``_``/``.``-separated part of a path segment (``de/``,
``manual-de/``, ``pt-br/``, ``zh_Hans/``), or a language's name in English or in itself
(``german/``, ``handbuch-deutsch/``: the same tag as ``de``), but for codes that are also
words in path names (``how-to``, ``io``). A directory without a tag pairs with anything: a
site's default edition is often unnamed, and a name like ``docs/`` says nothing. Two tagged
directories taken for editions wrongly cost fetches, never a page. Host names are not
read: ``de.`` and ``fr.`` name a country mirror at least as often as a language
(``de.archive.ubuntu.com``), and two country mirrors of one archive are the copies this filter
exists to find.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_CODES = (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw "
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv "
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr "
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi "
    "yo za zh zu"
)
# codes that are also words or abbreviations in path names (``how-to``, ``io``, ``vi``, ``os``):
# no language where they appear
_WORDS = "am as be he id ie io is ml ms my or os pi ps so to ts vi"
_ISO_639_1 = frozenset(_CODES.split()) - frozenset(_WORDS.split())
# languages named in English or in themselves (``/docs/german/``, ``/handbuch-deutsch/``), without
# diacritics, as URL paths mostly write them
_NAMES = {
    "english": "en",
    "german": "de",
    "deutsch": "de",
    "french": "fr",
    "francais": "fr",
    "spanish": "es",
    "espanol": "es",
    "italian": "it",
    "italiano": "it",
    "portuguese": "pt",
    "portugues": "pt",
    "dutch": "nl",
    "nederlands": "nl",
    "russian": "ru",
    "japanese": "ja",
    "chinese": "zh",
    "korean": "ko",
    "polish": "pl",
    "polski": "pl",
    "swedish": "sv",
    "svenska": "sv",
    "danish": "da",
    "dansk": "da",
    "finnish": "fi",
    "suomi": "fi",
    "norwegian": "no",
    "norsk": "no",
    "czech": "cs",
    "turkish": "tr",
    "greek": "el",
    "hungarian": "hu",
    "magyar": "hu",
}
_LANGUAGES = {code: code for code in _ISO_639_1} | _NAMES
_PARTS = re.compile(r"[-_.]")


def language_editions(directory: str, other: str) -> bool:
    """Whether two directory URLs name different language editions (both carry tags, and not
    the same)."""
    tags, other_tags = _tags(directory), _tags(other)
    return bool(tags) and bool(other_tags) and tags != other_tags


def _tags(directory: str) -> frozenset[str]:
    """The languages a directory URL's path names: its segments' ``-``/``_``/``.``-separated
    parts that are language codes or names (``de``, ``manual-de``, ``pt-br``, ``zh_Hans``,
    ``german``)."""
    return frozenset(
        _LANGUAGES[part]
        for segment in urlsplit(directory).path.lower().split("/")
        for part in _PARTS.split(segment)
        if part in _LANGUAGES
    )
