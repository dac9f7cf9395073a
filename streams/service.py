"""One processor's life: open the index, reach the broker, join the group, run, close everything.

Library code: no signal handlers and no exit codes here (``__main__`` owns both).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from threading import Event
from typing import Any

from kafka.errors import KafkaError

from dedup_filter import Config, DedupFilter

from . import kafka_io
from .config import StreamConfig
from .delivery import Backoff
from .kafka_options import client_options
from .metrics import StreamMetrics
from .processor import Processor
from .workers import PreparationPool

logger = logging.getLogger(__name__)


def serve(
    stream_config: StreamConfig, config: Config, stop: Event, metrics: StreamMetrics | None = None
) -> None:
    """Run a processor until ``stop`` is set. Waits (with back-off) for an unreachable broker,
    up to ``connect_timeout_s`` at start-up and for ever once it has been reached.

    Raises:
        ConfigError: a ``[stream.kafka]`` setting kafka-python would not take.
        BrokerUnreachableError: no broker answered at start-up within ``connect_timeout_s``.
        DedupError: the index cannot be opened or written.
        WorkerPoolError: a worker process did not start, died or hung.
        DeliveryError, KafkaError: the broker refused something for good.
    """
    metrics = metrics or StreamMetrics()
    client_options(stream_config)  # a bad [stream.kafka] setting fails before anything starts
    with contextlib.ExitStack() as stack:
        dedup = stack.enter_context(DedupFilter.open(stream_config.index_dir, config))
        pool = _pool(stream_config, config)
        if pool is not None:
            stack.callback(pool.close)
        if stream_config.metrics_port:
            metrics.serve(stream_config.metrics_port, stream_config.metrics_address)
            stack.callback(metrics.close)
        clients = _connect(stream_config, stop)
        if clients is None:
            logger.info("stopped before the broker was reached")
            return
        consumer, producer = clients
        stack.callback(producer.close)
        stack.callback(consumer.close, autocommit=False)  # closed first: we commit ourselves
        processor = Processor(consumer, producer, dedup, stream_config, metrics, pool)
        kafka_io.subscribe(
            consumer,
            stream_config.input_topics,
            processor.on_partitions_revoked,
            processor.on_partitions_assigned,
        )
        logger.info(
            "processing %s as group %r on %s; index %s",
            ", ".join(stream_config.input_topics),
            stream_config.group_id,
            ",".join(stream_config.bootstrap_servers),
            stream_config.index_dir,
        )
        try:
            processor.reissue_pending_probes(stop)
            processor.run(stop)
        finally:
            metrics.maybe_log(stream_config.log_interval_s, force=True)
            logger.info("stopping after %d records in total", metrics.totals["records"])


def _pool(stream_config: StreamConfig, config: Config) -> PreparationPool | None:
    """Worker processes that prepare pages, for ``workers > 1`` (None: this process does)."""
    if stream_config.workers == 1:
        return None
    pool = PreparationPool(config, stream_config.workers, stream_config.worker_timeout_s)
    logger.info("preparing pages in %d worker processes", stream_config.workers)
    return pool


class BrokerUnreachableError(Exception):
    """No broker answered within ``stream.connect_timeout_s`` of start-up."""


def _connect(stream_config: StreamConfig, stop: Event) -> tuple[Any, Any] | None:
    """Consumer and producer, once the broker answers; None if ``stop`` is set first.

    While it waits, kafka-python's own log lines (two a connection attempt) are held back: one
    warning says that the broker is being waited for, and the error, if it comes, says why.

    Raises:
        BrokerUnreachableError: still unreachable after ``connect_timeout_s`` (0: wait forever).
    """
    servers = ",".join(stream_config.bootstrap_servers)
    timeout_s = stream_config.connect_timeout_s
    deadline = time.monotonic() + timeout_s if timeout_s else float("inf")
    backoff = Backoff(stream_config.retry_backoff_s, stream_config.max_retry_backoff_s)
    warned = False
    with _kafka_logs_held() as last_kafka_log:
        while not stop.is_set():
            try:
                return _clients(stream_config)
            except KafkaError as error:
                if not error.retriable:
                    raise
                problem = last_kafka_log.message or f"no answer ({type(error).__name__})"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                msg = (
                    f"broker {servers} unreachable for {timeout_s:g} s "
                    f"(stream.connect_timeout_s); last error: {problem}"
                )
                raise BrokerUnreachableError(msg)
            if not warned:
                warned = True
                logger.warning(
                    "broker %s unreachable (%s); retrying %s",
                    servers,
                    problem,
                    f"for up to {timeout_s:g} s" if timeout_s else "until it answers",
                )
            stop.wait(min(backoff.next(), remaining))
    return None


def _clients(stream_config: StreamConfig) -> tuple[Any, Any]:
    consumer = kafka_io.make_consumer(stream_config)
    try:
        return consumer, kafka_io.make_producer(stream_config)
    except BaseException:
        consumer.close(autocommit=False)
        raise


class _LastMessage(logging.Handler):
    """The last error kafka-python logged (a connection refused, an SSL or SASL failure), else
    its last warning."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._last: dict[bool, str] = {}

    @property
    def message(self) -> str:
        """Without the connection's description (``<BrokerConnection ...>: ``): the line names
        the brokers already."""
        return (self._last.get(True) or self._last.get(False, "")).rpartition(">: ")[2]

    def emit(self, record: logging.LogRecord) -> None:
        self._last[record.levelno >= logging.ERROR] = record.getMessage()


@contextlib.contextmanager
def _kafka_logs_held() -> Iterator[_LastMessage]:
    kafka_logger = logging.getLogger("kafka")
    last = _LastMessage()
    propagate = kafka_logger.propagate
    kafka_logger.addHandler(last)
    kafka_logger.propagate = False
    try:
        yield last
    finally:
        kafka_logger.propagate = propagate
        kafka_logger.removeHandler(last)
