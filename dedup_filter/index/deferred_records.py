"""The caller's own bytes kept beside a deferred URL until its final decision is released: a
stream processor keeps the frontier record it read (key, value, headers), to forward it as it
came when the URL settles as a keep, after a crash and in another member of the group too.

Table ``deferred_records``:
    H(url) -> url length (u32), url, the caller's bytes    the first record given for the URL
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping

from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView

TABLE = "deferred_records"
_LENGTH = struct.Struct(">I")
_SEED = 0xDEFE44ED


def _key(url: str) -> bytes:
    return hash64(url, _SEED).to_bytes(8, "big")


def keep(view: IndexView, records: Mapping[str, bytes]) -> None:
    """Keep each URL's bytes unless some are kept for it already (a URL sent again while it
    waits is forwarded once, as it first came)."""
    for url, data in records.items():
        key = _key(url)
        if view.get(TABLE, key) is None:
            encoded = url.encode("utf-8", "surrogatepass")
            view.put(TABLE, key, _LENGTH.pack(len(encoded)) + encoded + data)


def kept(view: IndexView, urls: Iterable[str]) -> dict[str, bytes]:
    """The bytes kept for each of ``urls`` that has some."""
    found = {}
    for url in urls:
        data = view.get(TABLE, _key(url))
        if data is None:
            continue
        (length,) = _LENGTH.unpack_from(data)
        end = _LENGTH.size + length
        if data[_LENGTH.size : end].decode("utf-8", "surrogatepass") == url:
            found[url] = data[end:]
    return found


def forget(view: IndexView, urls: Iterable[str]) -> None:
    for url in urls:
        view.delete(TABLE, _key(url))
