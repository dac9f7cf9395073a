"""What a URL rule is (its key) and what it does to a URL: the canonicalisation of each kind.

A rule belongs to one host (its authority, host[:port]) and merges URLs that differ by:

- ``drop``: a parameter (or a group, "C&O") present or not: the rule removes it;
- ``ignore``: the value of a parameter (or group): the rule empties it;
- ``index``: a default document: ``dir/index.html`` becomes ``dir/``;
- ``marker``: a directory segment marking a variant: ``/print/a.html`` becomes ``/a.html``;
- ``case``: the letter case of the path: the rule lower-cases it;
- ``suffix``: the language a server negotiates appended to a file's name: ``a.html.en`` becomes
  ``a.html``, which that server answers with the same variant (Apache's MultiViews and type maps);
- ``edition``: one language's directory for another's (``ja>en``: ``/manual/ja/a.html`` becomes
  ``/manual/en/a.html``), where a partial translation serves its source's pages in its place.
  It merges a URL only with the page fetched at its rewrite, where that page declares language
  editions, does not name the URL among them (``features.alternates``) and its text is held:
  ``urlrules/editions.py`` asks that, not this.
- ``layout``: where another host puts the language of a translation's page
  (``/manual/mod/a.html.fr`` becomes ``http://b.test/manual/fr/mod/a.html``): the one kind that
  moves a URL to another host, and merges it only with the page held there
  (``urlrules/layouts.py``, ``filter``).

An ``index``, ``marker``, ``suffix`` or ``edition`` rule moves a URL to another path, which
another handler may serve: a static server answers ``ref/?lang=fr`` with ``ref/``'s page, where
the CMS serves the French edition as ``ref/index.html?lang=fr``. Such a rule applies to a URL
without a query only (what the parameter rules leave of one): on the twenty-second holdout web
served so, the French edition's index page waited for ``ref/?lang=fr`` and was dropped as a copy
of the English one.

Invariant: ``rewrite`` returns None when the rule does not apply, so a rule never "rewrites" a URL
into itself, and ``inverse`` only builds a URL that ``rewrite`` maps back onto the one given.
"""

from __future__ import annotations

from dataclasses import dataclass

from dedup_filter.urlrules.layouts import layout_named
from dedup_filter.urlrules.parts import GROUP_JOINER, UrlParts, names_a_file

DROP, IGNORE, INDEX, MARKER, CASE, SUFFIX, EDITION, LAYOUT = range(8)
KIND_NAMES = ("drop", "ignore", "index", "marker", "case", "suffix", "edition", "layout")
PARAMETER_KINDS = (DROP, IGNORE)
# rules that move a URL to another path: they apply to a URL without a query only (below)
_PATH_KINDS = (INDEX, MARKER, SUFFIX, EDITION)
EDITION_JOINER = ">"  # an edition rule's name: the segment it replaces, then the one it puts


@dataclass(frozen=True, slots=True)
class RuleKey:
    """Which rule: its host, kind and name (parameter group, document or segment; "" for case)."""

    host: str
    kind: int
    name: str = ""

    @property
    def group(self) -> tuple[str, ...]:
        """The parameter names of a drop or ignore rule, in sorted order."""
        return tuple(self.name.split(GROUP_JOINER))

    @property
    def label(self) -> str:
        """How the rule is named in decisions and on the command line: "host kind name"."""
        return f"{self.host} {KIND_NAMES[self.kind]} {self.name}".rstrip()

    @classmethod
    def from_label(cls, label: str) -> RuleKey | None:
        host, _, rest = label.strip().partition(" ")
        kind, _, name = rest.partition(" ")
        if kind not in KIND_NAMES or not host:
            return None
        return cls(host.lower(), KIND_NAMES.index(kind), name)


