"""Pages before they meet a site template, and the relative hrefs between them.

A site path has no leading slash: ``""`` is the host's root, ``"a/b/"`` the index page of directory
``/a/b/`` reached by its trailing-slash URL, ``"a/b/index.html"`` one reached by its file name.
Every href between pages of one tree is relative, so a copied tree keeps working under a new top.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

_ANCHOR = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
# an href attribute inside a tag (vim's help pages write HREF): never the text of a code example
# that shows one (``&lt;a href="x"&gt;`` inside ``<pre>``), which a server rewriting links leaves
_HREF = re.compile(r'(<[a-z][^<>]*?\b)href="([^"]*)"', re.I)


@dataclass(frozen=True, slots=True)
class Page:
    """One page: ``templated`` pages are wrapped in their host's header, navigation and footer."""

    path: str
    title: str
    content: str
    templated: bool = True


def directory_of(path: str) -> str:
    return path[: path.rfind("/") + 1]


def relative_href(source: str, target: str) -> str:
    """The relative href from the page at ``source`` to the page at ``target``."""
    source_directory = directory_of(source)
    if target == source_directory:
        return "./"
    href = posixpath.relpath("/" + target, "/" + source_directory)
    return href + "/" if target == "" or target.endswith("/") else href


def rewrite_anchors(html: str, resolve: Callable[[str], str | None]) -> str:
    """Replace each ``<a href>`` target by ``resolve(href)``; None leaves only the anchor text."""

    def replace(match: re.Match[str]) -> str:
        target = resolve(match.group(1))
        if target is None:
            return match.group(3)
        return f'<a href="{target}"{match.group(2)}>{match.group(3)}</a>'

    return _ANCHOR.sub(replace, html)


def rewrite_hrefs(html: str, rewrite: Callable[[str], str]) -> str:
    return _HREF.sub(lambda match: f'{match.group(1)}href="{rewrite(match.group(2))}"', html)


def link_list(source: str, entries: list[tuple[str, str, str]]) -> str:
    """A ``<ul>`` of (target path, label, note) entries, linked relative to ``source``."""
    items = "".join(
        f'<li><a href="{relative_href(source, target)}">{html.escape(label)}</a>'
        + (f" &mdash; {html.escape(note)}" if note else "")
        + "</li>\n"
        for target, label, note in entries
    )
    return f"<ul>\n{items}</ul>\n"
