"""An index page's listing: the documents and subdirectories of its directory that it links.

Two index pages whose text differs (a mirror's banner, its own header or footer, a server
signature) but which list mostly the same entries are as good a hint of a replicated directory as
two duplicate index pages: the listing is what a copy keeps (a copy in another site's layout
keeps the listing of the page's own content, without the theme's links to its index and search
pages). Invariant: a listing is a set of
relative paths (``relative_key``) of the directory's own documents and immediate subdirectories, an
index page of a subdirectory under any of its names reduced to the subdirectory
(``library/index.html`` and ``library/`` are one entry); queries, the page itself, deeper links
and links leaving the directory are left out; it is recorded under min-hash values of the set
(``listing_keys``), which listings that mostly agree share.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from dedup_filter.features.hashing import token_hashes
from dedup_filter.features.minhash import MinHasher
from dedup_filter.mirrors.directories import IndexPages, relative_key

_LISTING_SEED = 0x1157
LISTING_KEYS = 16  # min-hash values a listing is recorded under
_BARE_AT_LEAST = 3
_FILE_EXTENSION = re.compile(r"[a-z][a-z0-9]{0,4}")  # lower case: ``class.Rect`` is a page's


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


def case_twins(directory: str, links: Iterable[str]) -> list[str]:
    """The names of documents in ``directory`` that an index page of it links beside another
    whose name differs only in case (GDK's ``const.KEY_A.html`` and ``const.KEY_a.html``): two
    files where case counts, one on a server that folds it."""
    spelt: dict[str, set[str]] = {}
    prefix = directory.lower()
    for link in links:
        if link.lower().startswith(prefix):
            name = link[len(prefix) :]
            if name and "/" not in name.split("?", 1)[0]:
                spelt.setdefault(name.lower(), set()).add(name)
    return [name for name, spellings in spelt.items() if len(spellings) > 1]


def names_bare(directory: str, links: Iterable[str], index_pages: IndexPages) -> bool:
    """Whether an index page names its directory's documents bare (``intro`` for
    ``intro.html``, as static-site hosts serve "pretty" URLs): of the pages it links in or below
    the directory, at least ``_BARE_AT_LEAST`` have a name without a page extension, and more
    than have one (Django's top page lists two of its own and dozens in its sections). Not
    such a name: one the page also links below (``handler`` beside ``handler/x.html``: a
    directory linked without its slash), a file's (``docs.zip``, ``README``). And no page that
    links an index file under its file name (``index.html``, ``sub/index.html``): a host that
    names its pages bare serves its index pages at their directory's URL. An index page
    listing two subdirectories without their slash read as pretty, and a section's ``.html``
    pages were asked bare there (404s); a generated listing of a release's files was taken for
    a pretty host's index page; a listing of Erlang's guides, six of them linked without their
    slash beside ``index.html``, had its host's pages sampled bare (404s) and its pair
    rejected (the fifteenth holdout web with 301s, depth first: 52 % saved)."""
    prefix = directory.lower()
    paths = {link[len(prefix) :] for link in links if link.lower().startswith(prefix)}
    paths = {path for path in paths if path and "?" not in path}
    directories = _directories_of(map(str.lower, paths))
    bare = documents = 0
    for path in paths:
        name = path.rpartition("/")[2]
        if not name:
            continue
        if index_pages.names_index_file(name):
            return False
        if index_pages.names_index(name):
            continue
        if index_pages.names_document(name.lower()):
            documents += 1
        elif path.lower() not in directories and not _names_file(name):
            bare += 1
    return bare >= _BARE_AT_LEAST and bare > documents


def names_htm(directory: str, links: Iterable[str]) -> bool:
    """Whether an index page names its directory's documents ``.htm`` (a copy kept where names
    carry three-letter extensions, every page and link renamed): at least ``_BARE_AT_LEAST`` of
    the pages it links in the directory end ``.htm``, more than end ``.html``. Its side is asked
    for ``intro.htm`` where the other names ``intro.html`` (``directories.spelled_as``)."""
    htm = html = 0
    for relative in _under(directory, links):
        path = relative.partition("#")[0]
        if "/" in path or "?" in path:
            continue
        htm += path.endswith(".htm")
        html += path.endswith(".html")
    return htm >= _BARE_AT_LEAST and htm > html


def _directories_of(paths: Iterable[str]) -> set[str]:
    """Every directory the relative paths lie in (``a/b/page``: ``a`` and ``a/b``)."""
    directories: set[str] = set()
    for path in paths:
        head = path.rpartition("/")[0]
        while head and head not in directories:  # its own heads are in already
            directories.add(head)
            head = head.rpartition("/")[0]
    return directories


def _names_file(name: str) -> bool:
    """A file's name, not a page's: an extension that starts with a letter (``.zip``,
    ``.tar.bz2``; a release's ``3.2.16`` is a page's), or capitals only (``README``)."""
    extension = name.rpartition(".")[2] if "." in name else ""
    return bool(_FILE_EXTENSION.fullmatch(extension)) or (name.isupper() and name.isalpha())


def _under(directory: str, links: Iterable[str]) -> Iterator[str]:
    """The relative paths, lower-cased, of the links that lie under ``directory``."""
    prefix = directory.lower()
    for link in links:
        lowered = link.lower()
        if lowered.startswith(prefix):
            yield lowered[len(prefix) :]


def listing_keys(entries: frozenset[str]) -> tuple[int, ...]:
    """``LISTING_KEYS`` min-hash values of a listing's entries: two listings agree on each with
    the probability of their resemblance (Jaccard), so a copy that keeps most of a listing is
    found beside it although a theme's links (``genindex.html``, ``search.html``) left. An
    empty listing has none."""
    if not entries:
        return ()
    signature = _min_hasher().signature(token_hashes(sorted(entries), _LISTING_SEED))
    return tuple(int(value) for value in signature)


@functools.cache
def _min_hasher() -> MinHasher:
    return MinHasher(LISTING_KEYS, _LISTING_SEED)
