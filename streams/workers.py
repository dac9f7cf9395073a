"""Pages prepared (parsed, tokenized, hashed) in worker processes, decided in the processor's own.

Preparing a page costs several times what Kafka and the index cost, and it needs no index, so a
pool of processes can share it; the decisions stay in one write transaction of the calling
process, in batch order, so they are the same whatever the number of workers. Every wait here is
bounded: a worker that dies fails the batch at once, one that hangs after ``timeout_s``, both as
``WorkerPoolError``; the processor then stops without committing, so the batch is redelivered.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from dedup_filter import Config
from dedup_filter.isolation import Failed, guarded
from dedup_filter.prepare import PagePreparer, PreparedPage

# ``PagePreparer.prepare``'s arguments: URL, body, headers and, optionally, keep_anchors
PageInput = (
    tuple[str, bytes, dict[str, str] | None] | tuple[str, bytes, dict[str, str] | None, bool]
)
_READY = "ready"
_CHUNKS_PER_WORKER = 4  # small chunks even out pages of unequal size across the workers
_CLOSE_GRACE_S = 2.0
_BLAS_THREADS = "OPENBLAS_NUM_THREADS"


class WorkerPoolError(Exception):
    """A worker process died, hung or failed, so the batch in hand cannot be decided."""


def _serve(connection: Connection, config: Config) -> None:
    """A worker's life: prepare the chunks it is sent until told to stop or the parent is gone."""
    # Ctrl-C in a terminal reaches the whole process group; the processor alone decides when a
    # worker stops, so that the batch in hand is finished first
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    preparer = PagePreparer(config)
    # ready means warm: the first batch must not wait for the compiled kernels to load (about half
    # a second of CPU a process), nor count that wait against ``timeout_s``
    preparer.warm_up()
    connection.send(_READY)
    while True:
        try:
            chunk = connection.recv()
        except EOFError:  # the processor is gone
            return
        if chunk is None:
            return
        # a page that fails is that page's failure (sent as text: an exception may not pickle)
        connection.send([guarded(functools.partial(preparer.prepare, *page)) for page in chunk])


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, context: Any, config: Config) -> None:
        self.connection, child_end = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child_end, config), name="dedup-prepare", daemon=True
        )
        self.process.start()
        child_end.close()
        self._sending: threading.Thread | None = None

    def describe(self) -> str:
        code = self.process.exitcode
        state = "running" if code is None else f"exit code {code}"
        return f"worker process {self.process.pid} ({state})"

    def send(self, message: Any) -> None:
        """Send from a thread of its own: a chunk larger than the pipe's buffer blocks until the
        worker reads it, and a worker that is stopped never does. Whether it arrived is known
        from the answer (or the death) that ``PreparationPool._ready`` waits for, in bounded time.
        """
        self._sending = threading.Thread(target=self._send, args=(message,), daemon=True)
        self._sending.start()

    def _send(self, message: Any) -> None:
        with contextlib.suppress(OSError):  # it died: its sentinel tells the waiting thread
            self.connection.send(message)

    def receive(self) -> Any:
        try:
            answer = self.connection.recv()
        except (EOFError, OSError) as error:
            self.process.join(_CLOSE_GRACE_S)
            msg = f"{self.describe()} died"
            raise WorkerPoolError(msg) from error
        return answer

    def ask_to_stop(self) -> bool:
        """Unless a chunk is still being sent (two senders would interleave their bytes): then
        the worker is not reading, and is killed at once."""
        if self._sending is not None and self._sending.is_alive():
            return False
        self.send(None)
        return True

    def finish(self, asked: bool, deadline: float) -> None:
        """Wait for it to stop until ``deadline``, then kill it (SIGKILL ends a hung or a stopped
        process alike); a sender blocked on its pipe then fails, so it is joined before closing."""
        if asked:
            self.process.join(max(deadline - time.monotonic(), 0.0))
        if self.process.is_alive():
            self.process.kill()
            self.process.join(_CLOSE_GRACE_S)
        if self._sending is not None:
            self._sending.join(_CLOSE_GRACE_S)
        self.connection.close()


