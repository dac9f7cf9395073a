"""A real broker for the Kafka tests: ``$KAFKA_BOOTSTRAP_SERVERS`` if set, else the embedded Tansu.

Every test gets topics of its own (a unique suffix), so tests never see each other's records even
on a shared cluster. Every loop here is bounded in records and in time.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from dedup_filter.streams.config import StreamConfig
from dedup_filter.streams.metrics import StreamMetrics
from dedup_filter.streams.service import serve
from dedup_filter.streams.topics import create_topics, read_to_end
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from dedup_filter import Config
from tests.conftest import CORPUS_MODULES
from testweb.broker import broker_from_environment

# a short session keeps group joins (about half of it on Tansu) and restarts after SIGKILL quick
SESSION_TIMEOUT_MS = 6000
RECORD_LIMIT_BYTES = 4 << 20


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    with broker_from_environment() as bootstrap_servers:
        yield bootstrap_servers


@dataclass
class Kafka:
    """Produce and read back records on a real broker."""

    bootstrap_servers: str

    def create_topics(self, config: StreamConfig, input_partitions: int = 1) -> None:
        """The processor's topics: inputs with ``input_partitions`` partitions, outputs with one."""
        outputs = [
            config.pages_keep,
            config.verdicts,
            config.urls_keep,
            config.probes,
            config.dead_letters,
        ]
        create_topics(
            self.bootstrap_servers,
            {name: input_partitions for name in config.input_topics} | dict.fromkeys(outputs, 1),
        )

    def produce(
        self,
        topic: str,
        values: list[bytes | None],
        keys: list[bytes | None] | None = None,
        headers: list[list[tuple[str, bytes]]] | None = None,
        partition: int | None = None,
    ) -> None:
        producer = KafkaProducer(
            bootstrap_servers=self.bootstrap_servers,
            acks="all",
            max_request_size=RECORD_LIMIT_BYTES,
            linger_ms=5,
        )
        try:
            futures = [
                producer.send(
                    topic,
                    value=value,
                    key=(keys or [None] * len(values))[i],
                    headers=(headers or [[]] * len(values))[i] or None,
                    partition=partition,
                )
                for i, value in enumerate(values)
            ]
            producer.flush(timeout=60)
            for future in futures:
                future.get(timeout=10)
        finally:
            producer.close()

    def read_all(self, topic: str) -> list[Any]:
        return read_to_end(self.bootstrap_servers, topic)

    def json_values(self, topic: str) -> list[dict[str, Any]]:
        return [json.loads(record.value) for record in self.read_all(topic)]

    def committed(self, group_id: str, topic: str) -> int:
        """Records of ``topic`` the group has committed, summed over its partitions."""
        consumer = KafkaConsumer(
            bootstrap_servers=self.bootstrap_servers, group_id=group_id, enable_auto_commit=False
        )
        try:
            partitions = sorted(consumer.partitions_for_topic(topic) or [])
            return sum(consumer.committed(TopicPartition(topic, p)) or 0 for p in partitions)
        finally:
            consumer.close(autocommit=False)

    def wait_committed(
        self, group_id: str, topic: str, count: int, timeout_s: float = 60.0
    ) -> None:
        """Until the group committed ``count`` records of ``topic`` (so their outputs are out)."""
        deadline = time.monotonic() + timeout_s
        while (done := self.committed(group_id, topic)) < count:
            if time.monotonic() > deadline:
                msg = f"{group_id} committed {done} of {count} records of {topic} in {timeout_s} s"
                raise AssertionError(msg)
            time.sleep(0.3)


@pytest.fixture
def kafka(kafka_bootstrap: str) -> Kafka:
    return Kafka(kafka_bootstrap)


@pytest.fixture
def kafka_factory() -> Callable[[str], Kafka]:
    """``kafka_factory(bootstrap_servers)``: a ``Kafka`` helper for a broker of the test's own."""
    return Kafka


