"""The [stream] table: defaults, the documented file, unknown keys, and command-line precedence."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from dedup_filter.streams.config import StreamConfig, load_stream_config
from dedup_filter.streams.options import add_arguments, configs_from_args

from dedup_filter import Config, ConfigError

DEFAULT_TOML = Path(__file__).parents[2] / "configs" / "default.toml"


def parse_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_documented_file_gives_exactly_the_defaults():
    assert load_stream_config(DEFAULT_TOML) == (StreamConfig(), Config.default())


def test_unknown_keys_fail_naming_the_key(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[stream]\ngroup_idd = "x"\n')
    with pytest.raises(ConfigError, match=r"stream\.group_idd: unknown key"):
        load_stream_config(path)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"poll_timeout_ms": "500"}, r"stream\.poll_timeout_ms: must be a number"),
        ({"poll_timeout_ms": 0}, r"stream\.poll_timeout_ms: must be >= 1"),
        (
            {"bootstrap_servers": ["localhost"]},
            r"stream\.bootstrap_servers: every entry must be host:port",
        ),
        ({"pages_in": "", "urls_in": ""}, r"stream\.pages_in: pages_in or urls_in must be set"),
        ({"auto_offset_reset": "none"}, r"stream\.auto_offset_reset"),
        ({"max_retry_backoff_s": 0.1}, r"stream\.max_retry_backoff_s"),
        ({"workers": 0}, r"stream\.workers: must lie in 1\.\.64"),
        ({"worker_timeout_s": 0}, r"stream\.worker_timeout_s: must be > 0"),
    ],
)
def test_invalid_values_fail_naming_the_key(table, message):
    with pytest.raises(ConfigError, match=message):
        StreamConfig.from_dict(table)


def test_flags_override_set_which_overrides_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        '[stream]\ngroup_id = "file"\nindex_dir = "file-index"\n[dedup.simhash]\nbits = 256\n'
    )
    args = parse_args(
        "--config",
        str(path),
        "--set",
        'stream.group_id="set"',
        "--set",
        "stream.index_dir=set-index",
        "--group-id",
        "flag",
        "--bootstrap-servers",
        "h1:9092,h2:9092",
        "--set",
        "minhash.seed=7",
    )
    stream_config, config = configs_from_args(args)
    assert (stream_config.group_id, stream_config.index_dir) == ("flag", "set-index")
    assert stream_config.bootstrap_servers == ("h1:9092", "h2:9092")
    assert (config.simhash.bits, config.minhash.seed) == (256, 7)


def test_the_workers_flag_overrides_the_file(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[stream]\nworkers = 4\n")
    stream_config, _ = configs_from_args(parse_args("--config", str(path), "--workers", "2"))
    assert stream_config.workers == 2


def test_an_unreadable_file_is_a_configuration_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_stream_config(tmp_path / "missing.toml")


def test_the_documented_file_sets_every_key():
    import tomllib
    from dataclasses import fields

    with open(DEFAULT_TOML, "rb") as handle:
        documented = set(tomllib.load(handle)["stream"])
    assert documented == {spec.name for spec in fields(StreamConfig)}