class PreparationPool:
    """``workers`` processes that prepare pages for ``DedupFilter.check_prepared``.

    ``config`` must be the deciding filter's configuration. Close the pool (or use it as a context
    manager) to stop its processes; they also exit by themselves when the processor dies.

    Raises:
        WorkerPoolError: a worker did not start within ``timeout_s``.
    """

    def __init__(self, config: Config, workers: int, timeout_s: float) -> None:
        if workers < 1:
            msg = f"workers must be >= 1, not {workers}"
            raise ValueError(msg)
        self.timeout_s = timeout_s
        self._unusable = ""  # why the pool takes no more work: closed, or broken by a failure
        # spawned, not forked: the processor holds an LMDB environment and kafka-python threads
        context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        try:
            with _one_blas_thread_each():
                for _ in range(workers):
                    self._workers.append(_Worker(context, config))
            deadline = time.monotonic() + timeout_s
            for worker in self._workers:
                self._ready({worker: 0}, deadline)
                if worker.receive() != _READY:
                    msg = f"{worker.describe()} did not start"
                    raise WorkerPoolError(msg)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> PreparationPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def processes(self) -> list[multiprocessing.process.BaseProcess]:
        return [worker.process for worker in self._workers]

    def prepare(self, pages: Sequence[PageInput]) -> list[PreparedPage | Failed]:
        """Every page prepared (or why it failed), in the order given; at most ``timeout_s`` for
        the whole batch.

        Raises:
            WorkerPoolError: a worker died, failed or did not answer in time (the pool is then
                broken: the processes may hold half a batch), or the pool is closed.
        """
        if self._unusable:
            msg = f"the worker pool is {self._unusable}"
            raise WorkerPoolError(msg)
        try:
            return self._prepare(pages)
        except WorkerPoolError as error:
            self._unusable = f"broken: {error}"
            raise

    def _prepare(self, pages: Sequence[PageInput]) -> list[PreparedPage | Failed]:
        chunks = _chunks(pages, len(self._workers) * _CHUNKS_PER_WORKER)
        prepared: list[list[PreparedPage | Failed]] = [[] for _ in chunks]
        waiting = list(enumerate(chunks))
        busy: dict[_Worker, int] = {}
        deadline = time.monotonic() + self.timeout_s
        for worker in self._workers[: len(waiting)]:
            busy[worker] = self._give(worker, waiting)
        while busy:
            for worker in self._ready(busy, deadline):
                prepared[busy.pop(worker)] = worker.receive()
                if waiting:
                    busy[worker] = self._give(worker, waiting)
        return [page for chunk in prepared for page in chunk]

    def close(self) -> None:
        """Stop every worker: asked first, killed after a short grace. Safe to call twice."""
        deadline = time.monotonic() + _CLOSE_GRACE_S
        workers, self._workers = self._workers, []
        self._unusable = self._unusable or "closed"
        asked = [worker.ask_to_stop() for worker in workers]
        for worker, was_asked in zip(workers, asked, strict=True):
            worker.finish(was_asked, deadline)

    @staticmethod
    def _give(worker: _Worker, waiting: list[tuple[int, list[PageInput]]]) -> int:
        position, chunk = waiting.pop(0)
        worker.send(chunk)
        return position

    def _ready(self, busy: dict[_Worker, int], deadline: float) -> list[_Worker]:
        """The busy workers that answered (or died), waiting at most until ``deadline``."""
        by_handle: dict[Any, _Worker] = {}
        for worker in busy:
            by_handle[worker.connection] = worker
            by_handle[worker.process.sentinel] = worker
        ready = wait(list(by_handle), timeout=max(deadline - time.monotonic(), 0.0))
        if not ready:
            names = ", ".join(worker.describe() for worker in busy)
            msg = f"no answer within stream.worker_timeout_s={self.timeout_s} s from {names}"
            raise WorkerPoolError(msg)
        return list(dict.fromkeys(by_handle[handle] for handle in ready))


@contextlib.contextmanager
def _one_blas_thread_each() -> Iterator[None]:
    """Processes started inside get one OpenBLAS thread, unless the user chose a number.

    A worker stands for one core. No step of the preparation calls BLAS now (simhash's weighted
    sum did until it moved to ``einsum``, and OpenBLAS's thread per core then spun beside the work:
    a third more CPU on 2 cores); should one again, it stays on the worker's core. OpenBLAS reads
    the variable once, when numpy loads, so it is set around the start.
    """
    chosen = os.environ.get(_BLAS_THREADS)
    os.environ[_BLAS_THREADS] = chosen or "1"
    try:
        yield
    finally:
        if chosen is None:
            del os.environ[_BLAS_THREADS]


def _chunks(pages: Sequence[PageInput], count: int) -> list[list[PageInput]]:
    """``pages`` in at most ``count`` contiguous chunks of nearly equal length."""
    size = -(-len(pages) // max(count, 1)) or 1
    return [list(pages[start : start + size]) for start in range(0, len(pages), size)]
