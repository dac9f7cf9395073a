"""A page's references (links, image sources) resolved against its URL, the page's URL parsed once.

A documentation page's links and image sources are mostly plain relative paths
(``../api/index.html``, ``img/logo.png``), and ``urljoin`` followed by ``normalize_url`` parses the
page's URL again for every one of them: 8-9 % of ``check_pages`` on documentation pages (py-spy,
eleventh session). A plain reference (no scheme, no authority, no path parameters, no character
that a URL parser removes or reads specially) is resolved here by ``urljoin``'s own rules for dot
segments and empty segments; a fragment (``#top``: nearly half of a pydoc page's links) names
the base itself, resolved once; every other reference goes through urllib.

Invariant: ``References(base).resolve(href)`` is ``normalize_url(urljoin(base, href.strip()))``
when that is an http(s) URL and "" otherwise, and ``plain_file_name`` is the last segment of the
path urljoin gives a plain reference; both are tested against urllib on generated references.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

from dedup_filter.urls import normalize_url

_SCHEMES = ("http://", "https://")
# neither a scheme's colon, path parameters, a backslash, white space (which ``normalize_url``
# strips) nor a control character
_PLAIN = re.compile(r"[^\s\x00-\x20\x7f:;\\]*")


def plain_reference(reference: str) -> tuple[str, str] | None:
    """(path, query) of a plain relative reference with a path; None for any other."""
    if reference.startswith("//") or not _PLAIN.fullmatch(reference):
        return None
    path, _, query = reference.partition("#")[0].partition("?")  # the fragment ends first
    return (path, query) if path else None


def plain_file_name(reference: str) -> str | None:
    """The last path segment a plain reference resolves to, whatever the base; None when that
    depends on the base (no path, or a path ending in ``/``, ``.`` or ``..``) or the reference
    is not plain."""
    plain = plain_reference(reference)
    if plain is None:
        return None
    name = plain[0].rpartition("/")[2]
    return None if name in ("", ".", "..") else name


class References:
    """Resolves references against one base URL (a page's, or its ``<base href>``)."""

    def __init__(self, base: str) -> None:
        self._base = base
        self._root, self._directory = _plain_base(base)
        # what a fragment names: a parsed base, its fragment dropped (``normalize_url``)
        self._itself: str | None = None

    def resolve(self, reference: str) -> str:
        """The normalised absolute URL ``reference`` names, "" when not http(s) or unparsable."""
        reference = reference.strip()
        if reference.startswith("#") and self._root:  # nearly half a documentation page's links
            if self._itself is None:
                self._itself = self._joined("#")
            return self._itself
        plain = plain_reference(reference) if self._root else None
        if plain is None:
            return self._joined(reference)
        path, query = plain
        path = self._resolved_path(path)
        return f"{self._root}{path}?{query}" if query else f"{self._root}{path}"

    def _joined(self, reference: str) -> str:
        try:
            target = urljoin(self._base, reference)
        except ValueError:
            return ""
        return normalize_url(target) if target.startswith(_SCHEMES) else ""

    def _resolved_path(self, path: str) -> str:
        """Dot segments removed as ``urljoin`` removes them: empty segments between the base's
        directory and the reference's last segment dropped, ``..`` above the root ignored."""
        if path.startswith("/"):
            segments = path.split("/")
        else:
            segments = self._directory + path.split("/")
            segments[1:-1] = [segment for segment in segments[1:-1] if segment]
        resolved: list[str] = []
        for segment in segments:
            if segment == "..":
                if resolved:
                    resolved.pop()
            elif segment != ".":
                resolved.append(segment)
        if segments[-1] in (".", ".."):
            resolved.append("")
        joined = "/".join(resolved)
        return joined if joined.startswith("/") else f"/{joined}"


def _plain_base(base: str) -> tuple[str, list[str]]:
    """The normalised ``scheme://host[:port]`` of an http(s) base with a host, and the segments
    of its directory; ("", []) for any other base (every reference then goes through urllib)."""
    try:
        parts = urlparse(base)
        parts.port  # noqa: B018 - raises for a port normalize_url would not parse
    except ValueError:
        return "", []
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "", []
    root = normalize_url(f"{parts.scheme}://{parts.netloc}/")[:-1]
    directory = parts.path.split("/")
    if directory[-1]:
        del directory[-1]
    return root, directory
