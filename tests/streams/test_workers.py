"""The worker pool: what the filter would prepare, the same decisions, a life bounded in time."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dedup_filter.streams.processor import Processor
from dedup_filter.streams.workers import PreparationPool, WorkerPoolError
from kafka.structs import TopicPartition

from dedup_filter import Config, DedupFilter
from dedup_filter.isolation import Failed
from dedup_filter.prepare import PagePreparer

from .conftest import FakeConsumer, FakeProducer, batch_of, page_value

PAGES = "pages-in"
MODULES = ("csv", "difflib", "json", "textwrap", "heapq", "shlex")
STARTED_WITHIN_S = 30.0
ORIGINAL_BLAS_THREADS = os.environ.get("OPENBLAS_NUM_THREADS")


def listing(names: tuple[str, ...]) -> bytes:
    items = "".join(f'<li><a href="{name}.html">module {name}</a></li>' for name in names)
    return f"<html><body><h1>Library</h1><ul>{items}</ul></body></html>".encode()


@pytest.fixture(scope="module")
def pool():
    """Two workers, shared by the tests that leave them healthy."""
    with PreparationPool(Config.default(), 2, STARTED_WITHIN_S) as shared:
        yield shared


@pytest.fixture
def pages(stdlib_page, near_copy):
    """Originals, exact and near copies, a mirrored directory with its listing, binary, empty."""
    originals = [(f"http://a.example/docs/{name}.html", stdlib_page(name)) for name in MODULES]
    result = [("http://a.example/docs/", listing(MODULES), None)]
    result += [(url, html.encode(), None) for url, html in originals]
    result += [("http://b.example/m/docs/", listing(MODULES), None)]
    result += [
        (url.replace("a.example/", "b.example/m/"), html.encode(), None)
        for url, html in originals[:3]
    ]
    result += [("http://c.example/near.html", near_copy(originals[4][1]).encode(), None)]
    result += [("http://d.example/blob.bin", bytes(range(256)) * 40, {"Content-Type": "x/y"})]
    result += [("http://d.example/empty.html", b"", None)]
    return result


def one_worker(timeout_s: float = STARTED_WITHIN_S) -> PreparationPool:
    return PreparationPool(Config.default(), 1, timeout_s)


def test_the_pool_prepares_what_the_filter_would_in_order(pool, pages):
    prepared = pool.prepare(pages)
    preparer = PagePreparer(Config.default())
    assert prepared == [preparer.prepare(*page) for page in pages]
    assert [page.anchors is not None for page in prepared][:2] == [True, False]


def test_decisions_from_the_pool_are_those_of_check_pages(pool, pages, tmp_path):
    with (
        DedupFilter.open(tmp_path / "in-process", Config.default()) as alone,
        DedupFilter.open(tmp_path / "pooled", Config.default()) as pooled,
    ):
        expected = [decision.to_dict() for decision in alone.check_pages(pages)]
        decided = [decision.to_dict() for decision in pooled.check_prepared(pool.prepare(pages))]
    assert decided == expected
    assert {"unique", "exact_duplicate", "near_duplicate"} <= {d["reason"] for d in decided}


def test_an_empty_batch_and_a_single_page(pool, pages):
    assert pool.prepare([]) == []
    assert pool.prepare(pages[1:2]) == [PagePreparer(Config.default()).prepare(*pages[1])]


def test_workers_ignore_ctrl_c_so_the_batch_in_hand_can_finish(pool, pages):
    for process in pool.processes:
        os.kill(process.pid, signal.SIGINT)
    assert len(pool.prepare(pages)) == len(pages)
    assert all(process.is_alive() for process in pool.processes)


def test_workers_run_one_blas_thread_each_and_the_parent_keeps_its_environment(pool):
    environments = [Path(f"/proc/{process.pid}/environ").read_bytes() for process in pool.processes]
    assert all(b"\0OPENBLAS_NUM_THREADS=1\0" in b"\0" + env for env in environments)
    assert os.environ.get("OPENBLAS_NUM_THREADS") == ORIGINAL_BLAS_THREADS


def test_close_stops_every_worker_and_the_pool_takes_no_more_work(pages):
    closing = PreparationPool(Config.default(), 2, STARTED_WITHIN_S)
    processes = closing.processes
    started = time.monotonic()
    closing.close()
    closing.close()
    assert time.monotonic() - started < 5
    assert [process.exitcode for process in processes] == [0, 0]
    with pytest.raises(WorkerPoolError, match="closed"):
        closing.prepare(pages)


def test_a_killed_worker_fails_the_batch_at_once(pages):
    with PreparationPool(Config.default(), 2, STARTED_WITHIN_S) as broken:
        os.kill(broken.processes[0].pid, signal.SIGKILL)
        broken.processes[0].join(5)
        started = time.monotonic()
        with pytest.raises(WorkerPoolError, match=r"exit code -9\) died"):
            broken.prepare(pages)
        assert time.monotonic() - started < 5
        with pytest.raises(WorkerPoolError, match="broken"):
            broken.prepare(pages[:1])


def test_a_hung_worker_fails_the_batch_after_the_timeout_and_is_killed_on_close(pages):
    hung = one_worker()
    process = hung.processes[0]
    hung.timeout_s = 1.0
    os.kill(process.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(WorkerPoolError, match=r"no answer within .*=1\.0 s"):
            hung.prepare(pages * 20)  # megabytes, more than a socket buffer: the send blocks too
        assert 1.0 <= time.monotonic() - started < 5
    finally:
        started = time.monotonic()
        hung.close()
    assert time.monotonic() - started < 5
    assert process.exitcode == -signal.SIGKILL


def test_a_page_that_fails_in_a_worker_is_that_pages_failure_alone(pages):
    bad = ("http://a.example/", 12345, None)
    with one_worker() as pool:
        prepared = pool.prepare([pages[0], bad, pages[1]])  # type: ignore[list-item]
        assert isinstance(prepared[1], Failed)
        assert "TypeError" in prepared[1].error
        assert [page.fingerprint.url for page in (prepared[0], prepared[2])] == [
            pages[0][0],
            pages[1][0],
        ]
        assert len(pool.prepare(pages[:1])) == 1  # the pool still works


def test_workers_exit_by_themselves_when_the_processor_is_killed(tmp_path):
    script = textwrap.dedent(
        """
        import sys, time
        from dedup_filter import Config
        from dedup_filter.streams.workers import PreparationPool

        if __name__ == "__main__":
            pool = PreparationPool(Config.default(), 2, 30.0)
            print(*(process.pid for process in pool.processes), flush=True)
            time.sleep(60)
        """
    )
    (tmp_path / "owner.py").write_text(script)
    owner = subprocess.Popen(
        [sys.executable, str(tmp_path / "owner.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        pids = [int(pid) for pid in owner.stdout.readline().split()]
    finally:
        owner.kill()
        owner.wait(10)
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(running(pid) for pid in pids)


def test_a_worker_is_warm_when_it_says_it_is_ready(tmp_path, stdlib_page):
    """Numba traces each compiled kernel it loads (``NUMBA_DEBUG_CACHE``) on the worker's stdout,
    which it shares with its owner: every load comes before the pool is ready, none with a page."""
    (tmp_path / "page.html").write_text(stdlib_page("json"))
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from dedup_filter import Config
        from dedup_filter.streams.workers import PreparationPool

        if __name__ == "__main__":
            with PreparationPool(Config.default(), 1, 60.0) as pool:
                print("pool ready")
                pool.prepare([("http://a.example/json.html", Path(sys.argv[1]).read_bytes(), None)])
                print("page prepared")
        """
    )
    (tmp_path / "owner.py").write_text(script)
    environment = {**os.environ, "NUMBA_DEBUG_CACHE": "1", "PYTHONUNBUFFERED": "1"}
    owner = subprocess.run(
        [sys.executable, str(tmp_path / "owner.py"), str(tmp_path / "page.html")],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    starting, preparing, _ = re.split(r"^pool ready$|^page prepared$", owner.stdout, flags=re.M)
    assert "[cache] data" in starting
    assert "[cache]" not in preparing


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper is not)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def fake_processor(tmp_path, name, stream_config, **kwargs):
    dedup = DedupFilter.open(tmp_path / name, Config.default())
    consumer, producer = FakeConsumer(), FakeProducer()
    return Processor(consumer, producer, dedup, stream_config, **kwargs), consumer, producer


