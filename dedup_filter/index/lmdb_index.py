"""The shared feature index: one LMDB environment, safe for many processes at once.

Only this room (``index/``) imports ``lmdb``, so the byte layout lives here (the record's bytes
in ``page_records``). Invariants: keys are fixed-width big-endian bytes (sorted scans, portable
files); a batch is one write transaction, so a reader never sees half a batch and a ``kill -9``
loses only uncommitted batches; page ids are allocated inside write transactions (the top 16 bits
carry the shard id, so ids stay unique when shards are merged); the feature parameters and the
layout version are stamped into ``meta`` and an index built with others refuses to open.

Posting tables (``exact``, ``features``, ``bands``, ``urls``, ``page_entries``) are ``dupsort``
+ ``dupfixed``: a posting (key, page id) is the value ``key[g:w]`` + the low 24 bits of the page
id, filed under the LMDB key ``key[:g]`` + the first id of the page's run of ids (g = 1 for a
band: its number; 0 otherwise; w, the bytes of the key kept, in ``_POSTING_TABLES``; runs:
``posting_runs``). LMDB packs the values of one key in pages of their own, without node headers,
so a posting costs its value: 7 bytes for a band (its whole 4-byte piece: the pieces of pages with
a common vocabulary are far from uniform, and 3 of their bytes made a page read 40 records instead
of 7), 8 for an exact hash or a super-shingle (their first 5 bytes: uniform hashes), 11 for a URL
(its whole 64-bit hash: a URL's id is used as found), 17 for a mirror detector's entry (its whole
14-byte key). A shortened key only widens a lookup: every page it
finds is judged on its record's full exact hash and on the super-shingle bytes the record keeps
(the same 5), so decisions are those of the records. A table holds one LMDB key per group and
per run: a handful; ``meta`` lists the runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import os
import struct
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import lmdb

from dedup_filter.config import Config
from dedup_filter.errors import ConfigError, IndexFullError, IndexMismatchError, IndexStoreError
from dedup_filter.features.hashing import hash64
from dedup_filter.features.simhash import band_keys
from dedup_filter.index.committed import Committed
from dedup_filter.index.hosts import HostNumbers
from dedup_filter.index.page_records import FEATURE_BYTES, stored_simhash
from dedup_filter.index.page_records import PageRecord as PageRecord
from dedup_filter.index.posting_runs import Postings
from dedup_filter.index.rules_memo import RULE_TABLES, RULES_STAMP, RulesMemo, memoised

logger = logging.getLogger(__name__)

# 2: postings as fixed-size duplicates of few keys, last_seen in seconds; 3: records hold the b-bit
# min-hash sketch, postings keep 24 bits of the id and 5 bytes of exact and feature keys; 4: records
# hold the hash of the page's code blocks, keep 5 bytes of a super-shingle, the scheme as a code and
# a varint token count, the mirror detector's directory entries are compact (``mirrors/store.py``);
# 5: postings are filed by runs of page ids, rewritten in key order (``posting_runs``); records
# keep their URL's host as a number (``hosts``) and title and code hashes only when there are any;
# 6: the mirror detector's entries that a page's record tells all of are postings of the page
# (``page_entries``), not ``dirs`` rows; 7: a directory entry's key reads a file's ``.htm`` as
# ``.html`` (``mirrors/directories.relative_key``); 8: and a bare name as its ``.html``, candidates
# and rules say which side names its documents bare, an index page's entry whether it does, a
# host's redirect record whether it served a page under a bare name (``urlrules/redirects.py``);
# 9: a page's filed editions name the languages its bar names (``urlrules/editions.py``), and
# its code hash reads an absolute URL as its last segment (``features/fingerprint.py``)
SCHEMA_VERSION = 9
_MB = 1 << 20
MAX_KEY_BYTES = 511  # LMDB's key size limit as built (``Environment.max_key_size``)
_ID = struct.Struct(">Q")
# posting tables: how many leading bytes of a posting key go into the LMDB key (a band's number),
# and how many bytes of the key are kept in all
_POSTING_TABLES = {
    "exact": (0, 5),
    "features": (0, FEATURE_BYTES),
    "bands": (1, 5),
    "urls": (0, 8),
    # the mirror detector's entries that a page's own record tells all of: the ``dirs`` key
    # (directory hash, relative path hash: ``mirrors/store.py``) whole
    "page_entries": (0, 14),
}
_PLAIN_TABLES = ("meta", "pages", "hosts")
# the index's own secret (4 random bytes in ``meta``, made when it is created): the mirror
# detector draws its samples in an order keyed by it, which a copier cannot know
SAMPLE_KEY = b"sample_key"
SAMPLE_KEY_VARIABLE = "DEDUP_FILTER_SAMPLE_KEY"


def new_sample_key() -> bytes:
    """A new index's ``SAMPLE_KEY``: random and never zero (zero orders by the public hash),
    unless ``DEDUP_FILTER_SAMPLE_KEY`` names one (an integer): a replay or a test that must draw
    the same samples every time, never a crawl of a web others write."""
    fixed = os.environ.get(SAMPLE_KEY_VARIABLE)
    if fixed is not None:
        try:
            return (int(fixed, 0) & 0xFFFFFFFF).to_bytes(4, "big")
        except ValueError:
            msg = f"{SAMPLE_KEY_VARIABLE}={fixed!r} is no integer (e.g. 0 or 0x5eed)"
            raise ConfigError(msg) from None
    while (key := os.urandom(4)) == bytes(4):
        continue
    return key


# sub-databases owned by the mirror detector (layout documented in mirror_store.py)
MIRROR_TABLES = ("dirs", "rules", "candidates", "links", "probes", "deferred")
# sub-databases owned by the URL rules (layout documented in urlrules/store.py)
URL_RULE_TABLES = ("url_rules", "url_aliases", "url_deferred", "url_editions")
# the caller's bytes beside its deferred URLs (layout documented in deferred_records.py)
CALLER_TABLES = ("deferred_records",)
_MAX_DBS = 24  # 19 in use: room for a table or two without a new layout
_MAX_DECODED = 1_024  # records a view keeps decoded (a batch reads ~80): a scan of all keeps few
T = TypeVar("T")


def encode_id(page_id: int) -> bytes:
    return _ID.pack(page_id)


def decode_id(data: bytes | memoryview) -> int:
    return int(_ID.unpack(data)[0])


def url_key(url: str) -> bytes:
    """Fixed-width key of a (normalised) URL in the ``urls`` table."""
    return _ID.pack(hash64(url, 0x5EED))


def _rules_stamp(txn: lmdb.Transaction, dbs: dict[str, lmdb._Database]) -> int:
    """The number of the rule tables' state a transaction sees (``rules_memo``)."""
    data = txn.get(RULES_STAMP, db=dbs["meta"])
    return 0 if data is None else decode_id(data)


