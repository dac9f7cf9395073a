"""Session parameters in URLs: stripped before relative paths are compared.

A copy served by an application server carries a session id in every link (``?sid=...``,
``;jsessionid=...``), so its relative paths no longer line up with its origin's. The mirror
detector places every URL, and reads every link, with the parameters named in
``mirror.session_parameters`` removed (query parameters and ``;name=value`` path parameters,
names compared lower-cased). Invariant: stripping is idempotent and leaves a URL without such
parameters unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_PATH_PARAMETER = re.compile(r";([^;/?=]*)=[^;/?]*")


class SessionParameters:
    """Removes the configured session parameters from normalised URLs."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = frozenset(name.lower() for name in names)

    def strip(self, url: str) -> str:
        if not self._names or (";" not in url and "?" not in url):
            return url
        path, question, query = url.partition("?")
        if ";" in path:
            path = _PATH_PARAMETER.sub(self._path_parameter, path)
        if not question:
            return path
        kept = [pair for pair in query.split("&") if not self._named(pair.split("=", 1)[0])]
        return f"{path}?{'&'.join(kept)}" if kept else path

    def carried(self, url: str) -> str:
        """The session parameters of ``url``'s query, as ``name=value`` joined by ``&`` ("" for
        none)."""
        query = url.partition("?")[2]
        return "&".join(pair for pair in query.split("&") if self._named(pair.split("=", 1)[0]))

    def carries(self, url: str) -> bool:
        """Whether ``url`` carries a session parameter."""
        return self.strip(url) != url

    def strip_all(self, urls: Iterable[str]) -> Iterable[str]:
        """``urls`` stripped, lazily (a page's links are resolved only when read)."""
        return _Stripped(self, urls) if self._names else urls

    def _named(self, name: str) -> bool:
        return name.lower() in self._names

    def _path_parameter(self, match: re.Match[str]) -> str:
        return "" if self._named(match.group(1)) else match.group(0)


class _Stripped:
    def __init__(self, sessions: SessionParameters, urls: Iterable[str]) -> None:
        self._sessions = sessions
        self._urls = urls

    def __iter__(self) -> Iterator[str]:
        return (self._sessions.strip(url) for url in self._urls)
