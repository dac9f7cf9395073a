"""Posting tables filed in runs of page ids, each run rewritten in key order once it is closed.

Why: a posting table's values are hashes, so they arrive in random order, and LMDB splits a
full page in half when a value lands inside it: such a table settles at two-thirds full pages
(64-74 % measured at layout 4). Values written in order with ``MDB_APPENDDUP`` fill their pages.
So a posting is filed under the run of page ids its page belongs to: the open run (the newest
``2**BASE_BITS`` ids of a shard) takes postings in random order; when a posting of a later id is
filed, the open run is closed: its values are rewritten in order, merged with the closed runs of
the same size before it, as a binary counter does (runs of 2**14, 2**15, 2**16 and 2**17 ids,
each starting at a multiple of its size). A lookup searches each run (at 10**6 pages, about 10:
one per 2**17 ids, one per set bit of the rest, and the open run); a posting is rewritten at
most four times. The batch that closes a run does the rewriting, so the largest run bounds the
longest batch (a 2**17-id run: 2.6 million postings, seconds): a cap of 2**20 would make lookups
fewer at 10**6 pages and that batch eight times as long (docs/benchmarks.md, "Bytes on disk").

Layout: a posting (key, page id) is the value ``key[g:w]`` + the low 24 bits of the page id under
the LMDB key ``key[:g]`` + the run's first id (8 bytes); ``meta`` lists the runs (first id, size
as bits). A run never spans two 2**24-aligned blocks of ids, whose high 40 bits (the shard id and
the counter's upper part) the run's first id gives. A posting of an id that no run holds opens a
run for it; a page filed again keeps its id, so its postings go back into its (closed) run,
which stays right, only less full.
"""

from __future__ import annotations

import bisect
import heapq
import struct
from collections.abc import Iterable, Iterator
from typing import NamedTuple, cast

import lmdb
import numpy as np

BASE_BITS = 14  # ids of the open run: its postings are the ones in random order
MAX_BITS = 17  # the largest run: bounds the work of one batch
_BLOCK_BITS = 24  # the page id bits a value keeps
_LOW_BYTES = _BLOCK_BITS // 8
_LOW_MASK = (1 << _BLOCK_BITS) - 1
_ID = struct.Struct(">Q")
_RUN = struct.Struct(">QB")
_RUNS_KEY = b"id_runs"


class Run(NamedTuple):
    first: int
    bits: int

    def holds(self, page_id: int) -> bool:
        return self.first <= page_id < self.first + (1 << self.bits)


class Filing(NamedTuple):
    """Where a page's postings go: its run's first id ends their LMDB keys, the low bits of its
    id end their values."""

    run_key: bytes
    low: bytes


def _filing(page_id: int, run: Run) -> Filing:
    return Filing(_ID.pack(run.first), (page_id & _LOW_MASK).to_bytes(_LOW_BYTES, "big"))


class RunKey(NamedTuple):
    """A run as a lookup reads it: the end of its LMDB keys, the high bits of its page ids."""

    suffix: bytes
    block_first: int


def _run_key(run: Run) -> RunKey:
    return RunKey(_ID.pack(run.first), run.first >> _BLOCK_BITS << _BLOCK_BITS)


