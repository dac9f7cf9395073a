"""DEDUP_* settings: paths, the core's configuration, and failures that name the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dedup_filter.scrapy.settings import read_settings
from scrapy.settings import Settings

from dedup_filter import Config, ConfigError


def test_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside a Scrapy project: .scrapy/ of the working directory
    settings = read_settings(Settings())
    assert settings.index_path == Path(".scrapy", "dedup-index")
    assert settings.config == Config.default()
    assert settings.decision_log is None


def test_index_path_follows_the_project_data_dir(tmp_path, monkeypatch):
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = placeholder.settings\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE", raising=False)
    assert read_settings(Settings()).index_path == tmp_path / ".scrapy" / "dedup-index"


def test_a_data_dir_another_crawl_created_meanwhile_is_used(tmp_path, monkeypatch):
    """Two crawls starting at once in a new project: both find ``.scrapy`` absent, the other one
    creates it first, and this one's ``mkdir`` fails. Played here by creating the dir while
    Scrapy is told, once, that it is absent."""
    (tmp_path / "scrapy.cfg").write_text("[settings]\ndefault = placeholder.settings\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SCRAPY_SETTINGS_MODULE", raising=False)
    data_dir, exists = tmp_path / ".scrapy", Path.exists
    told = []

    def raced(path: Path, **kwargs: object) -> bool:
        if path == data_dir and not told:
            told.append(path)
            data_dir.mkdir()  # the other crawl got there first
            return False
        return exists(path, **kwargs)

    monkeypatch.setattr(Path, "exists", raced)
    assert read_settings(Settings()).index_path == data_dir / "dedup-index"
    assert told == [data_dir]


def test_absolute_index_path_is_kept(tmp_path):
    settings = read_settings(Settings({"DEDUP_INDEX_PATH": str(tmp_path / "ix")}))
    assert settings.index_path == tmp_path / "ix"


def test_config_file_then_overrides(tmp_path):
    toml = tmp_path / "dedup.toml"
    toml.write_text("[dedup.mirror]\nsamples = 2\n\n[dedup.text]\nmin_tokens = 10\n")
    settings = read_settings(
        Settings({"DEDUP_CONFIG": str(toml), "DEDUP_OVERRIDES": {"text.min_tokens": 50}})
    )
    assert (settings.config.mirror.samples, settings.config.text.min_tokens) == (2, 50)


def test_overrides_from_the_command_line_as_json():
    settings = read_settings(Settings({"DEDUP_OVERRIDES": '{"mirror.samples": 3}'}))
    assert settings.config.mirror.samples == 3


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"DEDUP_OVERRIDES": {"minhash.num_perm": 85}}, "DEDUP_OVERRIDES: dedup.minhash.num_perm"),
        ({"DEDUP_OVERRIDES": {"mirror.sample": 3}}, "dedup.mirror.sample"),
        ({"DEDUP_OVERRIDES": "{not json"}, "DEDUP_OVERRIDES"),
        ({"DEDUP_OVERRIDES": "[1, 2]"}, "DEDUP_OVERRIDES"),
        ({"DEDUP_CONFIG": "/nonexistent/dedup.toml"}, "DEDUP_CONFIG"),
        ({"DEDUP_PROBE_CACHE_SIZE": -1}, "DEDUP_PROBE_CACHE_SIZE"),
        ({"DEDUP_PROBE_CACHE_SIZE": "many"}, "DEDUP_PROBE_CACHE_SIZE"),
        ({"DEDUP_PREPARE_PROCESSES": -2}, "DEDUP_PREPARE_PROCESSES"),
    ],
)
def test_invalid_settings_fail_naming_the_key(values, named):
    with pytest.raises(ConfigError, match=re.escape(named)):
        read_settings(Settings(values))


def test_invalid_toml_key_fails_naming_it(tmp_path):
    toml = tmp_path / "dedup.toml"
    toml.write_text("[dedup.simhash]\nbits = 100\n")
    with pytest.raises(ConfigError, match=r"dedup\.simhash\.bits"):
        read_settings(Settings({"DEDUP_CONFIG": str(toml)}))
