"""Documentation-tree patterns the main test web lacks, each a small web with its ground truth.

One Sphinx-style manual of real pydoc text (``_static/`` assets, ``_sources/`` text files,
``genindex.html``, ``search.html``, six directory levels) is published on an origin host and
copied to a mirror host that has content of its own, in one of these ways:

* ``index_aliases``: every directory is linked both as ``dir/`` and as ``dir/index.html`` (the
  server answers both with the same page);
* ``sphinx``: the manual copied under ``pub/docs/manual/``, its ``toc.html`` and
  ``contents.html`` left as ordinary documents (not index pages: Sphinx writes them next to the
  directory's ``index.html``);
* ``banner_index``: the copy's top index page carries a mirror banner linking the original (a
  near-duplicate, not an exact one);
* ``renamed_top``: the copy's top directory has another name (``third-party/py-manual/``);
* ``deep_entry``: the mirror host links straight into the copy's fifth level, so a crawl meets
  the deep directories before the top of the copy; the boundary lies four levels above them;
* ``copied_sections``: two sections of the manual (``library/``, ``howto/``) copied side by side
  into ``docs/``, a directory holding documents of its own: two mirrors whose common parent is
  none (a rule on ``docs/`` would lose its own documents).

``pattern_web(name)`` is deterministic and returns a ``testweb.site.TestWeb``.
"""

from __future__ import annotations

import html
import posixpath

from .copies import copy_tree, site_url, with_banner
from .pages import rewrite_anchors
from .pydoc_source import module_doc
from .site import MirrorTruth, TestWeb

PATTERNS = (
    "index_aliases",
    "sphinx",
    "banner_index",
    "renamed_top",
    "deep_entry",
    "copied_sections",
)
ORIGIN, MIRROR = "docs.origin.test", "www.copy.test"
MANUAL = "manual/"  # where the origin publishes the manual
DEEP = "library/text/formats/legacy/"  # the directory the deep_entry mirror host links to
_COPY_DIRECTORY = {"renamed_top": "third-party/py-manual/"}
_TREE = (  # directory under the manual -> modules documented there
    ("", ("json", "csv")),
    ("library/", ("textwrap", "string", "shlex")),
    ("library/text/", ("pprint", "getopt", "gettext")),
    ("library/text/formats/", ("plistlib", "base64", "mimetypes")),
    ("library/text/formats/legacy/", ("wave", "uuid")),
    ("library/text/formats/legacy/audio/", ("calendar", "fractions", "numbers")),
    ("howto/", ("sched", "queue", "heapq", "graphlib")),
)
_OWN = {ORIGIN: ("tempfile", "shutil"), MIRROR: ("hmac", "filecmp", "operator")}
_SECTIONS = ("library/", "howto/")  # what copied_sections copies ...
_SECTIONS_HOME = "docs/"  # ... into this directory of the mirror host, beside these documents:
_SECTIONS_OWN = ("statistics", "difflib", "zipfile")
_BANNER = (
    "This is a mirror of the Python module manual, refreshed nightly. The original lives at "
    f'<a href="http://{ORIGIN}/{MANUAL}">{ORIGIN}</a>; please report problems there.'
)


def pattern_web(name: str) -> TestWeb:
    """The web of one pattern: the origin host, the mirror host and the truth about the copy."""
    if name not in PATTERNS:
        msg = f"pattern must be one of {', '.join(PATTERNS)}, not {name!r}"
        raise ValueError(msg)
    manual = manual_pages(aliases=name == "index_aliases")
    if name == "copied_sections":
        pages, truths = _sections(manual)
        copies = {ORIGIN: MANUAL}
    else:
        copy_directory = _COPY_DIRECTORY.get(name, "pub/docs/manual/")
        pages = _hosts(name, manual, copy_directory)
        truths = [
            MirrorTruth(
                name,
                site_url(MIRROR, copy_directory),
                site_url(ORIGIN, MANUAL),
                "",
                tuple(sorted(manual)),
            )
        ]
        copies = {ORIGIN: MANUAL, MIRROR: copy_directory}
    aliased = {  # the origin's index pages reached by their second name
        site_url(ORIGIN, MANUAL + path + "index.html"): site_url(ORIGIN, MANUAL + path)
        for path in manual
        if path == "" or path.endswith("/")
    }
    return TestWeb(
        seed=0,
        scale=name,
        pages={url: body.encode() for url, body in pages.items()},
        assets=_assets(copies, manual),
        start_urls=[site_url(ORIGIN, ""), site_url(MIRROR, "")],
        mirrors=truths,
        traps=[],
        boilerplate_urls=set(),
        near_duplicates={},
        exact_duplicates={url: index for url, index in aliased.items() if url in pages},
    )