class Postings:
    """The posting tables of one transaction and the runs they share."""

    def __init__(
        self,
        txn: lmdb.Transaction,
        dbs: dict[str, lmdb._Database],
        layout: dict[str, tuple[int, int]],
    ) -> None:
        self._txn = txn
        self._meta = dbs["meta"]
        self._runs: list[Run] | None = None
        self._run_keys: list[RunKey] | None = None  # of ``_runs``, made again when they change
        self._last_filing: tuple[int, Filing] | None = None  # a page's postings come together
        self._tables = {
            name: PostingTable(txn, dbs[name], *shape) for name, shape in layout.items()
        }

    def ids(self, table: str, key: bytes) -> list[int]:
        """Page ids filed under ``key``, in id order."""
        if self._run_keys is None:
            self._run_keys = [_run_key(run) for run in self.runs()]
        return self._tables[table].ids(key, self._run_keys)

    def add(self, table: str, key: bytes, page_id: int) -> None:
        self._tables[table].add(key, self._filing_of(page_id))

    def add_all(self, postings: Iterable[tuple[str, bytes]], page_id: int) -> None:
        """``add`` of many (table, key) postings of one page."""
        filing = self._filing_of(page_id)
        for table, key in postings:
            self._tables[table].add(key, filing)

    def remove(self, table: str, key: bytes, page_id: int) -> None:
        run = self._find(page_id)
        if run is not None:
            self._tables[table].remove(key, _filing(page_id, run))

    def count(self, table: str) -> int:
        return self._tables[table].count()

    def scan(self, table: str, prefix: bytes, start: bytes = b"") -> Iterator[tuple[bytes, int]]:
        """(key as kept, page id) of every posting whose key starts with ``prefix`` (and is at
        least ``prefix + start``), in key order and id order within a key; read lazily, run by
        run."""
        return self._tables[table].scan(prefix, self.runs(), start)

    def runs(self) -> list[Run]:
        """Every run in id order."""
        if self._runs is None:
            data = bytes(self._txn.get(_RUNS_KEY, db=self._meta) or b"")
            self._runs = [
                Run(*_RUN.unpack_from(data, start)) for start in range(0, len(data), _RUN.size)
            ]
        return self._runs

    def _filing_of(self, page_id: int) -> Filing:
        """Where the postings of ``page_id`` go, found once for the postings of one page (a
        filing found before a change of the runs is never kept beyond it: see ``_run_for``)."""
        if self._last_filing is None or self._last_filing[0] != page_id:
            self._last_filing = (page_id, _filing(page_id, self._run_for(page_id)))
        return self._last_filing[1]

    def _find(self, page_id: int) -> Run | None:
        runs = self.runs()
        place = bisect.bisect_right(runs, (page_id, 0xFF)) - 1  # after a run starting there
        return runs[place] if place >= 0 and runs[place].holds(page_id) else None

    def _run_for(self, page_id: int) -> Run:
        """The run a posting of ``page_id`` goes to: opened (and the open run before it closed)
        if none holds it."""
        found = self._find(page_id)
        if found is not None:
            return found
        opened = Run(page_id >> BASE_BITS << BASE_BITS, BASE_BITS)
        self._run_keys = self._last_filing = None
        runs = self.runs()
        block = [run for run in runs if run.first >> _BLOCK_BITS == page_id >> _BLOCK_BITS]
        bisect.insort(runs, opened)
        if block and block[-1].first < opened.first:
            self._close(block[-1])
        self._txn.put(_RUNS_KEY, b"".join(_RUN.pack(*run) for run in runs), db=self._meta)
        return opened

    def _close(self, run: Run) -> None:
        """Rewrite ``run`` in order, merged with its equal closed runs before it."""
        members, merged = [run], run
        while merged.bits < MAX_BITS and merged.first >> merged.bits & 1:
            buddy = Run(merged.first - (1 << merged.bits), merged.bits)
            if self._find(buddy.first) != buddy:
                break
            members.append(buddy)
            merged = Run(buddy.first, merged.bits + 1)
        for table in self._tables.values():
            table.rewrite([member.first for member in members], merged.first)
        runs = self.runs()
        for member in members:
            runs.remove(member)
        bisect.insort(runs, merged)


