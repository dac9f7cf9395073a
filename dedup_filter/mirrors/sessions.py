"""Session parameters in URLs: stripped before relative paths are compared.

A copy served by an application server carries a session id in every link (``?sid=...``,
``;jsessionid=...``), so its relative paths no longer line up with its origin's. The mirror
detector places every URL, and reads every link, with the parameters named in
``mirror.session_parameters`` removed (query parameters and ``;name=value`` path parameters,
names compared lower-cased), and with the query parameters it learnt for the URL's host.

A name no list holds (``?vid=0c5e7d1b94``) is learnt from a page whose links to its own host
carry one value of it on nearly all of them, to several paths, where that value looks like an id
(letters and digits, 8 or more): what a server that hands each visitor an id and writes it into
every link does. A parameter that selects content has another value on each link, or leads to one
path (a viewer's pages); a propagated word (``lang=de``) or short number (a version) is no id.

A stamp is learnt alike: a number of 8 or more digits (``?v=20240101``, a date, a build, a Unix
time) on nearly every link, what a site that busts caches writes into its links (a copy of
Sphinx's manual so on the fourth helper's web: about 100 of its 137 pages fetched a crawl, no
rule made, until the seventy-seventh session). A number may also name what it selects (a tenant,
a dated snapshot), so a stamp is stripped with its value alone: ``x?v=20240101`` is placed as
``x``, ``x?v=20250101`` stays apart, where an id is stripped whatever its value (each visitor
has another).

The pairs met so (configured names too) are filed in the index per host
(``MirrorStore.session_pairs``): every process places that host's URLs alike from then on, a
probe of that host is asked for with them (a server that serves its pages only under the id
answers the bare URL 404), and the host's side of a pair is the copy (``orientation.py``).

Tracking parameters (``utm_source``, ``fbclid``: the URL rules' ``trusted_parameters``, read by a
page's scripts and never by its server) are no path either: they are stripped wherever URLs are
placed, but they are no session. A URL carrying one tells nothing of its side's orientation and
no probe is asked for with one. On a helper's web a copy whose every link carried
``?utm_source=x`` lined up with its origin in one crawl of six.

Invariant: stripping is idempotent and leaves a URL without such parameters unchanged.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from dedup_filter.mirrors.directories import authority
from dedup_filter.urlrules.aliases import matches

if TYPE_CHECKING:
    from dedup_filter.mirrors.store import MirrorStore

_PATH_PARAMETER = re.compile(r";([^;/?=]*)=[^;/?]*")
_ID = re.compile(r"[A-Za-z0-9_-]{8,}")
_STAMP = re.compile(r"[0-9]{8,}")
MIN_CARRYING_LINKS = 3  # links to the page's own host that carry the value, to as many paths
CARRYING_SHARE = 0.9  # of the page's links to its own host
_NONE: frozenset[str] = frozenset()
MAX_NAMES = 4  # filed for a host at most: a page cannot grow its host's row without bound


def id_like(pair: str) -> bool:
    """Whether a query's ``name=value`` pair has a value that looks like a visitor's id."""
    name, equals, value = pair.partition("=")
    return (
        bool(name and equals)
        and _ID.fullmatch(value) is not None
        and any(char.isdigit() for char in value)
        and any(char.isalpha() for char in value)
    )


def stamp_like(pair: str) -> bool:
    """Whether a query's ``name=value`` pair has a value that looks like a stamp: 8+ digits."""
    name, equals, value = pair.partition("=")
    return bool(name and equals) and _STAMP.fullmatch(value) is not None


def _propagating(pair: str) -> bool:
    """Whether a query's pair may be written into every link: an id or a stamp."""
    return id_like(pair) or stamp_like(pair)


def propagated(url: str, links: Iterable[str]) -> frozenset[str]:
    """The ``name=value`` query pairs that ``url``'s page carries, one id-like or stamp-like
    value each, on nearly all its links to its own host, to several paths: a session id or a
    stamp written into every link."""
    host, total = authority(url), 0
    carrying: Counter[str] = Counter()
    paths: dict[str, set[str]] = {}
    for link in links:
        if authority(link) != host:
            continue
        total += 1
        path, _, query = link.partition("?")
        for pair in set(query.split("&")) if query else ():
            if _propagating(pair):
                carrying[pair] += 1
                paths.setdefault(pair, set()).add(path)
    return frozenset(
        pair
        for pair, count in carrying.items()
        if count >= max(MIN_CARRYING_LINKS, CARRYING_SHARE * total)
        and len(paths[pair]) >= MIN_CARRYING_LINKS
    )