def _hosts(name: str, manual: dict[str, str], copy_directory: str) -> dict[str, str]:
    """URL -> HTML of both hosts: the manual, its copy as the pattern makes it, their home pages."""
    copied = dict(manual)
    if name == "banner_index":  # the top index page, under both of its names
        copied[""] = copied["index.html"] = with_banner(copied[""], _BANNER)
    pages = {site_url(ORIGIN, MANUAL + path): body for path, body in manual.items()}
    pages |= {site_url(MIRROR, copy_directory + path): body for path, body in copied.items()}
    pages |= _home(ORIGIN, [(MANUAL, "Python module manual")])
    featured = DEEP + "index.html" if name == "deep_entry" else ""
    return pages | _home(MIRROR, [(copy_directory + featured, "Manuals we mirror")])


def _sections(manual: dict[str, str]) -> tuple[dict[str, str], list[MirrorTruth]]:
    """URL -> HTML of both hosts when the mirror host copies two sections of the manual into a
    directory of its own documents (links leaving a copied section point back at the origin, as
    ``wget --convert-links`` leaves them); one truth a section."""
    origin = {MANUAL + path: body for path, body in manual.items()}
    pages = {site_url(ORIGIN, path): body for path, body in origin.items()}
    pages |= _home(ORIGIN, [(MANUAL, "Python module manual")])
    pages |= _home(MIRROR, [(_SECTIONS_HOME, "Documentation")])
    own = [(f"{section}index.html", section.rstrip("/")) for section in _SECTIONS]
    own += [(f"{module}.html", module) for module in _SECTIONS_OWN]
    items = "".join(f'<li><a href="{href}">{html.escape(label)}</a></li>' for href, label in own)
    pages[site_url(MIRROR, _SECTIONS_HOME)] = _plain("Documentation", f"<ul>{items}</ul>")
    for module in _SECTIONS_OWN:
        body = f'<p><a href="./">Documentation</a></p>{_module_text(module)}'
        pages[site_url(MIRROR, f"{_SECTIONS_HOME}{module}.html")] = _plain(module, body)
    truths = []
    for section in _SECTIONS:
        target = _SECTIONS_HOME + section
        copied = copy_tree(origin, ORIGIN, MANUAL + section, MIRROR, target)
        pages |= {site_url(MIRROR, path): body for path, body in copied.items()}
        relative = tuple(
            sorted(path[len(section) :] for path in manual if path.startswith(section))
        )
        truths.append(
            MirrorTruth(
                "copied_sections",
                site_url(MIRROR, target),
                site_url(ORIGIN, MANUAL + section),
                "index.html",
                relative,
            )
        )
    return pages, truths


def manual_pages(aliases: bool = False) -> dict[str, str]:
    """Path under the manual -> HTML. Index pages are ``dir/index.html``, as Sphinx links them;
    the top is also ``""`` (a home page links the manual's directory), and with ``aliases`` so is
    every directory."""
    pages: dict[str, str] = {}
    for directory, modules in _TREE:
        pages[directory + "index.html"] = _index_page(directory, modules, aliases)
        if aliases or directory == "":
            pages[directory] = pages[directory + "index.html"]
        for module in modules:
            pages[f"{directory}{module}.html"] = _module_page(directory, module)
    pages["genindex.html"] = _genindex()
    pages["search.html"] = _page("", "Search", _SEARCH_FORM, "search")
    for extra in ("toc", "contents"):  # Sphinx's table of contents beside index.html
        pages[f"{extra}.html"] = _page("", "Table of contents", _contents(aliases), extra)
    return pages


_SEARCH_FORM = (
    "<h1>Search</h1><p>Please activate JavaScript to enable the search functionality.</p>"
    '<form action="" method="get"><input type="text" name="q"><input type="submit" value="Go">'
    "</form>"
)


