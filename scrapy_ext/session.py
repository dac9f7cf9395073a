"""One crawler's use of the shared index: its lifecycle, its stats and its decision log.

The dupefilter and the downloader middleware of a crawler get the same session from
``DedupSession.of(crawler)``, so they share one ``DedupFilter`` (see ``registry``). The index is
opened on ``spider_opened`` and released on ``spider_closed``. A store failure is logged once,
counted as ``dedup/index_error`` and answered with ``None``: the crawl goes on unfiltered (fail
open) rather than losing pages.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, TypeVar
from weakref import WeakKeyDictionary

from scrapy import signals
from scrapy.exceptions import CloseSpider

from dedup_filter import DedupError

from . import registry
from .decision_log import DecisionLog
from .settings import DedupSettings, is_enabled, read_settings

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from scrapy.crawler import Crawler

    from dedup_filter import Decision, DedupFilter

logger = logging.getLogger(__name__)
T = TypeVar("T")

_SUMMARY_COUNTS = (
    "pages_checked",
    "urls_checked",
    "mirror_rules",
    "probes",
    "bytes_not_parsed",
    "index_error",
)

_sessions: WeakKeyDictionary[Crawler, DedupSession] = WeakKeyDictionary()


class DedupSession:
    """The link between one crawler and the shared ``DedupFilter``."""

    def __init__(self, crawler: Crawler, settings: DedupSettings) -> None:
        self.settings = settings
        self.stats = crawler.stats
        self.dedup: DedupFilter | None = None
        self._decision_log: DecisionLog | None = None
        self._error_logged = False
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def of(cls, crawler: Crawler) -> DedupSession | None:
        """The crawler's session, created on first use; ``None`` when ``DEDUP_ENABLED`` is off.

        Raises:
            ConfigError: a ``DEDUP_*`` setting or a configuration key is invalid.
        """
        if not is_enabled(crawler.settings):
            return None
        session = _sessions.get(crawler)
        if session is None:
            session = _sessions[crawler] = cls(crawler, read_settings(crawler.settings))
        return session

    def spider_opened(self) -> None:
        try:
            self.dedup = registry.acquire(self.settings.index_path, self.settings.config)
        except DedupError as error:  # unreadable, other parameters, or a clash in this process
            self._index_error(error)
            reason = "dedup_index_error"
            raise CloseSpider(reason) from error
        if self.settings.decision_log is not None:
            self._decision_log = DecisionLog(self.settings.decision_log)
        logger.info("dedup: index %s opened", self.settings.index_path)

    def spider_closed(self) -> None:
        logger.info("dedup: %s", self.summary())
        if self._decision_log is not None:
            self._decision_log.close()
            self._decision_log = None
        if self.dedup is not None:
            dedup, self.dedup = self.dedup, None
            try:
                registry.release(dedup)
            except DedupError as error:
                self._index_error(error)

    def check_url(self, url: str) -> Decision | None:
        """The mirror-rule verdict on a URL, or ``None`` when the index is unavailable."""
        decision = self._guarded(lambda dedup: dedup.check_url(url))
        if decision is not None:
            self.stats.inc_value("dedup/urls_checked")
            self._record(decision)
        return decision

    def check_page(self, url: str, body: bytes, headers: Mapping[str, Any]) -> Decision | None:
        """The verdict on a fetched page, or ``None`` when the index is unavailable."""
        decision = self._guarded(lambda dedup: dedup.check_page(url, body, headers))
        if decision is not None:
            self.stats.inc_value("dedup/pages_checked")
            if not decision.dropped:
                self.stats.inc_value(f"dedup/kept/{decision.reason}")
            self._record(decision)
        return decision

    def probe_failed(self, url: str, status: int | None) -> Decision | None:
        """Tell the mirror detector a probe could not be checked (an error, a 404, a redirect,
        not HTML); its decision may ask for replacement probes."""
        self.stats.inc_value("dedup/probes_failed")
        decision = self._guarded(lambda dedup: dedup.probe_failed(url, status))
        if decision is not None:
            self._record(decision)
        return decision

    def pending_probes(self) -> list[str]:
        """Probes asked for earlier (maybe by a crawl that stopped) and never answered."""
        return self._guarded(lambda dedup: dedup.pending_probes()) or []

    def summary(self) -> str:
        stats = self.stats.get_stats()
        dropped = {
            key.removeprefix("dedup/dropped/"): value
            for key, value in stats.items()
            if key.startswith("dedup/dropped/")
        }
        counts = {key: stats.get(f"dedup/{key}", 0) for key in _SUMMARY_COUNTS}
        return (
            f"{counts['pages_checked']} pages and {counts['urls_checked']} URLs checked,"
            f" dropped {sum(dropped.values())} {dict(sorted(dropped.items()))},"
            f" {counts['mirror_rules']} mirror rules, {counts['probes']} probes,"
            f" {counts['bytes_not_parsed']} bytes not parsed, {counts['index_error']} index errors"
        )

    def _record(self, decision: Decision) -> None:
        confirmed = len(decision.evidence.get("mirrors_confirmed", ()))
        if confirmed:
            self.stats.inc_value("dedup/mirror_rules", confirmed)
        for event in ("url_rules_confirmed", "url_rules_killed"):
            if count := len(decision.evidence.get(event, ())):
                self.stats.inc_value(f"dedup/{event}", count)
        if decision.dropped:
            self.stats.inc_value(f"dedup/dropped/{decision.reason}")
        if self._decision_log is not None:
            self._decision_log.write(decision)

    def _guarded(self, work: Callable[[DedupFilter], T]) -> T | None:
        if self.dedup is None:
            return None
        try:
            return work(self.dedup)
        except DedupError as error:
            self._index_error(error)
            return None

    def _index_error(self, error: Exception) -> None:
        self.stats.inc_value("dedup/index_error")
        if not self._error_logged:
            logger.error("dedup: index failure, passing pages through unfiltered: %s", error)
            self._error_logged = True
        else:
            logger.debug("dedup: index failure: %s", error)
