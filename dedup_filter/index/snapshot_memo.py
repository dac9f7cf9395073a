"""Answers read from one committed state of the index, reused until a write commits.

A crawl checks hundreds of URLs between two commits, and each check reads the same few rows:
the mirror rules over its directories, the URL rules of its host. LMDB numbers every committed
write transaction, and a read transaction reports the number of the state it sees, in any process
that shares the environment, so an answer filed under that number is right for every reader of
the same number. Write transactions are never memoised: they change what they read.

Invariant: a memoised value is immutable (a tuple, a frozen record), since every reader of the
state shares it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

# answers kept for one state; a crawl of 10^5 hosts between two commits starts afresh past it
MAX_ANSWERS = 8192


class SnapshotMemo:
    """The answers of one committed state, keyed by what they answer."""

    def __init__(self) -> None:
        # (state number, answers) swapped as one value, so a reader of an older state that
        # finishes after a newer one began files its answers where no newer reader looks
        self._current: tuple[int, dict[Hashable, Any]] = (-1, {})

    def answers(self, state: int) -> dict[Hashable, Any]:
        """The answers filed for committed state ``state`` (forgetting any older state's)."""
        current = self._current
        if current[0] != state or len(current[1]) >= MAX_ANSWERS:
            current = (state, {})
            self._current = current
        return current[1]


def memoised(answers: dict[Hashable, Any] | None, key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it gave for ``key`` in the same state (``answers``: None in a
    write transaction)."""
    if answers is None:
        return compute()
    try:
        found: T = answers[key]
    except KeyError:
        found = answers[key] = compute()
    return found
