"""The index's work in a process of its own (``DEDUP_PREPARE_PROCESSES`` >= 1): pages prepared
and decided there, and every other call on the index, so the crawl's process keeps its interpreter
lock for Scrapy.

The process opens the same index (LMDB is shared by processes), runs each batch the worker thread
sends it (``batches.Batches``: the pages that waited together in one write transaction) and answers
once the batch is committed, so a response still reaches the spider only once its decision is in
the index. It warms up before it says it is ready (``PagePreparer.warm_up``: the first pages would
otherwise wait for its kernels), ends with the crawl's process, and if it dies the worker thread
takes the batches itself from then on. The crawl's process only reads the index meanwhile.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import threading
from typing import TYPE_CHECKING, Any

from dedup_filter import DedupFilter

from .batches import Batches
from .preparation import Preparation, end_with_parent

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from pathlib import Path

    from dedup_filter import Config

    from .batches import Work

_READY = "ready"
_CLOSE_TIMEOUT_S = 30.0


class DecidingProcessGone(Exception):
    """The deciding process died, or could not start: its batch is to be run elsewhere."""


class UnsendableWork(Exception):
    """A batch holds work that does not pickle (a lambda): it is to be run where it was made."""


def _serve(connection: Connection, path: Path, config: Config, processes: int) -> None:
    """The process's life: open the index, warm up, run batches until told to stop."""
    end_with_parent()
    # a daemon (so the crawl's exit never waits for it) may start no process; its preparing
    # processes end with it (``end_with_parent``)
    multiprocessing.current_process().daemon = False
    dedup = DedupFilter.open(path, config)
    # more than one process: this one decides, the others prepare its pages
    batches = Batches(dedup, Preparation(dedup.preparer, processes - 1), threading.Lock())
    try:
        batches.preparation.warm_up()
        connection.send(_READY)
        while (batch := connection.recv()) is not None:
            connection.send([_sendable(outcome) for outcome in batches.run(batch)])
    finally:
        batches.preparation.close()
        dedup.index.sync()
        dedup.close()


def _sendable(outcome: Any) -> Any:
    """An exception that cannot be pickled goes back as its text (its Deferred fails alike)."""
    if isinstance(outcome, BaseException):
        try:
            pickle.dumps(outcome)
        except Exception:
            return RuntimeError(f"{type(outcome).__name__}: {outcome}")
    return outcome


class DecidingProcess:
    """The crawl's end of the deciding process: one batch at a time, from one thread."""

    def __init__(self, path: Path, config: Config, processes: int) -> None:
        # spawn, not fork: the crawl's process runs threads and a reactor
        context = multiprocessing.get_context("spawn")
        self._connection, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(child_end, path, config, processes),
            name="dedup-decide",
            daemon=True,
        )
        self._process.start()  # now, while Scrapy starts
        child_end.close()

    def wait_ready(self) -> None:
        """Returns once the process has opened the index and warmed up.

        Raises:
            DecidingProcessGone: it died first.
        """
        if self._receive() != _READY:
            msg = "the deciding process did not start"
            raise DecidingProcessGone(msg)

    def run(self, batch: list[Work]) -> list[Any]:
        """Each item's outcome (``Batches.run``), once the process has committed the batch.

        Raises:
            DecidingProcessGone: it died before it answered (the batch may or may not be
                committed: deciding it again gives the same decisions).
            UnsendableWork: the batch does not pickle; nothing was sent.
        """
        try:
            self._connection.send(batch)  # pickled whole before a byte is written
        except OSError as error:
            raise DecidingProcessGone(str(error)) from error
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            raise UnsendableWork(str(error)) from error
        outcomes: list[Any] = self._receive()
        return outcomes

    def close(self) -> None:
        """Stop the process once it has synced and closed the index."""
        with contextlib.suppress(OSError):  # gone already
            self._connection.send(None)
        self._process.join(_CLOSE_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
        self._connection.close()

    def _receive(self) -> Any:
        try:
            return self._connection.recv()
        except (EOFError, OSError) as error:
            code = self._process.exitcode
            msg = f"the deciding process is gone (exit code {code})"
            raise DecidingProcessGone(msg) from error