class IndexView:
    """Typed access to the tables inside one transaction (read-only or write)."""

    def __init__(
        self,
        txn: lmdb.Transaction,
        dbs: dict[str, lmdb._Database],
        config: Config,
        answers: dict[Hashable, Any] | None = None,
        committed: Committed | None = None,
    ) -> None:
        self._txn = txn
        # a read-only view's: under the rules stamp it sees; a write view's own (``rules_memo``)
        self._answers: dict[Hashable, Any] = {} if answers is None else answers
        self._stamped = False  # a write view: whether it stamped its change of the rule tables
        self._dbs = dbs
        self._shard_id = config.index.shard_id
        self._bands = config.simhash.bands
        self._postings = Postings(txn, dbs, _POSTING_TABLES)
        self._hosts = HostNumbers(txn, dbs["hosts"])
        # records read, as stored: a page's check reads the same few several times (its
        # original's, its directories' pages'); records are frozen, and a write keeps its own
        self._decoded: dict[int, PageRecord | None] = {}
        self._committed = committed  # a read-only view's: what earlier readers kept (committed)
        self._cursors: dict[str, lmdb.Cursor] = {}  # a table's, for ``_holds_prefix``

    # pages and URLs
    def page(self, page_id: int) -> PageRecord | None:
        if page_id in self._decoded:
            return self._decoded[page_id]
        data = self._record_bytes(page_id)
        if data is None:
            record = None
        elif self._committed is None:
            record = PageRecord.decode(page_id, data, self._hosts)
        else:
            record = self._committed.record(page_id, data, self._hosts)
        self._keep_decoded(page_id, record)
        return record

    def _keep_decoded(self, page_id: int, record: PageRecord | None) -> None:
        if len(self._decoded) >= _MAX_DECODED:
            self._decoded.clear()
        self._decoded[page_id] = record

    def page_simhash(self, page_id: int) -> bytes | None:
        """The page's simhash (``b""`` for a page without one), its record left undecoded."""
        data = self._record_bytes(page_id)
        return None if data is None else stored_simhash(data)

    def _record_bytes(self, page_id: int) -> bytes | None:
        return self._txn.get(encode_id(page_id), db=self._dbs["pages"])

    def page_id_for_url(self, url: str) -> int | None:
        ids = self._postings.ids("urls", url_key(url))
        return ids[0] if ids else None

    def new_page_id(self) -> int:
        counter = self._next_counter()
        self._txn.put(b"next_id:%d" % self._shard_id, encode_id(counter + 1), db=self._dbs["meta"])
        return (self._shard_id << 48) | counter

    def next_page_id(self) -> int:
        """The id the next page this writer keeps will get: how far its crawl has come."""
        return (self._shard_id << 48) | self._next_counter()

    def _next_counter(self) -> int:
        data = self._txn.get(b"next_id:%d" % self._shard_id, db=self._dbs["meta"])
        return 1 if data is None else decode_id(data)

    def put_page(self, record: PageRecord) -> None:
        """Store a page and its postings, replacing the postings of its previous version."""
        old = self.page(record.page_id)
        if old is not None:
            self._remove_postings(old)
        self._put_record(record)
        self._file_url(record.url, record.page_id)
        self._postings.add_all(_postings(record, self._bands), record.page_id)

    def touch_page(self, record: PageRecord, seen_at: float) -> None:
        """Record that an unchanged page was seen again (``gc`` measures age from here)."""
        self._put_record(dataclasses.replace(record, last_seen=seen_at))

    def delete_page(self, record: PageRecord) -> None:
        self._remove_postings(record)
        self._decoded.pop(record.page_id, None)
        self._txn.delete(encode_id(record.page_id), db=self._dbs["pages"])
        self._postings.remove("urls", url_key(record.url), record.page_id)

    def _put_record(self, record: PageRecord) -> None:
        key, value, db = encode_id(record.page_id), record.encode(self._hosts), self._dbs["pages"]
        # a shard's new ids only grow: appended, leaf pages fill up instead of splitting in half
        if not self._txn.put(key, value, append=True, db=db):
            self._txn.put(key, value, db=db)
        self._keep_decoded(record.page_id, record.as_stored())  # read back as stored

    def _file_url(self, url: str, page_id: int) -> None:
        """File ``url`` under ``page_id`` alone (one page per URL)."""
        postings, key = self._postings, url_key(url)
        filed = postings.ids("urls", key)
        if filed != [page_id]:
            for other in filed:
                postings.remove("urls", key, other)
            postings.add("urls", key, page_id)

    def _remove_postings(self, record: PageRecord) -> None:
        for table, key in _postings(record, self._bands):
            self._postings.remove(table, key, record.page_id)

    def pages(self) -> Iterator[PageRecord]:
        with self._txn.cursor(db=self._dbs["pages"]) as cursor:
            for key, data in cursor:
                yield PageRecord.decode(decode_id(key), data, self._hosts)

    # postings
    def postings(self, table: str, key: bytes) -> list[int]:
        """Page ids filed under ``key`` in a posting table, in id order."""
        return self._postings.ids(table, key)

    def posting_range(
        self, table: str, prefix: bytes, start: bytes = b""
    ) -> Iterator[tuple[bytes, int]]:
        """(key, page id) of every posting whose key starts with ``prefix`` (and is at least
        ``prefix + start``), in key order."""
        return self._postings.scan(table, prefix, start)

    def add_posting(self, table: str, key: bytes, page_id: int) -> None:
        self._postings.add(table, key, page_id)

    def remove_posting(self, table: str, key: bytes, page_id: int) -> None:
        self._postings.remove(table, key, page_id)

    def memoised(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` from the rule tables, reused by every read-only view of the same rules
        and, in a write view, until it changes them (``rules_memo``); the value must be
        immutable."""
        return memoised(self._answers, key, compute)

    def settled(self, key: Hashable, compute: Callable[[], tuple[T, bool]]) -> T:
        """``compute()``'s answer (its first value), reused by every later read-only view of the
        process once it said the answer can no longer change (its second: ``committed``)."""
        if self._committed is None:
            return compute()[0]
        return self._committed.settled(key, compute)

    def _stamp_rules(self, table: str) -> None:
        if table not in RULE_TABLES:
            return
        self._answers.clear()  # a write view's own: read from what changes now
        if not self._stamped:
            stamp = _rules_stamp(self._txn, self._dbs) + 1
            self._txn.put(RULES_STAMP, encode_id(stamp), db=self._dbs["meta"])
            self._stamped = True

    # raw tables, for the mirror detector and the URL rules. Their keys hold host and directory
    # names, which a page chooses: one longer than LMDB's keys (511 bytes) is never stored, so
    # never found, and a write under it is left out rather than fail the page's whole batch
    def get(self, table: str, key: bytes) -> bytes | None:
        if len(key) > MAX_KEY_BYTES:
            return None
        data = self._txn.get(key, db=self._dbs[table])
        return None if data is None else bytes(data)

    def put(self, table: str, key: bytes, value: bytes) -> None:
        if len(key) > MAX_KEY_BYTES:
            return
        self._stamp_rules(table)
        self._txn.put(key, value, db=self._dbs[table])

    def delete(self, table: str, key: bytes) -> None:
        if len(key) > MAX_KEY_BYTES:
            return
        self._stamp_rules(table)
        self._txn.delete(key, db=self._dbs[table])

    def scan(self, table: str, prefix: bytes, start: bytes = b"") -> Iterator[tuple[bytes, bytes]]:
        """Every (key, value) whose key starts with ``prefix`` (and is at least
        ``prefix + start``), in key order."""
        if len(prefix) > MAX_KEY_BYTES or not self._holds_prefix(table, prefix):
            return
        with self._txn.cursor(db=self._dbs[table]) as cursor:
            if not cursor.set_range(prefix + start):
                return
            for key, value in cursor:
                if not bytes(key).startswith(prefix):
                    return
                yield bytes(key), bytes(value)

    def _holds_prefix(self, table: str, prefix: bytes) -> bool:
        """Whether a key starts with ``prefix``, told by the view's own cursor on the table: 97
        scans in 100 of a check find nothing, and opening a cursor costs more than the lookup."""
        cursor = self._cursors.get(table)
        if cursor is None:
            cursor = self._cursors[table] = self._txn.cursor(db=self._dbs[table])
        return cursor.set_range(prefix) and cursor.key().startswith(prefix)

    def count(self, table: str) -> int:
        """Rows of a table (postings of a posting table)."""
        if table in _POSTING_TABLES:
            return self._postings.count(table)
        return int(self._txn.stat(self._dbs[table])["entries"])


@functools.lru_cache(maxsize=64)
def band_postings(simhash: bytes, bands: int) -> tuple[bytes, ...]:
    """The ``bands`` keys a simhash is filed under (cached: a kept page needs them for its
    lookups, then again for its postings)."""
    return tuple(band_keys(simhash, bands))


def _postings(record: PageRecord, bands: int) -> list[tuple[str, bytes]]:
    postings = [("exact", _ID.pack(record.exact))]
    postings += [("features", _ID.pack(feature)) for feature in record.features]
    if record.simhash:
        postings += [("bands", key) for key in band_postings(record.simhash, bands)]
    return postings


class LmdbIndex:
    """An LMDB environment holding pages, their features and the mirror state.

    Example:
        >>> index = LmdbIndex.open("crawl-index", Config.default())  # doctest: +SKIP
        >>> index.transact(lambda view: view.count("pages"))  # doctest: +SKIP
    """

    def __init__(
        self, env: lmdb.Environment, dbs: dict[str, lmdb._Database], path: Path, config: Config
    ) -> None:
        self._env = env
        self._dbs = dbs
        self.path = path
        self.config = config
        self._memo = RulesMemo()
        self._committed = Committed()

    @classmethod
    def open(cls, path: str | os.PathLike[str], config: Config) -> LmdbIndex:
        """Open (or create) the index directory at ``path``.

        Raises:
            IndexMismatchError: the index holds features computed with other parameters.
            IndexStoreError: LMDB could not open the environment.
        """
        directory = Path(path)
        settings = config.index
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=_directory_mode(settings.file_mode))
            env = lmdb.open(
                str(directory),
                mode=settings.file_mode,
                map_size=settings.map_size_mb * _MB,
                max_dbs=_MAX_DBS,
                sync=settings.sync,
                metasync=False,
                readahead=False,
                max_readers=256,
            )
            env.set_mapsize(max(env.info()["map_size"], settings.map_size_mb * _MB))
        except (lmdb.Error, OSError) as error:
            msg = f"cannot open LMDB index at {directory}: {error}"
            raise IndexStoreError(msg) from error
        dbs = cls._open_tables(env)
        index = cls(env, dbs, directory, config)
        index.transact(index._stamp)
        return index

    @staticmethod
    def _open_tables(env: lmdb.Environment) -> dict[str, lmdb._Database]:
        dbs = {
            name: env.open_db(name.encode())
            for name in (*_PLAIN_TABLES, *MIRROR_TABLES, *URL_RULE_TABLES, *CALLER_TABLES)
        }
        for name in _POSTING_TABLES:
            dbs[name] = env.open_db(name.encode(), dupsort=True, dupfixed=True)
        return dbs

    def _stamp(self, view: IndexView) -> None:
        params = json.dumps(self.config.persisted(), sort_keys=True).encode()
        stored = view.get("meta", b"params")
        if view.get("meta", SAMPLE_KEY) is None:  # an index made before it had one gets one
            view.put("meta", SAMPLE_KEY, new_sample_key())
        if stored is None:
            view.put("meta", b"params", params)
            view.put("meta", b"schema", str(SCHEMA_VERSION).encode())
            view.put("meta", b"created_at", repr(time.time()).encode())
            return
        schema = view.get("meta", b"schema")
        if schema != str(SCHEMA_VERSION).encode():
            msg = (
                f"index at {self.path} has byte layout {(schema or b'?').decode(errors='replace')}"
                f" and this version of dedup-filter reads layout {SCHEMA_VERSION};"
                " build a new index in another directory"
            )
            raise IndexMismatchError(msg)
        if stored != params:
            differing = _differing_keys(json.loads(stored), self.config.persisted())
            msg = (
                f"index at {self.path} was built with other parameters ({', '.join(differing)});"
                " use another index directory or the parameters it was built with"
            )
            raise IndexMismatchError(msg)

    @contextlib.contextmanager
    def read(self) -> Iterator[IndexView]:
        """A consistent read-only snapshot."""
        try:
            txn = self._env.begin(write=False)
        except lmdb.MapResizedError:
            self._env.set_mapsize(0)  # another process grew the map: adopt its size
            txn = self._env.begin(write=False)
        with txn:
            answers = self._memo.answers(_rules_stamp(txn, self._dbs))
            yield IndexView(txn, self._dbs, self.config, answers, self._committed)

    def transact(self, work: Callable[[IndexView], T]) -> T:
        """Run ``work`` in one write transaction and commit it; grow the map and rerun when full.

        ``work`` may run more than once, so it must not have effects outside the transaction.

        Raises:
            IndexFullError: the map reached ``dedup.index.max_map_size_mb``.
            IndexStoreError: any other LMDB failure (the transaction is aborted).
        """
        while True:
            try:
                with self._env.begin(write=True) as txn:
                    return work(IndexView(txn, self._dbs, self.config))
            except lmdb.MapFullError:
                self._grow()
            except lmdb.MapResizedError:
                self._env.set_mapsize(0)  # another process grew the map: adopt its size
            except lmdb.Error as error:
                msg = f"LMDB write failed in {self.path}: {error}"
                raise IndexStoreError(msg) from error

    def _grow(self) -> None:
        current = self._env.info()["map_size"]
        limit = self.config.index.max_map_size_mb * _MB
        if current >= limit:
            msg = (
                f"LMDB index {self.path} is full at {current // _MB} MB"
                " (dedup.index.max_map_size_mb)"
            )
            raise IndexFullError(msg)
        new_size = min(current * 2, limit)
        logger.info(
            "LMDB index %s full: growing map %d MB -> %d MB",
            self.path,
            current // _MB,
            new_size // _MB,
        )
        self._env.set_mapsize(new_size)

    def sync(self) -> None:
        self._env.sync(True)

    def map_bytes(self) -> int:
        """The current map size: the most the data file may grow to before the map grows."""
        return int(self._env.info()["map_size"])

    def disk_bytes(self) -> int:
        """Bytes the data file occupies on disk (allocated blocks, not the sparse map size)."""
        data = self.path / "data.mdb"
        return data.stat().st_blocks * 512 if data.exists() else 0

    def close(self) -> None:
        self._env.close()


def _directory_mode(file_mode: int) -> int:
    """The files' mode plus search permission wherever they may be read (0o600 -> 0o700)."""
    return file_mode | (file_mode & 0o444) >> 2


def _differing_keys(stored: dict[str, object], current: dict[str, object]) -> list[str]:
    return sorted(
        key for key in stored.keys() | current.keys() if stored.get(key) != current.get(key)
    )
