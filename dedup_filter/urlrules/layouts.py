"""``layout`` rules: one manual's translations laid out one way on a host, another way on another.

A manual served in several languages names a translation's page with the language in a directory
(``/manual/fr/mod/core.html``: Debian's Apache manual) or after the file's name
(``/manual/mod/core.html.fr``: the same manual as Apache serves it, negotiating the language). Two
hosts that serve one manual the two ways hold each translation twice, under relative paths no
mirror rule lines up: the language moves. A page dropped as an exact copy of a page of another
host whose URL names the same language the other way shows how its host's URLs read on the other
host; once enough pages showed it (``learner``), the rule drops a URL of its host only where the
URL it moves to there is held (``filter``), so a page that host lacks is fetched.

A layout is named by two templates, each with one ``{lang}`` and one ``{path}``: a language's
directory (``/manual/{lang}/{path}``, or ``/{lang}/manual/{path}`` with a fixed part between
them) or a language after a file's name (``/manual/{path}.{lang}``); the rule's name is its
host's origin and template, then the other host's
(``http://a.test/manual/{lang}/{path}>http://b.test/manual/{path}.{lang}``). Two directory
templates with nothing between the language and the path are one directory per language on each
host, which the mirror rules pair (sampled, with their boundaries): no layout rule is made of them.

Invariant: ``Layout.moved`` and ``Layout.moved_back`` are inverses on the URLs they accept, and a
rule is only made of a pair its layout moves one onto the other, under a name that reads back
as that layout (a path holding ``{path}`` makes none).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from dedup_filter.languages import language_tag
from dedup_filter.urlrules.parts import UrlParts, names_a_file

_LANG, _PATH = "{lang}", "{path}"
_JOINER = ">"  # between a rule's two sides in its name
_SUFFIXED = _PATH + "." + _LANG
# directories a path may nest and still be read: a pair is explained by trying each language it
# names against each the other names, which a hostile path of a thousand ``fr/`` segments
# would make a billion steps of
_MAX_LEVELS = 32


class LaidOut(NamedTuple):
    """Where a confirmed rule moves a URL: the other host's URL, the rule's label, and the
    directories its two sides lie under (the URL's, then the other's)."""

    counterpart: str
    label: str
    side: str
    other_side: str


@dataclass(frozen=True, slots=True)
class Template:
    """Where one host's paths put the language: after ``head`` as a directory followed by
    ``between`` and the path, or (``suffixed``) after the path that follows ``head``."""

    head: str
    between: str = ""
    suffixed: bool = False

    def __str__(self) -> str:
        if self.suffixed:
            return self.head + _SUFFIXED
        return f"{self.head}{_LANG}/{self.between}{_PATH}"

    @classmethod
    def parse(cls, text: str) -> Template | None:
        head = text.removesuffix(_SUFFIXED)
        if head != text:
            template = cls(head, suffixed=True)
        else:
            head, found, rest = text.partition(_LANG + "/")
            between, path_found, tail = rest.partition(_PATH)
            if not (found and path_found) or tail or between[-1:] not in ("", "/"):
                return None
            template = cls(head, between)
        fixed = template.head + template.between
        placeholders = _LANG in fixed or _PATH in fixed
        shaped = head.startswith("/") and head.endswith("/") and not placeholders
        return template if shaped and str(template) == text else None

    def read(self, path: str) -> tuple[str, str] | None:
        """The language and the path that ``path`` holds in this layout; None when it holds none
        (the path a file's name, never a directory's)."""
        if not path.startswith(self.head):
            return None
        body = path[len(self.head) :]
        if self.suffixed:
            rest, _, language = body.rpartition(".")
        else:
            language, slash, tail = body.partition("/")
            rest = tail[len(self.between) :] if slash and tail.startswith(self.between) else ""
        if not rest or rest.startswith("/") or not names_a_file(rest) or not language_tag(language):
            return None
        return language, rest

    def path(self, language: str, rest: str) -> str:
        if self.suffixed:
            return f"{self.head}{rest}.{language}"
        return f"{self.head}{language}/{self.between}{rest}"


@dataclass(frozen=True, slots=True)
class Layout:
    """A rule's two sides, each an origin and a template: its own host's, then the other's."""

    own_origin: str
    own: Template
    origin: str
    other: Template

    @property
    def name(self) -> str:
        return f"{self.own_origin}{self.own}{_JOINER}{self.origin}{self.other}"

    @property
    def authority(self) -> str:
        """The other host (host[:port])."""
        return self.origin.partition("://")[2]

    @property
    def sides(self) -> tuple[str, str]:
        """The directories the two templates lie under: this host's, then the other's."""
        return self.own_origin + self.own.head, self.origin + self.other.head

    @classmethod
    def parse(cls, name: str) -> Layout | None:
        own, _, other = name.partition(_JOINER)
        sides = [_side(text) for text in (own, other)]
        if sides[0] is None or sides[1] is None:
            return None
        return cls(*sides[0], *sides[1])

    def moved(self, parts: UrlParts) -> UrlParts | None:
        """The URL on the other host that stands where ``parts`` stands on this rule's host;
        None where ``parts`` is not laid out so."""
        return _moved(parts, self.own_origin, self.own, self.origin, self.other)

    def moved_back(self, parts: UrlParts) -> UrlParts | None:
        """``moved`` the other way: this host's URL for ``parts``, a URL of the other host."""
        return _moved(parts, self.origin, self.other, self.own_origin, self.own)


