"""The filter's share of a paused crawl (Scrapy's ``JOBDIR``): what one crawl kept in memory,
carried over to its resumption.

Scrapy keeps a paused crawl's queue and seen requests in ``JOBDIR``, and the filter its decisions
in the index; but the probes' pages not yet handed to the spider, which URLs got their answer,
the last pages dropped as duplicates and the requests a rule pruned live in the crawl's memory.
Lost at a pause, every page a probe fetched is fetched again when the crawl asks for it
(docs/scrapy.md, "Pausing and resuming").
So a crawl closed for any reason but ``finished`` writes them here, and its resumption reads them
back once: the file is removed as it is read, so a crawl killed later resumes without them and
fetches those pages again, losing nothing. A file that cannot be read, or that another version of
the filter wrote, is logged and ignored.
Written with ``pickle``, as Scrapy writes its own disk queues there: ``JOBDIR`` is trusted.
"""

from __future__ import annotations

import logging
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.job import job_dir

from dedup_filter import __version__

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)


def wanted(crawler: Crawler, reason: str) -> bool:
    """Whether a crawl closed for ``reason`` may be resumed: it has a ``JOBDIR`` and did not
    finish."""
    return job_dir(crawler.settings) is not None and reason != "finished"


def save(crawler: Crawler, name: str, state: object) -> None:
    """Keep ``state`` under ``name`` for the crawl's resumption (``wanted`` says whether)."""
    path = _path(crawler, name)
    if path is None:
        return
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(pickle.dumps((__version__, state), protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(partial, path)  # a crawl killed while writing leaves no half file behind
    except (OSError, pickle.PicklingError, TypeError, AttributeError) as error:
        partial.unlink(missing_ok=True)
        logger.warning("dedup: could not keep %s for the crawl's resumption: %r", path, error)


def take(crawler: Crawler, name: str) -> Any | None:
    """What the paused crawl kept under ``name``, once (the file is removed); ``None`` when it
    kept nothing or the file cannot be read."""
    path = _path(crawler, name)
    if path is None or not path.exists():
        return None
    try:
        written_by, state = pickle.loads(path.read_bytes())
    except Exception as error:  # a damaged file costs fetches, never the crawl
        logger.warning("dedup: ignoring %s, which cannot be read: %r", path, error)
        return None
    finally:
        path.unlink(missing_ok=True)
    if written_by != __version__:  # its classes may have changed since
        logger.warning("dedup: ignoring %s, written by dedup-filter %s", path, written_by)
        return None
    return state


def _path(crawler: Crawler, name: str) -> Path | None:
    directory = job_dir(crawler.settings)
    return None if directory is None else Path(directory, f"dedup-{name}.pickle")
