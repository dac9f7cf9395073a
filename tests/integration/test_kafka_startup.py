"""Start-up as a user meets it: the console script, the environment, client settings, no broker."""

from __future__ import annotations

import logging
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from dedup_filter.streams import kafka_io
from dedup_filter.streams.service import BrokerUnreachableError, serve

from dedup_filter import Config
from testweb.broker import free_port

from .conftest import write_config

CONSOLE_SCRIPT = str(Path(sys.executable).with_name("dedup-filter"))
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING|ERROR) ")


def stream_command(*argv: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CONSOLE_SCRIPT, "stream", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )


def test_a_closed_port_ends_the_process_with_one_timestamped_error_line(tmp_path):
    closed = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    process = stream_command(
        "--bootstrap-servers",
        closed,
        "--index",
        str(tmp_path / "index"),
        "--set",
        "stream.connect_timeout_s=3",
        "--set",
        "stream.retry_backoff_s=0.1",
    )
    output, _ = process.communicate(timeout=60)
    lines = output.splitlines()
    assert process.returncode == 1, output
    assert time.monotonic() - started < 30
    assert all(TIMESTAMP.match(line) for line in lines), output
    errors = [line for line in lines if " ERROR " in line]
    assert len(errors) == 1, output
    assert f"broker {closed} unreachable for 3 s (stream.connect_timeout_s)" in errors[0]
    assert "ECONNREFUSED" in errors[0]
    assert len(lines) <= 3, output  # the warning that it waits, the error; no kafka-python flood


def test_kafka_bootstrap_servers_overrides_the_file(kafka, stream_config, page_messages, tmp_path):
    """The file names a closed port; the environment names the real broker, and wins."""
    config = replace(stream_config, bootstrap_servers=(f"127.0.0.1:{free_port()}",))
    kafka.create_topics(config)
    values = [value for _, value in page_messages(hosts=2, modules=4)]
    kafka.produce(config.pages_in, values)
    process = stream_command(
        "--config",
        str(write_config(config, tmp_path / "stream.toml")),
        env={"KAFKA_BOOTSTRAP_SERVERS": kafka.bootstrap_servers},
    )
    try:
        kafka.wait_committed(config.group_id, config.pages_in, len(values))
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    assert f"on {kafka.bootstrap_servers}; index" in output
    assert len(kafka.json_values(config.verdicts)) == len(values)


def test_kafka_settings_reach_both_clients(kafka, stream_config):
    config = replace(
        stream_config,
        kafka={"metadata_max_age_ms": 12_345, "compression_type": "gzip", "fetch_min_bytes": 2},
    )
    consumer, producer = kafka_io.make_consumer(config), kafka_io.make_producer(config)
    try:
        assert (consumer.config["metadata_max_age_ms"], consumer.config["fetch_min_bytes"]) == (
            12_345,
            2,
        )
        assert (producer.config["metadata_max_age_ms"], producer.config["compression_type"]) == (
            12_345,
            "gzip",
        )
    finally:
        consumer.close(autocommit=False)
        producer.close()


@pytest.mark.filterwarnings("ignore:ssl.PROTOCOL_TLS is deprecated:DeprecationWarning")
def test_a_security_protocol_the_broker_does_not_speak_stops_start_up(kafka, stream_config):
    """SSL towards the plaintext broker: the setting reached the client, which never connects."""
    config = replace(
        stream_config,
        connect_timeout_s=2.0,
        kafka={"security_protocol": "SSL", "ssl_check_hostname": False},
    )
    with pytest.raises(BrokerUnreachableError, match="unreachable for 2 s"):
        serve(config, Config.default(), threading.Event())


def test_with_no_connect_timeout_it_waits_until_stopped(stream_config, caplog):
    """``connect_timeout_s = 0``: waits for the broker for ever, quietly; a stop ends it cleanly."""
    config = replace(
        stream_config,
        bootstrap_servers=(f"127.0.0.1:{free_port()}",),
        connect_timeout_s=0.0,
        retry_backoff_s=0.1,
        max_retry_backoff_s=0.2,
    )
    caplog.set_level(logging.INFO, logger="dedup_filter.streams")
    stop = threading.Event()
    timer = threading.Timer(6.0, stop.set)
    timer.start()
    try:
        serve(config, Config.default(), stop)  # returns, raises nothing
    finally:
        timer.cancel()
    messages = [record.getMessage() for record in caplog.records if record.levelname != "DEBUG"]
    assert [m for m in messages if "unreachable" in m] == [
        f"broker {config.bootstrap_servers[0]} unreachable (Closing connection. "
        "KafkaConnectionError: 111 ECONNREFUSED); retrying until it answers"
    ]
    assert "stopped before the broker was reached" in messages
    assert not any(record.name.startswith("kafka") for record in caplog.records)
