"""Hosts as small numbers: a record keeps its URL's host (with its port) as a varint, since a
crawl visits few hosts, whose names are long, many times over.

Table ``hosts``: ``b"n" host`` -> the number (4 bytes), ``b"i" number`` -> the host; ``b"#"`` ->
the next number. A number is given inside a write transaction and never changes nor goes to
another host, so any reader resolves it alike. Names are cached for one transaction only (a
number given in a transaction that is then aborted may be given again to another host).
"""

from __future__ import annotations

import struct

import lmdb

_NUMBER = struct.Struct(">I")
_NEXT_KEY = b"#"
MAX_HOST_BYTES = 256  # a longer one (a malformed URL) is kept in the URL: LMDB keys are short


class HostNumbers:
    """The ``hosts`` table inside one transaction."""

    def __init__(self, txn: lmdb.Transaction, db: lmdb._Database) -> None:
        self._txn = txn
        self._db = db
        self._names: dict[int, str] = {}

    def number(self, host: str) -> int | None:
        """The number of ``host``, given now if it has none (a write transaction); None for a
        host too long to be a key."""
        name = host.encode("utf-8", "surrogatepass")
        if len(name) > MAX_HOST_BYTES:
            return None
        found = self._txn.get(b"n" + name, db=self._db)
        if found is not None:
            return int(_NUMBER.unpack(found)[0])
        data = self._txn.get(_NEXT_KEY, db=self._db)
        number = 0 if data is None else int(_NUMBER.unpack(data)[0])
        self._txn.put(_NEXT_KEY, _NUMBER.pack(number + 1), db=self._db)
        self._txn.put(b"n" + name, _NUMBER.pack(number), db=self._db)
        self._txn.put(b"i" + _NUMBER.pack(number), name, db=self._db)
        self._names[number] = host
        return number

    def name(self, number: int) -> str:
        """The host numbered ``number``.

        Raises:
            KeyError: no host has this number (a record of another index).
        """
        host = self._names.get(number)
        if host is None:
            data = self._txn.get(b"i" + _NUMBER.pack(number), db=self._db)
            if data is None:
                raise KeyError(number)
            host = self._names[number] = bytes(data).decode("utf-8", "surrogatepass")
        return host
