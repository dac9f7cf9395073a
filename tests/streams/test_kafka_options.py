"""``[stream.kafka]`` and ``--kafka-option``: kafka-python settings checked, then passed through."""

from __future__ import annotations

import argparse

import pytest
from dedup_filter.streams.config import StreamConfig, load_stream_config
from dedup_filter.streams.kafka_options import client_options
from dedup_filter.streams.options import add_arguments, configs_from_args

from dedup_filter import ConfigError


def parse_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_each_client_gets_the_settings_it_accepts():
    config = StreamConfig(
        kafka={
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "SCRAM-SHA-512",
            "sasl_plain_password": "secret",
            "fetch_max_wait_ms": 100,
            "linger_ms": 20,
            "api_version": "2.8.0",
        }
    )
    consumer, producer = client_options(config)
    shared = {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_password": "secret",
        "api_version": (2, 8, 0),
    }
    assert consumer == shared | {"fetch_max_wait_ms": 100}
    assert producer == shared | {"linger_ms": 20}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"security_protocl": "SSL"}, r"stream\.kafka\.security_protocl: not a kafka-python"),
        ({"security_protocol": "TLS"}, r"stream\.kafka\.security_protocol: must be one of"),
        ({"sasl_mechanism": "MD5"}, r"stream\.kafka\.sasl_mechanism: must be one of"),
        ({"group_id": "g"}, r"stream\.kafka\.group_id: use stream\.group_id"),
        ({"enable_auto_commit": True}, r"enable_auto_commit: the processor commits offsets"),
        ({"acks": 1}, r"stream\.kafka\.acks: every output waits"),
        ({"linger_ms": "5"}, r"stream\.kafka\.linger_ms: must be a number"),
        ({"linger_ms": 2.5}, r"stream\.kafka\.linger_ms: must be an integer"),
        ({"ssl_check_hostname": "no"}, r"ssl_check_hostname: must be a bool"),
        ({"partitioner": "murmur2"}, r"stream\.kafka\.partitioner: a Python object"),
        ({"ssl_context": "x"}, r"stream\.kafka\.ssl_context: a Python object"),
        ({"api_version": "two"}, r"stream\.kafka\.api_version: must be a version"),
    ],
)
def test_bad_settings_fail_naming_the_key(settings, message):
    with pytest.raises(ConfigError, match=message):
        client_options(StreamConfig(kafka=settings))


def test_a_nested_table_is_refused_when_the_file_is_read(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[stream.kafka.ssl]\ncafile = 'ca.pem'\n")
    with pytest.raises(ConfigError, match=r"stream\.kafka\.ssl: must be a value, not a table"):
        load_stream_config(path)


def test_command_line_settings_override_the_file_setting_by_setting(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        '[stream.kafka]\nsecurity_protocol = "SSL"\nssl_cafile = "/etc/ca.pem"\nlinger_ms = 5\n'
    )
    stream_config, _ = configs_from_args(
        parse_args(
            "--config",
            str(path),
            "--kafka-option",
            "security_protocol=SASL_SSL",
            "--kafka-option",
            "sasl_plain_username=crawler",
            "--set",
            "stream.kafka.linger_ms=50",
            "--set",
            "stream.kafka={fetch_min_bytes=2}",
        )
    )
    assert stream_config.kafka == {
        "security_protocol": "SASL_SSL",
        "ssl_cafile": "/etc/ca.pem",
        "sasl_plain_username": "crawler",
        "linger_ms": 50,
        "fetch_min_bytes": 2,
    }


def test_a_kafka_option_without_a_value_is_a_configuration_error():
    with pytest.raises(ConfigError, match=r"--kafka-option 'security_protocol': expected KEY="):
        configs_from_args(parse_args("--kafka-option", "security_protocol"))


def test_the_environment_names_the_brokers_between_file_and_flag(tmp_path, monkeypatch):
    path = tmp_path / "c.toml"
    path.write_text('[stream]\nbootstrap_servers = ["file:9092"]\n')
    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "env1:9092,env2:9092")
    from_env, _ = configs_from_args(parse_args("--config", str(path)))
    assert from_env.bootstrap_servers == ("env1:9092", "env2:9092")
    from_flag, _ = configs_from_args(
        parse_args("--config", str(path), "--bootstrap-servers", "flag:9092")
    )
    assert from_flag.bootstrap_servers == ("flag:9092",)
    monkeypatch.delenv("KAFKA_BOOTSTRAP_SERVERS")
    from_file, _ = configs_from_args(parse_args("--config", str(path)))
    assert from_file.bootstrap_servers == ("file:9092",)
