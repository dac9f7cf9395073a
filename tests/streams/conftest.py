"""Recording stand-ins for kafka-python's consumer and producer, and page messages of real text.

The processor takes its clients as arguments, so the loop is tested without patching kafka-python;
the integration tests (tests/integration) run the same code against a real broker.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dedup_filter.streams.config import StreamConfig
from dedup_filter.streams.processor import Processor
from kafka.structs import OffsetAndMetadata, TopicPartition

from dedup_filter import Config, DedupFilter
from tests.mirrors.conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree

PAGES, URLS = "pages-in", "urls-in"
COPY = "http://www.copy.test/pub/notes/"  # a copy of ``tests.mirrors.conftest.ORIGIN``
NEAR_STAMP = "<p>Generated 2024-03-01 12:00:07 in 0.031 s, visitor 48213, session a81f3c</p></body>"


@dataclass(frozen=True)
class Record:
    """The fields of kafka-python's ConsumerRecord that the processor reads."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]] = field(default_factory=list)


class FakeFuture:
    def __init__(self, error: Exception | None) -> None:
        self.error = error

    def get(self, timeout: float | None = None) -> object:
        if self.error is not None:
            raise self.error
        return "metadata"


@dataclass
class FakeProducer:
    """Records every acknowledged send; ``failures`` decides the fate of each send in turn."""

    failures: list[Exception | None] = field(default_factory=list)
    sent: list[tuple[str, bytes | None, bytes, list[tuple[str, bytes]]]] = field(
        default_factory=list
    )
    attempts: int = 0
    flushes: int = 0

    def send(
        self, topic: str, value: bytes, key: bytes | None = None, headers: Any = None
    ) -> FakeFuture:
        self.attempts += 1
        error = self.failures.pop(0) if self.failures else None
        if error is None:
            self.sent.append((topic, key, value, list(headers or [])))
        return FakeFuture(error)

    def flush(self, timeout: float | None = None) -> None:
        self.flushes += 1

    def on(self, topic: str) -> list[tuple[bytes | None, bytes, list[tuple[str, bytes]]]]:
        return [
            (key, value, headers)
            for sent_topic, key, value, headers in self.sent
            if sent_topic == topic
        ]


@dataclass
class FakeConsumer:
    """Hands out ``batches`` from ``poll``, then sets ``stop``; records every commit."""

    batches: list[dict[TopicPartition, list[Record]]] = field(default_factory=list)
    stop: Any = None
    commit_errors: list[Exception] = field(default_factory=list)
    commits: list[dict[TopicPartition, int]] = field(default_factory=list)
    highwaters: dict[TopicPartition, int] = field(default_factory=dict)

    def poll(
        self, timeout_ms: int = 0, max_records: int | None = None
    ) -> dict[TopicPartition, list[Record]]:
        if self.batches:
            return self.batches.pop(0)
        if self.stop is not None:
            self.stop.set()
        return {}

    def commit(
        self, offsets: dict[TopicPartition, OffsetAndMetadata], timeout_ms: int | None = None
    ) -> None:
        if self.commit_errors:
            raise self.commit_errors.pop(0)
        self.commits.append({tp: meta.offset for tp, meta in offsets.items()})

    def highwater(self, tp: TopicPartition) -> int | None:
        return self.highwaters.get(tp)


def page_value(url: str, html: str, **extra: Any) -> bytes:
    return json.dumps({"schema": 1, "url": url, "body": html, **extra}).encode()


def batch_of(
    topic: str,
    values: list[bytes | None],
    partition: int = 0,
    first_offset: int = 0,
    keys: list[bytes | None] | None = None,
) -> dict[TopicPartition, list[Record]]:
    keys = keys or [None] * len(values)
    records = [
        Record(topic, partition, first_offset + i, key, value)
        for i, (key, value) in enumerate(zip(keys, values, strict=True))
    ]
    return {TopicPartition(topic, partition): records}


@pytest.fixture
def stream_config() -> StreamConfig:
    return StreamConfig(
        pages_in=PAGES,
        urls_in=URLS,
        retry_backoff_s=0.01,
        max_retry_backoff_s=0.02,
        flush_timeout_s=1.0,
    )


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "index"


@pytest.fixture
def make_processor(
    index_dir: Path, stream_config: StreamConfig
) -> Iterator[Callable[..., Processor]]:
    """Processors over one real LMDB index in ``tmp_path``, with fake clients."""
    opened: list[DedupFilter] = []

    def make(
        consumer: FakeConsumer | None = None,
        producer: FakeProducer | None = None,
        config: StreamConfig | None = None,
    ) -> Processor:
        dedup = DedupFilter.open(index_dir, Config.default())
        opened.append(dedup)
        return Processor(
            consumer or FakeConsumer(), producer or FakeProducer(), dedup, config or stream_config
        )

    yield make
    for dedup in opened:
        dedup.close()


@pytest.fixture
def consumer() -> FakeConsumer:
    return FakeConsumer()


@pytest.fixture
def producer() -> FakeProducer:
    return FakeProducer()


@pytest.fixture
def batch() -> Callable[..., dict[TopicPartition, list[Record]]]:
    """``batch(topic, values, partition=0, first_offset=0, keys=None)``: one poll result."""
    return batch_of


@pytest.fixture
def page() -> Callable[..., bytes]:
    """``page(url, html, **extra)``: a schema-1 page message."""
    return page_value


@pytest.fixture
def near_copy() -> Callable[[str], str]:
    """The page with a time stamp, an execution time and a session id added (a near-duplicate)."""
    return lambda html: html.replace("</body>", NEAR_STAMP)


@pytest.fixture
def ruled_processor(
    make_processor: Callable[..., Processor], producer: FakeProducer, corpus: dict[str, str]
) -> Processor:
    """A processor whose index holds the rule COPY -> ORIGIN, the origin held first."""
    processor = make_processor(producer=producer)
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, COPY)
    OnlineCrawl(processor.dedup, origin | copy).visit(
        breadth_first(origin, ORIGIN) + breadth_first(copy, COPY)
    )
    assert [rule["pruned"] for rule in processor.dedup.mirror_rules()] == [["mirror"]]
    return processor
