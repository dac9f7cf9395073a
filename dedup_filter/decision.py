"""What the filter says about a URL or a page, and why."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["keep", "drop"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One verdict: ``action`` with its ``reason``, the URL it duplicates and the evidence.

    ``probes`` lists URLs the mirror detector wants fetched and fed back through ``check_page``.
    """

    url: str
    action: Action
    reason: str
    duplicate_of: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    probes: tuple[str, ...] = ()

    @property
    def dropped(self) -> bool:
        return self.action == "drop"

    def to_dict(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "action": self.action,
            "reason": self.reason,
            "duplicate_of": self.duplicate_of,
            "evidence": self.evidence,
            "probes": list(self.probes),
        }

    def to_json(self) -> str:
        """One line of JSON (the decision-log format shared by every integration).

        Lone surrogates (from malformed URLs) become ``\\uXXXX`` escapes, so the line always encodes
        as UTF-8 and still decodes to the same values.
        """
        line = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return line.encode("utf-8", "backslashreplace").decode("utf-8")
