"""One batch of the index's work, run where the index is written: the worker thread of the crawl's
process, or the deciding process (``deciding``).

The pages of a run with no other work between them are prepared (outside the lock, so the reactor
thread may read the index meanwhile) and decided together, in one write transaction; other work
runs one item at a time, in order. Every item's outcome is a value, its result or the exception
it raised, so one failure is that item's alone and never lost in a thread or a process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dedup_filter import DedupFilter

if TYPE_CHECKING:
    import threading

    from .preparation import Preparation


@dataclass(frozen=True, slots=True)
class Page:
    """A fetched page to decide."""

    url: str
    body: bytes
    headers: Mapping[str, Any]


#: an item of a batch: a page, or a call on the filter (picklable, e.g. ``operator.methodcaller``,
#: when it goes to the deciding process)
Work = Page | Callable[[DedupFilter], Any]


class Batches:
    """Runs batches of ``Work`` on one filter, holding ``transaction`` while it uses the index."""

    def __init__(
        self, dedup: DedupFilter, preparation: Preparation, transaction: threading.Lock
    ) -> None:
        self.dedup = dedup
        self.preparation = preparation
        self._transaction = transaction

    def run(self, batch: list[Work]) -> list[Any]:
        """Each item's outcome, in order: runs of pages decided together, other work one by one."""
        outcomes: list[Any] = []
        pages: list[Page] = []
        for work in batch:
            if isinstance(work, Page):
                pages.append(work)
                continue
            outcomes += self._decide(pages)
            pages = []
            outcomes.append(self._guarded(work))
        return outcomes + self._decide(pages)

    def _decide(self, pages: list[Page]) -> list[Any]:
        """Each page's decision, or the exception that kept it from one."""
        if not pages:
            return []
        # features outside the lock: the reactor thread may read the index meanwhile
        prepared = self.preparation.prepare([(p.url, p.body, p.headers) for p in pages])
        ready = [page for page in prepared if not isinstance(page, Exception)]
        try:
            with self._transaction:
                decisions = iter(self.dedup.check_prepared(ready))
        except Exception as error:  # delivered to each page's Deferred
            return [error] * len(pages)
        return [page if isinstance(page, Exception) else next(decisions) for page in prepared]

    def _guarded(self, work: Callable[[DedupFilter], Any]) -> Any:
        try:
            with self._transaction:
                return work(self.dedup)
        except Exception as error:  # delivered to the task's Deferred
            return error
