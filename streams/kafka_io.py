"""The only place that builds kafka-python clients, so their settings are decided once.

The ``[stream.kafka]`` settings (``kafka_options``) are applied last: they override these.
Offsets are committed by the processor alone (``enable_auto_commit=False``); the producer waits
for every in-sync replica (``acks="all"``). Verified against kafka-python 2.3.3 on Apache Kafka's
protocol as served by the embedded Tansu broker; its quirks are handled here and listed in
docs/kafka.md (no idempotent producer: ``InitProducerId`` fails with UnknownError).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, KafkaProducer
from kafka.structs import TopicPartition

from .config import StreamConfig
from .kafka_options import client_options

logger = logging.getLogger(__name__)

PartitionsCallback = Callable[[Iterable[TopicPartition]], None]
# room for the key, the headers and the record framing around a value of max_message_bytes
_RECORD_OVERHEAD_BYTES = 64 * 1024
_FETCH_MAX_BYTES = 52_428_800  # kafka-python's default fetch_max_bytes
_LINGER_MS = 5


def make_consumer(config: StreamConfig) -> KafkaConsumer:
    """A group consumer that never commits by itself (``NoBrokersAvailable`` if unreachable)."""
    settings: dict[str, Any] = dict(
        bootstrap_servers=list(config.bootstrap_servers),
        client_id=config.client_id,
        group_id=config.group_id,
        enable_auto_commit=False,
        auto_offset_reset=config.auto_offset_reset,
        max_poll_records=config.max_poll_records,
        session_timeout_ms=config.session_timeout_ms,
        heartbeat_interval_ms=max(config.session_timeout_ms // 3, 100),
        request_timeout_ms=max(config.session_timeout_ms + 5000, 30_000),
        max_partition_fetch_bytes=config.max_message_bytes + _RECORD_OVERHEAD_BYTES,
        # kafka-python's default frame limit (1 MB) is below its own default fetch size (50 MB): a
        # fetch of a few large records would fail on every poll and stall the partition
        receive_message_max_bytes=_FETCH_MAX_BYTES + _RECORD_OVERHEAD_BYTES,
    )
    return KafkaConsumer(**settings | client_options(config)[0])


def make_producer(config: StreamConfig) -> KafkaProducer:
    """A producer whose futures fail (rather than block for a minute) when the broker is away."""
    flush_timeout_ms = int(config.flush_timeout_s * 1000)
    settings: dict[str, Any] = dict(
        bootstrap_servers=list(config.bootstrap_servers),
        client_id=config.client_id,
        acks="all",
        linger_ms=_LINGER_MS,
        # kept pages are mostly larger than kafka-python's default batch (16 KiB), which made each
        # one a produce request of its own; a batch never exceeds what the topics accept
        batch_size=config.max_message_bytes,
        max_request_size=config.max_message_bytes + _RECORD_OVERHEAD_BYTES,
        max_block_ms=flush_timeout_ms,
        request_timeout_ms=flush_timeout_ms,
        delivery_timeout_ms=flush_timeout_ms + _LINGER_MS,
    )
    return KafkaProducer(**settings | client_options(config)[1])


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    """kafka-python accepts only ``ConsumerRebalanceListener`` subclasses."""

    def __init__(self, on_revoked: PartitionsCallback, on_assigned: PartitionsCallback) -> None:
        self._on_revoked = on_revoked
        self._on_assigned = on_assigned

    def on_partitions_revoked(self, revoked: Any) -> None:
        self._on_revoked(revoked)

    def on_partitions_assigned(self, assigned: Any) -> None:
        self._on_assigned(assigned)


def subscribe(
    consumer: KafkaConsumer,
    topics: Iterable[str],
    on_revoked: PartitionsCallback,
    on_assigned: PartitionsCallback,
) -> None:
    """Join the group for ``topics``; the callbacks run inside ``poll()`` around each rebalance."""
    consumer.subscribe(topics=list(topics), listener=_Listener(on_revoked, on_assigned))
