"""The six hosts of the test web and what each holds of its own (``site`` adds the copies).

Every module's documentation and every prose source appears on one host only, so the only
duplicates in the web are those that ``site`` makes on purpose and records as ground truth.
"""

from __future__ import annotations

import html

from .docs_tree import Manual
from .host_site import HostSite, builtin_function_pages, prose_slice
from .pages import Page
from .templates import SiteStyle

ALPHA, BETA, GAMMA = "docs.alpha.test", "mirror1.beta.test", "www.gamma.test"
DELTA, EPSILON, THETA = "docs.delta.test", "archive.epsilon.test", "blog.theta.test"
SCALES = ("small", "demo")

# (directory on alpha, mirror host, directory on the mirror host)
RENAMED_MIRROR = ("library/internet/email/", GAMMA, "community/mirrors/python/email-manual/")
PARTIAL_MIRROR = ("library/markup/xml/", DELTA, "pub/mirrors/python/xml/")
STALE_MIRROR = ("library/internet/http/", EPSILON, "archive/python/2021/http/")

_ALPHA_LIBRARY = {
    "small": {"internet": ("email", "http"), "markup": ("xml", "html"), "data": ("json",)},
    "demo": {
        "internet": (
            "email",
            "http",
            "urllib",
            "xmlrpc",
            "wsgiref",
            "imaplib",
            "poplib",
            "mailbox",
        ),
        "markup": ("xml", "html"),
        "data": ("json", "csv", "configparser", "tomllib", "plistlib"),
        "runtime": ("logging", "importlib", "collections", "contextlib", "functools"),
        "files": ("pathlib", "shutil", "tarfile", "zipfile", "fileinput"),
        "text": ("textwrap", "difflib", "re", "pprint", "reprlib"),
    },
}
_GAMMA_HANDBOOK = {
    "small": ("concurrent", "queue", "threading"),
    "demo": (
        "concurrent",
        "queue",
        "threading",
        "asyncio",
        "multiprocessing",
        "sched",
        "selectors",
    ),
}
_DELTA_MANUAL = {
    "small": ("sqlite3", "zoneinfo", "dbm"),
    "demo": ("sqlite3", "zoneinfo", "dbm", "unittest", "doctest", "trace", "pstats", "bdb"),
}
_BUILTINS: dict[str, tuple[str, ...]] = {
    "small": (
        "callable",
        "globals",
        "next",
        "hash",
        "anext",
        "pow",
        "round",
        "locals",
        "sum",
        "sorted",
        "getattr",
        "issubclass",
        "iter",
        "isinstance",
        "max",
        "min",
        "print",
        "input",
        "ascii",
        "eval",
        "exec",
        "dir",
        "compile",
    ),
}
_BUILTINS["demo"] = (
    "abs",
    "aiter",
    "len",
    "ord",
    "bin",
    "hex",
    "oct",
    "divmod",
    "vars",
    "chr",
    "delattr",
    "format",
    "repr",
    "any",
    "all",
    "breakpoint",
    "hasattr",
    "setattr",
    "id",
    *_BUILTINS["small"],
)
_GAMMA_GUIDE = ("argparse", "copy", "timeit", "heapq:__about__@9:13", "struct")
_DELTA_GUIDE = ("socketserver", "statistics", "rlcompleter", "itertools", "io")
_THETA_POSTS = (
    ("debugger-notes.html", "Notes on the debugger", "pdb@0:16"),
    ("debugger-commands.html", "Debugger commands, continued", "pdb@16:40"),
    ("subprocesses.html", "Running subprocesses", "subprocess"),
    ("heap-queues.html", "Heap queues", "heapq"),
    ("random-numbers.html", "Where random numbers come from", "random"),
    ("memory.html", "Collecting garbage", "gc"),
)


def alpha(scale: str, seed: int) -> HostSite:
    """The original documentation host: library manuals, built-in functions, downloads."""
    style = SiteStyle(
        "Alpha Library Docs",
        (
            ("Home", "/"),
            ("Library", "/library/"),
            ("Functions", "/functions/"),
            ("Downloads", "/downloads/"),
            ("About", "/about.html"),
        ),
        prose_slice("site@2:3"),
    )
    site = HostSite(ALPHA, style, "", seed)
    library = _ALPHA_LIBRARY[scale]
    site.manuals(
        [
            Manual(package, f"library/{area}/{package}/")
            for area, packages in library.items()
            for package in packages
        ]
    )
    site.add(site.listing("library/", [f"{area}/" for area in library]))
    for area, packages in library.items():
        site.add(site.listing(f"library/{area}/", [f"{package}/" for package in packages]))
    site.add(*builtin_function_pages(site, list(_BUILTINS[scale])), site.downloads())
    site.add(site.prose_page("about.html", "About these documents", "pydoc@6:12"))
    site.add(
        site.prose_page(
            "",
            "Alpha Library Docs",
            "pydoc@3:6",
            [
                ("library/", "Library manuals", "by area"),
                ("functions/", "Built-in functions", ""),
                ("downloads/", "Downloads", "the manuals as archives"),
                ("about.html", "About", ""),
            ],
        )
    )
    return site


