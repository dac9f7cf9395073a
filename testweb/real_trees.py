"""A multi-host web built from real documentation trees found on this machine, with ground truth.

The other test webs are generated; this one holds documents nobody wrote for the filter: the HTML
manuals of a Rust toolchain (mdBook books: chapters with a shared sidebar, ``print.html`` holding a
whole book, redirect stubs of old editions). Copies are made as mirroring tools make them
(``copies.copy_tree``): a whole-host mirror, a book filed deeper on an FTP-style host, and a
partial copy on a host with manuals of its own. A clean machine has no such trees, so this web
serves benchmarks (``bench/real_trees.py``), never the test suite. ``packaged_docs_web`` does the
same with manuals of other generators (Node.js, DocBook, npm, gtk-doc) where packages install them.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from random import Random

from dedup_filter.features.text import html_tokens

from .copies import copy_tree, site_url
from .pages import link_list
from .site import MirrorTruth, TestWeb

ORIGIN, WHOLE, FTP, BOOKS = "docs.origin.test", "docs-mirror.test", "ftp.example.test", "books.test"
ORIGIN_TREES = ("book", "nomicon", "reference", "edition-guide", "embedded-book")
OWN_TREES = ("rustdoc", "style-guide", "clippy")  # books.test's own manuals
DEEP_COPY = ("nomicon/", "pub/languages/rust/nomicon/")  # FTP: one book, filed deeper
PARTIAL_COPY = ("edition-guide/", "rust/edition-guide/")  # books.test: a copy missing pages
_MISSING_SHARE = 0.2
# manuals made by other generators, where Debian and npm packages install them
PACKAGED_DOCS = {
    "node/": Path("/usr/share/doc/nodejs/api"),  # Node.js's own doc tool
    "valgrind/": Path("/usr/share/doc/valgrind/html"),  # DocBook
    "npm/": Path("/usr/lib/node_modules/npm/docs/output"),  # npm's
    "xslt/": Path("/usr/share/doc/libxslt1-dev/html"),  # gtk-doc style API reference
}
_PACKAGED_COPIES = (  # (origin directory, mirror host, mirror directory)
    ("node/", "mirror.nodes.test", "pub/nodejs/api/"),
    ("valgrind/", "ftp.tools.test", "mirror/valgrind-docs/"),
    ("npm/", "www.other.test", "docs/npm/"),
)
_TOOLCHAINS = "~/.rustup/toolchains/*/share/doc/rust/html"


def find_doc_roots() -> list[Path]:
    """The HTML documentation of every installed Rust toolchain, stable first."""
    roots = glob.glob(os.path.expanduser(_TOOLCHAINS))
    return [Path(root) for root in sorted(roots, key=lambda path: "stable" not in path)]


def real_tree_web(
    root: Path,
    other_build: Path | None = None,
    seed: int = 0,
    trees: tuple[str, ...] = ORIGIN_TREES,
) -> TestWeb:
    """The web: ``trees`` of ``root`` on the origin host, their copies, and a host of its own.

    With ``other_build`` (another toolchain's manuals) the whole-host mirror serves that build:
    the same books from another release, as mirrors that lag behind their origin do; its pages
    whose terms differ from the origin's are the truth's ``edited_paths``.
    """
    origin = _read_trees(root, trees)
    origin[""] = _top_index(trees)
    whole = dict(origin)
    if other_build is not None:
        whole = _read_trees(other_build, trees) | {"": origin[""]}
    own = _read_trees(root, OWN_TREES)
    deep = copy_tree(origin, ORIGIN, DEEP_COPY[0], FTP, DEEP_COPY[1])
    partial = copy_tree(origin, ORIGIN, PARTIAL_COPY[0], BOOKS, PARTIAL_COPY[1])
    missing = _missing(partial, PARTIAL_COPY[1], Random(seed))
    for path in missing:
        del partial[path]
    ftp_index = link_list("", [(DEEP_COPY[1] + "index.html", "The Rustonomicon", "")])
    books_index = link_list(
        "",
        [(f"{tree}/index.html", tree, "") for tree in OWN_TREES]
        + [(PARTIAL_COPY[1] + "index.html", "Edition guide (copy)", "")],
    )
    hosts = {
        ORIGIN: origin,
        WHOLE: whole,
        FTP: {"": ftp_index} | deep,
        BOOKS: {"": books_index} | own | partial,
    }
    mirrors = [
        _whole_host_truth(origin, whole),
        _truth("renamed_subdirectory", FTP, DEEP_COPY[1], origin, DEEP_COPY[0], "index.html"),
        _truth(
            "partial",
            BOOKS,
            PARTIAL_COPY[1],
            origin,
            PARTIAL_COPY[0],
            "index.html",
            frozenset(missing),
        ),
    ]
    return _web(hosts, mirrors, seed)


def packaged_docs_web(sources: dict[str, Path] | None = None, seed: int = 0) -> TestWeb:
    """Manuals other generators made, as packages install them, on one origin host (a directory
    each); every copy in ``_PACKAGED_COPIES`` filed deeper on a host of its own; the whole origin
    mirrored. A directory without an index page gets a listing of its pages."""
    sources = PACKAGED_DOCS if sources is None else sources
    origin: dict[str, str] = {}
    for prefix, directory in sources.items():
        tree = _read_tree(directory, prefix)
        index = prefix + "index.html"
        tree.setdefault(index, link_list(index, [(path, path, "") for path in sorted(tree)]))
        origin |= tree
    origin[""] = link_list("", [(prefix + "index.html", prefix, "") for prefix in sources])
    hosts = {ORIGIN: origin, WHOLE: dict(origin)}
    mirrors = [_truth("whole_host", WHOLE, "", origin, "", "")]
    for source_dir, host, target_dir in _PACKAGED_COPIES:
        if source_dir in sources:
            top = link_list("", [(target_dir + "index.html", source_dir, "")])
            hosts[host] = {"": top} | copy_tree(origin, ORIGIN, source_dir, host, target_dir)
            mirrors.append(
                _truth("renamed_subdirectory", host, target_dir, origin, source_dir, "index.html")
            )
    return _web(hosts, mirrors, seed)


def _web(hosts: dict[str, dict[str, str]], mirrors: list[MirrorTruth], seed: int) -> TestWeb:
    """The test web of these hosts' pages (by path), each host's root a start URL."""
    pages = {
        site_url(host, path): body.encode("utf-8", "surrogateescape")
        for host, host_pages in hosts.items()
        for path, body in host_pages.items()
    }
    return TestWeb(
        seed=seed,
        scale="real",
        pages=pages,
        assets={},
        start_urls=[site_url(host, "") for host in hosts],
        mirrors=mirrors,
        traps=[],
        boilerplate_urls=set(),
        near_duplicates={},
        exact_duplicates={},
    )


def _top_index(trees: tuple[str, ...]) -> str:
    return link_list("", [(f"{tree}/index.html", tree, "") for tree in trees])


def _whole_host_truth(origin: dict[str, str], whole: dict[str, str]) -> MirrorTruth:
    """Paths on both hosts are mirrored; those whose terms differ are edited."""
    shared = sorted(origin.keys() & whole.keys())
    edited = tuple(
        path for path in shared if _terms(origin[path], path) != _terms(whole[path], path)
    )
    return MirrorTruth(
        kind="whole_host" if not edited else "stale",
        d2=site_url(WHOLE, ""),
        d1=site_url(ORIGIN, ""),
        index_path="",
        relative_paths=tuple(shared),
        missing_paths=tuple(sorted(origin.keys() - whole.keys())),
        edited_paths=edited,
    )


def _terms(body: str, path: str) -> list[str]:
    return html_tokens(body, site_url(ORIGIN, path))[0]


def _read_trees(root: Path, trees: tuple[str, ...]) -> dict[str, str]:
    """Every HTML page under the trees, by path relative to ``root``."""
    return {
        path: body for tree in trees for path, body in _read_tree(root / tree, f"{tree}/").items()
    }


def _read_tree(directory: Path, prefix: str) -> dict[str, str]:
    """Every HTML page under ``directory``, by ``prefix`` + its path there (undecodable bytes
    kept, so they are served as they were)."""
    return {
        prefix + file.relative_to(directory).as_posix(): file.read_bytes().decode(
            "utf-8", "surrogateescape"
        )
        for file in sorted(directory.rglob("*.html"))
    }


def _missing(copied: dict[str, str], directory: str, rng: Random) -> set[str]:
    """A share of the copy's pages (never its top index page) that the copy lacks."""
    candidates = sorted(path for path in copied if path != directory + "index.html")
    return set(rng.sample(candidates, int(len(candidates) * _MISSING_SHARE)))


def _truth(
    kind: str,
    mirror_host: str,
    mirror_dir: str,
    origin: dict[str, str],
    origin_dir: str,
    index_path: str,
    missing: frozenset[str] = frozenset(),
) -> MirrorTruth:
    """The replicated pair (mirror_dir on mirror_host, origin_dir on the origin)."""
    relative = sorted(path[len(origin_dir) :] for path in origin if path.startswith(origin_dir))
    absent = {path[len(mirror_dir) :] for path in missing}
    return MirrorTruth(
        kind=kind,
        d2=site_url(mirror_host, mirror_dir),
        d1=site_url(ORIGIN, origin_dir),
        index_path=index_path,
        relative_paths=tuple(path for path in relative if path not in absent),
        missing_paths=tuple(sorted(absent)),
    )
