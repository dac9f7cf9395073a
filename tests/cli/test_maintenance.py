"""``stats`` and ``gc``: counts and sizes of an index, and removal of pages not seen lately."""

from __future__ import annotations

import json
import time

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.cli import main
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.maintenance import PAGE_TABLES, collect_garbage, index_stats, parse_duration

from .conftest import near_copy

DAY = 86_400.0
MODULES = ("csv", "heapq", "json", "textwrap", "difflib")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def aged_index(tmp_path, stdlib_page):
    """csv, heapq, json seen 40 days ago (csv seen again yesterday); textwrap, difflib yesterday."""
    config = Config.default()
    clock = Clock(1_000_000_000.0)
    path = tmp_path / "index"
    pages = [(f"http://a.example/{name}", stdlib_page(name).encode()) for name in MODULES]
    with DedupFilter(LmdbIndex.open(path, config), config, clock=clock) as dedup:
        dedup.check_pages(pages[:3])
        clock.now += 39 * DAY
        dedup.check_pages(pages[2:])
        assert dedup.check_page(*pages[0]).reason == "unchanged"
    return path, clock.now + DAY


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30d", 30 * DAY),
        ("12h", 43_200),
        ("90m", 5400),
        ("45s", 45),
        ("2w", 14 * DAY),
        ("1h30m", 5400),
        ("0.5d", DAY / 2),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "30", "d", "30x", "1h 30m", "-5m", "30d!"])
def test_parse_duration_rejects_malformed_durations(text):
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


def test_gc_removes_pages_not_seen_since_and_keeps_fresh_ones(aged_index, stdlib_page):
    path, now = aged_index
    index = LmdbIndex.open(path, Config.default())
    assert collect_garbage(index, 30 * DAY, now) == 1  # heapq; json and csv were seen again
    with index.read() as view:
        assert sorted(record.url for record in view.pages()) == [
            f"http://a.example/{name}" for name in sorted(("csv", "json", "textwrap", "difflib"))
        ]
    index.close()


def test_gc_deletes_features_so_a_copy_of_a_removed_page_is_unique_again(aged_index, stdlib_page):
    path, now = aged_index
    config = Config.default()
    index = LmdbIndex.open(path, config)
    collect_garbage(index, 30 * DAY, now)
    stats = index_stats(index)
    assert stats["pages"] == 4
    assert {table: stats["tables"][table] for table in ("urls", "exact")} == {"urls": 4, "exact": 4}
    assert stats["tables"]["features"] == 4 * config.minhash.features
    with DedupFilter(index, config) as dedup:
        copy = near_copy(stdlib_page("heapq")).encode()
        assert dedup.check_page("http://b.example/heapq", copy).reason == "unique"
        again = dedup.check_page("http://b.example/json", stdlib_page("json").encode())
        assert again.reason == "exact_duplicate"


def test_gc_in_small_batches_removes_every_stale_page(aged_index):
    path, now = aged_index
    index = LmdbIndex.open(path, Config.default())
    assert collect_garbage(index, 0, now, batch_size=2) == 5
    tables = index_stats(index)["tables"]
    assert {table: tables[table] for table in PAGE_TABLES} == dict.fromkeys(PAGE_TABLES, 0)
    index.close()


def test_stats_counts_tables_and_bytes_per_page(aged_index):
    path, _ = aged_index
    index = LmdbIndex.open(path, Config.default())
    stats = index_stats(index)
    index.close()
    assert stats["pages"] == len(MODULES)
    assert stats["tables"]["bands"] == len(MODULES) * Config.default().simhash.bands
    assert stats["bytes_per_page"] == pytest.approx(stats["disk_bytes"] / len(MODULES), abs=0.1)
    assert stats["config_fingerprint"] == Config.default().fingerprint()
    assert stats["params"]["simhash.bits"] == 384


def test_stats_command_prints_json_and_text(aged_index, capsys):
    path, _ = aged_index
    assert main(["stats", "--index", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pages"] == len(MODULES)
    assert main(["stats", "--index", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"pages            {len(MODULES)}" in out
    assert "bytes per page" in out


def test_gc_command_measures_age_against_the_wall_clock(tmp_path, stdlib_page, capsys):
    config = Config.default()
    clock = Clock(time.time() - 2 * DAY)
    path = tmp_path / "index"
    with DedupFilter(LmdbIndex.open(path, config), config, clock=clock) as dedup:
        dedup.check_page("http://a.example/old", stdlib_page("csv").encode())
        clock.now = time.time()
        dedup.check_page("http://a.example/new", stdlib_page("json").encode())
    assert main(["gc", "--index", str(path), "--older-than", "1d"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == "pages removed: 1 (not seen for 1d); pages remaining: 1"


@pytest.mark.parametrize("command", ["stats", "gc"])
def test_missing_index_exits_1_and_creates_nothing(tmp_path, capsys, command):
    extra = ["--older-than", "1d"] if command == "gc" else []
    assert main([command, "--index", str(tmp_path / "none"), *extra]) == 1
    assert "no index at" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def test_index_built_with_other_parameters_exits_1_naming_them(aged_index, capsys):
    path, _ = aged_index
    assert main(["stats", "--index", str(path), "--set", "simhash.bits=256"]) == 1
    assert "simhash.bits" in capsys.readouterr().err


def test_gc_rejects_a_malformed_duration_with_exit_2(aged_index, capsys):
    path, _ = aged_index
    assert main(["gc", "--index", str(path), "--older-than", "soon"]) == 2
    assert "invalid duration 'soon'" in capsys.readouterr().err


def test_a_drop_keeps_its_original_alive_through_gc(tmp_path, stdlib_page):
    config = Config.default()
    clock = Clock(1_000_000_000.0)
    original = stdlib_page("heapq").encode()
    with DedupFilter(LmdbIndex.open(tmp_path / "index", config), config, clock=clock) as dedup:
        dedup.check_page("http://a.example/heapq", original)
        clock.now += 40 * DAY
        assert dedup.check_page("http://b.example/heapq", original).dropped
        assert collect_garbage(dedup.index, 30 * DAY, clock.now + DAY) == 0
        later = dedup.check_page("http://c.example/heapq", near_copy(original.decode()).encode())
        assert later.duplicate_of == "http://a.example/heapq"
