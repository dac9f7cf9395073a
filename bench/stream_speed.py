"""The Kafka layer's own cost: the processor's messages/s per core against ``check_pages``' pages/s
per core on the same pages, and how worker processes scale it.

In one run, once per round: ``check_pages`` over the page messages' pages (parsed beforehand, in
batches of ``--batch``, into a fresh index: the core alone), ``check_pages+links`` (the same, and
the links the processor follows from the pages it drops, checked by a frontier as the processor's
checks them, the links it followed before not again: the core's whole share of the processor's
work), a bare consume-and-forward loop (poll, forward every
record, flush, ``.get()``, commit: Kafka alone) and the processor over the same messages from the
local broker, once per ``--workers`` count (1: pages prepared in its own process; N: by a pool of
N worker processes). Per core is messages per CPU second of the loop's process (the loop and
kafka-python's threads) and its workers, never the broker's; the ratio processor/check_pages is
what issue 13's target 4 asks to be at least 80 %; processor/check_pages+links is the Kafka
layer's own cost. Group joins and pool starts are not timed: a run starts at its first non-empty
poll and ends at its last commit. Each processor run prints where its time went (wall time per
stage, CPU per process), and each run the CPU other processes took meanwhile: on a shared machine
the medians are given over all runs and over the quiet ones.

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
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from dedup_filter.streams import kafka_io
from dedup_filter.streams.config import StreamConfig
from dedup_filter.streams.frontier import Frontier
from dedup_filter.streams.messages import PageMessage
from dedup_filter.streams.processor import Batch, Processor
from dedup_filter.streams.workers import PreparationPool
from kafka import KafkaProducer
from kafka.record import util as record_util
from kafka.structs import OffsetAndMetadata

from dedup_filter import Config, DedupFilter
from dedup_filter.page_documents import PageFields, page_fields
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
        # the loop's main thread is part of "loop"; the rest of it is kafka-python's threads
        main_thread = _cpu_seconds(os.getpid(), f"task/{os.getpid()}/stat")
        return ours | {"others": _busy_seconds() - sum(ours.values()), "main thread": main_thread}


def _cpu_seconds(pid: int, stat: str = "stat") -> float:
    fields = Path(f"/proc/{pid}/{stat}").read_text().rsplit(")", 1)[1].split()
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
    poll: Callable[[], Batch],
    handle: Callable[[Batch], int],
    expected: int,
    meter: CpuMeter,
    in_hand: Callable[[], bool] = lambda: False,
) -> tuple[float, int]:
    """Seconds from the return of the first non-empty poll to the end of the batch that makes
    ``expected`` records (at most 10 minutes), and the records handled (``handle`` is also given
    the empty polls while a batch is ``in_hand``)."""
    started, handled, deadline = 0.0, 0, time.monotonic() + 600
    while handled < expected and time.monotonic() < deadline:
        batch = poll()
        if batch or in_hand():
            if not started:
                started = time.perf_counter()
                meter.start()
            handled += handle(batch)
    meter.stop()
    return time.perf_counter() - started, handled


def bare_loop(config: StreamConfig, expected: int, forward_topic: str) -> Result:
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
    return Result(handled, seconds, meter.used)


def processor_loop(config: StreamConfig, expected: int) -> Result:
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
        stages, stages_cpu = processor.metrics.stage_seconds, processor.metrics.stage_cpu_seconds

        in_hand = [0]  # records of the batch staged and not finished yet (Processor.advance)

        def poll() -> Batch:
            with processor.metrics.timed("poll"):
                batch: Batch = consumer.poll(
                    timeout_ms=0 if in_hand[0] else config.poll_timeout_ms,
                    max_records=config.max_poll_records,
                )
            if not processor.metrics.totals["batches"]:
                stages.clear()  # the group join, before the clock starts
                stages_cpu.clear()
            return batch

        def process(batch: Batch) -> int:
            """As ``Processor.run``: stage this batch, finish the one before."""
            processor.advance(batch, stop)
            finished, in_hand[0] = in_hand[0], sum(len(records) for records in batch.values())
            return finished

        meter = CpuMeter([worker.pid or 0 for worker in pool.processes] if pool else [])
        try:
            seconds, handled = timed(poll, process, expected, meter, lambda: in_hand[0] > 0)
        finally:
            consumer.close(autocommit=False)
            producer.close()
    print(f"    ms/message: {breakdown(stages, seconds, handled)}")
    main_thread = breakdown(stages_cpu, meter.used["main thread"], handled)
    print(f"    main-thread CPU ms/message: {main_thread}")
    print(f"    CPU ms/message: {meter.per_message(handled)}")
    return Result(handled, seconds, meter.used, dict(stages_cpu))


def breakdown(stage_seconds: dict[str, float], seconds: float, handled: int) -> str:
    """Milliseconds per message in each stage, and what no stage accounts for."""
    stages = dict(stage_seconds) | {"rest": seconds - sum(stage_seconds.values())}
    return ", ".join(f"{stage} {stage_s / handled * 1000:.3f}" for stage, stage_s in stages.items())


QUIET_CORES = 0.1  # a run is quiet when other processes took less than this share of one core
CORE = "check_pages"
CORE_LINKS = "check_pages+links"
FOLLOWED_MEMORY = StreamConfig().followed_links_memory  # the processor's default


@dataclass(frozen=True)
class Result:
    """One timed run: records handled, wall seconds, and the CPU seconds each process took."""

    handled: int
    seconds: float
    cpu: dict[str, float]
    stages_cpu: dict[str, float] = field(default_factory=dict)  # the main thread's, by stage

    @property
    def rate(self) -> float:
        return self.handled / self.seconds

    @property
    def per_core(self) -> float:
        """Messages per CPU second of the loop's process and its workers (not the broker)."""
        return self.handled / (self.cpu["loop"] + self.cpu.get("workers", 0.0))

    @property
    def quiet(self) -> bool:
        return self.cpu["others"] / self.seconds < QUIET_CORES


