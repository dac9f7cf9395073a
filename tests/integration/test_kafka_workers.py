"""Worker processes on a real broker: the outputs of one process, and none left after a stop."""

from __future__ import annotations

import json
import multiprocessing
import signal
from dataclasses import replace
from pathlib import Path

import pytest
from dedup_filter.streams.topics import create_topics

MODULES = ("bisect", "calendar", "csv", "difflib", "heapq", "json", "shlex", "textwrap")
STAMP = "<p>Generated 2024-03-01 12:00:07 in 0.031 s, visitor 48213, session a81f3c</p></body>"


def listing() -> str:
    items = "".join(f'<li><a href="{name}.html">module {name}</a></li>' for name in MODULES)
    return f"<html><body><h1>Library reference</h1><ul>{items}</ul></body></html>"


@pytest.fixture
def page_values(stdlib_page) -> list[bytes]:
    """Originals, a mirrored directory (listing and copies), near copies, hosts of exact copies."""
    pages = [("http://a.example/docs/", listing())]
    pages += [(f"http://a.example/docs/{name}.html", stdlib_page(name)) for name in MODULES]
    pages += [("http://b.example/mirror/docs/", listing())]
    pages += [(f"http://b.example/mirror/docs/{name}.html", stdlib_page(name)) for name in MODULES]
    pages += [
        (f"http://c.example/near/{name}.html", stdlib_page(name).replace("</body>", STAMP))
        for name in MODULES[:4]
    ]
    pages += [
        (f"http://host{host}.example/lib/{name}.html", stdlib_page(name))
        for host in range(6)
        for name in MODULES
    ]
    return [json.dumps({"url": url, "body": html, "status": 200}).encode() for url, html in pages]


def outputs_of(kafka, config) -> dict[str, list]:
    return {
        "verdicts": kafka.json_values(config.verdicts),
        "kept": [record.value for record in kafka.read_all(config.pages_keep)],
        "probes": kafka.json_values(config.probes),
    }


def test_two_workers_give_the_outputs_of_one(
    kafka, stream_config, processor_thread, page_values, tmp_path
):
    kafka.create_topics(stream_config)
    kafka.produce(stream_config.pages_in, page_values)
    outputs = []
    for workers in (1, 2):
        config = replace(
            stream_config,
            workers=workers,
            worker_timeout_s=30.0,
            group_id=f"{stream_config.group_id}-{workers}",
            index_dir=str(tmp_path / f"index-{workers}"),
            pages_keep=f"{stream_config.pages_keep}-{workers}",
            verdicts=f"{stream_config.verdicts}-{workers}",
            probes=f"{stream_config.probes}-{workers}",
        )
        outputs_topics = (config.pages_keep, config.verdicts, config.probes)
        create_topics(kafka.bootstrap_servers, dict.fromkeys(outputs_topics, 1))
        with processor_thread(config):
            kafka.wait_committed(config.group_id, config.pages_in, len(page_values))
        outputs.append(outputs_of(kafka, config))
        assert multiprocessing.active_children() == []  # the pool was closed on stop
    assert outputs[1] == outputs[0]
    reasons = {verdict["reason"] for verdict in outputs[1]["verdicts"]}
    assert {"unique", "exact_duplicate", "near_duplicate", "mirror_candidate"} <= reasons
    assert len(outputs[1]["verdicts"]) == len(page_values)


def pool_workers_of(pid: int) -> list[int]:
    """The processes ``pid`` spawned as pool workers (not spawn's resource tracker)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if parent == pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_stops_the_workers_with_the_processor(
    kafka, stream_config, spawn_processor, page_values
):
    config = replace(stream_config, workers=2, worker_timeout_s=30.0)
    kafka.create_topics(config)
    kafka.produce(config.pages_in, page_values)
    with spawn_processor(config) as process:
        kafka.wait_committed(config.group_id, config.pages_in, len(page_values))
        workers = pool_workers_of(process.pid)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    assert len(workers) == 2
    assert not any(running(pid) for pid in workers)  # stopped before the processor exited
    assert len(kafka.json_values(config.verdicts)) >= len(page_values)
