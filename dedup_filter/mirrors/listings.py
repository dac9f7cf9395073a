"""An index page's listing: the documents and subdirectories of its directory that it links.

Two index pages whose text differs (a mirror's banner, its own header or footer, a server
signature) but which list the same entries are as good a hint of a replicated directory as two
duplicate index pages: the listing is what a copy keeps. Invariant: a listing is a set of
relative paths (``relative_key``) of the directory's own documents and immediate subdirectories, an
index page of a subdirectory under any of its names reduced to the subdirectory
(``library/index.html`` and ``library/`` are one entry); queries, the page itself, deeper links
and links leaving the directory are left out; it is keyed by a hash of the sorted set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from dedup_filter.features.hashing import hash64
from dedup_filter.mirrors.directories import IndexPages, relative_key

_LISTING_SEED = 0x1157


def listing(directory: str, links: Iterable[str], index_pages: IndexPages) -> frozenset[str]:
    """The entries of ``directory`` that ``links`` name: its own documents (a page extension)
    and its immediate subdirectories (``sub/``). Deeper links are navigation, not a listing of
    this directory: a theme's footer links the same pages from every site built with it."""
    entries = set()
    for relative in _under(directory, links):
        if index_pages.names_index(relative):
            relative = relative[: relative.rfind("/") + 1]  # "" for the page itself
        section = relative.count("/") == 1 and relative.endswith("/")
        if section or ("/" not in relative and index_pages.names_document(relative)):
            entries.add(relative_key(relative))
    return frozenset(entries)


def names_bare(directory: str, links: Iterable[str], index_pages: IndexPages) -> bool:
    """Whether an index page names its directory's documents bare (``intro`` for
    ``intro.html``, as static-site hosts serve "pretty" URLs): more of the names it links in the
    directory have no page extension than have one (a listing's ``README`` and ``COPYING``
    beside its pages are a few)."""
    bare = documents = 0
    for relative in _under(directory, links):
        if "/" in relative or "?" in relative or index_pages.names_index(relative):
            continue
        if index_pages.names_document(relative):
            documents += 1
        else:
            bare += 1
    return bare > documents


def _under(directory: str, links: Iterable[str]) -> Iterator[str]:
    """The relative paths, lower-cased, of the links that lie under ``directory``."""
    prefix = directory.lower()
    for link in links:
        lowered = link.lower()
        if lowered.startswith(prefix):
            yield lowered[len(prefix) :]


def listing_hash(entries: frozenset[str]) -> int:
    return hash64("\n".join(sorted(entries)), _LISTING_SEED)