def core_loop(values: list[bytes], batch: int, links: bool = False) -> Result:
    """``check_pages`` on the messages' pages (read as the processor reads them, before the clock
    starts), into a fresh index. With ``links``, also what the processor sends beyond its verdicts:
    the pages prepared with their anchors, and the links to follow from those dropped checked by
    the processor's ``Frontier`` (links it followed before are not checked again); the Kafka
    layer's own cost is then what the processor takes beyond this loop."""
    pages = [(fields.url, fields.body, fields.headers) for fields in map(_page_fields, values)]
    meter = CpuMeter([])
    with (
        tempfile.TemporaryDirectory() as directory,
        DedupFilter.open(directory, Config.default()) as dedup,
    ):
        check = (
            partial(_check_with_links, dedup, Frontier(dedup, 0, 0.0, FOLLOWED_MEMORY))
            if links
            else dedup.check_pages
        )
        started = time.perf_counter()
        meter.start()
        for start in range(0, len(pages), batch):
            check(pages[start : start + batch])
        meter.stop()
        seconds = time.perf_counter() - started
    print(f"    CPU ms/page: {meter.per_message(len(pages))}")
    return Result(len(pages), seconds, meter.used)


def _check_with_links(
    dedup: DedupFilter, frontier: Frontier, pages: list[tuple[str, bytes, Any]]
) -> None:
    prepared = [dedup.preparer.prepare(*page, keep_anchors=True) for page in pages]
    for (url, body, headers), page, decision in zip(
        pages, prepared, dedup.check_prepared(prepared), strict=True
    ):
        frontier.follow(decision, PageMessage(url, body, headers), page)


def _page_fields(value: bytes) -> PageFields:
    fields = page_fields(json.loads(value))
    assert isinstance(fields, PageFields), fields
    return fields


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
    results: dict[str, list[Result]] = {}
    with broker_from_environment() as bootstrap:
        for _ in range(args.rounds):
            for name, run in round_of_runs(bootstrap, values, args.batch, worker_counts):
                result = run()
                results.setdefault(name, []).append(result)
                print(
                    f"  {name:11s} {result.handled} in {result.seconds:6.2f} s ="
                    f" {result.rate:7.1f}/s, {result.per_core:7.1f}/s per core"
                    f" (other processes took {result.cpu['others'] / result.seconds:.2f} cores)"
                )
    for title, keep in (("all runs", lambda r: True), ("quiet runs", lambda r: r.quiet)):
        print(summary(results, title, keep))
    return 0


