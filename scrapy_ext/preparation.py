"""Pages prepared in processes of their own, beside the deciding process that decides them
(``DEDUP_PREPARE_PROCESSES`` >= 2: ``deciding``), or in the thread that decides them.

Preparing a page (decode, parse, terms, hashes) is most of its cost and needs no index, so it can
leave the process that decides. Each preparing process holds one ``PagePreparer``, built once from
the filter's configuration and warmed up when the process starts. Nothing here imports Scrapy (the
package's ``__init__`` loads its components lazily), so a preparing process starts in a fraction of
a second, and is ready about half a second later (``PagePreparer.warm_up``). Pages wait for it
rather than being prepared by the decider meanwhile: that would load the compiled kernels there
too, for a page or two.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any

from dedup_filter.prepare import PagePreparer

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from dedup_filter import Config
    from dedup_filter.prepare import PreparedPage

logger = logging.getLogger(__name__)

_preparer: PagePreparer | None = None  # in a preparing process: its one preparer


def _start(config: Config) -> None:
    global _preparer  # one per process, built once: the point of the pool
    end_with_parent()
    _preparer = PagePreparer(config)
    _preparer.warm_up()


def end_with_parent() -> None:
    """In a process the crawl's process started: end it when the crawl's process is gone (killed:
    a pool's worker holds both ends of its task queue, so it would wait for work forever)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent.sentinel,), daemon=True).start()


def _exit_with(parent_sentinel: int) -> None:
    wait([parent_sentinel])
    os._exit(0)


def _started() -> bool:
    return _preparer is not None


def _prepare(url: str, body: bytes, headers: Mapping[str, Any]) -> PreparedPage:
    if _preparer is None:
        msg = "the preparing process was not started with a configuration"
        raise RuntimeError(msg)
    return _preparer.prepare(url, body, headers)


class Preparation:
    """Prepares pages in ``processes`` processes, or in the calling thread when there are none or
    once they died (the crawl goes on, the filter slower)."""

    def __init__(self, preparer: PagePreparer, processes: int) -> None:
        self._preparer = preparer
        self._pool: ProcessPoolExecutor | None = None
        self._ready: Future[bool] | None = None
        if processes:
            # spawn, not fork: the crawl's process runs threads and a reactor
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                processes, context, initializer=_start, initargs=(preparer.config,)
            )
            # started now, while Scrapy starts; done once the processes are warm
            self._ready = self._pool.submit(_started)

    def in_processes(self) -> bool:
        """Whether pages now go to the preparing processes (started, and not dead)."""
        return self._pool is not None and self._ready is not None and self._ready.done()

    def warm_up(self) -> None:
        """Returns once the first page would be prepared at full speed: the processes started
        and warm, or, without processes, this process's kernels loaded."""
        if self._pool is not None and self._ready is not None:
            try:
                self._ready.result()
                return
            except BrokenProcessPool as error:
                self._died(error)
        self._preparer.warm_up()

    def prepare(
        self, pages: Sequence[tuple[str, bytes, Mapping[str, Any]]]
    ) -> list[PreparedPage | Exception]:
        """Each page prepared, or the exception preparing it raised (one page's failure is
        that page's alone)."""
        if self._pool is not None:
            try:
                futures = [self._pool.submit(_prepare, *page) for page in pages]
                return [_outcome(future) for future in futures]
            except BrokenProcessPool as error:
                self._died(error)
        return [self._prepare_here(*page) for page in pages]

    def _died(self, error: BrokenProcessPool) -> None:
        logger.error(
            "dedup: the preparing process died (%s); pages are prepared in the crawl's"
            " process from now on",
            error,
        )
        self._pool = None

    def _prepare_here(
        self, url: str, body: bytes, headers: Mapping[str, Any]
    ) -> PreparedPage | Exception:
        try:
            return self._preparer.prepare(url, body, headers)
        except Exception as error:  # that page's outcome, as from a preparing process
            return error

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def _outcome(future: Future[PreparedPage]) -> PreparedPage | Exception:
    error = future.exception()
    if error is None:
        return future.result()
    if isinstance(error, BrokenProcessPool) or not isinstance(error, Exception):
        raise error
    return error
