"""Redirects a host answers alike, learnt from the crawl's own redirects, so that the crawl asks
for where a URL lands instead of being sent there (a redirect costs a request and fetches no
content).

Two shapes a whole host answers alike (``testweb/redirects.py`` lays them over a web):

- ``move``: every URL to the same path and query under another scheme or host (a ``www.`` name
  redirecting to the bare one, http to https);
- ``slash``: a directory's URL without its trailing slash to the URL with it (Apache's mod_dir,
  nginx, Python's http.server).

Only permanent redirects (301, 308) teach. ``url_rules.redirect_support`` redirects of one shape
from a host make the shape the host's rule; a ``move`` to another target, or a page the host
serves as itself (2xx, ``served``: before the first redirect or after), kills its host's ``move``
for good. ``check_url`` then drops a URL the rule sends elsewhere: a ``move`` for the URL it lands
on (``duplicate_url``; ``crawl_instead`` names that URL while the index does not hold it, so the
crawler asks for it directly), a slashless URL for its directory: held, or dropped before its
fetch (for the page that drop names), or else named to crawl instead, unless its last segment is
named like a file (a dot) or the host serves pages under names without a dot (``bare_pages``: a
static-site host's "pretty" URLs, ``intro`` for ``intro.html``, whose every page the crawl would
otherwise ask as ``intro/`` first). A slashless name may still be a file of its own (``README``):
when the directory URL the crawl was sent to fails, the slashless URL is crawled in its place and
fetched from then on (``fetch_failed``). A redirect of any other shape (a page moved) teaches
nothing: the crawl asks for that URL once anyway.

Table ``url_rules``, key ``"m"`` + 64-bit hash of the host -> the host's two shapes (state and
support each), whether it served a page under a bare name, the host and the ``move``'s target
(scheme and authority): one read a URL check;
``"f"`` + 64-bit hash of a directory URL a slash rule sent the crawl to, and that failed.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from dedup_filter.config import UrlRulesConfig
from dedup_filter.decision import Decision, Reason
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.urls import authority_of, redirect_target

MOVE, SLASH = "move", "slash"
_PERMANENT = (301, 308)
_OPEN, _CONFIRMED, _DEAD = range(3)
_STATE_NAMES = ("open", "confirmed", "dead")
_PREFIX, _FAILED, _NUL = b"m", b"f", b"\x00"
_U64 = struct.Struct(">Q")
_HOST_SEED = 0x5ED12EC7


@dataclass(frozen=True, slots=True)
class Shape:
    """What a host was seen to answer with one shape of redirect."""

    state: int = _OPEN
    support: int = 0

    @property
    def confirmed(self) -> bool:
        return self.state == _CONFIRMED


@dataclass(frozen=True, slots=True)
class HostRedirects:
    """A host's two shapes, and where its ``move`` sends ("https://example.org")."""

    host: str
    move: Shape = Shape()
    slash: Shape = Shape()
    target: str = ""
    bare_pages: bool = False  # it served a page under a name without a dot, a slash or a query

    def encode(self) -> bytes:
        numbers = (self.move.state, self.move.support, self.slash.state, self.slash.support)
        names = self.host.encode("utf-8", "surrogatepass") + _NUL + self.target.encode("utf-8")
        return bytes([*(min(number, 255) for number in numbers), self.bare_pages]) + names

    @classmethod
    def decode(cls, data: bytes) -> HostRedirects:
        move, slash = Shape(data[0], data[1]), Shape(data[2], data[3])
        host, _, target = bytes(data[5:]).partition(_NUL)
        return cls(
            host.decode("utf-8", "surrogatepass"), move, slash, target.decode("utf-8"), data[4] == 1
        )

    def label(self, shape: str) -> str:
        return f"{self.host} redirect {shape}"

    def describe(self, shape: str) -> dict[str, object]:
        seen = self.move if shape == MOVE else self.slash
        return {
            "rule": self.label(shape),
            "host": self.host,
            "kind": "redirect",
            "name": shape,
            "state": _STATE_NAMES[seen.state],
            "support": seen.support,
            "target": self.target if shape == MOVE else "",
        }


