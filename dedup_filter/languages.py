"""Language editions named in URLs are never taken for copies of each other.

A site's translations sit side by side under names that differ by a language tag (``en/`` and
``de/``, ``manual-en/`` and ``manual-fr/``, ``en-US/`` and ``fr-FR/``), and most sites serve
their source language unnamed (``/docs/`` beside ``/de/docs/``, ``/3/library/`` beside
``/fr/3/library/``). A partial translation installs its untranslated pages as copies of the
source edition's (the Apache manual's German edition: 56 of the 68 pages of its guides are the
English pages), so the copies look like a mirror, or like aliases, and a rule learnt from them
prunes the translated pages with the copies: content no other URL holds. Sampling cannot tell a
translation that few pages carry from a faithful copy; the names can. So:

- two directories whose tags differ are never a mirror candidate (``language_editions``; no
  tag is a tag too, the site's default edition's), unless one names none and the index pages of
  both declare the language the other names (``declared_language``: ``manual/en/`` of Debian's
  layout beside a site's unnamed English manual);
- a language segment (``/de/x.html`` = ``/x.html``) or a language parameter (``x?lang=de`` =
  ``x``) is never a URL rule's difference (``names_language``, ``language_parameter``), but for
  one language's directory in another's place where the pages' own language bars say which
  pages are translated (``urlrules/editions.py``).

With the Apache manual laid out as sites serve it (``bench/translations.py --layout ...``), the
code that paired untagged directories with anything and read neither URL rules nor hosts lost 88
translated pages with English unnamed, and 115 with one host a language (docs/mirrors.md, point
29).

Their pages are fetched and each is judged on its own: a copy is still dropped as a duplicate,
after its fetch. A copy that adds or drops a tag (``/pub/docs/`` copying ``/de/docs/``) is taken
for an edition: its pages cost a fetch each, never a page.

A tag is an ISO 639-1 code as a ``-``/``_``/``.``-separated part of a path segment (``de/``,
``manual-de/``, ``pt-br/``, ``zh_Hans/``; leading a longer name, only a widely served language's
code: ``en-docs/``, not ``st-docs/``) or of a subdomain's label (``de.docs.example.org``,
``ja.react.dev``: not the domain's own name nor its suffix, ``example.de``), or a language's name
in English or in itself (``german/``, ``handbuch-deutsch/``: the same tag as ``de``), but for
codes that are also words in path names (``how-to``, ``io``). Translations served from language
subdomains are common (JavaScript frameworks' documentation, Wikipedia): read from paths only,
the manual's editions served one host each had the English host ruled a mirror of the Chinese
one. The cost: a country mirror named by a code that is also a language's
(``de.archive.ubuntu.com``, ``fr.php.net``) is taken for an edition of its archive, and its pages
are fetched, each dropped as a duplicate after.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
_ALL_CODES = frozenset(_CODES.split())
_ISO_639_1 = _ALL_CODES - frozenset(_WORDS.split())
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
# the languages sites most often serve editions in: a code of theirs leads a name as a tag
# (``en-docs``, ``de-handbuch``); another's there is read only before a region or a script
_WIDELY_SERVED = frozenset(
    {"ar", "cs", "da", "de", "el", "en", "es", "fa", "fi", "fr", "hu", "it", "ja", "ko", "nl"}
    | {"no", "pl", "pt", "ro", "ru", "sv", "tr", "uk", "zh"}
)
_REGION = re.compile(r"[a-z]{2}|\d{3}")  # ``br`` of ``pt-br``, ``419`` of ``es-419``
# a page's name with a language before or after its extension (group 1 or 2: the language)
_VARIANT = re.compile(
    r"[^/]+?(?:\.([a-z]{2,3})(?:[-_][a-z]{2,4})?\.(?:html?|xhtml|php)"
    r"|\.(?:html?|xhtml|php)\.([a-z]{2,3})(?:[-_][a-z]{2,4})?)"
)
_SCRIPTS = frozenset({"hans", "hant", "latn", "cyrl", "arab", "deva", "grek", "hebr", "jpan"})
_PARTS = re.compile(r"[-_.]")
# second-level labels of country suffixes (``example.co.uk``): part of the suffix, not a name
_SECOND_LEVEL = frozenset({"ac", "co", "com", "edu", "go", "gov", "ne", "net", "or", "org"})
# parameters that choose a page's language (``?lang=de``, ``?hl=de``, ``?locale=de_DE``)
_PARAMETER_WORDS = ("lang", "locale")
_PARAMETER_NAMES = frozenset({"hl", "lng"})


def language_editions(
    directory: str, other: str, declared: Callable[[], tuple[str, str]] = lambda: ("", "")
) -> bool:
    """Whether two directory URLs name different language editions: their tags differ (no tag
    is the site's default edition), unless one names no tag and ``declared()``, the languages
    their index pages declare ("": unknown), are both the one the other's tag names (asked only
    then: it reads the index)."""
    tags, other_tags = _tags(directory), _tags(other)
    if tags == other_tags:
        return False
    return bool(tags and other_tags) or not _declared_alike(tags or other_tags, declared())


def declared_language(value: str) -> str:
    """The language a ``lang`` attribute declares (``en`` of ``en-US``, ``EN``, ``en_GB``), or
    "" when it names none."""
    primary = _PARTS.split(value.strip().lower(), 1)[0]
    return primary if primary in _ALL_CODES else ""


def _declared_alike(named: frozenset[str], declared: tuple[str, str]) -> bool:
    """Whether an unnamed directory holds the edition of one that names the languages
    ``named``, as both index pages declare: a site serves its default edition unnamed, and which
    language that is its pages say. A partial translation whose index page is still its
    source's declares the source's language, not the one its path names, and stays an
    edition."""
    first, second = declared
    return bool(first) and first == second and named == {first}


def names_language(segment: str) -> bool:
    """Whether a path segment names a language (``de``, ``pt-br``, ``manual-de``)."""
    return bool(_languages_in(segment.lower()))


def variant_in_named_edition(url: str) -> bool:
    """Whether a URL's file name is a language variant as servers that negotiate the language
    name them (``core.html.es``, ``index.en.html``) in a directory whose path names a language
    (``manual/en/``): an edition laid out one language a directory, as Debian installs the
    Apache manual, names its pages plainly, and answers such a name with a 404."""
    path = url.partition("?")[0]
    directory, _, name = path.rpartition("/")
    match = _VARIANT.fullmatch(name.lower())
    if match is None or (match.group(1) or match.group(2)) not in _ISO_639_1:
        return False
    return bool(_tags(directory + "/"))


def tags_apart(segment: str, other: str) -> bool:
    """Whether two path segments differ by the language tags they hold alone (``de`` and
    ``fr``, ``apache-de`` and ``apache-fr``, ``pt-br`` and ``en``), their other parts alike:
    ``apache-de`` and ``en`` are no two editions of one layout."""
    parts, other_parts = _PARTS.split(segment.lower()), _PARTS.split(other.lower())
    while parts and other_parts and parts[0] == other_parts[0] and parts[0] not in _LANGUAGES:
        parts, other_parts = parts[1:], other_parts[1:]
    while parts and other_parts and parts[-1] == other_parts[-1] and not _tag_part(parts[-1]):
        parts, other_parts = parts[:-1], other_parts[:-1]
    return parts != other_parts and _is_tag(parts) and _is_tag(other_parts)


def language_tag(text: str) -> bool:
    """Whether ``text`` is a language tag alone (``fr``, ``pt-br``, ``zh_hans``): how a layout
    names a translation's language in a directory or after a file's name."""
    return _is_tag(_PARTS.split(text.lower()))


def _is_tag(parts: list[str]) -> bool:
    """Whether ``parts`` are a language tag alone: a language, then regions or scripts."""
    return bool(parts) and parts[0] in _LANGUAGES and all(map(_tag_part, parts[1:]))


def _tag_part(part: str) -> bool:
    """Whether a part following a language is a region or a script (``br``, ``419``, ``hans``)."""
    return bool(_REGION.fullmatch(part)) or part in _SCRIPTS


def language_parameter(name: str) -> bool:
    """Whether a query parameter's name says it chooses a language (``lang``, ``uselang``,
    ``locale``, ``hl``)."""
    name = name.lower()
    return name in _PARAMETER_NAMES or any(word in name for word in _PARAMETER_WORDS)


def _tags(directory: str) -> frozenset[str]:
    """The languages a directory URL names in its path's segments and its subdomain's labels."""
    parts = urlsplit(directory.lower())
    segments = [*_subdomain(parts.hostname or ""), *parts.path.split("/")]
    return frozenset(language for segment in segments for language in _languages_in(segment))


def languages_of(segment: str) -> frozenset[str]:
    """The languages a path segment or a file name's suffix names (``de`` of ``de``,
    ``apache-de`` and ``pt-br``: ``pt``), without regions or scripts."""
    lowered = segment.lower()
    parts = _PARTS.split(lowered)
    return frozenset([_LANGUAGES[parts[0]]] if _is_tag(parts) else _languages_in(lowered))


def _languages_in(segment: str) -> list[str]:
    """The languages a lower-cased segment or label names: its ``-``/``_``/``.``-separated parts
    that are language codes or names (``de``, ``manual-de``, ``pt-br``, ``zh_hans``,
    ``german``); a code that leads a longer name only when it is a widely served language's or
    a region or script follows it alone (``en-docs``, ``st-za``; not ``st-docs``)."""
    parts = _PARTS.split(segment)
    return [
        _LANGUAGES[part]
        for number, part in enumerate(parts)
        if part in _LANGUAGES and (number > 0 or _leads_a_tag(parts))
    ]


def _leads_a_tag(parts: list[str]) -> bool:
    """Whether a segment's first part, a language's code or name, names its language: alone,
    as a language's name, as a widely served language's code, or followed by a region or a
    script alone (``pt-br``, ``zh-hans``). A rarer language's code before a word is mostly an
    abbreviation (``st-docs`` for setuptools, ``gl-matrix``, ``ha-cluster``, ``kv-store``): read
    as one, the twentieth holdout web's copy of a copy filed under ``st-docs/`` was never paired
    with the manual it copies."""
    first, rest = parts[0], parts[1:]
    if not rest or first in _NAMES or first in _WIDELY_SERVED:
        return True
    return len(rest) == 1 and (_REGION.fullmatch(rest[0]) is not None or rest[0] in _SCRIPTS)


def _subdomain(host: str) -> list[str]:
    """The labels of ``host`` before its domain's own name and suffix: ``de``, ``docs`` of
    ``de.docs.example.org``; ``www`` of ``www.example.co.uk``; none of ``example.de``."""
    labels = host.split(".")
    suffix = 2 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL and len(labels[-1]) == 2 else 1
    return labels[: -(suffix + 1)]