@dataclass(frozen=True, slots=True)
class Scope:
    """What a parameter rule merges: the values seen in its pairs, or any value; and for a drop
    rule that stands for a well-known family (``family``, the names' common prefix: ``utm_``),
    the family's other parameters too, except those shown to select content (``excluded``)."""

    values: tuple[str, ...] = ()
    any_value: bool = True
    family: str = ""
    excluded: tuple[str, ...] = ()

    def covers(self, value: str) -> bool:
        return self.any_value or value in self.values

    def kin(self, parts: UrlParts, group: tuple[str, ...]) -> tuple[str, ...]:
        """The URL's parameters of the rule's family beside its own ``group``."""
        if not self.family:
            return ()
        return tuple(
            name
            for name in sorted(parts.names() - set(group) - set(self.excluded))
            if name.lower().startswith(self.family)
        )


ANY = Scope()


def rewrite(key: RuleKey, parts: UrlParts, scope: Scope = ANY) -> UrlParts | None:
    """``parts`` canonicalised by the rule, or None when the rule does not apply to it."""
    if key.kind in PARAMETER_KINDS:
        group = key.group
        if not set(group) <= parts.names() or not scope.covers(parts.value_of(group)):
            return None
        if key.kind == DROP:
            rewritten = parts.without(group + scope.kin(parts, group))
        else:
            rewritten = parts.blanked(group)
        return rewritten if rewritten != parts else None
    if key.kind in _PATH_KINDS and parts.params:
        return None
    if key.kind == INDEX:
        if not parts.path.endswith("/" + key.name):
            return None
        return parts.with_path(parts.path[: -len(key.name)])
    if key.kind == MARKER:
        segments = parts.path.split("/")
        if key.name not in segments[1:-1]:
            return None
        segments.remove(key.name)
        return parts.with_path("/".join(segments))
    if key.kind == SUFFIX:
        stem = parts.path.removesuffix(key.name)
        return parts.with_path(stem) if stem != parts.path and names_a_file(stem) else None
    if key.kind == LAYOUT:
        layout = layout_named(key.name)
        return layout.moved(parts) if layout else None
    if key.kind == EDITION:
        replaced, _, put = key.name.partition(EDITION_JOINER)
        segments = parts.path.split("/")
        if replaced not in segments[1:-1]:
            return None
        segments[segments.index(replaced, 1)] = put
        return parts.with_path("/".join(segments))
    lowered = parts.path.lower()
    return parts.with_path(lowered) if lowered != parts.path else None


def inverse(key: RuleKey, parts: UrlParts, scope: Scope) -> UrlParts | None:
    """Another URL the rule would merge with ``parts`` (a probe), or None when none can be built:
    the parameter added with a value seen, the default document or the language added or
    removed, the marker inserted where it was seen (an ``edition`` rule builds none: which
    editions a page has, the page says)."""
    if key.kind == DROP:
        absent = not set(key.group) & parts.names()
        return parts.with_values(key.group, scope.values[-1]) if absent and scope.values else None
    if key.kind == LAYOUT:
        layout = layout_named(key.name)
        return layout.moved_back(parts) if layout else None
    if key.kind == IGNORE:
        current = parts.value_of(key.group) if set(key.group) <= parts.names() else None
        other = next((value for value in scope.values if value != current), None)
        return parts.with_values(key.group, other) if current is not None and other else None
    if key.kind in _PATH_KINDS and parts.params:
        return None
    if key.kind == INDEX:
        if parts.path.endswith("/"):
            return parts.with_path(parts.path + key.name)
        return rewrite(key, parts)
    if key.kind == MARKER and scope.values and key.name not in parts.path.split("/"):
        segments = parts.path.split("/")
        position = int(scope.values[-1]) + 1
        if position < len(segments):
            return parts.with_path("/".join([*segments[:position], key.name, *segments[position:]]))
    if key.kind == SUFFIX:
        if parts.path.endswith(key.name):
            return rewrite(key, parts)
        return parts.with_path(parts.path + key.name) if names_a_file(parts.path) else None
    return None
