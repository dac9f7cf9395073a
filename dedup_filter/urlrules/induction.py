"""Induction: which candidate rules a duplicate pair of URLs on one host supports.

Two URLs whose pages the filter judged duplicates differ in one way a rule can name: by the
presence of some parameters (``drop``), by their values only (``ignore``), by a default document
(``index``), by one directory segment (``marker``), by letter case (``case``) or by the language
a server negotiates for this crawler appended to a file's name (``suffix``). The pair then
supports that rule, for the class of URLs both rewrite to. Pairs that differ in more than one way,
or by more than ``MAX_GROUP`` parameters, support nothing: no rule would be learnt from them alone.
Nor do pairs that differ by a language (``/de/x.html`` and ``/x.html``, ``x?lang=de`` and ``x``):
an untranslated page of a partial translation is its source's copy, the translated ones are not
(``dedup_filter/languages.py``); but for one language's directory in place of another's
(``/manual/ja/x.html`` and ``/manual/en/x.html``: an ``edition``), which supports its rule only
where the held page's language bar says the other URL is no translation of it (``learner``), and
for ``a.html.en`` beside ``a.html`` where ``en`` is a language
the crawler asks for (``url_rules.negotiated_languages``): a server that negotiates serves that
variant under the bare name whenever it exists (the fourth helper's web: Apache's manual on two
hosts, about 245 such fetches a crawl, each dropped after as a copy). Nor do pairs that differ
by a page number beyond the first (``x?part=2`` and ``x``, ``list?page=3`` and
``list?page=4``): a page that shows the same for its second part has one part (the server clamps
the number), which says nothing of the pages that have several; three such items confirmed
``drop part`` on the tenth holdout web (random order) and 67 second halves of longer items were
never fetched. Nor do pairs that differ by an edition:
a segment naming a release or a platform (``/docs/v2/x.html`` and ``/docs/x.html``,
``/windows/x.html``: ``releases.py``, ``platforms.py``), or a parameter that chooses one
(``x?v=2``, ``x?version=2.0``, ``x?view=sql-server-ver16``, ``x?os=windows``). Most pages of
one edition repeat the other's, the rest are rewritten: a red team's site whose first pages
served ``?v=2`` unchanged confirmed ``drop v``, and the five rewritten pages met after it were
never fetched (sixty-seventh session). The cost: a cache-busting ``?v=`` on page links is never
learnt, so those aliases are fetched, each dropped as a duplicate after.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dedup_filter.languages import language_parameter, names_language, tags_apart
from dedup_filter.platforms import names_platform
from dedup_filter.releases import names_release
from dedup_filter.urlrules.layouts import explain_layout
from dedup_filter.urlrules.parts import GROUP_JOINER, UrlParts, names_a_file
from dedup_filter.urlrules.rewrite import (
    CASE,
    DROP,
    EDITION,
    EDITION_JOINER,
    IGNORE,
    INDEX,
    LAYOUT,
    MARKER,
    SUFFIX,
    RuleKey,
)

MAX_GROUP = 3  # parameters a pair may differ by and still name one rule
# parameters that number the parts or pages of a document or a listing
_PAGE_NUMBERS = frozenset({"page", "pg", "p", "part", "pagenum", "pageno", "start", "offset"})
# parameters that choose an edition of a page: a release, a platform, a product's variant
_EDITION_CHOICES = frozenset(
    {"v", "ver", "version", "release", "view", "edition", "variant", "platform", "os", "arch"}
)


@dataclass(frozen=True, slots=True)
class Explanation:
    """A rule a pair supports: its key, the class key both sides share under it, and the values
    the pair showed (a drop's value on the side that has it, an ignore's two values, a marker's
    directory position)."""

    key: RuleKey
    canonical: str
    values: tuple[str, ...]


def explain(
    dropped: str, held: str, documents: Iterable[str], negotiated: Iterable[str] = ()
) -> Explanation | None:
    """The rule the pair (``dropped``, ``held``) supports, if one explains their difference
    (``negotiated``: the languages a negotiating server serves this crawler under a bare name)."""
    first, second = UrlParts.parse(dropped), UrlParts.parse(held)
    if first.origin != second.origin:
        return _layout(first, second)
    if first == second:
        return None
    if first.path == second.path:
        return _parameters(first, second)
    if first.params != second.params:
        return None
    return _path(first, second, documents, negotiated)


def _parameters(first: UrlParts, second: UrlParts) -> Explanation | None:
    names = first.names() | second.names()
    differing = tuple(
        sorted(
            name
            for name in names
            if first.value_of((name,)) != second.value_of((name,))
            or (name in first.names()) != (name in second.names())
        )
    )
    if not differing or len(differing) > MAX_GROUP or any(map(_chooses_content, differing)):
        return None
    if any(_numbers_a_later_page(side, differing) for side in (first, second)):
        return None
    if first.without(differing).class_key() != second.without(differing).class_key():
        return None  # repeated names or an order that removing the group does not settle
    host, group = first.authority, GROUP_JOINER.join(differing)
    present = [side for side in (first, second) if set(differing) <= side.names()]
    if len(present) == 2:
        canonical = first.blanked(differing)
        values = tuple(side.value_of(differing) for side in present)
        return Explanation(RuleKey(host, IGNORE, group), canonical.class_key(), values)
    if len(present) == 1 and not set(differing) & (names - present[0].names()):
        canonical = present[0].without(differing)
        return Explanation(
            RuleKey(host, DROP, group), canonical.class_key(), (present[0].value_of(differing),)
        )
    return None  # some names only on one side, others only on the other


def _path(
    first: UrlParts, second: UrlParts, documents: Iterable[str], negotiated: Iterable[str]
) -> Explanation | None:
    host = first.authority
    longer, shorter = sorted((first, second), key=lambda side: len(side.path), reverse=True)
    for document in documents:
        if shorter.path.endswith("/") and longer.path == shorter.path + document:
            return Explanation(RuleKey(host, INDEX, document), shorter.class_key(), ())
    suffix = longer.path.removeprefix(shorter.path)
    asked = suffix in {f".{language.lower()}" for language in negotiated}
    if asked and names_a_file(shorter.path):  # a suffix: a path never starts with a dot
        return Explanation(RuleKey(host, SUFFIX, suffix), shorter.class_key(), ())
    if first.path.lower() == second.path.lower():
        lowered = first.with_path(first.path.lower())
        return Explanation(RuleKey(host, CASE), lowered.class_key(), ())
    long_segments, short_segments = longer.path.split("/"), shorter.path.split("/")
    if len(long_segments) == len(short_segments):
        return _edition(first, second)
    if len(long_segments) != len(short_segments) + 1:
        return None
    for position in range(1, len(long_segments) - 1):
        if long_segments[:position] + long_segments[position + 1 :] == short_segments:
            if _names_edition(long_segments[position]):
                return None
            key = RuleKey(host, MARKER, long_segments[position])
            return Explanation(key, shorter.class_key(), (str(position - 1),))
    return None


def _edition(dropped: UrlParts, held: UrlParts) -> Explanation | None:
    """An ``edition`` rule: the two paths differ by one directory segment, each naming a
    language and no release nor platform (``/manual/ja/a.html`` dropped for ``/manual/en/a.html``
    supports ``ja>en``). Whether the pair supports it, the held page says (``learner``)."""
    segments, held_segments = dropped.path.split("/"), held.path.split("/")
    differing = [
        position
        for position in range(1, len(segments) - 1)
        if segments[position] != held_segments[position]
    ]
    if len(differing) != 1 or segments[-1] != held_segments[-1]:
        return None
    replaced, put = segments[differing[0]], held_segments[differing[0]]
    if not all(map(_names_language_only, (replaced, put))) or not tags_apart(replaced, put):
        return None
    if replaced in segments[1 : differing[0]]:  # the rule replaces the first such segment
        return None
    key = RuleKey(dropped.authority, EDITION, f"{replaced}{EDITION_JOINER}{put}")
    return Explanation(key, held.class_key(), ())


def _layout(dropped: UrlParts, held: UrlParts) -> Explanation | None:
    """A ``layout`` rule: a pair of two hosts whose URLs name one language in two ways
    (``/manual/mod/a.html.fr`` dropped for another host's ``/manual/fr/mod/a.html``); the
    class is the held URL, the value the language."""
    found = explain_layout(dropped, held)
    if found is None:
        return None
    layout, language = found
    return Explanation(RuleKey(dropped.authority, LAYOUT, layout.name), held.url(), (language,))


def _chooses_content(name: str) -> bool:
    """Whether a parameter's name says it chooses a language or an edition of the page."""
    return language_parameter(name) or name.lower() in _EDITION_CHOICES


def _names_edition(segment: str) -> bool:
    """Whether a path segment names a language, a release or a platform."""
    return names_language(segment) or _names_other_edition(segment)


def _names_language_only(segment: str) -> bool:
    """Whether a path segment names a language, and no release nor platform."""
    return names_language(segment) and not _names_other_edition(segment)


def _names_other_edition(segment: str) -> bool:
    """Whether a path segment names a release or a platform."""
    return names_release(segment) or names_platform(segment)


def _numbers_a_later_page(side: UrlParts, differing: tuple[str, ...]) -> bool:
    """Whether ``side`` gives one of the ``differing`` parameters that number pages
    (``_PAGE_NUMBERS``) a number beyond the first: ``part=2``, ``page=3`` (``page=1`` and
    ``page=0`` name the first page, which the URL without the number shows too)."""
    for name in differing:
        value = side.value_of((name,))  # "" where the side lacks it
        if name.lower() in _PAGE_NUMBERS and value.isdigit() and int(value) >= 2:
            return True
    return False
