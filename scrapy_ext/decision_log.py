"""The audit trail (``DEDUP_DECISION_LOG``): one JSON line per checked URL or page, stamped with
the time the crawl acted on it.

A line is ``Decision.to_json()`` with a leading ``"time"`` key (ISO 8601, UTC, milliseconds),
written once the decision is committed to the index. The file is opened for appending and written
a whole line at a time, so several crawls may share one log and a crash loses at most the line
being written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dedup_filter import Decision


class DecisionLog:
    """Appends decisions as time-stamped JSON lines."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a", encoding="utf-8", buffering=1)

    def write(self, decision: Decision) -> None:
        time = json.dumps(datetime.now(tz=UTC).isoformat(timespec="milliseconds"))
        # the decision's own line, a key put in front: no second round of JSON encoding
        self._file.write(f'{{"time":{time},{decision.to_json()[1:]}\n')

    def close(self) -> None:
        self._file.close()
