"""The multi-host test web: documentation trees, mirrors, duplicates and traps, with ground truth.

``build_web(seed, scale)`` is deterministic: the same arguments give the same bytes in any process.
The seed picks which pages a partial mirror lacks, which pages a stale mirror has older versions
of, which pages get duplicated, and the session ids, timestamps and counters; the layout is fixed.
Ground truth partitions the pages: every page is an original, a mirrored page, the index page of
a mirror (fetched to detect it), a near-duplicate or an exact duplicate; never two of these.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random

from . import catalog
from .catalog import (
    ALPHA,
    BETA,
    DELTA,
    EPSILON,
    GAMMA,
    PARTIAL_MIRROR,
    RENAMED_MIRROR,
    STALE_MIRROR,
    THETA,
)
from .copies import absolute_links, copy_tree, older_version, site_url, with_banner
from .duplicates import reformatted, reposted, session_stamp, with_session
from .host_site import DOWNLOADS, GUIDE_CHAPTERS

_MISSING_SHARE = 0.2  # the partial mirror lacks this share of its pages
_EDITED_SHARE = 0.3  # the stale mirror has older versions of this share of its pages
_DUPLICATES = {"small": 3, "demo": 8}  # pages per duplicate kind
_POSTS = "blog/2024/05/"


@dataclass(frozen=True, slots=True)
class MirrorTruth:
    """Directory ``d2`` replicates directory ``d1`` (absolute URLs ending in ``/``); (d2, d1) is the
    replica boundary: the topmost replicated pair."""

    kind: str  # "whole_host" | "renamed_subdirectory" | "partial" | "stale"
    d2: str
    d1: str
    index_path: str  # relative path of the index page that stands for d2 ("" or "index.html")
    relative_paths: tuple[str, ...]  # pages present under both directories
    missing_paths: tuple[str, ...] = ()  # under d1 only: linked from d2's pages, 404 there
    edited_paths: tuple[str, ...] = ()  # under both, but d2 holds an older version

    @property
    def boundary(self) -> tuple[str, str]:
        return self.d2, self.d1

    @property
    def index_url(self) -> str:
        return self.d2 + self.index_path

    @property
    def mirrored_urls(self) -> frozenset[str]:
        """The pages under d2 that an ideal crawler never fetches (all but d2's index page)."""
        return frozenset(self.d2 + path for path in self.relative_paths if path != self.index_path)

    @property
    def missing_urls(self) -> frozenset[str]:
        return frozenset(self.d2 + path for path in self.missing_paths)

    def counterpart(self, url: str) -> str | None:
        """The URL under d1 with the same relative path as ``url`` under d2, if it is a page."""
        if not url.startswith(self.d2):
            return None
        relative = url[len(self.d2) :]
        return (
            self.d1 + relative
            if relative in self.relative_paths or relative in self.missing_paths
            else None
        )


@dataclass(frozen=True, slots=True)
class LookAlikeTrap:
    """Directories whose index pages look alike but whose contents do not replicate."""

    kind: str  # "directory_listing" | "generator_skeleton"
    directories: tuple[str, ...]
    shared_paths: tuple[
        str, ...
    ]  # relative paths of HTML pages present, with other text, under each


def page_served(pages: Mapping[str, bytes], url: str, query_blind: bool) -> bytes | None:
    """The page at ``url``; on a query-blind web, for a URL with a query it has no page for,
    the page of the URL with the fewest of its last parameters left out: static servers and
    most CMSes read only the parameters they know and ignore the others (``x.html?lang=fr`` is
    ``x.html`` where nothing serves a French edition, ``x.html?lang=fr&sessionid=S`` the French
    edition)."""
    page = pages.get(url)
    if page is not None or not query_blind or "?" not in url:
        return page
    path, _, query = url.partition("?")
    params = query.split("&")
    while params and page is None:
        params.pop()
        page = pages.get(path + "?" + "&".join(params) if params else path)
    return page


@dataclass
class TestWeb:
    """The pages (URL -> body), non-HTML files, start URLs and ground truth of one built web."""

    __test__ = False  # a pytest collector must not take this for a test class

    seed: int
    scale: str
    pages: dict[str, bytes]
    assets: dict[str, tuple[str, bytes]]  # URL -> (content type, body), e.g. downloads, robots.txt
    start_urls: list[str]
    mirrors: list[MirrorTruth]
    traps: list[LookAlikeTrap]
    boilerplate_urls: set[str]  # short same-site pages dominated by a heavy site template
    near_duplicates: dict[str, str]  # URL -> URL of its original
    exact_duplicates: dict[str, str]
    originals: set[str] = field(default_factory=set)
    mirrored_urls: set[str] = field(default_factory=set)
    redirects: dict[str, str] = field(default_factory=dict)  # URL -> where a 301 sends it
    # host -> the page it answers with status 200 for a URL it has no page for (a soft 404)
    soft_404_hosts: dict[str, bytes] = field(default_factory=dict)
    # a URL with a query it has no page for is answered with its path's page (``page_served``)
    query_blind: bool = False

    def __post_init__(self) -> None:
        self.mirrored_urls = set().union(*(mirror.mirrored_urls for mirror in self.mirrors))
        derived = self.mirrored_urls | {mirror.index_url for mirror in self.mirrors}
        derived |= self.near_duplicates.keys() | self.exact_duplicates.keys()
        self.originals = set(self.pages) - derived

    def case_counts(self) -> dict[str, int]:
        counts = {
            "pages": len(self.pages),
            "originals": len(self.originals),
            "mirrored": len(self.mirrored_urls),
            "near_duplicates": len(self.near_duplicates),
            "exact_duplicates": len(self.exact_duplicates),
            "boilerplate": len(self.boilerplate_urls),
        }
        for mirror in self.mirrors:
            counts[f"mirror:{mirror.kind}"] = len(mirror.relative_paths)
        for trap in self.traps:
            counts[f"trap:{trap.kind}"] = len(trap.directories)
        return counts


def build_web(seed: int = 0, scale: str = "small") -> TestWeb:
    """Build the web. ``scale`` is "small" (a few hundred pages) or "demo" (over a thousand).

    Example:
        >>> web = build_web(seed=0, scale="small")
        >>> web.pages["http://docs.alpha.test/"][:15]
        b'<!DOCTYPE html>'
    """
    if scale not in catalog.SCALES:
        msg = f"scale must be one of {', '.join(catalog.SCALES)}, not {scale!r}"
        raise ValueError(msg)
    rng = Random(seed)
    alpha = catalog.alpha(scale, seed).render()
    hosts = {ALPHA: alpha, BETA: copy_tree(alpha, ALPHA, "", BETA, "")}
    mirrors = [_mirror("whole_host", BETA, "", ALPHA, "", hosts[BETA], "")]
    duplicates = _Duplicates(alpha, rng, _DUPLICATES[scale])
    hosts[GAMMA] = catalog.gamma(scale, seed, duplicates.bookmarks).render()
    hosts[DELTA] = catalog.delta(scale, seed).render()
    hosts[EPSILON] = catalog.epsilon(seed).render()
    hosts[THETA] = catalog.theta(seed, duplicates.reading_list).render()
    mirrors.append(_renamed_mirror(alpha, hosts[GAMMA]))
    mirrors.append(_partial_mirror(alpha, hosts[DELTA], rng))
    mirrors.append(_stale_mirror(alpha, hosts[EPSILON], rng))
    alpha.update(duplicates.alpha_pages)
    hosts[THETA].update(duplicates.theta_pages)
    return TestWeb(
        seed=seed,
        scale=scale,
        pages={
            site_url(host, path): body.encode()
            for host, pages in hosts.items()
            for path, body in pages.items()
        },
        assets=_assets(),
        start_urls=[site_url(host, _root_path(pages)) for host, pages in hosts.items()],
        mirrors=mirrors,
        traps=_traps(),
        boilerplate_urls={
            site_url(ALPHA, path)
            for path in alpha
            if path.startswith("functions/") and path.endswith(".html")
        },
        near_duplicates=duplicates.near,
        exact_duplicates=duplicates.exact,
    )


class _Duplicates:
    """Near and exact duplicates of alpha's module pages, and the link lists that lead to them.

    The gamma bookmarks (session URLs) and the theta reading list sit deeper than the originals,
    so a breadth-first crawl meets every original before its duplicate.
    """

    def __init__(self, alpha: dict[str, str], rng: Random, per_kind: int) -> None:
        candidates = sorted(
            path
            for path in alpha
            if path.startswith("library/") and path.count("/") == 3 and path.endswith(".html")
        )
        chosen = rng.sample(candidates, 4 * per_kind)
        session, repost, alias, copy = (chosen[kind::4] for kind in range(4))
        self.alpha_pages: dict[str, str] = {}
        self.theta_pages: dict[str, str] = {}
        self.near: dict[str, str] = {}
        self.exact: dict[str, str] = {}
        self.bookmarks: list[tuple[str, str]] = []
        self.reading_list: list[tuple[str, str]] = []
        for path in session:
            stamp = session_stamp(rng)
            body = with_session(alpha[path], stamp)
            url = self._record(ALPHA, f"{path}?sid={stamp['session']}", body, path, self.near)
            self.bookmarks.append((url, path))
        for path in repost:
            body = reposted(
                absolute_links(alpha[path], ALPHA, path), site_url(ALPHA, path), session_stamp(rng)
            )
            url = self._record(THETA, f"{_POSTS}reposts/{_slug(path)}", body, path, self.near)
            self.reading_list.append((url, f"Repost: {path}"))
        for path in alias:
            url = self._record(
                ALPHA,
                path.removesuffix(".html") + ".htm",
                reformatted(alpha[path]),
                path,
                self.exact,
            )
            self.reading_list.append((url, f"Old link: {path}"))
        for path in copy:
            body = reformatted(absolute_links(alpha[path], ALPHA, path))
            url = self._record(THETA, f"{_POSTS}notes/{_slug(path)}", body, path, self.exact)
            self.reading_list.append((url, f"Notes: {path}"))

    def _record(self, host: str, path: str, body: str, original: str, truth: dict[str, str]) -> str:
        (self.alpha_pages if host == ALPHA else self.theta_pages)[path] = body
        url = site_url(host, path)
        truth[url] = site_url(ALPHA, original)
        return url


def _mirror(
    kind: str,
    host: str,
    directory: str,
    source_host: str,
    source_dir: str,
    copied: dict[str, str],
    index_path: str,
    **extra: tuple[str, ...],
) -> MirrorTruth:
    relative = tuple(
        sorted(path[len(directory) :] for path in copied if path.startswith(directory))
    )
    return MirrorTruth(
        kind,
        site_url(host, directory),
        site_url(source_host, source_dir),
        index_path,
        relative,
        **extra,
    )


def _renamed_mirror(alpha: dict[str, str], gamma: dict[str, str]) -> MirrorTruth:
    source_dir, host, directory = RENAMED_MIRROR
    copied = copy_tree(alpha, ALPHA, source_dir, host, directory)
    gamma.update(copied)
    return _mirror("renamed_subdirectory", host, directory, ALPHA, source_dir, copied, "")


def _partial_mirror(alpha: dict[str, str], delta: dict[str, str], rng: Random) -> MirrorTruth:
    source_dir, host, directory = PARTIAL_MIRROR
    copied = copy_tree(alpha, ALPHA, source_dir, host, directory)
    leaves = sorted(
        path for path in copied if path.endswith(".html") and not path.endswith("/index.html")
    )
    missing = rng.sample(leaves, round(_MISSING_SHARE * len(copied)))
    for path in missing:
        del copied[path]
    delta.update(copied)
    missing_paths = tuple(sorted(path[len(directory) :] for path in missing))
    return _mirror(
        "partial", host, directory, ALPHA, source_dir, copied, "", missing_paths=missing_paths
    )


def _stale_mirror(alpha: dict[str, str], epsilon: dict[str, str], rng: Random) -> MirrorTruth:
    source_dir, host, directory = STALE_MIRROR
    copied = copy_tree(alpha, ALPHA, source_dir, host, directory)
    banner = "Archived copy of 14 June 2021."
    edited = []
    for path in rng.sample(
        sorted(path for path in copied if path != directory), round(_EDITED_SHARE * len(copied))
    ):
        older = older_version(copied[path], rng)
        if older is not None:
            copied[path] = older
            edited.append(path[len(directory) :])
    epsilon.update({path: with_banner(body, banner) for path, body in copied.items()})
    return _mirror(
        "stale", host, directory, ALPHA, source_dir, copied, "", edited_paths=tuple(sorted(edited))
    )


def _traps() -> list[LookAlikeTrap]:
    listings = tuple(site_url(host, "downloads/") for host in (ALPHA, GAMMA, DELTA, EPSILON))
    guides = (site_url(GAMMA, "guide/"), site_url(DELTA, "guide/"))
    return [
        LookAlikeTrap("directory_listing", listings, ()),
        LookAlikeTrap("generator_skeleton", guides, GUIDE_CHAPTERS),
    ]


def _assets() -> dict[str, tuple[str, bytes]]:
    """robots.txt for every host; the downloads' archives, different bytes on every host."""
    assets = {
        site_url(host, "robots.txt"): ("text/plain", b"User-agent: *\nDisallow:\n")
        for host in (ALPHA, BETA, GAMMA, DELTA, EPSILON, THETA)
    }
    for host in (ALPHA, GAMMA, DELTA, EPSILON):
        for name, _ in DOWNLOADS:
            body = hashlib.sha256(f"{host}/{name}".encode()).digest() * 64
            assets[site_url(host, f"downloads/{name}")] = ("application/octet-stream", body)
    for name, _ in DOWNLOADS:  # the whole-host mirror copies the archives byte for byte
        assets[site_url(BETA, f"downloads/{name}")] = assets[site_url(ALPHA, f"downloads/{name}")]
    return assets


def _root_path(pages: dict[str, str]) -> str:
    """The host's home page: ``/index.html`` on hosts that name index pages, else ``/``."""
    return "" if "" in pages else "index.html"


def _slug(path: str) -> str:
    return "-".join(path.split("/")[-2:])