def test_a_processor_with_a_pool_produces_what_one_without_does(
    pool, pages, stream_config, tmp_path
):
    values = [page_value(url, body.decode("latin-1")) for url, body, _ in pages]
    outputs = []
    for name, kwargs in (("alone", {}), ("pooled", {"pool": pool})):
        processor_, consumer, producer = fake_processor(tmp_path, name, stream_config, **kwargs)
        with processor_.dedup:
            assert processor_.process(batch_of(PAGES, values), threading.Event())
        outputs.append((producer.sent, consumer.commits))
    assert outputs[0] == outputs[1]
    assert set(processor_.metrics.stage_seconds) == {
        "messages",
        "prepare",
        "index",
        "deliver",
        "commit",
    }
    assert outputs[1][1] == [{TopicPartition(PAGES, 0): len(values)}]


def test_a_worker_dying_mid_stream_stops_the_processor_without_a_commit(
    pages, stream_config, tmp_path
):
    values = [page_value(url, body.decode("latin-1")) for url, body, _ in pages]
    with one_worker() as dying:
        processor_, consumer, producer = fake_processor(tmp_path, "x", stream_config, pool=dying)
        consumer.batches = [batch_of(PAGES, values)]
        consumer.stop = threading.Event()
        os.kill(dying.processes[0].pid, signal.SIGKILL)
        with processor_.dedup, pytest.raises(WorkerPoolError, match="died"):
            processor_.run(consumer.stop)
    assert (consumer.commits, producer.sent) == ([], [])


@dataclass
class _StagedAtCommit(FakeConsumer):
    """Also notes, at each commit, whether the processor held the next batch staged (its pages
    then being prepared by the workers while this batch was decided and delivered)."""

    processor: Any = None
    staged_at_commit: list[bool] = field(default_factory=list)

    def commit(self, offsets, timeout_ms=None):
        self.staged_at_commit.append(self.processor._staged is not None)
        super().commit(offsets, timeout_ms)


def test_run_prepares_the_next_batch_while_deciding_one_and_decides_as_process_does(
    pool, pages, stream_config, tmp_path
):
    values = [page_value(url, body.decode("latin-1")) for url, body, _ in pages]
    thirds = [(start, values[start : start + 5]) for start in range(0, len(values), 5)]
    batches = [batch_of(PAGES, chunk, 0, start) for start, chunk in thirds]
    alone, consumer, producer = fake_processor(tmp_path, "alone", stream_config)
    with alone.dedup:
        assert all(alone.process(each, threading.Event()) for each in batches)
    pooled = Processor(
        _StagedAtCommit(batches=list(batches), stop=threading.Event()),
        FakeProducer(),
        DedupFilter.open(tmp_path / "pooled", Config.default()),
        stream_config,
        pool=pool,
    )
    pooled.consumer.processor = pooled
    with pooled.dedup:
        pooled.run(pooled.consumer.stop)
    assert (pooled.producer.sent, pooled.consumer.commits) == (producer.sent, consumer.commits)
    assert pooled.consumer.staged_at_commit == [True] * (len(batches) - 1) + [False]
