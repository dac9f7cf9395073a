"""Messages/s through the stream processor vs a bare consume-and-forward loop on the same broker.

Both loops read the same page messages from the same topic with the same batch size and the same
client settings, produce and flush their outputs, wait for every acknowledgement and commit
offsets; the processor also parses, fingerprints, checks the pages in one LMDB write transaction
per batch and produces verdicts, once per ``--workers`` count (1: in its own process; N: a pool
of N worker processes prepares the pages). The ratio processor/bare is the filter's overhead over
the Kafka cost alone. Group joins and pool starts are not timed: a run starts at its first
non-empty poll and ends at its last commit. Each processor run prints where its time went (wall
time per stage, CPU per process), and each run the CPU other processes took meanwhile: on a
shared machine the medians are given over all runs and over the quiet ones.

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

from dedup_filter.streams import kafka_io
from dedup_filter.streams.config import StreamConfig
from dedup_filter.streams.processor import Batch, Processor
from dedup_filter.streams.workers import PreparationPool
from kafka import KafkaProducer
from kafka.record import util as record_util
from kafka.structs import OffsetAndMetadata

from dedup_filter import Config, DedupFilter
from testweb.broker import broker_from_environment
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


def bare_loop(
    config: StreamConfig, expected: int, forward_topic: str
) -> tuple[float, int, CpuMeter]:
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
    return seconds, handled, meter


def processor_loop(config: StreamConfig, expected: int) -> tuple[float, int, CpuMeter]:
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
    return seconds, handled, meter


def breakdown(stage_seconds: dict[str, float], seconds: float, handled: int) -> str:
    """Milliseconds per message in each stage, and what no stage accounts for."""
    stages = dict(stage_seconds) | {"rest": seconds - sum(stage_seconds.values())}
    return ", ".join(f"{stage} {stage_s / handled * 1000:.3f}" for stage, stage_s in stages.items())


QUIET_CORES = 0.1  # a run is quiet when other processes took less than this share of one core


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
    rates: dict[str, list[tuple[float, bool]]] = {}  # per run: messages/s, and whether quiet
    with broker_from_environment() as bootstrap:
        for _ in range(args.rounds):
            for name, run in round_of_runs(bootstrap, values, args.batch, worker_counts):
                seconds, handled, meter = run()
                others = meter.used["others"] / seconds
                rates.setdefault(name, []).append((handled / seconds, others < QUIET_CORES))
                print(
                    f"  {name:10s} {handled} in {seconds:6.2f} s = {handled / seconds:7.1f}/s"
                    f" (other processes took {others:.2f} cores)"
                )
    print(summary(rates, "all runs", lambda quiet: True))
    print(summary(rates, f"quiet runs (others < {QUIET_CORES} core)", lambda quiet: quiet))
    return 0


def round_of_runs(
    bootstrap: str, values: list[bytes], batch: int, worker_counts: list[int]
) -> list[tuple[str, Callable[[], tuple[float, int, CpuMeter]]]]:
    """The bare loop and a processor per workers count, over one fresh topic of ``values``."""
    suffix = uuid.uuid4().hex[:8]
    config = StreamConfig(
        bootstrap_servers=(bootstrap,),
        pages_in=f"bench-{suffix}",
        urls_in="",
        probes="",
        dead_letters=f"bench-dead-{suffix}",
        max_poll_records=batch,
        max_message_bytes=4_000_000,
    )
    produce(bootstrap, config.pages_in, values)
    runs: list[tuple[str, Callable[[], tuple[float, int, CpuMeter]]]] = [
        (
            "bare",
            partial(
                bare_loop, replace(config, group_id=f"bare-{suffix}"), len(values), f"bare-{suffix}"
            ),
        )
    ]
    for count in worker_counts:
        processor_config = replace(
            config,
            workers=count,
            group_id=f"bench-{suffix}-{count}",
            pages_keep=f"bench-keep-{suffix}-{count}",
            verdicts=f"bench-verdicts-{suffix}-{count}",
        )
        runs.append((f"workers={count}", partial(processor_loop, processor_config, len(values))))
    return runs


def summary(
    rates: dict[str, list[tuple[float, bool]]], title: str, keep: Callable[[bool], bool]
) -> str:
    """Median messages/s per loop over the runs ``keep`` accepts, and each processor's ratio."""
    medians = {
        name: statistics.median(kept)
        for name, runs in rates.items()
        if (kept := [rate for rate, quiet in runs if keep(quiet)])
    }
    counts = {name: sum(keep(quiet) for _, quiet in runs) for name, runs in rates.items()}
    parts = []
    for name, rate in medians.items():
        part = f"{name} {rate:.1f}/s ({counts[name]} runs)"
        if name != "bare" and "bare" in medians:
            part += f" = {rate / medians['bare']:.0%}"
        parts.append(part)
    return f"medians of {title}: " + ("; ".join(parts) or "none")


if __name__ == "__main__":
    sys.exit(main())
