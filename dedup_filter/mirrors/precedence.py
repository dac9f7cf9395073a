"""Which side of a rule the crawl held first, and so which side its URLs may be dropped from.

Orientation (``orientation.py``) names the copy for explanations; held first does not orient.
Pruning asks another question: which side's URLs may be dropped for a held counterpart on the
other side? The side the crawl held first is never pruned, unless evidence independent of the
crawl's order names it the copy (``Orientation.names_the_copy``: the origin pinned, the copy
reached through session ids, named a mirror, or at equal depths linking the origin's host): a
copier met after its victim never gets the victim pruned, though a copier at its host root is
shallower than its victim and taken for the origin.

``Rule.prunes_mirror``: the origin was held first, or the copy is named one (as before: deferred
URLs, probed counterparts). ``Rule.prunes_origin``: the mirror was held first, is not named a
copy, and every checked sample matched; an origin's document met after the copy held its
counterpart is then dropped (``pruning.py``, the same guards: never a page held as itself, never
under ``mirror.protected_prefixes``, not before the copy's answer for a page it lacks is known),
its index pages are fetched, and a document whose counterpart the copy has not fetched yet
waits for the crawl to fetch it (never probed: the copy is crawled whole, since it is never
pruned). A rule accepted with mismatching samples
never prunes its origin: it pairs versions of one directory (a stale copy with edited pages), the
copy's page may be the older version, and dropping the origin's page for it would lose the
current text; held first and not named a copy, it prunes neither side.

Both sides are never pruned at once: a page fetched as a probe has its links followed only if the
crawl asks for it, and with both sides pruned the pages that would link it on its own side may
be gone (on the evaluation web that lost 14-23 contents, pages linked only from such pages).

"Held first" is read from the index at confirmation: the smallest page id (its counter: one
index's writers each count their own) among the pages each side holds as themselves, over the
first ``_SCANNED`` entries of each side in hash order (a sample of a large side, not all of it).
"""

from __future__ import annotations

import itertools

from dedup_filter.mirrors.store import MirrorStore

_SCANNED = 1024  # entries of each side read for its first held page
_COUNTER = (1 << 48) - 1  # the counter bits of a page id (the high bits name its writer)


def mirror_held_first(store: MirrorStore, mirror: str, origin: str) -> bool:
    """Whether the crawl held a page of ``mirror`` before any page of ``origin``."""
    mirror_first, origin_first = _first_held(store, mirror), _first_held(store, origin)
    if mirror_first is None:
        return False
    return origin_first is None or mirror_first < origin_first


def _first_held(store: MirrorStore, directory: str) -> int | None:
    """The smallest page counter of the pages held as themselves under ``directory``."""
    lowered, first = directory.lower(), None
    for _, entry in itertools.islice(store.subtree(lowered), _SCANNED):
        counter = entry.representative & _COUNTER
        if first is not None and counter >= first:
            continue
        record = store.view.page(entry.representative)
        if record is not None and record.url.lower().startswith(lowered):
            first = counter
    return first
