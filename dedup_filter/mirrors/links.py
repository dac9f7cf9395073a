"""The links of a page, for URL-mode coordinate sampling ("the mirror demonstrably has it").

Only ``a[href]`` and ``area[href]`` count, resolved against ``<base href>`` or the page URL and
normalised like every URL the index keys; a page's links are capped so a hostile page cannot make
one write transaction unbounded. The anchors come from the parse that tokenizes the page
(``text.html_text``), so a page is parsed once; they are resolved only when read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

from dedup_filter.features.text import Anchors, decode_body, html_anchors
from dedup_filter.references import References
from dedup_filter.urls import directory_of, file_name_of, normalize_url

MAX_LINKS = 2000


def resolve_links(page_url: str, anchors: Anchors) -> list[str]:
    """Absolute, normalised http(s) URLs of a page's anchors, in document order, without repeats
    (a reference written twice is resolved once: documentation pages repeat two in three)."""
    base_url = page_url if anchors.base is None else _join(page_url, anchors.base)
    references, links = References(base_url), {}
    for href in dict.fromkeys(anchors.hrefs):
        target = references.resolve(href)
        if target:
            links[target] = None
            if len(links) >= MAX_LINKS:
                break
    return list(links)


class LazyLinks:
    """``resolve_links`` of a page, computed when first iterated: resolving a listing costs about
    as much as tokenizing it, and in content mode the mirror detector reads the links of the few
    index pages that concern a candidate."""

    def __init__(self, page_url: str, anchors: Anchors) -> None:
        self._page_url = page_url
        self._anchors = anchors
        self._links: list[str] | None = None

    def __iter__(self) -> Iterator[str]:
        if self._links is None:
            self._links = resolve_links(self._page_url, self._anchors)
        return iter(self._links)


def page_links(
    url: str, body: bytes, headers: Mapping[Any, Any] | None, fallback_encoding: str
) -> list[str]:
    """``resolve_links`` for a body that is not fingerprinted (a crawler following links)."""
    decoded = decode_body(body, headers, fallback_encoding)
    return [] if decoded.text is None else resolve_links(url, html_anchors(decoded.text))


def own_variants(page_url: str, twin_url: str, links: Iterable[str]) -> list[str]:
    """The links of a page to its own variants (``p.html?lang=fr``, ``p.fr.html``, ``p-2.html``)
    where its twin beside it has another file name: two documents with the same words (footnote
    pages, stubs) each name their own translation or print view, which the twin's links do not
    name. A document's name is its file name up to the first dot; a variant's adds to it after a
    dot, a dash or an underscore, or keeps the file name with a query."""
    name, twin_name = file_name_of(page_url), file_name_of(twin_url)
    stem = name.partition(".")[0]
    if not stem or name == twin_name:
        return []
    directory = directory_of(page_url)
    variants = []
    for link in links:  # normalised, as the directory is
        if link == page_url or not link.startswith(directory):
            continue
        link_name = link[len(directory) :].partition("?")[0]
        if "/" not in link_name and _names_variant(link_name, name, stem):
            variants.append(link)
    return variants


def _names_variant(link_name: str, name: str, stem: str) -> bool:
    if link_name == name:  # the page's own file with a query
        return True
    return link_name.startswith(stem) and link_name[len(stem) : len(stem) + 1] in (".", "-", "_")


def _join(base: str, href: str) -> str:
    try:
        return urljoin(base, href.strip())
    except ValueError:
        return ""


def links_beyond_twin(page_url: str, twin_url: str, links: Iterable[str]) -> list[str]:
    """The links of a duplicate that its twin does not name by the same references. In one
    directory the two link the same URLs but for those naming the page itself
    (``own_variants``); in another (a copy's page met before its origin's, a directory whose
    copy no rule covers yet) a relative link names another page, which only the duplicate may
    lead to. A link to another host is taken to be written absolute, as the twin's is; one on
    the page's host, to be written relative to the page's directory."""
    page_dir, twin_dir = directory_of(page_url), directory_of(twin_url)
    if page_dir == twin_dir:
        return own_variants(page_url, twin_url, links)
    page, twin = urlsplit(page_dir), urlsplit(twin_dir)
    if (page.scheme, page.netloc) != (twin.scheme, twin.netloc):
        # from the twin's directory a relative reference stays on its host and one that names a
        # host names another path: every link on the page's own host is beyond the twin
        own_host = f"{page.scheme}://{page.netloc}/"
        return [link for link in links if link.startswith(own_host)]
    folders = page.path.split("/")[1:-1]
    beyond = []
    for link in links:
        try:
            target = urlsplit(link)
        except ValueError:  # no URL a crawler can fetch (a broken IPv6 host)
            continue
        if (target.scheme, target.netloc) != (page.scheme, page.netloc):
            continue
        *link_folders, name = target.path.split("/")[1:] or [""]
        shared = 0
        for mine, theirs in zip(folders, link_folders, strict=False):
            if mine != theirs:
                break
            shared += 1
        relative = "../" * (len(folders) - shared) + "/".join([*link_folders[shared:], name])
        query = f"?{target.query}" if target.query else ""
        if normalize_url(_join(twin_dir, relative + query)) != link:
            beyond.append(link)
    return beyond