class PostingTable:
    """A posting table inside one transaction (layout in the module docstring).

    ``group_bytes`` leading bytes of a posting key go into the LMDB key (a band's number), the
    next bytes up to ``kept_bytes`` into the value."""

    def __init__(
        self,
        txn: lmdb.Transaction,
        db: lmdb._Database,
        group_bytes: int,
        kept_bytes: int,
    ) -> None:
        self._txn = txn
        self._db = db
        self._group_bytes = group_bytes
        self._value_bytes = kept_bytes - group_bytes + _LOW_BYTES
        self._kept_bytes = kept_bytes
        self._cursor: lmdb.Cursor | None = None

    def ids(self, key: bytes, runs: list[RunKey]) -> list[int]:
        cursor = self._cursor or self._open_cursor()
        group, rest = key[: self._group_bytes], key[self._group_bytes : self._kept_bytes]
        found: list[int] = []
        for suffix, block_first in runs:
            # most keys are filed nowhere: the value found is the next key's, which settles it
            if not cursor.set_range_dup(group + suffix, rest):
                continue
            if not cast("bytes", cursor.value()).startswith(rest):  # not a buffer
                continue
            for value in cast("Iterator[bytes]", cursor.iternext_dup()):  # not buffers
                if not value.startswith(rest):
                    break
                found.append(block_first + int.from_bytes(value[-_LOW_BYTES:], "big"))
        return found

    def scan(
        self, prefix: bytes, runs: list[Run], start: bytes = b""
    ) -> Iterator[tuple[bytes, int]]:
        return heapq.merge(*(self._scan_run(prefix, run, start) for run in runs))

    def _scan_run(self, prefix: bytes, run: Run, start: bytes) -> Iterator[tuple[bytes, int]]:
        """One run's postings under ``prefix``, from ``prefix + start``: a cursor of its own, as
        the caller may look other keys up between two of them."""
        group, rest = prefix[: self._group_bytes], prefix[self._group_bytes :]
        block_first = run.first >> _BLOCK_BITS << _BLOCK_BITS
        with self._txn.cursor(db=self._db) as cursor:
            # padded to a value's width: LMDB compares no empty value
            if not cursor.set_range_dup(
                group + _ID.pack(run.first), (rest + start).ljust(self._value_bytes, b"\0")
            ):
                return
            for value in cast("Iterator[bytes]", cursor.iternext_dup()):
                if not value.startswith(rest):
                    return
                low = int.from_bytes(value[-_LOW_BYTES:], "big")
                yield group + value[:-_LOW_BYTES], block_first + low

    def add(self, key: bytes, filing: Filing) -> None:
        self._txn.put(*self._split(key, filing), dupdata=True, db=self._db)

    def remove(self, key: bytes, filing: Filing) -> None:
        self._txn.delete(*self._split(key, filing), db=self._db)

    def count(self) -> int:
        with self._txn.cursor(db=self._db) as cursor:
            more, total = cursor.first(), 0
            while more:
                total += cursor.count()
                more = cursor.next_nodup()
            return total

    def rewrite(self, members: list[int], merged: int) -> None:
        """File the values of the runs starting at ``members`` under the run starting at
        ``merged``, in order (appended: full pages)."""
        suffixes = {_ID.pack(first) for first in members}
        groups: dict[bytes, list[bytes]] = {}
        with self._txn.cursor(db=self._db) as cursor:
            more = cursor.first()
            while more:
                key = cursor.key()
                if key[self._group_bytes :] in suffixes:
                    groups.setdefault(key[: self._group_bytes], []).append(key)
                more = cursor.next_nodup()
            for group, keys in groups.items():
                values = np.sort(np.concatenate([self._take(cursor, key) for key in keys]))
                target, data, width = group + _ID.pack(merged), values.tobytes(), self._value_bytes
                pairs = ((target, data[at : at + width]) for at in range(0, len(data), width))
                cursor.putmulti(pairs, dupdata=True, append=True)

    def _take(self, cursor: lmdb.Cursor, key: bytes) -> np.ndarray:
        """Delete the values filed under an LMDB key; them, as fixed-width byte strings (they
        sort as bytes). Deleted one at a time: deleting the whole key drops its pages without
        LMDB counting them out of the table's statistics (LMDB 0.9.36)."""
        width = self._value_bytes
        packed = cursor.getmulti([key], dupdata=True, dupfixed_bytes=width, keyfixed=True)
        rows = np.frombuffer(packed, np.uint8).reshape(-1, len(key) + width)[:, len(key) :]
        values = np.ascontiguousarray(rows).view(f"S{width}").ravel()
        cursor.set_key(key)
        for _ in range(len(values)):
            cursor.delete()
        return values

    def _split(self, key: bytes, filing: Filing) -> tuple[bytes, bytes]:
        """The LMDB key and value of a posting."""
        group_bytes = self._group_bytes
        return key[:group_bytes] + filing.run_key, key[group_bytes : self._kept_bytes] + filing.low

    def _open_cursor(self) -> lmdb.Cursor:
        self._cursor = self._txn.cursor(db=self._db)
        return self._cursor
