"""URL normal form, sites and directories: the coordinates that pages are indexed under.

A directory is scheme + host (lower-cased, default port dropped) + path up to its last ``/``.
Henzinger's site of a host is the host itself when it has at most one dot, else the host minus
its first label (www.cs.berkeley.edu -> cs.berkeley.edu).
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str:
    """Lower-cased scheme and host, default port and fragment dropped; path and query kept.

    A string that does not parse as a URL is returned stripped, so it still has a stable key.
    """
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), host, parts.path or "/", parts.query, ""))


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def authority_of(url: str) -> str:
    """host[:port] of a URL, lower-cased; "" for one that does not parse (a broken IPv6 host)."""
    try:
        return urlsplit(url).netloc.lower()
    except ValueError:
        return ""


def site_of(url: str) -> str:
    """Henzinger's site: the host minus its first label when it has more than one dot."""
    host = host_of(url)
    if host.count(".") <= 1 or host.replace(".", "").isdigit():
        return host
    return host.split(".", 1)[1]


def directory_of(url: str) -> str:
    """scheme://host[:port]/path/up/to/last/slash/ of the normalised URL."""
    normal = normalize_url(url)
    scheme, separator, rest = normal.partition("://")
    if not separator:
        return normal
    authority, slash, path = rest.partition("/")
    path = path.split("?", 1)[0]
    return f"{scheme}://{authority}/{path[: path.rfind('/') + 1] if slash else ''}"


def path_of(url: str) -> str:
    """scheme://host[:port]/path of the normalised URL, without its query."""
    return normalize_url(url).partition("?")[0]


def differing_segments(directory: str, other: str) -> tuple[list[str], list[str]]:
    """The lower-cased path segments of two directory URLs with those they share at the start
    and at the end left out: what tells the two places apart (``/v2/docs/13/development/`` and
    ``/v2/docs/14/development/``: ``13`` and ``14``). A name both paths hold at one place says
    nothing of either's edition: a section named ``development`` is no release both share."""
    segments, others = _path_segments(directory), _path_segments(other)
    while segments and others and segments[0] == others[0]:
        segments, others = segments[1:], others[1:]
    while segments and others and segments[-1] == others[-1]:
        segments, others = segments[:-1], others[:-1]
    return segments, others


def _path_segments(url: str) -> list[str]:
    """A URL's lower-cased path segments (no query, no fragment); never raises."""
    path = url.lower().partition("://")[2].partition("/")[2]
    return [segment for segment in path.partition("#")[0].partition("?")[0].split("/") if segment]


def file_name_of(url: str) -> str:
    """The last segment of a URL's (or a relative path's) path, without query and fragment."""
    return url.partition("#")[0].partition("?")[0].rpartition("/")[2]


def document_stem_of(url: str) -> str:
    """The last non-empty segment of a URL's path, lower-cased, without its extension: a file's
    name (``intro`` for ``Intro.htm`` and ``intro.html``), a directory's for its index page (the
    host for a site's root)."""
    rest = url.partition("#")[0].partition("?")[0].partition("://")[2] or url
    authority, _, path = rest.rstrip("/").partition("/")
    if not path:
        return authority.lower()
    name = path.rpartition("/")[2].lower()
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def redirect_target(url: str, location: str) -> str:
    """Where a redirect from ``url`` sends, normalised (``location`` may be relative, as a
    ``Location`` header may be); "" when it does not parse."""
    try:
        return normalize_url(urljoin(url, location.strip()))
    except ValueError:
        return ""
