"""``DedupIgnoreRequest``: how a dropped URL or page reaches a request's errback.

It is an ``IgnoreRequest``, so every existing handler of ignored requests still applies, and it
carries the ``Decision``: an errback tells a drop by the filter from any other ignore, and reads
why (``reason``) and of what (``duplicate_of``)::

    def errback(self, failure):
        if failure.check(DedupIgnoreRequest):
            decision = failure.value.decision
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.exceptions import IgnoreRequest

if TYPE_CHECKING:
    from dedup_filter import Decision


class DedupIgnoreRequest(IgnoreRequest):
    """A request dropped by the filter; ``decision`` says why."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        super().__init__(
            f"dedup: {decision.url} dropped ({decision.reason} of {decision.duplicate_of})"
        )
