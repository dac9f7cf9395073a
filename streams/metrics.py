"""What the processor counts: Prometheus metrics on an optional port, and a periodic log line.

The registry is the processor's own (never the global one), so several processors in one test
process, or in one program, never collide.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter as Tally
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from dedup_filter import Decision
from dedup_filter.decision import Reason

logger = logging.getLogger(__name__)
URL_RULE_EVENTS = ("url_rules_confirmed", "url_rules_killed")


class StreamMetrics:
    """Counters and consumer lag of one processor; ``totals`` repeats them for the log."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = CollectorRegistry()
        self.totals: Tally[str] = Tally()
        self._clock = clock
        self._server: Any = None
        self._last_log = clock()
        self._logged_totals: Tally[str] = Tally()
        self._records = Counter(
            "dedup_stream_records", "Input records consumed", ["topic"], registry=self.registry
        )
        self._pages = Counter(
            "dedup_stream_pages", "Pages decided", ["action", "reason"], registry=self.registry
        )
        self._urls = Counter(
            "dedup_stream_urls",
            "Frontier URLs decided",
            ["action", "reason"],
            registry=self.registry,
        )
        self._url_children: dict[tuple[str, str], Counter] = {}  # labels() costs ~4 µs a call
        self._dead_letters = Counter(
            "dedup_stream_dead_letters",
            "Input records that could not be parsed",
            ["topic"],
            registry=self.registry,
        )
        self._produced = Counter(
            "dedup_stream_produced",
            "Output records acknowledged by the broker",
            ["topic"],
            registry=self.registry,
        )
        self._events = Counter(
            "dedup_stream_events",
            "Commits, commit failures and delivery retries",
            ["event"],
            registry=self.registry,
        )
        self._lag = Gauge(
            "dedup_stream_consumer_lag",
            "Records behind the partition's high watermark",
            ["topic", "partition"],
            registry=self.registry,
        )
        self._stage_seconds = Counter(
            "dedup_stream_stage_seconds",
            "Time spent in each stage of the batch loop",
            ["stage"],
            registry=self.registry,
        )
        self.stage_seconds: dict[str, float] = {}
        # the CPU the calling thread spent in each stage: the loop's own cost, whatever else runs
        self.stage_cpu_seconds: dict[str, float] = {}
        self._batch_seconds = Histogram(
            "dedup_stream_batch_seconds",
            "Time from poll to offset commit, per batch",
            registry=self.registry,
        )

    def serve(self, port: int, address: str) -> None:
        """Expose ``/metrics`` over HTTP on ``address:port`` (a daemon thread)."""
        self._server, _ = start_http_server(port, addr=address, registry=self.registry)
        logger.info("Prometheus metrics on http://%s:%d/metrics", address, port)

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def consumed(self, topic: str, count: int) -> None:
        self._records.labels(topic).inc(count)
        self.totals["records"] += count

    def page_decided(self, decision: Decision) -> None:
        self._pages.labels(decision.action, decision.reason).inc()
        self.totals[f"pages_{decision.action}"] += 1
        for event in URL_RULE_EVENTS:  # URL rules the page confirmed or killed
            for _ in decision.evidence.get(event, ()):
                self.event(event)

    def url_decided(self, decision: Decision) -> None:
        labels = (decision.action, decision.reason)
        child = self._url_children.get(labels)
        if child is None:
            child = self._url_children[labels] = self._urls.labels(*labels)
        child.inc()
        self.totals[f"urls_{decision.action}"] += 1
        for _ in decision.evidence.get("url_rules_confirmed", ()):  # by an alias that waited
            self.event("url_rules_confirmed")
        if decision.alias_waits:
            self.event("url_alias_deferred")
        if decision.reason == Reason.STAND_IN:
            self.event("stand_ins")

    def dead_letter(self, topic: str) -> None:
        self._dead_letters.labels(topic).inc()
        self.totals["dead_letters"] += 1

    def produced(self, topic: str, count: int) -> None:
        self._produced.labels(topic).inc(count)
        self.totals["produced"] += count

    def event(self, name: str) -> None:
        """``commit``, ``commit_failed``, ``delivery_retry``, ``commit_retry``,
        ``url_rules_confirmed``, ``url_rules_killed``, ``url_alias_deferred`` (an alias waits
        for its canonical URL or for its rule), ``stand_ins`` (pages fetched in place of a
        failed fetch on a mirror rule's kept side)."""
        self._events.labels(name).inc()
        self.totals[name] += 1

    @contextlib.contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the time the block takes to ``stage``: ``messages`` (parse inputs, encode outputs),
        ``prepare`` (fingerprints, here or in the workers), ``index`` (LMDB transactions),
        ``deliver`` (send, flush, acknowledgements), ``commit`` (offsets); and the CPU the thread
        spent meanwhile to ``stage_cpu_seconds``."""
        started, cpu_started = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            seconds = time.perf_counter() - started
            self._stage_seconds.labels(stage).inc(seconds)
            self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + seconds
            cpu_seconds = time.thread_time() - cpu_started
            self.stage_cpu_seconds[stage] = self.stage_cpu_seconds.get(stage, 0.0) + cpu_seconds

    def batch_done(self, seconds: float) -> None:
        self._batch_seconds.observe(seconds)
        self.totals["batches"] += 1

    def set_lag(self, topic: str, partition: int, lag: int) -> None:
        self._lag.labels(topic, str(partition)).set(lag)
        self.totals[f"lag:{topic}/{partition}"] = lag

    def forget_lag(self, topic: str, partition: int) -> None:
        """The partition went to another group member: its lag is that member's to report."""
        with contextlib.suppress(KeyError):  # never measured here
            self._lag.remove(topic, str(partition))
        self.totals.pop(f"lag:{topic}/{partition}", None)

    @property
    def lag(self) -> int:
        return sum(count for name, count in self.totals.items() if name.startswith("lag:"))

    def maybe_log(self, interval_s: float, *, force: bool = False) -> None:
        """Log a summary line if ``interval_s`` has passed since the last one (or when forced)."""
        now = self._clock()
        elapsed = max(now - self._last_log, 1e-9)
        if elapsed < interval_s and not force:
            return
        recent = self.totals - self._logged_totals
        logger.info(
            "stream: %d records in %.0f s (%.1f/s): pages %d kept, %d dropped; "
            "urls %d kept, %d dropped;"
            " %d dead letters; %d commits; lag %d",
            recent["records"],
            elapsed,
            recent["records"] / elapsed,
            recent["pages_keep"],
            recent["pages_drop"],
            recent["urls_keep"],
            recent["urls_drop"],
            recent["dead_letters"],
            recent["commit"],
            self.lag,
        )
        self._last_log = now
        self._logged_totals = self.totals.copy()
