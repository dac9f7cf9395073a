"""Two processor processes in one consumer group split the partitions and share one LMDB index."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

ASSIGNED = re.compile(r"partitions assigned: (.*)$", re.MULTILINE)
TOTAL = re.compile(r"stopping after (\d+) records in total")


def last_assignment(log: Path, topic: str) -> set[str]:
    """The partitions of ``topic`` in the processor's latest "partitions assigned" log line."""
    found = (
        ASSIGNED.findall(log.read_text(encoding="utf-8", errors="replace")) if log.exists() else []
    )
    return (
        {name for name in found[-1].split(", ") if name.startswith(f"{topic}/")} if found else set()
    )


def processed(log: Path) -> int:
    return int(TOTAL.findall(log.read_text(encoding="utf-8"))[-1])


def test_two_processors_split_the_partitions_and_share_the_index(
    kafka, stream_config, spawn_processor, page_messages, tmp_path
):
    kafka.create_topics(stream_config, input_partitions=4)
    messages = page_messages(hosts=12)
    logs = [tmp_path / "one.log", tmp_path / "two.log"]
    with spawn_processor(stream_config, "one") as one, spawn_processor(stream_config, "two") as two:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            first, second = (last_assignment(log, stream_config.pages_in) for log in logs)
            if first and second and not first & second and len(first | second) == 4:
                break
            time.sleep(0.3)
        assert len(first) == len(second) == 2
        assert not first & second
        kafka.produce(
            stream_config.pages_in,
            [value for _, value in messages],
            keys=[url.encode() for url, _ in messages],
        )
        kafka.wait_committed(stream_config.group_id, stream_config.pages_in, len(messages))
        for process in (one, two):
            process.send_signal(signal.SIGTERM)
        assert [one.wait(timeout=30), two.wait(timeout=30)] == [0, 0]
    assert all(processed(log) > 0 for log in logs)

    verdicts = kafka.json_values(stream_config.verdicts)
    assert {v["source"]["partition"] for v in verdicts} == {0, 1, 2, 3}
    bodies = {url: json.loads(value)["body"] for url, value in messages}
    kept = {bodies[v["url"]]: v["url"] for v in verdicts if v["action"] == "keep"}
    assert len(kept) == sum(v["action"] == "keep" for v in verdicts) == len(set(bodies.values()))
    assert all(
        v["duplicate_of"] == kept[bodies[v["url"]]] for v in verdicts if v["action"] == "drop"
    )
