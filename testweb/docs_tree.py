"""Manuals: a standard-library package laid out as a documentation directory tree.

A package is a directory whose index page documents the package module; a sub-package is a
sub-directory; a module with two or more substantial classes is a directory too, with one page per
such class; any other module is one ``name.html`` page. Pages link to their children, siblings
and parent with relative hrefs, and pydoc's cross-references become relative links into the same
host's manuals, so a copied manual still resolves its own links under any new top directory.
"""

from __future__ import annotations

import functools
import html
import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass

from .pages import Page, directory_of, link_list, relative_href, rewrite_anchors
from .pydoc_source import ClassDoc, ModuleDoc, importable, module_doc

_SPLIT_CLASS_MIN_CHARS = 2_000  # a class this long in pydoc HTML gets a page of its own
_PYDOC_LINK = re.compile(r"([A-Za-z_][\w.]*)\.html(?:#(.*))?")


@dataclass(frozen=True, slots=True)
class Manual:
    package: str
    root: str  # site path of the package's directory, e.g. "library/internet/email/"


@functools.cache
def manual_modules(package: str) -> tuple[str, ...]:
    """The package and its public, importable sub-modules, depth first in name order."""
    names = [package]
    module = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(getattr(module, "__path__", [])), key=lambda i: i.name):
        name = f"{package}.{info.name}"
        if info.name.startswith("_") or info.name in {"test", "tests"} or not importable(name):
            continue
        names.extend(manual_modules(name) if info.ispkg else [name])
    return tuple(names)


def split_classes(doc: ModuleDoc) -> tuple[ClassDoc, ...]:
    """The classes of a module that get pages of their own (only when there are two or more)."""
    large = tuple(cls for cls in doc.classes if len(cls.html) >= _SPLIT_CLASS_MIN_CHARS)
    return large if len(large) >= 2 else ()


class SiteMap:
    """Where every module and split class of one host's manuals lives."""

    def __init__(self, manuals: list[Manual], index_name: str) -> None:
        self.index_name = index_name
        self.module_paths: dict[str, str] = {}
        self.class_paths: dict[tuple[str, str], str] = {}
        self.parents: dict[str, str] = {}
        for manual in manuals:
            for name in manual_modules(manual.package):
                self._place(manual, name)

    def target(self, module: str, anchor: str) -> str | None:
        """Site path (with fragment) of pydoc's ``module.html#anchor``, if this host has it."""
        class_path = self.class_paths.get((module, anchor.split("-", 1)[0]))
        if class_path is not None:
            return class_path + (f"#{anchor}" if "-" in anchor else "")
        path = self.module_paths.get(module)
        if path is None:
            return None
        return path + (f"#{anchor}" if anchor else "")

    def children(self, module: str) -> list[str]:
        return [name for name, parent in self.parents.items() if parent == module]

    def _place(self, manual: Manual, name: str) -> None:
        relative = name.split(".")[len(manual.package.split(".")) :]
        directory = manual.root + "".join(f"{part}/" for part in relative[:-1])
        doc = module_doc(name)
        is_package = hasattr(importlib.import_module(name), "__path__")
        if not relative:
            self.module_paths[name] = manual.root + self.index_name
        elif is_package or split_classes(doc):
            self.module_paths[name] = f"{directory}{relative[-1]}/{self.index_name}"
        else:
            self.module_paths[name] = f"{directory}{relative[-1]}.html"
        if relative:
            self.parents[name] = name.rsplit(".", 1)[0]
        for cls in split_classes(doc):
            module_directory = directory_of(self.module_paths[name])
            self.class_paths[(name, cls.name)] = f"{module_directory}{cls.name}.html"


def manual_pages(manual: Manual, site_map: SiteMap) -> list[Page]:
    pages = []
    for name in manual_modules(manual.package):
        pages.append(_module_page(name, site_map))
        pages.extend(_class_pages(name, site_map))
    return pages


def _module_page(name: str, site_map: SiteMap) -> Page:
    doc = module_doc(name)
    path = site_map.module_paths[name]
    own_pages = split_classes(doc)
    pydoc_html = _resolved(path, site_map)
    parts = [
        f"<h1>Module <code>{name}</code></h1>\n<p>{pydoc_html(doc.docstring_html)}</p>\n",
        _sibling_navigation(name, path, site_map),
        _section("Sub-modules", _module_list(name, path, site_map)),
        _section("Classes", _class_list(doc, own_pages, path, site_map)),
        *(pydoc_html(cls.html) for cls in doc.classes if cls not in own_pages),
        _section("Functions", pydoc_html("".join(doc.functions))),
        _section("Data", "<br>\n".join(doc.data)),
    ]
    return Page(path, name, "".join(parts))


def _class_pages(name: str, site_map: SiteMap) -> list[Page]:
    doc = module_doc(name)
    own_pages = split_classes(doc)
    module_path = site_map.module_paths[name]
    pages = []
    for cls in own_pages:
        path = site_map.class_paths[(name, cls.name)]
        siblings = [
            (site_map.class_paths[(name, other.name)], other.name, other.summary)
            for other in own_pages
            if other is not cls
        ]
        content = (
            f"<h1>Class <code>{name}.{cls.name}</code></h1>\n"
            f'<p>Defined in module <a href="{relative_href(path, module_path)}">{name}</a>.</p>\n'
            f"{_resolved(path, site_map)(cls.html)}\n"
            + _section("Other classes of this module", link_list(path, siblings))
        )
        pages.append(Page(path, f"{name}.{cls.name}", content))
    return pages


def _sibling_navigation(name: str, path: str, site_map: SiteMap) -> str:
    parent = site_map.parents.get(name)
    if parent is None:
        return ""
    siblings = site_map.children(parent)
    position = siblings.index(name)
    links = [f'Up: <a href="{relative_href(path, site_map.module_paths[parent])}">{parent}</a>']
    for label, index in (("Previous", position - 1), ("Next", position + 1)):
        if 0 <= index < len(siblings):
            target = site_map.module_paths[siblings[index]]
            links.append(f'{label}: <a href="{relative_href(path, target)}">{siblings[index]}</a>')
    return f'<p class="related">{" &middot; ".join(links)}</p>\n'


def _module_list(name: str, path: str, site_map: SiteMap) -> str:
    children = site_map.children(name)
    entries = [
        (site_map.module_paths[child], child, module_doc(child).summary) for child in children
    ]
    return link_list(path, entries) if entries else ""


def _class_list(
    doc: ModuleDoc, own_pages: tuple[ClassDoc, ...], path: str, site_map: SiteMap
) -> str:
    entries = [
        (site_map.class_paths[(doc.name, cls.name)], cls.name, cls.summary) for cls in own_pages
    ]
    return link_list(path, entries) if entries else ""


def _section(heading: str, body: str) -> str:
    return f"<h2>{html.escape(heading)}</h2>\n{body}\n" if body else ""


def _resolved(path: str, site_map: SiteMap) -> Callable[[str], str]:
    """Rewrite pydoc's hrefs into relative links on this host; foreign and external links go."""

    def resolve(href: str) -> str | None:
        if href.startswith("#"):
            return href
        match = _PYDOC_LINK.fullmatch(href)
        target = site_map.target(match.group(1), match.group(2) or "") if match else None
        if target is None:
            return None
        target_path, _, fragment = target.partition("#")
        if target_path == path and fragment:
            return f"#{fragment}"
        return relative_href(path, target_path) + (f"#{fragment}" if fragment else "")

    return lambda pydoc_html: rewrite_anchors(pydoc_html, resolve)