@pytest.fixture(scope="session")
def page_messages(stdlib_page: Callable[[str], str]) -> Callable[..., list[tuple[str, bytes]]]:
    """``page_messages(hosts=20, modules=16)``: (url, schema-1 message), every module on every host.

    The same pydoc page on many hosts: one original per module, exact duplicates everywhere else.
    Messages are ordered host by host, so the first host's copy of each module comes first.
    """

    def messages(hosts: int = 20, modules: int = len(CORPUS_MODULES)) -> list[tuple[str, bytes]]:
        return [
            (
                url,
                json.dumps(
                    {"schema": 1, "url": url, "body": stdlib_page(name), "status": 200}
                ).encode(),
            )
            for host in range(hosts)
            for name in CORPUS_MODULES[:modules]
            for url in [f"http://host{host}.example/lib/{name}.html"]
        ]

    return messages


@pytest.fixture
def stream_config(kafka_bootstrap: str, tmp_path: Path) -> StreamConfig:
    """Topics and a group of this test's own, an index in ``tmp_path``."""
    suffix = uuid.uuid4().hex[:8]
    return StreamConfig(
        bootstrap_servers=(kafka_bootstrap,),
        group_id=f"dedup-{suffix}",
        index_dir=str(tmp_path / "index"),
        pages_in=f"pages-{suffix}",
        pages_keep=f"pages.keep-{suffix}",
        verdicts=f"verdicts-{suffix}",
        urls_in=f"urls-{suffix}",
        urls_keep=f"urls.keep-{suffix}",
        probes=f"probes-{suffix}",
        dead_letters=f"dead-{suffix}",
        session_timeout_ms=SESSION_TIMEOUT_MS,
        poll_timeout_ms=200,
        max_poll_records=100,
        flush_timeout_s=10.0,
        retry_backoff_s=0.2,
        max_retry_backoff_s=1.0,
        max_message_bytes=1_000_000,
    )


@pytest.fixture
def processor_thread() -> Iterator[
    Callable[[StreamConfig], contextlib.AbstractContextManager[StreamMetrics]]
]:
    """``with processor_thread(config) as metrics:`` runs ``serve`` in a thread until the end."""

    @contextlib.contextmanager
    def running(config: StreamConfig) -> Iterator[StreamMetrics]:
        stop = threading.Event()
        failures: list[BaseException] = []
        metrics = StreamMetrics()

        def target() -> None:
            try:
                serve(config, Config.default(), stop, metrics)
            except BaseException as error:  # reported by the test below
                failures.append(error)

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        try:
            yield metrics
        finally:
            stop.set()
            thread.join(timeout=30)
        assert not thread.is_alive(), "the processor did not stop within 30 s"
        assert failures == []

    return running


def write_config(config: StreamConfig, path: Path) -> Path:
    """``config`` as a TOML file for ``python -m dedup_filter.streams --config``."""
    lines = ["[stream]"]
    for key in config.__class__.__dataclass_fields__:
        current = getattr(config, key)
        if key != "kafka":
            lines.append(
                f"{key} = {json.dumps(list(current) if isinstance(current, tuple) else current)}"
            )
    lines.append("[stream.kafka]")
    lines += [f"{key} = {json.dumps(value)}" for key, value in config.kafka.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@contextlib.contextmanager
def processor_process(config_file: Path, log_file: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m dedup_filter.streams`` as a child process; SIGTERM (then SIGKILL) at the end."""
    with open(log_file, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "dedup_filter.streams", "--config", str(config_file)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture
def spawn_processor(
    tmp_path: Path,
) -> Callable[..., contextlib.AbstractContextManager[subprocess.Popen[bytes]]]:
    """``with spawn_processor(config, name) as process:`` a processor child process."""

    def spawn(
        config: StreamConfig, name: str = "processor"
    ) -> contextlib.AbstractContextManager[subprocess.Popen[bytes]]:
        return processor_process(
            write_config(config, tmp_path / f"{name}.toml"), tmp_path / f"{name}.log"
        )

    return spawn