def round_of_runs(
    bootstrap: str, values: list[bytes], batch: int, worker_counts: list[int]
) -> list[tuple[str, Callable[[], Result]]]:
    """The core alone, the bare loop and a processor per workers count, over one fresh topic of
    ``values``."""
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
    runs: list[tuple[str, Callable[[], Result]]] = [
        (CORE, partial(core_loop, values, batch)),
        (CORE_LINKS, partial(core_loop, values, batch, links=True)),
        (
            "bare",
            partial(
                bare_loop, replace(config, group_id=f"bare-{suffix}"), len(values), f"bare-{suffix}"
            ),
        ),
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


def summary(results: dict[str, list[Result]], title: str, keep: Callable[[Result], bool]) -> str:
    """A table of medians over the runs ``keep`` accepts: messages/s, per core, the ratio of
    each processor's per-core rate to ``check_pages``', and the workers' scaling."""
    kept = {name: [r for r in runs if keep(r)] for name, runs in results.items()}
    lines = [
        f"medians of {title} (quiet: other processes < {QUIET_CORES} core):",
        "| loop | runs | messages/s | per core | per core / check_pages |"
        " per core / check_pages+links | CPU ms/message: loop (its main thread) | workers |"
        " broker |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    cores = {
        core: statistics.median(r.per_core for r in kept[core])
        for core in (CORE, CORE_LINKS)
        if kept.get(core)
    }
    for name, runs in kept.items():
        if not runs:
            continue
        per_core = statistics.median(r.per_core for r in runs)
        ratios = " | ".join(
            f"{per_core / cores[core]:.0%}" if core in cores and name.startswith("workers=") else ""
            for core in (CORE, CORE_LINKS)
        )

        def cpu(part: str, runs: list[Result] = runs) -> str:
            return f"{statistics.median(r.cpu[part] / r.handled for r in runs) * 1000:.3f}"

        workers = cpu("workers") if name.startswith("workers=") and name != "workers=1" else ""
        broker = cpu("broker") if name not in (CORE, CORE_LINKS) else ""
        lines.append(
            f"| {name} | {len(runs)} | {statistics.median(r.rate for r in runs):.1f} |"
            f" {per_core:.1f} | {ratios} | {cpu('loop')} ({cpu('main thread')}) | {workers} |"
            f" {broker} |"
        )
    for name, runs in kept.items():
        if runs and runs[0].stages_cpu:
            stages = {
                stage: statistics.median(r.stages_cpu.get(stage, 0.0) / r.handled for r in runs)
                for stage in runs[0].stages_cpu
            }
            lines.append(
                f"{name}, the loop's main-thread CPU ms/message by stage: "
                + ", ".join(f"{stage} {seconds * 1000:.3f}" for stage, seconds in stages.items())
            )
    lines += scaling(kept)
    return "\n".join(lines)


def scaling(kept: dict[str, list[Result]]) -> list[str]:
    """workers=N against workers=1, measured (wall) and as the CPU taken allows on N free cores.

    The loop's own work (m ms of CPU a message: poll, parse, index transaction, delivery, commit)
    overlaps the workers' preparation of the next batch (w ms a message, shared by N), so on N
    free cores a message takes at best max(m, (m + w) / N), against the c ms of CPU a message of
    the one process of workers=1."""
    one = kept.get("workers=1")
    lines = []
    for name, runs in kept.items():
        if not name.startswith("workers=") or name == "workers=1" or not runs or not one:
            continue
        count = int(name.removeprefix("workers="))
        wall = statistics.median(r.rate for r in runs) / statistics.median(r.rate for r in one)
        single = statistics.median(r.cpu["loop"] / r.handled for r in one)
        loop = statistics.median(r.cpu["loop"] / r.handled for r in runs)
        workers = statistics.median(r.cpu["workers"] / r.handled for r in runs)
        bound = single / max(loop, (loop + workers) / count)
        lines.append(
            f"{name} / workers=1: {wall:.2f}x measured (wall, {os.cpu_count()} CPUs shared with"
            f" the broker and other work); by the CPU taken, at most {bound:.2f}x on {count} free"
            f" cores (workers=1 {single * 1000:.3f} ms a message; loop {loop * 1000:.3f} ms"
            f" overlapping workers {workers * 1000:.3f} ms / {count})"
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
