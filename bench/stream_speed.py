"""Messages/s through the stream processor vs a bare consume-and-forward loop on the same broker.

Both loops read the same page messages from the same topic with the same batch size and the same
client settings, produce and flush their outputs, wait for every acknowledgement and commit
offsets; the processor also parses, fingerprints, checks the pages in one LMDB write transaction
per batch and produces verdicts, once per ``--workers`` count (1: in its own process; N: a pool
of N worker processes prepares the pages). The ratio processor/bare is the filter's overhead over
the Kafka cost alone. Group joins and pool starts are not timed: a run starts at its first
non-empty poll and ends at its last commit. Each processor run prints where its time went.

    python bench/stream_speed.py [--messages 2000] [--rounds 2] [--workers 1,2]

Pages: pydoc HTML of standard-library modules (testweb.corpus: real text, rendered offline), each on
several hosts, so the stream holds unique pages and exact duplicates.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from kafka import KafkaProducer
from kafka.record import util as record_util
from kafka.structs import OffsetAndMetadata

from dedup_filter import Config, DedupFilter
from streams import kafka_io
from streams.config import StreamConfig
from streams.local_broker import broker_from_environment
from streams.processor import Batch, Processor
from streams.workers import PreparationPool
from testweb.corpus import documentation_pages


def pages(count: int) -> list[bytes]:
    """``count`` schema-1 page messages: each documentation page on at least four hosts."""
    documents = [page.html.decode() for page in documentation_pages()]
    messages = [
        json.dumps(
            {"schema": 1, "url": f"http://host{host}.example/lib/{index}.html", "body": html}
        ).encode()
        for host in range(max(4, -(-count // len(documents))))
        for index, html in enumerate(documents)
    ]
    return messages[:count]


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=5, max_request_size=4 << 20
    )
    futures = [producer.send(topic, value=value) for value in values]
    producer.flush(timeout=300)
    for future in futures:
        future.get(timeout=30)
    producer.close()


class CpuMeter:
    """CPU seconds over the timed window of this process (the loop, kafka-python's threads), the
    pool's workers and the local broker (Linux ``/proc``; none for a broker named by
    ``KAFKA_BOOTSTRAP_SERVERS``): what the run would need from free cores, whatever else runs;
    and what every other process on the machine took meanwhile (the run's competition)."""

    def __init__(self, workers: list[int]) -> None:
        self.pids = {"loop": [os.getpid()], "workers": workers, "broker": _children("tansu")}
        self._started: dict[str, float] = {}
        self.used: dict[str, float] = {}

    def start(self) -> None:
        self._started = self._read()

    def stop(self) -> None:
        self.used = {name: now - self._started[name] for name, now in self._read().items()}

    def per_message(self, handled: int) -> str:
        return ", ".join(
            f"{name} {seconds / handled * 1000:.3f}"
            for name, seconds in self.used.items()
            if self.pids.get(name, True)
        )

    def _read(self) -> dict[str, float]:
        ours = {name: sum(map(_cpu_seconds, pids)) for name, pids in self.pids.items()}
        return ours | {"others": _busy_seconds() - sum(ours.values())}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy_seconds() -> float:
    """CPU seconds the machine spent busy since boot, over all cores."""
    jiffies = [int(field) for field in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = jiffies[3] + jiffies[4]  # idle, iowait
    return (sum(jiffies[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _children(command: str) -> list[int]:
    """This process's children whose command line holds ``command``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and command.encode() in (stat.parent / "cmdline").read_bytes():
                found.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return found


def timed(
    poll: Callable[[], Batch], handle: Callable[[Batch], int], expected: int, meter: CpuMeter
) -> tuple[float, int]:
    """Seconds from the return of the first non-empty poll to the end of the batch that makes
    ``expected`` records (at most 10 minutes), and the records handled."""
    started, handled, deadline = 0.0, 0, time.monotonic() + 600
    while handled < expected and time.monotonic() < deadline:
        batch = poll()
        if batch:
            if not started:
                started = time.perf_counter()
                meter.start()
            handled += handle(batch)
    meter.stop()
    return time.perf_counter() - started, handled


def bare_loop(config: StreamConfig, expected: int, forward_topic: str) -> tuple[float, int]:
    consumer, producer = kafka_io.make_consumer(config), kafka_io.make_producer(config)
    consumer.subscribe([config.pages_in])

    def poll() -> Batch:
        batch: Batch = consumer.poll(
            timeout_ms=config.poll_timeout_ms, max_records=config.max_poll_records
        )
        return batch

    def forward(batch: Batch) -> int:
        futures = [
            producer.send(forward_topic, key=record.key, value=record.value)
            for records in batch.values()
            for record in records
        ]
        producer.flush(timeout=config.flush_timeout_s)
        for future in futures:
            future.get(timeout=config.flush_timeout_s)
        consumer.commit(
            {tp: OffsetAndMetadata(records[-1].offset + 1, "", -1) for tp, records in batch.items()}
        )
        return len(futures)

    meter = CpuMeter([])
    try:
        seconds, handled = timed(poll, forward, expected, meter)
    finally:
        consumer.close(autocommit=False)
        producer.close()
    print(f"    CPU ms/message: {meter.per_message(handled)}")
    return seconds, handled


def processor_loop(config: StreamConfig, expected: int) -> tuple[float, int]:
    consumer, producer = kafka_io.make_consumer(config), kafka_io.make_producer(config)
    with contextlib.ExitStack() as stack:
        dedup = stack.enter_context(
            DedupFilter.open(stack.enter_context(tempfile.TemporaryDirectory()), Config.default())
        )
        pool = None
        if config.workers > 1:
            pool = stack.enter_context(
                PreparationPool(dedup.config, config.workers, config.worker_timeout_s)
            )
        processor = Processor(consumer, producer, dedup, config, pool=pool)
        kafka_io.subscribe(
            consumer,
            [config.pages_in],
            processor.on_partitions_revoked,
            processor.on_partitions_assigned,
        )
        stop = threading.Event()
        stages = processor.metrics.stage_seconds

        def poll() -> Batch:
            with processor.metrics.timed("poll"):
                batch: Batch = consumer.poll(
                    timeout_ms=config.poll_timeout_ms, max_records=config.max_poll_records
                )
            if not processor.metrics.totals["batches"]:
                stages.clear()  # the group join, before the clock starts
            return batch

        def process(batch: Batch) -> int:
            processor.process(batch, stop)
            return sum(len(records) for records in batch.values())

        meter = CpuMeter([worker.pid or 0 for worker in pool.processes] if pool else [])
        try:
            seconds, handled = timed(poll, process, expected, meter)
        finally:
            consumer.close(autocommit=False)
            producer.close()
    print(f"    ms/message: {breakdown(stages, seconds, handled)}")
    print(f"    CPU ms/message: {meter.per_message(handled)}")
    return seconds, handled


def breakdown(stage_seconds: dict[str, float], seconds: float, handled: int) -> str:
    """Milliseconds per message in each stage, and what no stage accounts for."""
    stages = dict(stage_seconds) | {"rest": seconds - sum(stage_seconds.values())}
    return ", ".join(f"{stage} {stage_s / handled * 1000:.3f}" for stage, stage_s in stages.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batch", type=int, default=500, help="max_poll_records of both loops")
    parser.add_argument(
        "--workers", default="1,2", help="processor runs, by stream.workers (comma-separated)"
    )
    args = parser.parse_args()
    worker_counts = [int(count) for count in args.workers.split(",")]
    values = pages(args.messages)
    crc = (
        "C (crc32c package)"
        if record_util.crc32c_c is not None
        else "pure Python (no crc32c package)"
    )
    print(
        f"{len(values)} page messages, {sum(map(len, values)) / len(values) / 1024:.1f} KiB each; "
        f"kafka-python record CRC: {crc}; {os.cpu_count()} CPUs"
    )
    names = ["bare"] + [f"workers={count}" for count in worker_counts]
    rates: dict[str, list[float]] = {name: [] for name in names}
    with broker_from_environment() as bootstrap:
        for _ in range(args.rounds):
            suffix = uuid.uuid4().hex[:8]
            config = StreamConfig(
                bootstrap_servers=(bootstrap,),
                pages_in=f"bench-{suffix}",
                urls_in="",
                pages_keep=f"bench-keep-{suffix}",
                verdicts=f"bench-verdicts-{suffix}",
                probes="",
                dead_letters=f"bench-dead-{suffix}",
                max_poll_records=args.batch,
                group_id=f"bench-{suffix}",
                max_message_bytes=4_000_000,
            )
            produce(bootstrap, config.pages_in, values)
            bare_config = replace(config, group_id=f"bare-{suffix}")
            runs = [("bare", partial(bare_loop, bare_config, len(values), f"bare-{suffix}"))]
            runs += [
                (
                    f"workers={count}",
                    partial(
                        processor_loop,
                        replace(
                            config,
                            workers=count,
                            group_id=f"bench-{suffix}-{count}",
                            pages_keep=f"bench-keep-{suffix}-{count}",
                            verdicts=f"bench-verdicts-{suffix}-{count}",
                        ),
                        len(values),
                    ),
                )
                for count in worker_counts
            ]
            for name, run in runs:
                seconds, handled = run()
                rates[name].append(handled / seconds)
                print(f"  {name:10s} {handled} in {seconds:6.2f} s = {handled / seconds:7.1f}/s")
    bare = statistics.median(rates["bare"])
    print(f"medians of {args.rounds} rounds: bare loop {bare:.1f}/s", end="")
    for name in names[1:]:
        rate = statistics.median(rates[name])
        print(f"; processor {name} {rate:.1f}/s = {rate / bare:.0%}", end="")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