def _side(text: str) -> tuple[str, Template] | None:
    """A side of a rule's name: its origin and its template."""
    scheme, found, rest = text.partition("://")
    authority, slash, path = rest.partition("/")
    template = Template.parse(slash + path)
    return (f"{scheme}://{authority}", template) if found and authority and template else None


def _moved(
    parts: UrlParts, origin: str, template: Template, to_origin: str, to_template: Template
) -> UrlParts | None:
    if parts.params or parts.origin != origin:
        return None
    read = template.read(parts.path)
    return UrlParts(to_origin, to_template.path(*read), ()) if read else None


@functools.lru_cache(maxsize=1024)
def layout_named(name: str) -> Layout | None:
    """The layout a rule's name gives (parsed once: every URL check of its host asks), or None
    for a name that gives none."""
    return Layout.parse(name)


def explain_layout(dropped: UrlParts, held: UrlParts) -> tuple[Layout, str] | None:
    """The layout that moves ``dropped`` onto ``held``, a URL of another host naming the same
    language the other way, and that language; None when none does. Where several readings do
    (a language named twice), the one that keeps the longest common path wins."""
    if dropped.origin == held.origin or dropped.params or held.params:
        return None
    found: tuple[int, Layout, str] | None = None
    for language, own_segments, own_dir in _readings(dropped.path):
        for other_language, other_segments, other_dir in _readings(held.path):
            if language != other_language or not (own_dir or other_dir):
                continue
            common = _common_tail(own_segments, other_segments)
            if not common:
                continue
            own = _template(own_dir, own_segments, common)
            other = _template(other_dir, other_segments, common)
            if not own.suffixed and not other.suffixed and not own.between and not other.between:
                continue  # one directory a language on each host: the mirror rules' pairs
            layout = Layout(dropped.origin, own, held.origin, other)
            longer = found is None or common > found[0]
            if longer and layout.moved(dropped) == held and Layout.parse(layout.name) == layout:
                found = (common, layout, language)
    return (found[1], found[2]) if found is not None else None


def _readings(path: str) -> list[tuple[str, list[str], str | None]]:
    """Each way ``path`` names a language: the language, the segments that follow it (or, after
    a file's name, the segments without it), and the directory before it (None: after the name);
    none for a path nested deeper than ``_MAX_LEVELS``."""
    segments = path.split("/")
    readings: list[tuple[str, list[str], str | None]] = []
    if len(segments) > _MAX_LEVELS:
        return readings
    for position in range(1, len(segments) - 1):
        if language_tag(segments[position]):
            head = "/".join(segments[:position]) + "/"
            readings.append((segments[position], segments[position + 1 :], head))
    stem, dot, language = segments[-1].rpartition(".")
    if dot and language_tag(language) and names_a_file(stem):
        readings.append((language, [*segments[1:-1], stem], None))
    return readings


def _common_tail(first: list[str], second: list[str]) -> int:
    """How many segments the two lists end with alike."""
    count = 0
    while count < min(len(first), len(second)) and first[-1 - count] == second[-1 - count]:
        count += 1
    return count


def _template(directory: str | None, segments: list[str], common: int) -> Template:
    """The template of a reading whose last ``common`` segments are the path."""
    fixed = "".join(segment + "/" for segment in segments[: len(segments) - common])
    if directory is None:
        return Template("/" + fixed, suffixed=True)
    return Template(directory, fixed)
