"""One bad input never stops a batch: a failure is pinned on the input that causes it.

Work on a batch that raises is done again input by input, so the inputs that fail become a
``Failed`` value each (the processor turns them into dead letters) and the others are decided as
before. Only the failures the caller names fatal (the index, the broker, the worker pool) stop the
batch: they are not about one input, and retrying input by input would only repeat them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

logger = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")
Fatal = tuple[type[BaseException], ...]

_SHOWN_CHARS = 300  # of an exception's message


@dataclass(frozen=True, slots=True)
class Failed:
    """Why one input could not be handled: the exception's type and message."""

    error: str

    @classmethod
    def of(cls, error: BaseException) -> Failed:
        logger.debug("input failed", exc_info=error)
        text = f"cannot handle it: {type(error).__name__}: {str(error)[:_SHOWN_CHARS]}"
        return cls(text.encode("utf-8", "backslashreplace").decode("utf-8"))  # logged, sent on


def guarded(work: Callable[[], R], fatal: Fatal = ()) -> R | Failed:
    """``work()``, or what it failed with (a ``fatal`` exception propagates)."""
    try:
        return work()
    except fatal:
        raise
    except Exception as error:
        return Failed.of(error)


def isolated(
    items: Sequence[T], work: Callable[[Sequence[T]], Sequence[R]], fatal: Fatal = ()
) -> list[R | Failed]:
    """``work(items)``, one result per item in order; if it raises, ``work`` on each item alone.

    ``work`` must leave nothing behind when it raises (a write transaction that aborts does not).
    """
    try:
        return list(work(items))
    except fatal:
        raise
    except Exception as error:
        if len(items) == 1:
            return [Failed.of(error)]
    return [result for item in items for result in isolated([item], work, fatal)]
