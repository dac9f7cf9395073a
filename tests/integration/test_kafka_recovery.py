"""At-least-once under failure: SIGKILL mid-stream, a broker outage, 1,000 malformed records."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import replace

from dedup_filter import Config, DedupFilter
from testweb.broker import LocalBroker


def test_sigkill_mid_stream_loses_no_verdict_and_leaves_the_index_intact(
    kafka, stream_config, spawn_processor, page_messages
):
    config = replace(stream_config, max_poll_records=10)
    kafka.create_topics(config, input_partitions=2)
    messages = page_messages()
    first_wave, second_wave = messages[:20], messages[20:]
    producing = threading.Thread(target=_trickle, args=(kafka, config.pages_in, second_wave))
    with spawn_processor(config, "first") as first:
        kafka.produce(
            config.pages_in,
            [value for _, value in first_wave],
            keys=[url.encode() for url, _ in first_wave],
        )
        kafka.wait_committed(config.group_id, config.pages_in, len(first_wave))
        producing.start()
        kafka.wait_committed(config.group_id, config.pages_in, len(first_wave) + 40)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        killed_at = kafka.committed(config.group_id, config.pages_in)
    assert killed_at < len(messages)  # it died with work left
    with spawn_processor(config, "restarted") as restarted:
        producing.join(timeout=60)
        kafka.wait_committed(config.group_id, config.pages_in, len(messages), timeout_s=90)
        restarted.send_signal(signal.SIGTERM)
        assert restarted.wait(timeout=30) == 0

    verdicts = kafka.json_values(config.verdicts)
    sources = {(v["source"]["partition"], v["source"]["offset"]) for v in verdicts}
    inputs = {(record.partition, record.offset) for record in kafka.read_all(config.pages_in)}
    assert inputs == sources
    assert len(inputs) == len(messages)
    final = {v["url"]: v["action"] for v in verdicts}
    with DedupFilter.open(config.index_dir, Config.default()) as dedup:
        rechecked = dedup.check_pages(
            [(url, json.loads(value)["body"].encode(), None) for url, value in messages]
        )
    assert {d.url: d.action for d in rechecked} == final
    assert sum(action == "keep" for action in final.values()) == len(
        {json.loads(v)["body"] for _, v in messages}
    )


def _trickle(kafka, topic, messages) -> None:
    """Produce a few records at a time, so the processor is mid-stream whenever it is killed."""
    for start in range(0, len(messages), 10):
        chunk = messages[start : start + 10]
        kafka.produce(topic, [value for _, value in chunk], keys=[key.encode() for key, _ in chunk])
        time.sleep(0.1)


def test_a_broker_outage_is_waited_out(
    kafka_factory, stream_config, processor_thread, page_messages
):
    messages = page_messages()
    backlog, later = messages[:-32], messages[-32:]
    with LocalBroker() as broker:
        kafka = kafka_factory(broker.bootstrap_servers)
        config = replace(
            stream_config,
            bootstrap_servers=(broker.bootstrap_servers,),
            flush_timeout_s=1.5,
            max_poll_records=5,
        )
        kafka.create_topics(config)
        kafka.produce(config.pages_in, [value for _, value in backlog])
        with processor_thread(config) as metrics:
            deadline = time.monotonic() + 60
            while not metrics.totals["commit"] and time.monotonic() < deadline:
                time.sleep(0.01)
            broker.pause()  # mid-backlog: deliveries and commits now time out
            assert metrics.totals["records"] < len(backlog)
            time.sleep(4)
            broker.resume()
            kafka.produce(config.pages_in, [value for _, value in later])
            kafka.wait_committed(config.group_id, config.pages_in, len(messages), timeout_s=90)
        offsets = {v["source"]["offset"] for v in kafka.json_values(config.verdicts)}
    assert offsets == set(range(len(messages)))
    assert metrics.totals["delivery_retry"] + metrics.totals["commit_retry"] >= 1


def test_a_thousand_malformed_records_all_become_dead_letters(
    kafka, stream_config, processor_thread, page_messages
):
    kafka.create_topics(stream_config)
    bad = _malformed_values()
    good = [value for _, value in page_messages(hosts=2, modules=5)]
    values = bad[:500] + good + bad[500:]
    with processor_thread(stream_config):
        keys = [
            b"tombstone" if value is None else None for value in values
        ]  # a tombstone has a key
        kafka.produce(stream_config.pages_in, values, keys=keys)
        kafka.wait_committed(
            stream_config.group_id, stream_config.pages_in, len(values), timeout_s=90
        )
    dead = kafka.read_all(stream_config.dead_letters)
    assert len(dead) == len(bad) == 1000
    bad_offsets = [i for i in range(len(values)) if i < 500 or i >= 500 + len(good)]
    assert [
        int(dict(record.headers)["dedup.source"].rsplit(b"/", 1)[1]) for record in dead
    ] == bad_offsets
    assert [record.value for record in dead if len(record.value) < 1000] == [
        v or b"" for v in bad if v is None or len(v) < 1000
    ]
    cut = [record for record in dead if len(record.value) == stream_config.max_message_bytes]
    assert sorted(int(dict(record.headers)["dedup.original_bytes"]) for record in cut) == sorted(
        len(v) for v in bad if v is not None and len(v) > stream_config.max_message_bytes
    )
    assert len(kafka.read_all(stream_config.verdicts)) == len(good)


def _malformed_values() -> list[bytes | None]:
    """Not JSON, wrong fields, binary, huge, deeply nested, empty: 1,000 records, not one a page."""
    not_json = [f"<html>page {i} with no URL anywhere</html>".encode() for i in range(200)]
    wrong_fields = [json.dumps(doc).encode() for doc in _wrong_documents()] * 12
    binary = [os.urandom(64 + i) for i in range(300)]
    huge = [b"{" + b"x" * 1_500_000 for _ in range(3)] + [b"<" * 2_000_000 for _ in range(2)]
    nested = [b'{"url": ' + b"[" * 100_000 + b"]" * 100_000 + b"}" for _ in range(5)]
    empty = [None] * 40 + [b""] * 40 + [b"{}"] * 20
    values = not_json + wrong_fields + binary + huge + nested + empty
    return values + [b"\xff\xfe{not utf-8" for _ in range(1000 - len(values))]


def _wrong_documents() -> list[object]:
    return [
        {"body": "<p>no url</p>"},
        {"url": 7, "body": ""},
        {"url": "/relative/path", "body": ""},
        {"url": "http://a.example/"},
        {"url": "http://a.example/", "body": "x", "body_b64": "eA=="},
        {"url": "http://a.example/", "body_b64": "not base64!"},
        {"url": "http://a.example/", "body": 12},
        {"url": "http://a.example/", "body": "", "schema": 2},
        {"url": "http://a.example/", "body": "", "headers": []},
        {"url": "http://a.example/", "body": "", "status": "200"},
        ["url", "body"],
        "a string",
        42,
        None,
        {"url": "http://a.example/", "body": "", "headers": {"X": {"nested": 1}}},
        {"url": "http://a.example/", "body": "", "fetched_at": {}},
        {"url": "", "body": ""},
        {"url": "http://a.example/ space", "body": ""},
        {"url": "mailto:someone", "body": ""},
        {"url": "http://a.example/", "body": "", "content_type": 5},
        {"url": "http://a.example/", "body": "", "schema": True},
        {"url": ["http://a.example/"], "body": ""},
        {"url": "http://", "body": ""},
        {"url": "http://a.example/", "body_b64": 3},
        {"url": None, "body": ""},
    ]
