"""A look-alike trap built the way documentation generators build sites: two unrelated projects
with the same theme and the same skeleton.

Both hosts publish ``docs/`` with the same index page (the generator's chapter list and
descriptions) and the same boilerplate pages (``search.html``, ``copyright.html``,
``license.html``, ``about.html``: a theme and an organisation's legal text), linked from every
page's footer and from the home page, so a crawl fetches them on both sides before it meets the
second index page; the chapters hold other text on each host. Nothing replicates but the
template: a rule here would lose a whole manual. A second version puts the boilerplate pages at
each host's root, beside home pages of different text that list the same entries.
"""

from __future__ import annotations

import html

from .copies import site_url
from .pages import rewrite_anchors
from .pydoc_source import module_doc
from .site import LookAlikeTrap, TestWeb

HOSTS = ("docs.project-one.test", "docs.project-two.test")
CHAPTERS = (
    ("introduction", "What the project is for and who it serves."),
    ("installation", "Getting the package and its dependencies onto a machine."),
    ("usage", "The common tasks, step by step."),
    ("reference", "Every public function and class."),
    ("faq", "Questions users asked more than once."),
    ("changelog", "What changed in each release."),
)
_CHAPTER_TEXT = {
    HOSTS[0]: ("json", "csv", "textwrap", "plistlib", "sched", "gettext"),
    HOSTS[1]: ("base64", "mimetypes", "queue", "fractions", "getopt", "pprint"),
}
_HOME_TEXT = {HOSTS[0]: "shlex", HOSTS[1]: "heapq"}  # what each project is, on its home page
_BOILERPLATE = (("copyright", "netrc"), ("license", "hmac"), ("about", "filecmp"))
_FOOTER = ("search", "copyright", "license", "about")


def theme_trap_web(theme_at_root: bool = False) -> TestWeb:
    """Both projects' manuals, under one theme and one skeleton; no mirror in the truth.

    With ``theme_at_root`` the theme's pages sit at each host's root, listed by home pages that
    say different things: the two roots list the same entries, and every document of their own
    is alike on both hosts (a rule there would lose a whole host).
    """
    theme = "" if theme_at_root else "docs/"  # where the theme's pages are, under the root
    pages: dict[str, str] = {}
    for number, host in enumerate(HOSTS, 1):
        about = _text(_HOME_TEXT[host]) if theme_at_root else ""
        home = f'<h1>Project {number}</h1>{about}<p><a href="docs/">Documentation</a></p>'
        pages[site_url(host, "")] = _page(f"Project {number}", home, theme)
        footer = "../" if theme_at_root else ""  # the theme's pages, from a page under docs/
        pages |= {site_url(host, "docs/" + path): body for path, body in _manual(host, footer)}
        pages |= {site_url(host, theme + path): body for path, body in _theme_pages()}
    scale = "same_theme_root" if theme_at_root else "same_theme"
    alike = tuple(site_url(host, theme) for host in HOSTS)
    return TestWeb(
        seed=0,
        scale=scale,
        pages={url: body.encode() for url, body in pages.items()},
        assets={},
        start_urls=[site_url(host, "") for host in HOSTS],
        mirrors=[],
        traps=[LookAlikeTrap(scale, alike, tuple(f"{name}.html" for name, _ in CHAPTERS))],
        boilerplate_urls=set(),
        near_duplicates={},
        exact_duplicates={  # the theme's pages are the same on both hosts
            site_url(HOSTS[1], f"{theme}{path}"): site_url(HOSTS[0], f"{theme}{path}")
            for path, _ in _theme_pages()
        },
    )


def _manual(host: str, footer: str) -> list[tuple[str, str]]:
    """The manual's index page and chapters (``footer``: where the theme's pages are)."""
    entries = "".join(
        f'<li><a href="{name}.html">{name.title()}</a> &#8212; {html.escape(about)}</li>'
        for name, about in CHAPTERS
    )
    index = "<h1>Project documentation</h1>\n<p>Welcome. Start with the introduction.</p>"
    pages = [("", _page("Project documentation", f"{index}\n<ul>{entries}</ul>", footer))]
    for (name, _), module in zip(CHAPTERS, _CHAPTER_TEXT[host], strict=True):
        pages.append((f"{name}.html", _page(name.title(), _text(module), footer)))
    return pages


def _theme_pages() -> list[tuple[str, str]]:
    """The theme's and the organisation's pages: the same on every site built with them."""
    pages = [(f"{name}.html", _page(name.title(), _text(module))) for name, module in _BOILERPLATE]
    search = "<p>Please activate JavaScript to enable the search functionality.</p>"
    return [*pages, ("search.html", _page("Search", search))]


def _text(module: str) -> str:
    doc = module_doc(module)
    parts = [doc.docstring_html, *doc.functions, *(item.html for item in doc.classes)]
    return rewrite_anchors("\n".join(parts), lambda href: href if href.startswith("#") else None)


def _page(title: str, body: str, manual: str = "") -> str:
    """The shared theme: every page, the home page included, links the boilerplate pages of the
    manual (at ``manual``, relative to the page) in its footer."""
    footer = " | ".join(f'<a href="{manual}{name}.html">{name.title()}</a>' for name in _FOOTER)
    return (
        f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head>\n<body>\n"
        f'<div class="body">\n{body}\n</div>\n<div class="footer">{footer}'
        " Built with the same theme.</div>\n</body></html>\n"
    )
