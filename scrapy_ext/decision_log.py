"""The audit trail (``DEDUP_DECISION_LOG``): a ``Decision.to_json()`` line per checked URL or page.

The file is opened for appending and written a whole line at a time, so several crawls may share
one log and a crash loses at most the line being written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dedup_filter import Decision


class DecisionLog:
    """Appends decisions as JSON lines."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8", buffering=1)

    def write(self, decision: Decision) -> None:
        self._file.write(decision.to_json() + "\n")

    def close(self) -> None:
        self._file.close()