def gamma(scale: str, seed: int, bookmarks: list[tuple[str, str]]) -> HostSite:
    """A community site: a concurrency handbook, a generated guide, bookmarks, a mirror corner."""
    style = SiteStyle(
        "Gamma Python Handbook",
        (
            ("Home", "/index.html"),
            ("Handbook", "/handbook/index.html"),
            ("Guide", "/guide/index.html"),
            ("Community", "/community/index.html"),
        ),
        prose_slice("tempfile@1:2"),
    )
    site = HostSite(GAMMA, style, "index.html", seed)
    manuals = [Manual(package, f"handbook/{package}/") for package in _GAMMA_HANDBOOK[scale]]
    site.manuals(manuals)
    site.add(site.manual_index("handbook/", "The concurrency handbook", manuals), site.downloads())
    site.guide("docs", _GAMMA_GUIDE)
    mirror_name = RENAMED_MIRROR[2].split("/")[-2]
    site.add(
        site.prose_page(
            "community/index.html",
            "Community",
            "operator",
            [
                ("community/links/index.html", "Links", ""),
                ("community/mirrors/index.html", "Mirrors", ""),
            ],
        ),
        site.prose_page(
            "community/links/index.html",
            "Links",
            "shlex@0:1",
            [("community/links/python/index.html", "Python", "")],
        ),
        site.prose_page(
            "community/links/python/index.html",
            "Python links",
            "fnmatch",
            [("community/links/python/bookmarks.html", "Bookmarks", "shared by readers")],
        ),
        _absolute_links_page("community/links/python/bookmarks.html", "Bookmarks", bookmarks),
        site.prose_page(
            "community/mirrors/index.html",
            "Mirrors",
            "linecache",
            [("community/mirrors/python/index.html", "Python", "")],
        ),
        site.prose_page(
            "community/mirrors/python/index.html",
            "Python mirrors",
            "filecmp",
            [(RENAMED_MIRROR[2], mirror_name, "a copy of the email manual of docs.alpha.test")],
        ),
        site.prose_page(
            "index.html",
            "Gamma Python Handbook",
            "string",
            [
                ("handbook/index.html", "Handbook", ""),
                ("guide/index.html", "Guide", ""),
                ("downloads/", "Downloads", ""),
                ("community/index.html", "Community", ""),
            ],
        ),
    )
    return site


def delta(scale: str, seed: int) -> HostSite:
    """A testing-tools site that keeps a (partial) mirror of alpha's XML manual."""
    style = SiteStyle(
        "Delta Testing Docs",
        (("Home", "/"), ("Manual", "/manual/"), ("Guide", "/guide/"), ("Mirrors", "/pub/")),
        prose_slice("inspect@5:6"),
    )
    site = HostSite(DELTA, style, "", seed)
    manuals = [Manual(package, f"manual/{package}/") for package in _DELTA_MANUAL[scale]]
    site.manuals(manuals)
    site.add(site.manual_index("manual/", "Testing and storage manual", manuals), site.downloads())
    site.guide("docs", _DELTA_GUIDE)
    _listing_chain(site, PARTIAL_MIRROR[2])
    site.add(
        site.prose_page(
            "",
            "Delta Testing Docs",
            "pickle",
            [
                ("manual/", "Manual", ""),
                ("guide/", "Guide", ""),
                ("downloads/", "Downloads", ""),
                ("pub/", "Public mirrors", ""),
            ],
        )
    )
    return site


def epsilon(seed: int) -> HostSite:
    """An archive host: an old snapshot of alpha's HTTP manual, and downloads."""
    style = SiteStyle(
        "Epsilon Archive", (("Home", "/"), ("Archive", "/archive/")), prose_slice("smtplib@5:6")
    )
    site = HostSite(EPSILON, style, "", seed)
    _listing_chain(site, STALE_MIRROR[2])
    site.add(
        site.downloads(),
        site.prose_page(
            "",
            "Epsilon Archive",
            "locale",
            [
                ("archive/", "Archive", "snapshots of documentation sites"),
                ("downloads/", "Downloads", ""),
            ],
        ),
    )
    return site


def theta(seed: int, reading_list: list[tuple[str, str]]) -> HostSite:
    """A blog: posts of its own and a reading list that points at copies and reposts."""
    style = SiteStyle("Theta Notes", (("Home", "/"), ("Blog", "/blog/")), prose_slice("ftplib@3:4"))
    site = HostSite(THETA, style, "", seed)
    month = "blog/2024/05/"
    posts = [(month + name, title, "") for name, title, _ in _THETA_POSTS]
    for (path, title, _), (_, _, source) in zip(posts, _THETA_POSTS, strict=True):
        site.add(site.prose_page(path, title, source))
    site.add(
        _absolute_links_page(month + "reading-list.html", "Reading list", reading_list),
        site.prose_page(
            month,
            "May 2024",
            "gettext",
            [*posts, (month + "reading-list.html", "Reading list", "")],
        ),
        site.prose_page("blog/2024/", "2024", "keyword", [(month, "May", "")]),
        site.prose_page("blog/", "Blog", "mimetypes", [("blog/2024/", "2024", "")]),
        site.prose_page("", "Theta Notes", "colorsys", [("blog/", "Blog", ""), *posts[:2]]),
    )
    return site


def _listing_chain(site: HostSite, directory: str) -> None:
    """Directory listings from the root down to (not including) ``directory``."""
    parts = directory.strip("/").split("/")
    for depth in range(1, len(parts)):
        site.add(site.listing("".join(f"{part}/" for part in parts[:depth]), [f"{parts[depth]}/"]))


def _absolute_links_page(path: str, title: str, links: list[tuple[str, str]]) -> Page:
    items = "".join(
        f'<li><a href="{html.escape(url)}">{html.escape(label)}</a></li>\n' for url, label in links
    )
    return Page(path, title, f"<h1>{html.escape(title)}</h1>\n<ul>\n{items}</ul>\n")
