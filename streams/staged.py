"""A batch staged: polled, parsed, and its pages' preparation under way in the worker processes
while the processor decides, delivers and commits the batch before it (``Processor.advance``).

With workers the loop's own work (poll, parse, index transaction, delivery, commit) would
otherwise add to the workers' preparation instead of overlapping it, and N workers could not be
N times one. Decisions are still taken one batch after the other, in order: only the preparation,
which needs no index, runs ahead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from dedup_filter.isolation import Failed
from dedup_filter.prepare import PreparedPage

from .messages import OutputRecord, PageMessage

T = TypeVar("T")
Batch = Mapping[Any, Sequence[Any]]  # kafka-python ConsumerRecords by partition


class InBackground(Generic[T]):
    """``work()`` running in a thread of its own; ``result()`` waits for it (and re-raises)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._result: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(work,), name="dedup-prepare-ahead", daemon=True
        )
        self._thread.start()

    def _run(self, work: Callable[[], T]) -> None:
        try:
            self._result = work()
        except BaseException as error:  # handed to the caller of result()
            self._error = error

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]


@dataclass
class Staged:
    """A polled batch, parsed; what is left to do is deciding, delivering and committing it."""

    batch: Batch
    started: float  # monotonic seconds when it was polled
    pages: list[tuple[Any, PageMessage]]  # fetched pages, to check
    failed_fetches: list[tuple[Any, PageMessage]]  # non-2xx answers: not checked
    urls: list[tuple[Any, str]]
    dead_letters: list[OutputRecord]
    prepared: InBackground[list[PreparedPage | Failed]] | None = None  # with workers
