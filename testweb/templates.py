"""Page shells: each host's site template, Apache-style directory listings, a generator's theme.

A site template is heavy on purpose (navigation plus a footer of several paragraphs of real text):
same-site pages sharing it are the boilerplate trap. Listings and the generator theme are shared
by unrelated hosts: they are the look-alike index-page trap.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .pages import Page, relative_href


@dataclass(frozen=True, slots=True)
class SiteStyle:
    """One host's template: its name, root-relative navigation and footer paragraphs."""

    name: str
    nav: tuple[tuple[str, str], ...]  # (label, root-relative href)
    footer: tuple[str, ...]

    @property
    def home(self) -> str:
        return self.nav[0][1]


@dataclass(frozen=True, slots=True)
class ListingEntry:
    name: str  # ends with "/" for a sub-directory
    modified: str  # "2024-03-01 12:00"
    size: str  # "-" for a directory, else "12K"


def site_page(style: SiteStyle, page: Page, index_pages: dict[str, str]) -> str:
    """A full HTML document: header, navigation, breadcrumbs, the page's content, footer."""
    nav = "".join(
        f'<li><a href="{href}">{html.escape(label)}</a></li>' for label, href in style.nav
    )
    footer = "".join(f"<p>{html.escape(paragraph)}</p>\n" for paragraph in style.footer)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(page.title)} &mdash; {html.escape(style.name)}</title>\n"
        "</head>\n<body>\n"
        f'<div class="header"><a class="brand" href="{style.home}">{html.escape(style.name)}</a>\n'
        f'<ul class="nav">{nav}</ul></div>\n'
        f'<div class="breadcrumbs">{breadcrumbs(page.path, index_pages, style.name)}</div>\n'
        f'<div class="document">\n{page.content}</div>\n'
        f'<div class="footer">\n{footer}</div>\n</body>\n</html>\n'
    )


def breadcrumbs(path: str, index_pages: dict[str, str], home: str) -> str:
    """Relative links to the index pages of every ancestor directory that has one."""
    parts = path.split("/")[:-1]
    directories = [
        "",
        *("".join(f"{part}/" for part in parts[: depth + 1]) for depth in range(len(parts))),
    ]
    links = []
    for directory in directories:
        target = index_pages.get(directory)
        if target is None or target == path:
            continue
        label = html.escape(directory.rstrip("/").rsplit("/", 1)[-1] or home)
        links.append(f'<a href="{relative_href(path, target)}">{label}</a>')
    return " &rsaquo; ".join(links)


def directory_listing(
    url_path: str, entries: list[ListingEntry], host: str, parent: str = "../"
) -> str:
    """An Apache ``mod_autoindex`` page: no site template, the server's address at the bottom."""
    rows = "".join(
        f'<a href="{html.escape(entry.name)}">{html.escape(entry.name)}</a>'
        f"{' ' * max(1, 32 - len(entry.name))}{entry.modified}  {entry.size:>5}\n"
        for entry in entries
    )
    title = f"Index of {html.escape(url_path)}"
    return (
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n'
        f"  <title>{title}</title>\n </head>\n <body>\n<h1>{title}</h1>\n"
        "<pre>Name                            Last modified      Size\n<hr>"
        f'<a href="{parent}">Parent Directory</a>{" " * 33}-\n{rows}<hr></pre>\n'
        f"<address>Apache/2.4.58 (Unix) Server at {html.escape(host)} Port 80</address>\n"
        "</body></html>\n"
    )


def generator_page(project: str, title: str, body: str, contents: list[tuple[str, str]]) -> str:
    """A page in the theme of a documentation generator that many unrelated projects use."""
    toc = "".join(
        f'<li><a href="{href}">{html.escape(label)}</a></li>\n' for href, label in contents
    )
    return (
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)} &#8212; {html.escape(project)} documentation</title>\n"
        '</head>\n<body>\n<div class="sphinxsidebar"><h3>Navigation</h3>\n'
        f"<ul>\n{toc}</ul>\n"
        "<p>Quick search: type a word and press Enter.</p></div>\n"
        f'<div class="body" role="main">\n<h1>{html.escape(title)}</h1>\n{body}</div>\n'
        f'<div class="footer">&#169; Copyright the {html.escape(project)} authors. '
        "Created using a documentation generator with its default theme.</div>\n"
        "</body>\n</html>\n"
    )
