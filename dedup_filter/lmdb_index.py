"""The shared feature index: one LMDB environment, safe for many processes at once.

This is the only module that imports ``lmdb``, so the byte layout lives here and nowhere else.
Invariants: keys are fixed-width big-endian bytes (sorted scans, portable files); a batch is one
write transaction, so a reader never sees half a batch and a ``kill -9`` loses only uncommitted
batches; page ids are allocated inside write transactions (the top 16 bits carry the shard id, so
ids stay unique when shards are merged); the feature parameters are stamped into ``meta`` and an
index built with others refuses to open.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import lmdb

from .config import Config
from .errors import IndexFullError, IndexMismatchError, IndexStoreError
from .hashing import hash64
from .simhash import band_keys

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
_MB = 1 << 20
_ID = struct.Struct(">Q")
_RECORD_HEAD = struct.Struct(">QdIBH")  # exact, last_seen, token_count, n_features, simhash bytes
_POSTING_TABLES = ("exact", "features", "bands")
_PLAIN_TABLES = ("meta", "pages", "urls")
# sub-databases owned by the mirror detector (layout documented in mirror_store.py)
MIRROR_TABLES = ("dirs", "rules", "candidates", "links", "probes")
_MAX_DBS = 16
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What the index keeps of a kept page."""

    page_id: int
    url: str
    exact: int
    token_count: int
    features: tuple[int, ...]
    simhash: bytes
    last_seen: float

    def encode(self) -> bytes:
        head = _RECORD_HEAD.pack(
            self.exact, self.last_seen, self.token_count, len(self.features), len(self.simhash)
        )
        features = struct.pack(f">{len(self.features)}Q", *self.features)
        return head + features + self.simhash + self.url.encode("utf-8", "surrogatepass")

    @classmethod
    def decode(cls, page_id: int, data: bytes | memoryview) -> PageRecord:
        exact, last_seen, token_count, n_features, n_simhash = _RECORD_HEAD.unpack_from(data)
        start = _RECORD_HEAD.size
        features = struct.unpack_from(f">{n_features}Q", data, start)
        start += 8 * n_features
        simhash = bytes(data[start : start + n_simhash])
        url = bytes(data[start + n_simhash :]).decode("utf-8", "surrogatepass")
        return cls(page_id, url, exact, token_count, features, simhash, last_seen)


def encode_id(page_id: int) -> bytes:
    return _ID.pack(page_id)


def decode_id(data: bytes | memoryview) -> int:
    return int(_ID.unpack(data)[0])


def url_key(url: str) -> bytes:
    """Fixed-width key of a (normalised) URL in the ``urls`` table."""
    return _ID.pack(hash64(url, 0x5EED))


