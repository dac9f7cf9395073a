"""Configuration: configs/default.toml documents every key; bad keys fail naming the dotted key."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from dedup_filter import Config, ConfigError

DEFAULT_TOML = Path(__file__).resolve().parents[2] / "configs" / "default.toml"
KEY_LINE = re.compile(r"^([a-z_]+)\s*=")


def test_default_toml_loads_to_the_defaults():
    assert Config.load(DEFAULT_TOML) == Config.default()


def test_default_toml_names_every_field_of_every_section():
    tables = tomllib.loads(DEFAULT_TOML.read_text())["dedup"]
    default = Config.default()
    expected = {
        section.name: {key.name for key in dataclasses.fields(getattr(default, section.name))}
        for section in dataclasses.fields(Config)
    }
    assert {name: set(table) for name, table in tables.items()} == expected


def test_default_toml_comments_every_key():
    lines = DEFAULT_TOML.read_text().splitlines()
    undocumented = [
        line
        for number, line in enumerate(lines)
        if KEY_LINE.match(line) and not lines[number - 1].startswith("#")
    ]
    assert undocumented == []


@pytest.mark.parametrize(
    ("data", "dotted_key"),
    [
        ({"minhash": {"num_perms": 84}}, "dedup.minhash.num_perms"),
        ({"simhash": {"bits": 384, "treshold": 1}}, "dedup.simhash.treshold"),
        ({"minhashes": {}}, "dedup.minhashes"),
        ({"text": {"min_tokens": "30"}}, "dedup.text.min_tokens"),
        ({"text": {"min_tokens": 30.0}}, "dedup.text.min_tokens"),
        ({"index": {"sync": 1}}, "dedup.index.sync"),
        ({"mirror": {"mode": 1}}, "dedup.mirror.mode"),
        ({"mirror": {"index_names": "index"}}, "dedup.mirror.index_names"),
        ({"mirror": {"index_names": ["index", 3]}}, "dedup.mirror.index_names"),
        ({"mirror": {"min_resemblance": True}}, "dedup.mirror.min_resemblance"),
        ({"simhash": []}, "dedup.simhash"),
        ({"simhash": {"bits": 100}}, "dedup.simhash.bits"),
        ({"simhash": {"bands": 0}}, "dedup.simhash.bands"),
        ({"simhash": {"cross_site_threshold": 400}}, "dedup.simhash.cross_site_threshold"),
        ({"minhash": {"num_perm": 85}}, "dedup.minhash.num_perm"),
        ({"minhash": {"min_shared_features": 7}}, "dedup.minhash.min_shared_features"),
        ({"text": {"fallback_encoding": "no-such-codec"}}, "dedup.text.fallback_encoding"),
        ({"index": {"map_size_mb": 128, "max_map_size_mb": 64}}, "dedup.index.max_map_size_mb"),
        ({"index": {"shard_id": 1 << 16}}, "dedup.index.shard_id"),
        ({"mirror": {"mode": "telepathy"}}, "dedup.mirror.mode"),
        ({"mirror": {"min_resemblance": 0.0}}, "dedup.mirror.min_resemblance"),
    ],
)
def test_bad_values_raise_config_error_naming_the_key(data, dotted_key):
    with pytest.raises(ConfigError, match=re.escape(dotted_key)):
        Config.from_dict(data)


def test_load_reports_the_dotted_key_of_a_bad_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[dedup.minhash]\nnum_perm = 84\nseeed = 3\n")
    with pytest.raises(ConfigError, match=re.escape("dedup.minhash.seeed")):
        Config.load(path)


def test_load_rejects_invalid_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[dedup.minhash\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Config.load(path)


def test_load_ignores_tables_of_other_parts(tmp_path):
    path = tmp_path / "combined.toml"
    path.write_text('[stream]\ninput_topic = "pages"\n\n[dedup.simhash]\nbits = 256\n')
    assert Config.load(path) == Config.default().with_overrides({"simhash.bits": 256})


def test_config_error_is_a_value_error():
    with pytest.raises(ValueError, match=re.escape("dedup.text.min_tokens")):
        Config.from_dict({"text": {"min_tokens": -1}})


def test_with_overrides_replaces_dotted_keys_and_keeps_the_rest():
    config = Config.default().with_overrides({"simhash.bits": 256, "dedup.text.min_tokens": 10})
    assert (config.simhash.bits, config.text.min_tokens) == (256, 10)
    assert config.minhash == Config.default().minhash


def test_with_overrides_validates_like_load():
    with pytest.raises(ConfigError, match=re.escape("dedup.simhash.bits")):
        Config.default().with_overrides({"simhash.bits": 100})
    with pytest.raises(ConfigError, match=re.escape("dedup.simhash.nope")):
        Config.default().with_overrides({"simhash.nope": 1})
    with pytest.raises(ConfigError, match=re.escape("expected <table>.<key>")):
        Config.default().with_overrides({"bits": 256})


def test_sequences_load_as_tuples_so_the_config_stays_hashable():
    config = Config.from_dict({"mirror": {"index_names": ["index", "start"]}})
    assert config.mirror.index_names == ("index", "start")
    assert hash(config) == hash(Config.from_dict({"mirror": {"index_names": ["index", "start"]}}))


def test_integers_given_for_fractions_load_as_floats():
    config = Config.from_dict({"mirror": {"min_resemblance": 1}})
    assert type(config.mirror.min_resemblance) is float


def test_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Config.default().minhash.num_perm = 42  # type: ignore[misc]


@pytest.mark.parametrize(
    "override",
    [
        {"minhash.shingle_width": 7},
        {"minhash.num_perm": 90},
        {"minhash.features": 7, "minhash.num_perm": 84},
        {"minhash.seed": 3},
        {"minhash.sketch_bits": 1},
        {"simhash.bits": 256},
        {"simhash.bands": 8},
        {"simhash.seed": 5},
    ],
)
def test_fingerprint_changes_with_persisted_parameters(override):
    assert Config.default().with_overrides(override).fingerprint() != Config.default().fingerprint()


@pytest.mark.parametrize(
    "override",
    [
        {"index.map_size_mb": 128},
        {"index.sync": False},
        {"text.max_depth": 500},
        {"minhash.min_shared_features": 3},
        {"minhash.min_resemblance": 0.9},
        {"minhash.short_page_tokens": 300},
        {"minhash.short_page_resemblance": 0.9},
        {"simhash.same_site_threshold": 360},
        {"simhash.cross_site_threshold": 380},
        {"mirror.samples": 8},
    ],
)
def test_fingerprint_ignores_parameters_that_do_not_change_stored_bytes(override):
    assert Config.default().with_overrides(override).fingerprint() == Config.default().fingerprint()


def test_fingerprint_is_short_and_stable_across_instances():
    fingerprint = Config.default().fingerprint()
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint)
    assert Config.load(DEFAULT_TOML).fingerprint() == fingerprint
