"""Answers read from the rule tables, reused until a write changes them.

A crawl checks hundreds of URLs a second, and each check reads the same few rows: the mirror rules
over its directories, the URL rules of its host. Those tables change seldom (a rule confirmed or
revoked, a URL rule's support), the rest of the index with every batch of pages: an answer kept
for one committed state of the whole index would last a few checks (measured: no faster with a
commit every 4 checks, ``bench/url_checks.py``). So a write transaction that changes a table of
``RULE_TABLES`` stamps a new number in ``meta`` (``IndexView.put`` and ``delete`` do, once a
transaction), committed with the change: a reader in any process that shares the environment sees
the stamp of the rules it reads, and an answer filed under that stamp is right for every reader of
the same stamp. A write transaction keeps answers of its own, forgotten at each change it makes to
those tables (``IndexView.put`` and ``delete``): a batch of pages reads the rules over their
directories again and again, and changes them seldom.

Invariants: every write to a table of ``RULE_TABLES`` goes through ``IndexView.put`` or
``delete``; an answer depends on those tables (and the index's configuration) only; a memoised
value is immutable (a tuple, a frozen record), since every reader of the stamp shares it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

RULE_TABLES = frozenset({"rules", "url_rules"})
RULES_STAMP = b"rules_stamp"  # the key in ``meta``: a number, one more at each change
# answers kept for one stamp; a crawl of 10^5 hosts between two rule changes starts afresh past it
MAX_ANSWERS = 8192


class RulesMemo:
    """The answers filed under one stamp of the rule tables, keyed by what they answer."""

    def __init__(self) -> None:
        # (stamp, answers) swapped as one value, so a reader of an older stamp that finishes
        # after a newer one began files its answers where no newer reader looks
        self._current: tuple[int, dict[Hashable, Any]] = (-1, {})

    def answers(self, stamp: int) -> dict[Hashable, Any]:
        """The answers filed under ``stamp`` (forgetting any other stamp's)."""
        current = self._current
        if current[0] != stamp or len(current[1]) >= MAX_ANSWERS:
            current = (stamp, {})
            self._current = current
        return current[1]


def memoised(answers: dict[Hashable, Any], key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it gave for ``key`` under the same state of the rule tables
    (``answers``: a stamp's, or a write transaction's own)."""
    try:
        found: T = answers[key]
    except KeyError:
        if len(answers) >= MAX_ANSWERS:
            answers.clear()
        found = answers[key] = compute()
    return found
