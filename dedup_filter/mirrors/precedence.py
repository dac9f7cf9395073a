"""Which side of a rule the crawl held first, and so which side its URLs may be dropped from.

Orientation (``orientation.py``) names the copy for explanations; it is evidence, not certainty,
and held first does not orient. Pruning asks another question: which side's URLs may be dropped
for a held counterpart on the other side? The side the crawl held first is never pruned: a
copier met after its victim never gets the victim pruned, whatever the orientation says (a
copier at its host root is shallower than its victim). The side held second is pruned where
the other holds the counterpart, with the same guards in both directions (``pruning.py``: never
a page held as itself, never under ``mirror.protected_prefixes``, nothing before the kept side's
answer for a page it lacks is known, a soft-404 counterpart is no copy).

So a rule prunes its origin side (``Rule.prunes_origin``) when its mirror side was held first
and every checked sample matched: an origin's page met after its copy was held is then not
fetched (its content is held). A rule accepted with mismatching samples never prunes its origin:
it pairs versions of one directory (a stale copy with edited pages), and its mirror side is the
side the evidence takes for the copy, so the mirror's page may be the older version; dropping
the origin's page for it would lose the current text, while dropping the copy's page for the
origin's costs the older version only. Such a rule prunes its mirror side, as before.

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
