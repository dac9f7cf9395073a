"""Candidate pairs found from documents: directories whose same-named documents duplicate.

Zhang, Jia & Li pair directories by their index pages. A partial copy with a generated listing
(an autoindex naming only the documents it holds, with its own dates and sizes), or a copier that
lists a victim's pages at its root, has an index page that neither duplicates nor lists the same
entries as its origin's, so no index page ever pairs it. Its documents still do: a document that
duplicates a document of the same name in another directory, when another document of the two
directories does the same, makes the two directories a candidate pair once both index pages are
held, sampled like any other (a theme's search and copyright pages, alike on unrelated sites, open
a pair that sampling rejects). An index page not held yet is asked for: a crawl in random order
fetches a directory's documents long before its index page, and a stream may never bring it. It
is asked once: a directory whose index page failed (no listing, no index file) is not asked
again. Two directories that both answer so are paired without index pages (a tree with no
index file, as Debian installs Git's manual, served where a directory URL is a 404: its copy
was crawled whole, 322 requests for 306 pages); one whose index page failed beside one that has
an index page is not (a copier's listing is paired from the other side's).
Invariant: a pair is opened once (a candidate, open or rejected, is never opened again), only for
directories no rule prunes, and at most ``_SCANNED`` entries are read to open it. A directory on
a rule's mirror side held first is not pruned (the crawl fetches it whole): paired with a third
site's copy held before it, its pages may be dropped for that copy's (``pruning.py``). It is
oriented like any pair (``orientation.py``) but protects no page of its origin until it is
confirmed (no page is kept as an original for it: such pairs between sites that copy pages of
each other kept 8 % of the labelled corpus's cross-site duplicates).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from dedup_filter.mirrors.candidates import Pair, index_pair, pruned
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import nested, own_placement, relative_key, usable_directory
from dedup_filter.mirrors.orientation import Orientation
from dedup_filter.mirrors.store import MirrorStore, pair_reference

# documents of the page's directory compared with the other directory's (bounds the work a page)
_SCANNED = 32


@dataclass(frozen=True, slots=True)
class DocumentPairing:
    """What a duplicated document does: the pair it opens, or the index pages the pair waits
    for (the directories' own URLs, to be probed)."""

    pair: Pair | None = None
    index_pages: tuple[str, ...] = ()


def document_pair(
    orientation: Orientation, url: str, original_url: str, *, witnessed: bool = False
) -> DocumentPairing:
    """The oriented pair of the directories of document ``url`` and of the same-named document
    ``original_url`` it duplicates, when another document of the first directory duplicates its
    namesake in the second (or the index pages of the two not held yet); nothing otherwise.
    ``witnessed``: the directory's other documents are known to be alike already (its rule,
    confirmed from them, was just revoked by this document), so no second namesake is asked."""
    store, max_depth = orientation.store, orientation.max_depth
    page, original = own_placement(url, max_depth), own_placement(original_url, max_depth)
    if page is None or original is None or page.relative_key != original.relative_key:
        return DocumentPairing()
    if not orientation.index_pages.names_document(page.relative):
        return DocumentPairing()
    directories = page.directory, original.directory
    if nested(*directories) or not all(map(usable_directory, directories)):
        return DocumentPairing()
    if any(store.candidate(pair_reference(*pair)) for pair in (directories, directories[::-1])):
        return DocumentPairing()
    missing = tuple(side for side in directories if not store.entry(side.lower(), ""))
    if missing and page.relative.lower() != original.relative.lower():
        return DocumentPairing()  # ``.htm`` for ``.html``: only index pages tell how to ask
    deferrals = Deferrals(store.view)
    if any(store.probes_for(side) for side in missing):
        return DocumentPairing()  # asked for already
    absent = [side for side in missing if deferrals.absent(side) is not None]
    if absent and len(absent) < len(directories):
        return DocumentPairing()  # one side's index page failed: its pairs come from the other
    if pruned(store, (url, original_url), max_depth):
        return DocumentPairing()
    if not witnessed and not _another_namesake(store, *directories, page.relative_key):
        return DocumentPairing()
    if missing and not absent:
        return DocumentPairing(index_pages=missing)
    pair = index_pair(page.directory, original.directory, orientation.index_pages, orientation)
    if pair is None:
        return DocumentPairing()
    return DocumentPairing(Pair(pair.mirror, pair.origin, pair.page_is_origin, False))


def _another_namesake(store: MirrorStore, directory: str, other: str, name: str) -> bool:
    """Whether a document of ``directory`` (not ``name``) has the content of its namesake in
    ``other``."""
    entries = (
        entry
        for _, entry in store.subtree(directory.lower())
        if "/" not in entry.relative and relative_key(entry.relative) != name
    )
    for entry in itertools.islice(entries, _SCANNED):
        namesake = store.entry(other.lower(), entry.relative.lower())
        if namesake is not None and entry.same_content(namesake):
            return True
    return False
