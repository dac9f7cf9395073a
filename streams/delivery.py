"""Getting one batch's output records acknowledged by the broker, however long the broker is away.

Memory stays bounded because only the records of the current batch are ever held (and resent):
kafka-python 2.x has no cap of its own on the producer's buffer (it ignores ``buffer_memory``).
Records already acknowledged are not resent, but a record whose acknowledgement was lost may be:
outputs are at-least-once.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from threading import Event
from typing import Any

from kafka.errors import KafkaError

from .messages import OutputRecord
from .metrics import StreamMetrics

logger = logging.getLogger(__name__)


class DeliveryError(Exception):
    """The broker refused a record for a reason that retrying cannot fix (size, authorisation)."""


class Backoff:
    """Delays that double from ``initial_s`` up to ``max_s``."""

    def __init__(self, initial_s: float, max_s: float) -> None:
        self._next_s = initial_s
        self._max_s = max_s

    def next(self) -> float:
        delay = self._next_s
        self._next_s = min(self._next_s * 2, self._max_s)
        return delay


def deliver(
    producer: Any,
    records: Sequence[OutputRecord],
    *,
    flush_timeout_s: float,
    backoff: Backoff,
    stop: Event,
    metrics: StreamMetrics,
) -> bool:
    """Send, flush and ``.get()`` every record, resending the ones that failed retriably.

    Returns:
        True once every record is acknowledged; False when ``stop`` was set first.

    Raises:
        DeliveryError: a record failed with a non-retriable error.
    """
    pending = list(records)
    while pending:
        pending = _send_once(producer, pending, flush_timeout_s, metrics)
        if not pending:
            break
        delay = backoff.next()
        logger.warning(
            "%d output records not acknowledged; resending in %.1f s", len(pending), delay
        )
        metrics.event("delivery_retry")
        if stop.wait(delay):
            return False
    return True


def _send_once(
    producer: Any, records: list[OutputRecord], flush_timeout_s: float, metrics: StreamMetrics
) -> list[OutputRecord]:
    """One attempt: the records that were not acknowledged, for a retry."""
    failed: list[OutputRecord] = []
    futures = []
    for record in records:
        try:
            futures.append(
                (
                    record,
                    producer.send(
                        record.topic,
                        value=record.value,
                        key=record.key,
                        headers=record.headers or None,
                    ),
                )
            )
        except KafkaError as error:  # e.g. no metadata within max_block_ms while the broker is away
            failed.append(_retriable(record, error))
    deadline = time.monotonic() + flush_timeout_s
    try:
        producer.flush(timeout=flush_timeout_s)
    except KafkaError as error:
        logger.warning("flush did not complete within %.1f s: %s", flush_timeout_s, error)
    acknowledged: Counter[str] = Counter()
    for record, future in futures:
        try:
            future.get(timeout=max(deadline - time.monotonic(), 0.0))
        except KafkaError as error:
            failed.append(_retriable(record, error))
        else:
            acknowledged[record.topic] += 1
    for topic, count in acknowledged.items():
        metrics.produced(topic, count)
    return failed


def _retriable(record: OutputRecord, error: KafkaError) -> OutputRecord:
    if getattr(error, "retriable", False):
        return record
    msg = f"the broker refused a record for {record.topic!r} ({len(record.value)} bytes): {error!r}"
    raise DeliveryError(msg) from error