class IndexView:
    """Typed access to the tables inside one transaction (read-only or write)."""

    def __init__(
        self, txn: lmdb.Transaction, dbs: dict[str, lmdb._Database], config: Config
    ) -> None:
        self._txn = txn
        self._dbs = dbs
        self._shard_id = config.index.shard_id
        self._bands = config.simhash.bands

    # pages and URLs
    def page(self, page_id: int) -> PageRecord | None:
        data = self._txn.get(encode_id(page_id), db=self._dbs["pages"])
        return None if data is None else PageRecord.decode(page_id, data)

    def page_id_for_url(self, url: str) -> int | None:
        data = self._txn.get(url_key(url), db=self._dbs["urls"])
        return None if data is None else decode_id(data)

    def new_page_id(self) -> int:
        key = b"next_id:%d" % self._shard_id
        data = self._txn.get(key, db=self._dbs["meta"])
        counter = 1 if data is None else decode_id(data)
        self._txn.put(key, encode_id(counter + 1), db=self._dbs["meta"])
        return (self._shard_id << 48) | counter

    def put_page(self, record: PageRecord) -> None:
        """Store a page and its postings, replacing the postings of its previous version."""
        old = self.page(record.page_id)
        if old is not None:
            self._remove_postings(old)
        self._txn.put(encode_id(record.page_id), record.encode(), db=self._dbs["pages"])
        self._txn.put(url_key(record.url), encode_id(record.page_id), db=self._dbs["urls"])
        for table, key in _postings(record, self._bands):
            self._txn.put(key, encode_id(record.page_id), db=self._dbs[table], dupdata=True)

    def touch_page(self, record: PageRecord, seen_at: float) -> None:
        """Record that an unchanged page was seen again (``gc`` measures age from here)."""
        fresh = PageRecord(
            record.page_id,
            record.url,
            record.exact,
            record.token_count,
            record.features,
            record.simhash,
            seen_at,
        )
        self._txn.put(encode_id(record.page_id), fresh.encode(), db=self._dbs["pages"])

    def delete_page(self, record: PageRecord) -> None:
        self._remove_postings(record)
        self._txn.delete(encode_id(record.page_id), db=self._dbs["pages"])
        if self.page_id_for_url(record.url) == record.page_id:
            self._txn.delete(url_key(record.url), db=self._dbs["urls"])

    def _remove_postings(self, record: PageRecord) -> None:
        value = encode_id(record.page_id)
        for table, key in _postings(record, self._bands):
            self._txn.delete(key, value, db=self._dbs[table])

    def pages(self) -> Iterator[PageRecord]:
        with self._txn.cursor(db=self._dbs["pages"]) as cursor:
            for key, data in cursor:
                yield PageRecord.decode(decode_id(key), data)

    # postings
    def postings(self, table: str, key: bytes) -> list[int]:
        """Page ids filed under ``key`` in a posting table, in id order."""
        with self._txn.cursor(db=self._dbs[table]) as cursor:
            if not cursor.set_key(key):
                return []
            return [decode_id(value) for value in cursor.iternext_dup()]

    # raw tables, for the mirror detector
    def get(self, table: str, key: bytes) -> bytes | None:
        data = self._txn.get(key, db=self._dbs[table])
        return None if data is None else bytes(data)

    def put(self, table: str, key: bytes, value: bytes) -> None:
        self._txn.put(key, value, db=self._dbs[table])

    def delete(self, table: str, key: bytes) -> None:
        self._txn.delete(key, db=self._dbs[table])

    def scan(self, table: str, prefix: bytes) -> Iterator[tuple[bytes, bytes]]:
        """Every (key, value) whose key starts with ``prefix``, in key order."""
        with self._txn.cursor(db=self._dbs[table]) as cursor:
            if not cursor.set_range(prefix):
                return
            for key, value in cursor:
                if not bytes(key).startswith(prefix):
                    return
                yield bytes(key), bytes(value)

    def count(self, table: str) -> int:
        return int(self._txn.stat(self._dbs[table])["entries"])


def _postings(record: PageRecord, bands: int) -> list[tuple[str, bytes]]:
    postings = [("exact", _ID.pack(record.exact))]
    postings += [("features", _ID.pack(feature)) for feature in record.features]
    if record.simhash:
        postings += [("bands", key) for key in band_keys(record.simhash, bands)]
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
            directory.mkdir(parents=True, exist_ok=True)
            env = lmdb.open(
                str(directory),
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
        dbs = {name: env.open_db(name.encode()) for name in (*_PLAIN_TABLES, *MIRROR_TABLES)}
        for name in _POSTING_TABLES:
            dbs[name] = env.open_db(name.encode(), dupsort=True, dupfixed=True)
        return dbs

    def _stamp(self, view: IndexView) -> None:
        params = json.dumps(self.config.persisted(), sort_keys=True).encode()
        stored = view.get("meta", b"params")
        if stored is None:
            view.put("meta", b"params", params)
            view.put("meta", b"schema", str(SCHEMA_VERSION).encode())
            view.put("meta", b"created_at", repr(time.time()).encode())
            return
        schema = view.get("meta", b"schema")
        if stored != params or schema != str(SCHEMA_VERSION).encode():
            differing = _differing_keys(json.loads(stored), self.config.persisted())
            msg = (
                f"index at {self.path} was built with other parameters"
                f" ({', '.join(differing) or 'schema'});"
                " use another index directory or the parameters it was built with"
            )
            raise IndexMismatchError(msg)

    @contextlib.contextmanager
    def read(self) -> Iterator[IndexView]:
        """A consistent read-only snapshot."""
        with self._env.begin(write=False) as txn:
            yield IndexView(txn, self._dbs, self.config)

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


def _differing_keys(stored: dict[str, object], current: dict[str, object]) -> list[str]:
    return sorted(
        key for key in stored.keys() | current.keys() if stored.get(key) != current.get(key)
    )