def _key(host: str) -> bytes:
    """A fixed-size key: a host name is the page's to choose, and LMDB keys stop at 511 bytes."""
    return _PREFIX + _U64.pack(hash64(host, _HOST_SEED))


def _failed_key(directory: str) -> bytes:
    """Where a slash rule's directory URL that failed is remembered."""
    return _FAILED + _U64.pack(hash64(directory, _HOST_SEED))


def _read(view: IndexView, host: str) -> HostRedirects | None:
    data = view.get("url_rules", _key(host))
    known = None if data is None else HostRedirects.decode(bytes(data))
    return known if known is not None and known.host == host else None


def _bare_page(url: str) -> bool:
    """Whether a served page's URL names it without a dot, a trailing slash or a query (a
    static-site host's "pretty" URL). Read from the string: a page's URL need not parse."""
    rest = url.partition("://")[2]
    slash = rest.find("/")
    name = rest[slash:].rpartition("/")[2] if slash >= 0 else ""
    return bool(name) and "." not in name and "?" not in url


def _shape(url: str, location: str) -> tuple[str, str, str] | None:
    """The host a redirect from ``url`` (normalised) to ``location`` teaches about, its shape,
    and a move's target; None for any other redirect."""
    landed = redirect_target(url, location)
    host = authority_of(url)
    if not (landed and host):  # either side does not parse (a broken IPv6 host)
        return None
    source, landing = urlsplit(url), urlsplit(landed)
    if source.query != landing.query:
        return None
    same_place = (source.scheme, source.netloc) == (landing.scheme, landing.netloc)
    if not same_place and source.path == landing.path:
        return host, MOVE, f"{landing.scheme}://{landing.netloc}"
    slashless = source.path and not source.path.endswith("/") and not source.query
    if same_place and slashless and landing.path == source.path + "/":
        return host, SLASH, ""
    return None


