"""Counters and lag as Prometheus metrics over HTTP, and the periodic summary line."""

from __future__ import annotations

import logging
import time
import urllib.request

import pytest
from dedup_filter.streams.metrics import StreamMetrics
from prometheus_client import generate_latest

from dedup_filter import Decision
from testweb.broker import free_port


def test_counters_and_lag_are_served_over_http():
    metrics = StreamMetrics()
    metrics.consumed("pages", 3)
    metrics.page_decided(
        Decision("http://a.example/", "drop", "exact_duplicate", "http://b.example/")
    )
    metrics.set_lag("pages", 1, 42)
    port = free_port()
    metrics.serve(port, "127.0.0.1")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode()
    finally:
        metrics.close()
    assert 'dedup_stream_records_total{topic="pages"} 3.0' in text
    assert 'dedup_stream_pages_total{action="drop",reason="exact_duplicate"} 1.0' in text
    assert 'dedup_stream_consumer_lag{partition="1",topic="pages"} 42.0' in text


def test_the_summary_line_counts_since_the_last_one(caplog):
    now = [0.0]
    metrics = StreamMetrics(clock=lambda: now[0])
    metrics.consumed("pages", 10)
    metrics.page_decided(Decision("http://a.example/", "keep", "unique"))
    with caplog.at_level(logging.INFO, logger="dedup_filter.streams.metrics"):
        metrics.maybe_log(60)
        now[0] = 61.0
        metrics.maybe_log(60)
        metrics.consumed("pages", 4)
        now[0] = 122.0
        metrics.maybe_log(60)
    assert [record.getMessage().split(" in ")[0] for record in caplog.records] == [
        "stream: 10 records",
        "stream: 4 records",
    ]
    assert "pages 1 kept, 0 dropped" in caplog.records[0].getMessage()


def test_a_revoked_partition_stops_counting_towards_lag():
    metrics = StreamMetrics()
    metrics.set_lag("pages", 0, 5)
    metrics.set_lag("pages", 1, 7)
    metrics.forget_lag("pages", 0)
    metrics.forget_lag("pages", 9)
    assert metrics.lag == 7


def test_stage_times_add_up_and_are_served():
    metrics = StreamMetrics()
    for _ in range(2):
        with metrics.timed("prepare"):
            time.sleep(0.01)
    with pytest.raises(ZeroDivisionError), metrics.timed("index"):
        _ = 1 / 0  # a failing stage still counts its time
    assert metrics.stage_seconds["prepare"] >= 0.02
    assert set(metrics.stage_seconds) == {"prepare", "index"}
    text = generate_latest(metrics.registry).decode()
    assert 'dedup_stream_stage_seconds_total{stage="prepare"}' in text
