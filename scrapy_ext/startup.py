"""A filter that cannot start stops the crawl before its first request, said in one line.

Scrapy reports an exception raised while it builds a crawler's components with its whole
traceback through Scrapy's internals (asyncio's "Task exception was never retrieved", Twisted's
"Unhandled error in Deferred"): some 90 lines for a mistake in one setting. ``refuse_to_start``
logs the error once, in one line that says what happens, and raises it so that the crawl fails
(``scrapy crawl`` exits 1 on Scrapy >= 2.19); a filter on those two loggers drops their report of
that same exception, and of nothing else.
"""

from __future__ import annotations

import logging
from typing import NoReturn

logger = logging.getLogger(__name__)

# loggers through which Scrapy's reactors report an exception that ended a crawl's start
_REPORTING_LOGGERS = ("asyncio", "twisted")


class _AlreadyReported(logging.Filter):
    """Drops the tracebacks of exceptions ``refuse_to_start`` has logged already."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else None
        if raised is not None:
            return all(raised is not error for error in self.errors)
        text = record.getMessage()  # Twisted formats the failure into the message
        return not any(f"{type(error).__name__}: {error}" in text for error in self.errors)


_reported = _AlreadyReported()


def refuse_to_start(error: Exception) -> NoReturn:
    """Log ``error`` in one line and raise it: the crawl does not start."""
    logger.error("dedup: the crawl does not start: %s", error)
    if not _reported.errors:
        for name in _REPORTING_LOGGERS:
            logging.getLogger(name).addFilter(_reported)
    _reported.errors.append(error)
    raise error