class RedirectRules:
    """The redirect rules of one index: learnt in write transactions, read by ``check_url``."""

    def __init__(self, config: UrlRulesConfig) -> None:
        self.enabled = config.enabled  # with the URL rules: nothing learnt or applied without
        self.needed = config.redirect_support

    def redirected(self, view: IndexView, url: str, location: str, status: int) -> str | None:
        """Learn from a redirect the crawl followed; the label of a rule it confirmed, if any."""
        permanent = self.enabled and status in _PERMANENT
        shaped = _shape(url, location) if permanent else None
        if shaped is None:
            return None
        host, shape, target = shaped
        known = _read(view, host) or HostRedirects(host)
        seen = known.move if shape == MOVE else known.slash
        if seen.state == _DEAD:
            return None
        if shape == MOVE and known.target not in ("", target):
            # the host moves URLs to two places: no rule says where
            view.put("url_rules", _key(host), replace(known, move=Shape(_DEAD)).encode())
            return None
        support = seen.support + 1
        now = Shape(_CONFIRMED if support >= self.needed else seen.state, support)
        changed = (
            replace(known, move=now, target=target) if shape == MOVE else replace(known, slash=now)
        )
        view.put("url_rules", _key(host), changed.encode())
        return known.label(shape) if now.confirmed and not seen.confirmed else None

    @staticmethod
    def served(view: IndexView, url: str) -> str | None:
        """A page the URL's host served as itself (2xx): the host answers with pages, so no
        ``move`` of it is ever learnt (a host that moved a few pages to the same path elsewhere
        would otherwise lose the rest); one learnt already dies. A page under a bare name marks
        the host ``bare_pages``. The label of the rule killed, if any. One read a page, at most
        two writes a host."""
        host = authority_of(url)
        if not host:
            return None
        known, bare = _read(view, host), _bare_page(url)
        if known is not None and known.move.state == _DEAD and (known.bare_pages or not bare):
            return None
        killed = known or HostRedirects(host)
        changed = replace(killed, move=Shape(_DEAD), bare_pages=killed.bare_pages or bare)
        view.put("url_rules", _key(host), changed.encode())
        return known.label(MOVE) if known is not None and known.move.support else None

    def check_url(
        self, view: IndexView, url: str, check_directory: Callable[[IndexView, str], Decision]
    ) -> Decision | None:
        """The URL dropped for where its host's confirmed redirect rule sends it; None when no
        rule sends it. A slashless URL is dropped only where its directory is known to be one:
        its page held, or dropped before its fetch (``check_directory``: a copy's directory whose
        counterpart is held) for the page that drop names."""
        host = authority_of(url) if self.enabled else ""
        known = _read(view, host) if host else None
        if known is None:
            return None
        parts = urlsplit(url)
        if known.move.confirmed:
            landing = known.target + url[len(f"{parts.scheme}://{parts.netloc}") :]
            evidence: dict[str, object] = {"redirect_rule": known.label(MOVE)}
            if view.page_id_for_url(landing) is None:
                evidence["crawl_instead"] = landing
            return Decision(url, "drop", Reason.DUPLICATE_URL, landing, evidence)
        slashless = parts.path and not parts.path.endswith("/") and not parts.query
        if not (known.slash.confirmed and slashless):
            return None
        directory, evidence = url + "/", {"redirect_rule": known.label(SLASH)}
        if view.page_id_for_url(directory) is not None:
            return Decision(url, "drop", Reason.DUPLICATE_URL, directory, evidence)
        there = check_directory(view, directory)
        if there.dropped:
            return replace(there, url=url, evidence=there.evidence | evidence)
        named_like_a_file = "." in parts.path.rsplit("/", 1)[1]
        if named_like_a_file or known.bare_pages:
            return None  # a page's name, or one as the host names its pages
        if view.get("url_rules", _failed_key(directory)) is not None:
            return None
        evidence["crawl_instead"] = directory
        return Decision(url, "drop", Reason.DUPLICATE_URL, directory, evidence)

    @staticmethod
    def fetch_failed(view: IndexView, url: str) -> tuple[str, str] | None:
        """A directory URL that a slash rule sent the crawl to and that could not be fetched: the
        slashless name was a file after all. Remembered (its slashless URL is fetched from then
        on); the slashless URL to crawl in its place, and the rule's label. None for any other
        URL."""
        slashless = url.removesuffix("/")
        host = authority_of(url)
        known = _read(view, host) if host and slashless != url else None
        if known is None or not known.slash.confirmed or urlsplit(slashless).path in ("", "/"):
            return None
        view.put("url_rules", _failed_key(url), b"")
        return slashless, known.label(SLASH)

    @staticmethod
    def remove(view: IndexView, label: str) -> bool:
        """Kill the rule named ``label`` ("host redirect shape", as listed) for good; whether
        there was a live one."""
        host, _, rest = label.strip().partition(" ")
        known = _read(view, host.lower())
        shape = rest.removeprefix("redirect ").strip()
        if known is None or shape not in (MOVE, SLASH):
            return False
        seen = known.move if shape == MOVE else known.slash
        if seen.state == _DEAD or not seen.support:
            return False
        dead = Shape(_DEAD, seen.support)
        killed = replace(known, move=dead) if shape == MOVE else replace(known, slash=dead)
        view.put("url_rules", _key(known.host), killed.encode())
        return True

    @staticmethod
    def rules(view: IndexView, with_candidates: bool = False) -> list[dict[str, object]]:
        """The confirmed redirect rules (and the open and dead ones ``with_candidates``)."""
        listed = []
        for _, value in view.scan("url_rules", _PREFIX):
            known = HostRedirects.decode(bytes(value))
            for shape, seen in ((MOVE, known.move), (SLASH, known.slash)):
                if seen.support and (with_candidates or seen.confirmed):
                    listed.append(known.describe(shape))
        return listed
