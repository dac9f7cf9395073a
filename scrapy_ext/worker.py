"""All writes to one open index happen in one worker thread, in arrival order, so Scrapy's reactor
thread never waits for a commit.

Pages that arrive while a batch is being decided form the next batch: one write transaction, one
commit (one fsync with ``dedup.index.sync``) for all of them. A page's Deferred fires only after
its batch is committed, so a response reaches the spider, or is dropped, only once its decision
is in the index: a crash, even SIGKILL, loses no decision the crawl acted on; the pages of the
batch in progress were never passed on and are simply checked again when fetched again.

LMDB's write transaction never leaves the worker thread. The reactor thread may still read the
index itself (``check_url_now``), but never while the worker is inside a transaction: a write may
grow the memory map, which invalidates every reader of the process.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from twisted.internet.defer import Deferred

from .preparation import Preparation

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from dedup_filter import Decision, DedupFilter

T = TypeVar("T")
MAX_BATCH_PAGES = 64  # bounds a batch's transaction; concurrency keeps real batches smaller


@dataclass(frozen=True, slots=True)
class _Page:
    url: str
    body: bytes
    headers: Mapping[str, Any]


@dataclass(slots=True)
class _Task:
    work: _Page | Callable[[DedupFilter], Any]
    done: Deferred[Any] = field(default_factory=Deferred)


class IndexWorker:
    """Runs the index work of one ``DedupFilter`` in a thread of its own, in arrival order."""

    def __init__(self, dedup: DedupFilter, prepare_processes: int = 0) -> None:
        self.dedup = dedup
        self._preparation = Preparation(dedup.preparer, prepare_processes)
        self._transaction = threading.Lock()  # held by whoever uses the index, worker or reactor
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dedup-index")
        self._queue: list[_Task] = []
        self._busy = False
        self._idle: list[Deferred[None]] = []
        # the worker's first work, before any page: a fixed cost paid while Scrapy starts
        self._warming = self._thread.submit(self._preparation.warm_up)

    def check_page(self, url: str, body: bytes, headers: Mapping[str, Any]) -> Deferred[Decision]:
        """The page's decision, fired once its batch is committed."""
        return self._submit(_Task(_Page(url, body, headers)))

    def call(self, work: Callable[[DedupFilter], T]) -> Deferred[T]:
        """``work(dedup)`` in the worker thread, after everything submitted before it."""
        return self._submit(_Task(work))

    def check_url_now(self, url: str) -> Decision | None:
        """``check_url`` in the calling thread, or ``None`` when the worker is writing."""
        if not self._transaction.acquire(blocking=False):
            return None
        try:
            return self.dedup.check_url(url)
        finally:
            self._transaction.release()

    def warmed(self) -> Deferred[None]:
        """Fires once pages are prepared at full speed (``Preparation.warm_up``), or its warm-up
        failed (then the first page fails the same way, as an index error of its own)."""
        from twisted.internet import reactor  # the reactor Scrapy installed

        waiter: Deferred[None] = Deferred()
        self._warming.add_done_callback(
            lambda _: reactor.callFromThread(waiter.callback, None)  # type: ignore[attr-defined]
        )
        return waiter

    def idle(self) -> Deferred[None]:
        """Fires when every task submitted so far is done."""
        waiter: Deferred[None] = Deferred()
        if self._busy or self._queue:
            self._idle.append(waiter)
        else:
            waiter.callback(None)
        return waiter

    def close(self) -> None:
        """Stop the thread and close the index (call once ``idle`` has fired)."""
        self._thread.shutdown(wait=True)
        self._preparation.close()
        self.dedup.index.sync()
        self.dedup.close()

    def _submit(self, task: _Task) -> Deferred[Any]:
        self._queue.append(task)
        if not self._busy:
            self._start_batch()
        return task.done

    def _start_batch(self) -> None:
        from twisted.internet import reactor  # the reactor Scrapy installed

        batch, self._queue = self._queue[:MAX_BATCH_PAGES], self._queue[MAX_BATCH_PAGES:]
        self._busy = True
        future = self._thread.submit(self._run, batch)
        future.add_done_callback(
            lambda done: reactor.callFromThread(self._batch_done, batch, done)  # type: ignore[attr-defined]
        )

    def _batch_done(self, batch: list[_Task], future: Future[list[Any]]) -> None:
        self._busy = False
        try:
            outcomes = future.result()
        except Exception as error:  # a bug in ``_run`` must not leave the crawl waiting forever
            outcomes = [error] * len(batch)
        if self._queue:
            self._start_batch()
        for task, outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                task.done.errback(outcome)
            else:
                task.done.callback(outcome)
        if not self._busy and not self._queue:
            waiters, self._idle = self._idle, []
            for waiter in waiters:
                waiter.callback(None)

    def _run(self, batch: list[_Task]) -> list[Any]:
        """In the worker thread: runs of pages decided together, other work one by one."""
        outcomes: list[Any] = []
        pages: list[_Page] = []
        for task in batch:
            if isinstance(task.work, _Page):
                pages.append(task.work)
                continue
            outcomes += self._decide(pages)
            pages = []
            outcomes.append(self._guarded(task.work))
        return outcomes + self._decide(pages)

    def _decide(self, pages: list[_Page]) -> list[Any]:
        """Each page's decision, or the exception that kept it from one."""
        if not pages:
            return []
        # features outside the lock: the reactor thread may read the index meanwhile
        prepared = self._preparation.prepare([(p.url, p.body, p.headers) for p in pages])
        ready = [page for page in prepared if not isinstance(page, Exception)]
        try:
            with self._transaction:
                decisions = iter(self.dedup.check_prepared(ready))
        except Exception as error:  # delivered to each page's Deferred, never lost in the thread
            return [error] * len(pages)
        return [page if isinstance(page, Exception) else next(decisions) for page in prepared]

    def _guarded(self, work: Callable[[DedupFilter], Any]) -> Any:
        try:
            with self._transaction:
                return work(self.dedup)
        except Exception as error:  # delivered to the task's Deferred
            return error