class SessionParameters:
    """Removes the configured session parameters, those learnt for a URL's host, and the
    ``tracking`` parameters (names or ``prefix*`` patterns) from normalised URLs."""

    def __init__(
        self, names: Iterable[str], learnt: _Learnt | None = None, tracking: Iterable[str] = ()
    ) -> None:
        self._names = frozenset(name.lower() for name in names)
        self._learnt = learnt
        self._tracking = tuple(pattern.lower() for pattern in tracking)

    def of(self, store: MirrorStore) -> SessionParameters:
        """These parameters with those learnt per host in ``store``'s index (a call's: every
        check binds its own, so the configured names are not lower-cased again)."""
        bound = object.__new__(SessionParameters)
        bound._names, bound._learnt, bound._tracking = self._names, _Learnt(store), self._tracking
        return bound

    def learn(self, url: str, links: Iterable[str]) -> bool:
        """File the session pairs ``url``'s page propagates (``propagated``) for its host;
        whether a parameter name is new there (its URLs are placed otherwise from now on). Only
        on parameters bound to an index (``of``)."""
        if self._learnt is None:
            return False
        pairs = propagated(url, links)
        return bool(pairs) and self._learnt.add(authority(url), pairs)

    def filed(self, url: str) -> str:
        """The session pairs filed for ``url``'s host, joined by ``&`` ("" for none): what a
        probe of that host carries."""
        return "&".join(self._learnt.pairs(authority(url))) if self._learnt is not None else ""

    def strip(self, url: str) -> str:
        """``url`` without its session and tracking parameters: as it is placed."""
        return self._without(url, self._tracking)

    def _without(self, url: str, tracking: tuple[str, ...]) -> str:
        if ";" not in url and "?" not in url:
            return url
        names, stamps = self._carried_at(url)
        if not (names or stamps or tracking):
            return url
        path, question, query = url.partition("?")
        if ";" in path and names:
            path = _PATH_PARAMETER.sub(lambda match: _unless_named(match, names), path)
        if not question:
            return path
        kept = [
            pair
            for pair in query.split("&")
            if not _carried(pair, names, stamps) and not matches(_name(pair), tracking)
        ]
        return f"{path}?{'&'.join(kept)}" if kept else path

    def strip_likely(self, url: str) -> str:
        """``url`` without its session parameters, known or likely (id-like or stamp-like
        values: an article's ``?id=20231104`` too), read from the URL alone: where no index is
        at hand and a wrong guess costs no decision (which pages' links are read, which come
        first)."""
        path, question, query = self.strip(url).partition("?")
        if not question:
            return path
        kept = [pair for pair in query.split("&") if not _propagating(pair)]
        return f"{path}?{'&'.join(kept)}" if kept else path

    def carried(self, url: str) -> str:
        """The session parameters of ``url``'s query, as ``name=value`` joined by ``&`` ("" for
        none)."""
        names, stamps = self._carried_at(url)
        query = url.partition("?")[2]
        return "&".join(pair for pair in query.split("&") if _carried(pair, names, stamps))

    def carries(self, url: str) -> bool:
        """Whether ``url`` carries a session parameter (a tracking one is none)."""
        return self._without(url, ()) != url

    def strip_all(self, urls: Iterable[str]) -> Iterable[str]:
        """``urls`` stripped, lazily (a page's links are resolved only when read)."""
        return _Stripped(self, urls) if self._names or self._learnt or self._tracking else urls

    def _carried_at(self, url: str) -> tuple[frozenset[str], frozenset[str]]:
        """The names stripped from ``url`` whatever their value, and the stamp pairs stripped
        with their value (``_stamp``)."""
        if self._learnt is None:
            return self._names, _NONE
        names, stamps = self._learnt(authority(url))
        return (self._names | names if names else self._names), stamps


class _Learnt:
    """The session pairs filed per host in one index, read once a call per host."""

    def __init__(self, store: MirrorStore) -> None:
        self._store = store
        self._read: dict[str, tuple[str, ...]] = {}
        self._carried: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    def pairs(self, host: str) -> tuple[str, ...]:
        pairs = self._read.get(host)
        if pairs is None:
            pairs = self._read[host] = self._store.session_pairs(host)
        return pairs

    def __call__(self, host: str) -> tuple[frozenset[str], frozenset[str]]:
        """The pairs filed for ``host`` as they are stripped: the names of its ids (whatever
        their value), and its stamp pairs (``_stamp``: with their value alone)."""
        carried = self._carried.get(host)
        if carried is None:
            pairs = self.pairs(host)
            carried = self._carried[host] = (
                frozenset(_name(pair) for pair in pairs if not stamp_like(pair)),
                frozenset(_stamp(pair) for pair in pairs if stamp_like(pair)),
            )
        return carried

    def add(self, host: str, pairs: frozenset[str]) -> bool:
        """File the pairs of ``pairs`` whose names are new for ``host`` (the first value met
        stays: a server that hands out a fresh id on every page would otherwise rewrite the row
        on every page); whether there were any."""
        known = {_name(pair) for pair in self.pairs(host)}
        new = sorted(pair for pair in pairs if _name(pair) not in known)
        new = new[: MAX_NAMES - len(known)]
        if not new:
            return False
        self._read[host] = tuple(sorted({*self.pairs(host), *new}))
        self._carried.pop(host, None)
        self._store.put_session_pairs(host, self._read[host])
        return True


def _name(pair: str) -> str:
    return pair.split("=", 1)[0].lower()


def _stamp(pair: str) -> str:
    """A stamp pair as it is compared: its name lower-cased, its value as written."""
    name, _, value = pair.partition("=")
    return f"{name.lower()}={value}"


def _carried(pair: str, names: frozenset[str], stamps: frozenset[str]) -> bool:
    """Whether a query's pair is a session parameter: an id by its name, a stamp by its value."""
    return _name(pair) in names or (bool(stamps) and _stamp(pair) in stamps)


def _unless_named(match: re.Match[str], names: frozenset[str]) -> str:
    return "" if match.group(1).lower() in names else match.group(0)


class _Stripped:
    def __init__(self, sessions: SessionParameters, urls: Iterable[str]) -> None:
        self._sessions = sessions
        self._urls = urls

    def __iter__(self) -> Iterator[str]:
        return (self._sessions.strip(url) for url in self._urls)
