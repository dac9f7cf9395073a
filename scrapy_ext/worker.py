"""All writes to one open index happen in one place, in arrival order, so Scrapy's reactor thread
never waits for a commit: a worker thread hands each batch to the deciding process
(``DEDUP_PREPARE_PROCESSES`` >= 1, ``deciding``), or runs it itself (0, or once that process died).

Pages that arrive while a batch is being decided form the next batch: one write transaction, one
commit (one fsync with ``dedup.index.sync``) for all of them. A page's Deferred fires only after
its batch is committed, so a response reaches the spider, or is dropped, only once its decision
is in the index: a crash, even SIGKILL, loses no decision the crawl acted on; the pages of the
batch in progress were never passed on and are simply checked again when fetched again.

LMDB's write transaction never leaves the thread or process that runs the batches. The reactor
thread may still read the index itself (``check_url_now``), but never while the worker thread is
inside a transaction: a write may grow the memory map, which invalidates every reader of the
process (a map another process grew is adopted by the next reader).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from twisted.internet.defer import Deferred

from .batches import Batches, Page
from .deciding import DecidingProcess, DecidingProcessGone, UnsendableWork
from .preparation import Preparation

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from dedup_filter import Decision, DedupFilter

    from .batches import Work

logger = logging.getLogger(__name__)
T = TypeVar("T")
MAX_BATCH_PAGES = 64  # bounds a batch's transaction; concurrency keeps real batches smaller


@dataclass(slots=True)
class _Task:
    work: Work
    done: Deferred[Any] = field(default_factory=Deferred)


class IndexWorker:
    """Runs the index work of one ``DedupFilter`` in arrival order, off the reactor thread."""

    def __init__(self, dedup: DedupFilter, prepare_processes: int = 0) -> None:
        self.dedup = dedup
        self._transaction = threading.Lock()  # held by whoever uses the index, worker or reactor
        self._batches = Batches(dedup, Preparation(dedup.preparer, 0), self._transaction)
        self._deciding: DecidingProcess | None = None
        if prepare_processes:
            self._deciding = DecidingProcess(dedup.index.path, dedup.config, prepare_processes)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dedup-index")
        self._queue: list[_Task] = []
        self._busy = False
        self._idle: list[Deferred[None]] = []
        # the worker's first work, before any page: a fixed cost paid while Scrapy starts
        self._warming = self._thread.submit(self._warm_up)

    def check_page(self, url: str, body: bytes, headers: Mapping[str, Any]) -> Deferred[Decision]:
        """The page's decision, fired once its batch is committed."""
        return self._submit(_Task(Page(url, body, headers)))

    def call(self, work: Callable[[DedupFilter], T]) -> Deferred[T]:
        """``work(dedup)`` where the batches run, after everything submitted before it (picklable
        work, such as ``operator.methodcaller``, when a deciding process runs them)."""
        return self._submit(_Task(work))

    def check_url_now(self, url: str) -> Decision | None:
        """``check_url`` in the calling thread, or ``None`` when the worker thread is writing or
        the URL is to be deferred (a write: the worker's)."""
        if not self._transaction.acquire(blocking=False):
            return None
        try:
            return self.dedup.check_url_unless_deferred(url)
        finally:
            self._transaction.release()

    def warmed(self) -> Deferred[None]:
        """Fires once pages are prepared at full speed (the deciding process started and warm,
        or this process's kernels loaded), or its warm-up failed (then the first page fails the
        same way, as an index error of its own)."""
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
        """Stop the thread and the deciding process, and close the index (call once ``idle``
        has fired)."""
        self._thread.shutdown(wait=True)
        if self._deciding is not None:
            self._deciding.close()
        self._batches.preparation.close()
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
        future = self._thread.submit(self._run, [task.work for task in batch])
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

    def _warm_up(self) -> None:
        if self._deciding is not None:
            try:
                self._deciding.wait_ready()
                return
            except DecidingProcessGone as error:
                self._deciding_gone(error)
        self._batches.preparation.warm_up()

    def _run(self, batch: list[Work]) -> list[Any]:
        """In the worker thread: the batch's outcomes, from the deciding process or from here."""
        if self._deciding is not None:
            try:
                return self._deciding.run(batch)
            except DecidingProcessGone as error:
                self._deciding_gone(error)
            except UnsendableWork as error:  # decided here, still after every batch before it
                logger.warning("dedup: a batch is decided in the crawl's process: %s", error)
        return self._batches.run(batch)

    def _deciding_gone(self, error: DecidingProcessGone) -> None:
        logger.error("dedup: %s; pages are decided in the crawl's process from now on", error)
        self._deciding = None
