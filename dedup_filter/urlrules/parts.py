"""The anatomy of a normalised URL that URL rules rewrite: origin, path and query parameters.

Invariant: ``UrlParts.parse(url).url() == url`` for every URL no rule touches; a rewritten URL is
rebuilt with the query separator its original used (``&``, or ``;`` as Apache's sorted listings
write ``?C=N;O=D``), so it meets the held URL it stands for in the same spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SEPARATORS = re.compile(r"[&;]")
GROUP_JOINER = "&"  # joins the names (or values) of a parameter group: never inside a name


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    value: str
    raw: str  # as written: "name=value", or "name" without "="


@dataclass(frozen=True, slots=True)
class UrlParts:
    """scheme://authority, path and the query's parameters in order."""

    origin: str
    path: str
    params: tuple[Param, ...]
    separator: str = "&"

    @classmethod
    def parse(cls, url: str) -> UrlParts:
        """The parts of a URL already in ``normalize_url``'s form (as every URL the filter
        records or decides on is)."""
        scheme, found, rest = url.partition("://")
        if not found:
            return cls("", url, ())
        authority, slash, tail = rest.partition("/")
        path_and_query = slash + tail
        path, _, query = path_and_query.partition("?")
        separator = "&" if "&" in query or ";" not in query else ";"
        pieces = [piece for piece in _SEPARATORS.split(query) if piece]
        return cls(f"{scheme}://{authority}", path or "/", tuple(map(_param, pieces)), separator)

    @property
    def authority(self) -> str:
        return self.origin.partition("://")[2]

    def url(self) -> str:
        query = self.separator.join(param.raw for param in self.params)
        return f"{self.origin}{self.path}{'?' + query if query else ''}"

    def class_key(self) -> str:
        """The URL with its parameters sorted: how aliases are compared and filed, whatever
        order each spelling wrote them in."""
        query = "&".join(sorted(param.raw for param in self.params))
        return f"{self.origin}{self.path}{'?' + query if query else ''}"

    def names(self) -> set[str]:
        return {param.name for param in self.params}

    def value_of(self, names: tuple[str, ...]) -> str:
        """The values of a group of parameters, joined in the group's order (first occurrences)."""
        values = {param.name: param.value for param in reversed(self.params)}
        return GROUP_JOINER.join(values.get(name, "") for name in names)

    def without(self, names: tuple[str, ...]) -> UrlParts:
        return self._with_params(tuple(p for p in self.params if p.name not in names))

    def blanked(self, names: tuple[str, ...]) -> UrlParts:
        """Every parameter of ``names`` with its value emptied (``name=``)."""
        params = tuple(
            Param(p.name, "", f"{p.name}=") if p.name in names else p for p in self.params
        )
        return self._with_params(params)

    def with_values(self, names: tuple[str, ...], value: str) -> UrlParts:
        """The group ``names`` set to ``value`` (joined values): replaced where present, else
        appended."""
        values = dict(zip(names, value.split(GROUP_JOINER), strict=False))
        kept = tuple(p for p in self.params if p.name not in values)
        added = tuple(Param(name, text, f"{name}={text}") for name, text in values.items())
        return self._with_params(kept + added)

    def directories(self) -> list[str]:
        """The path's directory segments (the last segment, a file name or "", excluded)."""
        return self.path.split("/")[1:-1]

    def with_path(self, path: str) -> UrlParts:
        return UrlParts(self.origin, path, self.params, self.separator)

    def _with_params(self, params: tuple[Param, ...]) -> UrlParts:
        # the constructor, not dataclasses.replace: check_url rewrites a URL a dozen times
        return UrlParts(self.origin, self.path, params, self.separator)


def _param(piece: str) -> Param:
    name, _, value = piece.partition("=")
    return Param(name, value, piece)


def names_a_file(path: str) -> bool:
    """Whether ``path`` names a file with an extension (``a.html``): what a ``suffix`` rule's
    language is appended to, and a ``layout`` rule's path."""
    stem, dot, extension = path.rpartition("/")[2].rpartition(".")
    return bool(stem and dot and extension)
