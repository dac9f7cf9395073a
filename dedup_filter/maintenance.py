"""Keeping a long-lived index in shape: what it holds, and dropping pages nobody has seen lately.

Garbage collection never holds the write lock for long: stale pages are found in a read snapshot,
then deleted in small write transactions, each re-reading a page before deleting it, so a page that
another process saw again in the meantime survives and concurrent crawls are never blocked.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from dedup_filter.index.lmdb_index import (
    CALLER_TABLES,
    MIRROR_TABLES,
    URL_RULE_TABLES,
    IndexView,
    LmdbIndex,
)
from dedup_filter.mirrors.store import MirrorStore

logger = logging.getLogger(__name__)
T = TypeVar("T")

PAGE_TABLES = ("pages", "urls", "exact", "features", "bands")
_TIED_TABLES = ("dirs", "links")  # mirror tables whose rows belong to a page
_MIRROR_POSTINGS = ("page_entries",)  # the mirror detector's entries filed as postings
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``30d``, ``12h``, ``90m``, ``45s``, ``2w`` or ``1h30m``.

    Raises:
        ValueError: the text is not one or more ``<number><unit>`` parts (units s, m, h, d, w).

    Example:
        >>> parse_duration("1h30m")
        5400.0
    """
    compact = text.strip().lower()
    parts = _DURATION_PART.findall(compact)
    if not parts or "".join(number + unit for number, unit in parts) != compact:
        msg = f"invalid duration {text!r}: use numbers with units s, m, h, d, w (e.g. 30d, 12h)"
        raise ValueError(msg)
    return float(sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts))


def index_stats(index: LmdbIndex) -> dict[str, Any]:
    """Counts per table, bytes on disk and per page, and the parameters stamped into ``meta``."""
    with index.read() as view:
        tables = {
            name: view.count(name)
            for name in (
                *PAGE_TABLES,
                *MIRROR_TABLES,
                *_MIRROR_POSTINGS,
                *URL_RULE_TABLES,
                *CALLER_TABLES,
            )
        }
        params = view.get("meta", b"params")
        schema = view.get("meta", b"schema")
        created_at = view.get("meta", b"created_at")
    pages = tables["pages"]
    disk_bytes = index.disk_bytes()
    return {
        "path": str(index.path),
        "pages": pages,
        "tables": tables,
        "disk_bytes": disk_bytes,
        "bytes_per_page": round(disk_bytes / pages, 1) if pages else None,
        "map_bytes": index.map_bytes(),
        "schema": int(schema) if schema is not None else None,
        "created_at": float(created_at) if created_at is not None else None,
        "config_fingerprint": index.config.fingerprint(),
        "params": json.loads(params) if params is not None else None,
    }


@dataclass(frozen=True, slots=True)
class Sweep:
    """What one garbage collection removed."""

    pages: int
    mirror_entries: int  # ``dirs`` entries of removed pages (theirs and their copies')
    links: int  # links recorded from removed pages (URL mode)


def collect_garbage(
    index: LmdbIndex, older_than_s: float, now: float, batch_size: int = 1000
) -> int:
    """Delete the pages last seen before ``now - older_than_s``; how many (``sweep`` also says
    what else went with them)."""
    return sweep(index, older_than_s, now, batch_size).pages


def sweep(index: LmdbIndex, older_than_s: float, now: float, batch_size: int = 1000) -> Sweep:
    """Delete the pages last seen before ``now - older_than_s``, with their features, then the
    mirror detector's records tied to them.

    Args:
        index: an open index.
        older_than_s: age in seconds; a page seen this recently or later stays.
        now: the current time (seconds since the epoch; injected so tests need no clock).
        batch_size: pages (or records) deleted per write transaction.

    Raises:
        ValueError: a negative age or a batch size below 1.
        IndexStoreError: LMDB failed (batches committed before stay committed).
    """
    if older_than_s < 0 or batch_size < 1:
        msg = f"older_than_s must be >= 0 and batch_size >= 1, got {older_than_s} and {batch_size}"
        raise ValueError(msg)
    cutoff = now - older_than_s
    with index.read() as view:
        stale = array("Q", (record.page_id for record in view.pages() if record.last_seen < cutoff))
    delete = functools.partial(_delete_stale, cutoff=cutoff)
    removed = _in_batches(index, stale, batch_size, delete)
    done = Sweep(removed, *(forget_orphans(index, table, batch_size) for table in _TIED_TABLES))
    logger.info(
        "gc: %d pages removed; forgotten with them: %d mirror entries, %d links",
        done.pages,
        done.mirror_entries,
        done.links,
    )
    return done


def forget_orphans(index: LmdbIndex, table: str, batch_size: int = 1000) -> int:
    """Forget the mirror detector's rows of ``table`` (``dirs`` entries or ``links``) whose page
    is no longer indexed, so sampling never compares against a deleted page and recorded links
    do not outlive the pages that made them.

    Found in a read snapshot, deleted in write transactions of ``batch_size``; a row recorded
    again meanwhile survives. Returns how many were forgotten.
    """
    with index.read() as view:
        orphans = MirrorStore(view).orphans(table)
    return _in_batches(index, orphans, batch_size, functools.partial(_forget, table=table))


def _in_batches(
    index: LmdbIndex,
    items: Sequence[T],
    batch_size: int,
    work: Callable[[Sequence[T], IndexView], int],
) -> int:
    """Run ``work`` on ``items``, one write transaction a batch; the sum of what it counts."""
    done = 0
    for start in range(0, len(items), batch_size):
        done += index.transact(functools.partial(work, items[start : start + batch_size]))
    return done


def _forget(keys: Sequence[bytes], view: IndexView, table: str) -> int:
    store = MirrorStore(view)
    return sum(store.forget_orphan(table, key) for key in keys)


def _delete_stale(page_ids: Sequence[int], view: IndexView, cutoff: float) -> int:
    removed = 0
    for page_id in page_ids:
        record = view.page(page_id)
        if record is not None and record.last_seen < cutoff:  # not seen again since the snapshot
            view.delete_page(record)
            removed += 1
    return removed