def _page(directory: str, title: str, body: str, source: str) -> str:
    """A Sphinx-style page: assets and navigation relative to the manual's top directory."""
    top = posixpath.relpath(".", directory or ".") + "/" if directory else ""
    return (
        f"<!DOCTYPE html>\n<html>\n<head>\n<title>{html.escape(title)} &#8212; Python modules"
        f'</title>\n<link rel="stylesheet" href="{top}_static/basic.css">\n'
        f'<script src="{top}_static/doctools.js"></script>\n</head>\n<body>\n'
        f'<div class="related"><a href="{top}genindex.html">General Index</a> | '
        f'<a href="{top}search.html">Search</a> | <a href="{top}index.html">Python modules</a>'
        f'</div>\n<div class="body">\n{body}\n</div>\n<div class="footer">'
        f'<a href="{top}_sources/{source}.txt">Show Source</a> &#169; Copyright 2001-2024, '
        "Python Software Foundation. Created using Sphinx.</div>\n</body>\n</html>\n"
    )


def _module_page(directory: str, module: str) -> str:
    body = f"<h1>{module} &#8212; {html.escape(module_doc(module).summary)}</h1>\n"
    return _page(directory, module, body + _module_text(module), directory + module)


def _module_text(module: str) -> str:
    """pydoc's documentation of a module, its cross-references to other modules unlinked."""
    doc = module_doc(module)
    parts = [doc.docstring_html, *doc.functions, *(item.html for item in doc.classes), *doc.data]
    return rewrite_anchors("\n".join(parts), lambda href: href if href.startswith("#") else None)


def _index_page(directory: str, modules: tuple[str, ...], aliases: bool) -> str:
    entries = [
        f'<li><a href="{module}.html">{module}</a> &#8212; '
        f"{html.escape(module_doc(module).summary)}</li>"
        for module in modules
    ]
    for child, _ in _TREE:
        if child.startswith(directory) and child.count("/") == directory.count("/") + 1:
            name = child[len(directory) :]
            href = name if aliases and len(entries) % 2 else name + "index.html"
            entries.append(f'<li><a href="{href}">{name.rstrip("/")}</a> (section)</li>')
    title = directory.rstrip("/").rsplit("/", 1)[-1] or "Python modules"
    body = f'<h1>{html.escape(title)}</h1>\n<div class="toctree">\n<ul>\n{"".join(entries)}</ul>'
    return _page(directory, title, body + "\n</div>", directory + "index")


def _genindex() -> str:
    """Every documented module, and every function in it, linked to its page."""
    entries = []
    for directory, modules in _TREE:
        for module in modules:
            doc = module_doc(module)
            entries.append(f'<dt><a href="{directory}{module}.html">{module} (module)</a></dt>')
            entries += [f"<dd>{len(doc.functions)} functions, {len(doc.classes)} classes</dd>"]
    return _page("", "Index", "<h1>Index</h1>\n<dl>\n" + "\n".join(entries) + "\n</dl>", "genindex")


def _contents(aliases: bool) -> str:
    sections = [
        f'<li><a href="{directory if aliases else directory + "index.html"}">'
        f"{html.escape(directory or 'Python modules')}</a></li>"
        for directory, _ in _TREE
    ]
    return "<h1>Table of contents</h1>\n<ul>\n" + "\n".join(sections) + "\n</ul>"


def _home(host: str, featured: list[tuple[str, str]]) -> dict[str, str]:
    """A host's home page and its own documents (content no other host has)."""
    own = _OWN[host]
    links = [(path, label) for path, label in featured] + [(f"{m}.html", m) for m in own]
    items = "".join(f'<li><a href="{href}">{html.escape(label)}</a></li>' for href, label in links)
    pages = {
        site_url(host, ""): _plain(host, f"<p>Documentation hosted at {host}.</p><ul>{items}</ul>")
    }
    for module in own:
        body = f'<p><a href="./">Home</a></p>{_module_text(module)}'
        pages[site_url(host, f"{module}.html")] = _plain(module, body)
    return pages


def _plain(title: str, body: str) -> str:
    return (
        f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head><body>\n"
        f"<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def _assets(tops: dict[str, str], manual: dict[str, str]) -> dict[str, tuple[str, bytes]]:
    """The manual's stylesheet, script and page sources on both hosts (not HTML pages)."""
    assets: dict[str, tuple[str, bytes]] = {}
    for host, top in tops.items():
        assets[site_url(host, top + "_static/basic.css")] = ("text/css", b"body { margin: 0 }\n")
        assets[site_url(host, top + "_static/doctools.js")] = ("text/javascript", b"void 0;\n")
        for path in manual:
            source = path + "index" if path == "" or path.endswith("/") else path[: -len(".html")]
            body = f"Source of {source}\n".encode()
            assets[site_url(host, f"{top}_sources/{source}.txt")] = ("text/plain", body)
    return assets
