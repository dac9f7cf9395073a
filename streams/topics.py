"""Topic chores for tests, benchmarks and the demo: create topics, read a topic to its end.

The end of a partition is the high watermark as fetch responses report it: Tansu answers
``ListOffsets(latest)`` with the base offset of the last record batch plus one, not the log end, so
``KafkaConsumer.end_offsets`` undercounts there (docs/kafka.md).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import NewTopic

_FRAME_LIMIT_BYTES = 64 << 20


def create_topics(bootstrap_servers: str, partitions_by_topic: dict[str, int]) -> None:
    """Create each topic with its number of partitions (replication factor 1)."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers)
    try:
        admin.create_topics(
            [NewTopic(name, count, 1) for name, count in partitions_by_topic.items()]
        )
    finally:
        admin.close()


def read_to_end(bootstrap_servers: str, topic: str, timeout_s: float = 60.0) -> list[Any]:
    """Every record of every partition of ``topic``, oldest first per partition.

    Raises:
        TimeoutError: the end was not reached within ``timeout_s``.
    """
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap_servers,
        enable_auto_commit=False,
        receive_message_max_bytes=_FRAME_LIMIT_BYTES,
    )
    try:
        partitions = [
            TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or [])
        ]
        consumer.assign(partitions)
        consumer.seek_to_beginning(*partitions)
        records: list[Any] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for batch in consumer.poll(timeout_ms=200).values():
                records.extend(batch)
            if _caught_up(consumer, partitions):
                return records
        msg = f"{topic}: end not reached within {timeout_s} s ({len(records)} records read)"
        raise TimeoutError(msg)
    finally:
        consumer.close()


def _caught_up(consumer: KafkaConsumer, partitions: Iterable[TopicPartition]) -> bool:
    for tp in partitions:
        highwater = consumer.highwater(tp)
        if highwater is None or consumer.position(tp) < highwater:
            return False
    return True
