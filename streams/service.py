"""One processor's life: open the index, reach the broker, join the group, run, close everything.

Library code: no signal handlers and no exit codes here (``__main__`` owns both).
"""

from __future__ import annotations

import contextlib
import logging
from threading import Event
from typing import Any

from kafka.errors import KafkaError

from dedup_filter import Config, DedupFilter

from . import kafka_io
from .config import StreamConfig
from .delivery import Backoff
from .metrics import StreamMetrics
from .processor import Processor
from .workers import PreparationPool

logger = logging.getLogger(__name__)


def serve(
    stream_config: StreamConfig, config: Config, stop: Event, metrics: StreamMetrics | None = None
) -> None:
    """Run a processor until ``stop`` is set. Waits (with back-off) for an unreachable broker.

    Raises:
        DedupError: the index cannot be opened or written.
        WorkerPoolError: a worker process did not start, died or hung.
        DeliveryError, KafkaError: the broker refused something for good.
    """
    metrics = metrics or StreamMetrics()
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


def _connect(stream_config: StreamConfig, stop: Event) -> tuple[Any, Any] | None:
    """Consumer and producer, once the broker answers; None if ``stop`` is set first."""
    backoff = Backoff(stream_config.retry_backoff_s, stream_config.max_retry_backoff_s)
    while not stop.is_set():
        try:
            consumer = kafka_io.make_consumer(stream_config)
        except KafkaError as error:
            if not error.retriable:
                raise
        else:
            try:
                return consumer, kafka_io.make_producer(stream_config)
            except KafkaError as error:
                consumer.close(autocommit=False)
                if not error.retriable:
                    raise
        delay = backoff.next()
        logger.warning(
            "broker %s unreachable; retrying in %.1f s",
            ",".join(stream_config.bootstrap_servers),
            delay,
        )
        stop.wait(delay)
    return None
