"""What read-only transactions keep for the ones after them: decoded records and settled answers.

A URL check reads a few hundred records (the pages under a rule's directories, the index pages
that name releases), and the next check reads most of them again in a new transaction: the index
changed in between, but seldom those records. A committed record's bytes decode alike in any
transaction (its host's number never changes once committed: ``hosts``), so the decoded record is
filed under its page id and its bytes; a record written since has other bytes and is decoded
afresh.

Some answers read from many pages cannot change once they hold, as pages are only added (which
side of a pair the crawl held first, once one led before the other was met: ``precedence``). A
reader files such an answer once it is settled, and every later transaction of the process
reuses it. Only read-only views file here: a write transaction's records, host numbers and pages
may be aborted (and its page ids given again). ``gc`` removes pages: a process that keeps
running across a sweep keeps the answers settled before it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from dedup_filter.index.page_records import HostNames, PageRecord

T = TypeVar("T")

# records kept decoded: the pages a crawl's rules and their directories name, and a few more;
# past it the cache starts afresh (a record and its key are about 1 KB: 16 MB at most)
MAX_RECORDS = 16_384
MAX_SETTLED = 16_384  # settled answers kept (two directory names each); past it, worked out again


class Committed:
    """Decoded committed records, by page id and bytes, and answers settled for good."""

    def __init__(self) -> None:
        self._records: dict[tuple[int, bytes], PageRecord] = {}
        self._settled: dict[Hashable, Any] = {}

    def record(self, page_id: int, data: bytes, hosts: HostNames) -> PageRecord:
        """The record these bytes hold, decoded once."""
        key = (page_id, data)
        found = self._records.get(key)
        if found is None:
            if len(self._records) >= MAX_RECORDS:
                self._records.clear()  # a check reads its records again at once: none is due
            found = self._records[key] = PageRecord.decode(page_id, data, hosts)
        return found

    def settled(self, key: Hashable, compute: Callable[[], tuple[T, bool]]) -> T:
        """The answer ``compute()`` gave for ``key`` once it said the answer was settled (its
        second value), else ``compute()``'s answer now."""
        try:
            found: T = self._settled[key]
        except KeyError:
            found, final = compute()
            if final:
                if len(self._settled) >= MAX_SETTLED:
                    self._settled.clear()
                self._settled[key] = found
        return found
