"""Real HTML, offline: pydoc's rendering of the standard library, one page a module.

The list is deterministic for one Python build: modules are taken in sorted order, install paths
and object addresses are neutralised, and modules whose pages would show the process environment
(its values change with the shell and could carry secrets) or that act on import (open a browser,
start a GUI) are left out. Rendering takes a few seconds, so it happens once per process.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import pkgutil
import pydoc
import re
import sys
import sysconfig
import warnings
from dataclasses import dataclass

# act on import or need a display, or show the environment / install paths in their data
_LEFT_OUT = frozenset(
    {
        "antigravity",
        "this",
        "idlelib",
        "tkinter",
        "turtle",
        "turtledemo",
        "lib2to3",
        "distutils",
        "ensurepip",
        "venv",
        "pydoc_data",
        "test",
        "encodings",
        "os",
        "posix",
        "sys",
        "cgi",
        "cgitb",
        "platform",
        "site",
        "sysconfig",
        "wsgiref.handlers",
    }
)
# packages whose public submodules get pages of their own
_EXPANDED_PACKAGES = (
    "asyncio",
    "collections",
    "concurrent",
    "concurrent.futures",
    "ctypes",
    "curses",
    "dbm",
    "email",
    "email.mime",
    "html",
    "http",
    "importlib",
    "importlib.metadata",
    "importlib.resources",
    "json",
    "logging",
    "multiprocessing",
    "multiprocessing.dummy",
    "sqlite3",
    "unittest",
    "urllib",
    "wsgiref",
    "xml",
    "xml.dom",
    "xml.etree",
    "xml.parsers",
    "xml.sax",
    "xmlrpc",
    "zoneinfo",
)
_ADDRESS = re.compile(r"\b(at(?:&nbsp;| )0x|handle )[0-9a-fA-F]{6,16}\b")


@dataclass(frozen=True, slots=True)
class DocPage:
    """One rendered documentation page: the module's dotted name and its HTML (UTF-8)."""

    name: str
    html: bytes


def documentation_pages(limit: int | None = None) -> list[DocPage]:
    """The pages of every importable standard-library module in name order (the first ``limit``)."""
    pages = _rendered_pages()
    return list(pages if limit is None else pages[:limit])


def module_names() -> list[str]:
    """Public top-level standard-library modules, plus the public submodules of a few packages."""
    names = {name for name in sys.stdlib_module_names if _is_public(name)}
    for package in _EXPANDED_PACKAGES:
        names.update(f"{package}.{child}" for child in _children(package))
    return sorted(name for name in names if not _left_out(name))


@functools.cache
def _rendered_pages() -> tuple[DocPage, ...]:
    rendered = (_render(name) for name in module_names())
    return tuple(page for page in rendered if page is not None)


def _render(name: str) -> DocPage | None:
    """pydoc's HTML for ``name``, or None when the module does not import or render here."""
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            module = importlib.import_module(name)
            renderer = pydoc.HTMLDoc()
            html = renderer.page(pydoc.describe(module), renderer.document(module, name))
    except (Exception, SystemExit):  # a module that fails to import or render is skipped
        return None
    return DocPage(name, _neutralise(html).encode("utf-8"))


def _neutralise(html: str) -> str:
    """Replace what differs between machines and processes: install paths and object addresses."""
    for prefix in _install_prefixes():
        html = html.replace(prefix, "/usr/lib/python3")
    return _ADDRESS.sub(r"\g<1>0", html)


@functools.cache
def _install_prefixes() -> tuple[str, ...]:
    paths = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
    return tuple(sorted(paths, key=len, reverse=True))


def _children(package: str) -> list[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = importlib.import_module(package).__path__
    except (ImportError, AttributeError):
        return []
    return [info.name for info in pkgutil.iter_modules(path) if _is_public(info.name)]


def _left_out(name: str) -> bool:
    parts = name.split(".")
    return any(".".join(parts[:depth]) in _LEFT_OUT for depth in range(1, len(parts) + 1))


def _is_public(name: str) -> bool:
    return not name.startswith("_") and name not in {"test", "tests"}
