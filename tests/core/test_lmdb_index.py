"""The shared LMDB index: records and postings, parameter stamps, map growth, atomic batches,
several writing processes at once, and a writer killed with SIGKILL."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from dedup_filter import Config, ConfigError, IndexFullError, IndexMismatchError
from dedup_filter.features.simhash import band_keys
from dedup_filter.index.lmdb_index import LmdbIndex, PageRecord, encode_id

WORKERS = Path(__file__).with_name("lmdb_writers.py")


@pytest.fixture(scope="module")
def writers():
    """The worker module, importable here and in spawned children (they inherit sys.path)."""
    sys.path.insert(0, str(WORKERS.parent))
    try:
        import lmdb_writers

        yield lmdb_writers
    finally:
        sys.path.remove(str(WORKERS.parent))


def spread(value: int) -> int:
    """A distinct 64-bit value whose leading bytes differ too (postings keep only those)."""
    return value * 0x9E3779B97F4A7C15 % (1 << 64)


def record(page_id: int, url: str, seed: int = 0) -> PageRecord:
    features = tuple(spread(value) for value in range(seed * 10 + 1, seed * 10 + 7))
    simhash = bytes((seed + i) % 256 for i in range(48))
    sketch = bytes((seed * 7 + i) % 256 for i in range(21))
    exact = spread(1000 + seed)
    return PageRecord(page_id, url, exact, 120, features, simhash, 1_700_000_000.0, 0, sketch)


def posting_keys(page: PageRecord) -> list[tuple[str, bytes]]:
    keys = [("exact", page.exact.to_bytes(8, "big"))]
    keys += [("features", feature.to_bytes(8, "big")) for feature in page.features]
    return keys + [("bands", key) for key in band_keys(page.simhash, 12)]


def count_pages(path: Path, config: Config | None = None) -> int:
    index = LmdbIndex.open(path, config or Config.default())
    try:
        with index.read() as view:
            return view.count("pages")
    finally:
        index.close()


def stored_urls(path: str | Path) -> set[str]:
    """Every page URL in the index, checking that the URL table points back at each page."""
    index = LmdbIndex.open(path, Config.default())
    try:
        with index.read() as view:
            pages = list(view.pages())
            assert all(view.page_id_for_url(page.url) == page.page_id for page in pages)
            return {page.url for page in pages}
    finally:
        index.close()


def stored(index: LmdbIndex, page: PageRecord) -> tuple[PageRecord | None, int]:
    """The record as the index gives it back after storing ``page``, and its bytes."""
    index.transact(lambda view: view.put_page(page))
    with index.read() as view:
        return view.page(page.page_id), len(view.get("pages", encode_id(page.page_id)) or b"")


def test_record_round_trips_through_its_encoding(tmp_index):
    page = record(7, "http://h.example/\udc80caf\u00e9.html", seed=3)
    assert stored(tmp_index, page)[0] == page
    with_code = replace(page, code=0xC0DE_F00D, page_id=8)
    assert stored(tmp_index, with_code)[0] == with_code
    apart, apart_bytes = stored(tmp_index, replace(page, page_id=9, title_apart=True))
    assert apart.title_apart
    assert apart_bytes == stored(tmp_index, page)[1]  # a bit of the flags' byte


def test_a_records_simhash_reads_without_decoding_it(tmp_index):
    """The near-duplicate search screens candidates by it: every flag and size shifts it."""
    page = record(7, "http://h.example/a.html", seed=3)
    variants = [
        page,
        replace(page, page_id=8, title=0xABCD_0123, code=0xC0DE_F00D, token_count=70_000),
        replace(page, page_id=11, title_apart=True),
        replace(page, page_id=9, features=(), simhash=b""),
    ]
    for variant in variants:
        stored(tmp_index, variant)
    with tmp_index.read() as view:
        assert [view.page_simhash(variant.page_id) for variant in variants] == [
            variant.simhash for variant in variants
        ]
        assert view.page_simhash(10) is None


@pytest.mark.parametrize(
    "url",
    [
        "https://h.example/a",
        "ftp://h.example/\u00e9",
        "http:/x",
        "",
        "httpsx://h/",
        "http://h.example",
        "https://user@H.example:8080?q#f",
        "http:///a",
        "http://" + "h" * 300 + ".example/",
    ],
)
def test_every_url_and_large_counts_round_trip(tmp_index, url):
    page = replace(record(7, url, seed=1), token_count=2**40, title=2**32 - 1)
    assert stored(tmp_index, page)[0] == page


def test_a_record_keeps_its_host_as_a_number_and_no_title_or_code_it_lacks(tmp_index):
    first, first_bytes = stored(tmp_index, record(7, "http://a-long-host-name.example/x"))
    second, second_bytes = stored(tmp_index, record(8, "http://other.example/x"))
    titled, titled_bytes = stored(tmp_index, replace(first, page_id=9, title=1, code=2))
    assert [first.url, second.url] == [
        "http://a-long-host-name.example/x",
        "http://other.example/x",
    ]
    assert first_bytes == second_bytes  # one byte each for the two hosts' numbers
    assert (titled.title, titled.code, titled_bytes) == (1, 2, first_bytes + 8)


def test_a_record_keeps_the_super_shingle_bytes_its_postings_keep(tmp_index):
    page = replace(record(7, "http://h.example/"), features=(2**64 - 1, 2**24 - 1, 2**24))
    assert page.features == (2**64 - 2**24, 0, 2**24)
    assert stored(tmp_index, page)[1] == stored(tmp_index, replace(page, features=()))[1] + 3 * 5


def test_last_seen_is_kept_in_seconds_rounded_up_so_gc_never_removes_a_later_page(tmp_index):
    page = replace(record(7, "http://h.example/"), last_seen=1_700_000_000.25)
    assert stored(tmp_index, page)[0].last_seen == 1_700_000_001.0


@pytest.mark.parametrize("last_seen", [1_700_000_000.25, 1_700_000_000.0, -3.5, 2.0**40])
def test_a_write_reads_the_records_it_stores_as_a_reader_decodes_them(tmp_index, last_seen):
    """A write transaction keeps what it stores (``PageRecord.as_stored``), undecoded."""
    page = replace(record(7, "https://user@H.example:8080/\u00e9?q#f", seed=2), last_seen=last_seen)
    written = tmp_index.transact(lambda view: (view.put_page(page), view.page(7))[1])
    with tmp_index.read() as view:
        assert written == view.page(7)


def test_put_page_stores_record_url_and_postings(tmp_index):
    page = record(tmp_index.transact(lambda view: view.new_page_id()), "http://a.example/x")
    tmp_index.transact(lambda view: view.put_page(page))
    with tmp_index.read() as view:
        assert view.page(page.page_id) == page
        assert view.page_id_for_url(page.url) == page.page_id
        assert all(view.postings(table, key) == [page.page_id] for table, key in posting_keys(page))


def test_replacing_a_page_replaces_its_postings(tmp_index):
    old, new = record(1, "http://a.example/x", seed=0), record(1, "http://a.example/x", seed=1)
    tmp_index.transact(lambda view: view.put_page(old))
    tmp_index.transact(lambda view: view.put_page(new))
    with tmp_index.read() as view:
        assert view.page(1) == new
        assert all(view.postings(table, key) == [] for table, key in posting_keys(old))
        assert all(view.postings(table, key) == [1] for table, key in posting_keys(new))


def test_postings_accumulate_pages_in_id_order(tmp_index):
    pages = [record(page_id, f"http://a.example/{page_id}") for page_id in (9, 3, 5)]
    tmp_index.transact(lambda view: [view.put_page(page) for page in pages])
    with tmp_index.read() as view:
        assert view.postings("features", pages[0].features[0].to_bytes(8, "big")) == [3, 5, 9]


def test_delete_page_removes_record_url_and_postings(tmp_index):
    page = record(4, "http://a.example/gone")
    tmp_index.transact(lambda view: view.put_page(page))
    tmp_index.transact(lambda view: view.delete_page(page))
    with tmp_index.read() as view:
        assert (view.page(4), view.page_id_for_url(page.url)) == (None, None)
        assert all(view.postings(table, key) == [] for table, key in posting_keys(page))


def test_page_ids_are_unique_and_carry_the_shard_id(tmp_path):
    config = Config.default().with_overrides({"index.shard_id": 3})
    index = LmdbIndex.open(tmp_path / "shard", config)
    ids = [index.transact(lambda view: view.new_page_id()) for _ in range(5)]
    index.close()
    assert len(set(ids)) == 5
    assert {page_id >> 48 for page_id in ids} == {3}


def test_scan_returns_a_prefix_range_in_key_order(tmp_index):
    keys = [b"dir/b", b"dir/a", b"dir/a/x", b"other"]
    tmp_index.transact(lambda view: [view.put("dirs", key, b"v") for key in keys])
    with tmp_index.read() as view:
        assert [key for key, _ in view.scan("dirs", b"dir/")] == [b"dir/a", b"dir/a/x", b"dir/b"]


def test_reopening_with_the_same_parameters_keeps_the_pages(tmp_path, config):
    index = LmdbIndex.open(tmp_path / "index", config)
    index.transact(lambda view: view.put_page(record(1, "http://a.example/")))
    index.close()
    assert count_pages(tmp_path / "index", config.with_overrides({"index.map_size_mb": 8})) == 1


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ({"simhash.bits": 256}, "simhash.bits"),
        ({"simhash.bands": 8}, "simhash.bands"),
        ({"simhash.seed": 9}, "simhash.seed"),
        ({"minhash.seed": 9}, "minhash.seed"),
        ({"minhash.shingle_width": 5}, "minhash.shingle_width"),
        ({"minhash.num_perm": 90}, "minhash.num_perm"),
    ],
)
def test_reopening_with_other_parameters_names_the_differing_key(tmp_path, config, override, key):
    LmdbIndex.open(tmp_path / "index", config).close()
    with pytest.raises(IndexMismatchError, match=key.replace(".", r"\.")):
        LmdbIndex.open(tmp_path / "index", config.with_overrides(override))


def test_tiny_map_grows_and_keeps_every_page(tmp_path, writers):
    path = tmp_path / "growing"
    written, _, _ = writers.write_pages(str(path), "grow", batches=40, size=50)
    assert (path / "data.mdb").stat().st_size > 1 << 20
    assert count_pages(path) == written


def test_full_map_raises_index_full_and_keeps_committed_pages(tmp_path, writers):
    config = Config.default().with_overrides({"index.map_size_mb": 1, "index.max_map_size_mb": 1})
    index = LmdbIndex.open(tmp_path / "full", config)
    committed: list[str] = []

    def fill() -> None:
        for batch in range(1000):
            urls = writers.batch_urls("full", batch, 50)
            index.transact(functools.partial(writers.put_batch, urls=urls))
            committed.extend(urls)

    with pytest.raises(IndexFullError, match="max_map_size_mb"):
        fill()
    index.close()
    assert committed
    assert stored_urls(tmp_path / "full") == set(committed)


def test_a_reader_never_sees_half_a_batch(tmp_index, writers):
    seen_during_batch: list[int] = []

    def read_count() -> None:
        with tmp_index.read() as view:
            seen_during_batch.append(view.count("pages"))

    def half_then_read(view):
        writers.put_batch(view, writers.batch_urls("half", 1, 10))
        reader = threading.Thread(target=read_count)
        reader.start()
        reader.join(timeout=10)
        writers.put_batch(view, writers.batch_urls("half", 2, 10))

    tmp_index.transact(lambda view: writers.put_batch(view, writers.batch_urls("half", 0, 10)))
    tmp_index.transact(half_then_read)
    read_count()
    assert seen_during_batch == [10, 30]


def test_processes_writing_one_index_at_once_lose_nothing(tmp_path, writers):
    path, batches, size, processes = str(tmp_path / "shared"), 60, 25, 3
    LmdbIndex.open(path, Config.default().with_overrides({"index.map_size_mb": 1})).close()
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(processes + 1)
    pool = ProcessPoolExecutor(
        processes + 1, mp_context=spawn, initializer=writers.join_peers, initargs=(barrier,)
    )
    with pool:
        reader = pool.submit(writers.watch_counts, path, 60.0, processes * batches * size)
        jobs = [
            pool.submit(writers.write_pages, path, f"w{n}", batches, size) for n in range(processes)
        ]
        results = [job.result(timeout=120) for job in jobs]
        counts_seen = reader.result(timeout=120)
    stored = stored_urls(path)
    expected = {
        url
        for n in range(processes)
        for batch in range(batches)
        for url in writers.batch_urls(f"w{n}", batch, size)
    }
    assert max(first for _, first, _ in results) < min(last for _, _, last in results)  # overlapped
    assert stored == expected
    assert all(count % size == 0 for count in counts_seen)


def test_writer_killed_mid_batch_leaves_every_committed_page(tmp_path, writers):
    path, size = tmp_path / "killed", 40
    command = [sys.executable, str(WORKERS), str(path), str(size), "100000"]
    committed: list[int] = []
    deadline = time.monotonic() + 60
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as writer:
        try:
            while len(committed) < 25 and time.monotonic() < deadline:
                line = writer.stdout.readline()
                if not line:
                    break
                committed.append(int(line))
        finally:
            os.kill(writer.pid, signal.SIGKILL)
    assert writer.returncode == -signal.SIGKILL
    assert len(committed) == 25
    stored = stored_urls(path)
    reported = {url for batch in committed for url in writers.batch_urls("killed", batch, size)}
    assert reported <= stored
    assert len(stored) % size == 0


def _modes(directory: Path) -> dict[str, int]:
    return {path.name: path.stat().st_mode & 0o777 for path in [directory, *directory.iterdir()]}


def test_index_files_are_owner_only_by_default(tmp_path):
    previous = os.umask(0o022)
    try:
        LmdbIndex.open(tmp_path / "index", Config.default()).close()
    finally:
        os.umask(previous)
    assert _modes(tmp_path / "index") == {"index": 0o700, "data.mdb": 0o600, "lock.mdb": 0o600}


def test_index_file_mode_can_be_relaxed(tmp_path):
    config = Config.from_dict({"index": {"file_mode": 0o640}})
    previous = os.umask(0o022)
    try:
        LmdbIndex.open(tmp_path / "index", config).close()
    finally:
        os.umask(previous)
    assert _modes(tmp_path / "index") == {"index": 0o750, "data.mdb": 0o640, "lock.mdb": 0o640}


@pytest.mark.parametrize("mode", [0o400, 0o1777, 0o044])
def test_an_index_file_mode_the_owner_cannot_write_is_refused(mode):
    with pytest.raises(ConfigError, match=r"dedup\.index\.file_mode"):
        Config.from_dict({"index": {"file_mode": mode}})


def test_a_reader_adopts_the_map_another_process_grew(tmp_path, writers):
    path = tmp_path / "grown"
    reader = LmdbIndex.open(path, Config.default().with_overrides({"index.map_size_mb": 1}))
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as other:
        written, _, _ = other.submit(writers.write_pages, str(path), "grow", 40, 50).result()
    with reader.read() as view:
        assert view.count("pages") == written
    reader.close()


def test_an_answer_from_the_rule_tables_lasts_until_a_rule_table_changes(tmp_index):
    """Readers reuse what they read of the rules until a commit changes a rule table (the
    stamp in ``meta``); other commits, a crawl's pages, leave it; a write view reuses its own
    answers until it changes a rule table."""
    computed: list[str] = []

    def ask(view) -> int:
        return view.memoised("question", lambda: computed.append(view) or len(computed))

    with tmp_index.read() as view:
        assert ask(view) == 1
    tmp_index.transact(lambda view: view.put("meta", b"elsewhere", b"1"))
    with tmp_index.read() as view:
        assert ask(view) == 1
    tmp_index.transact(lambda view: view.put("rules", b"r" + b"http://a.test/", b"x"))
    with tmp_index.read() as view:
        assert ask(view) == 2
    tmp_index.transact(lambda view: view.delete("url_rules", b"absent"))
    with tmp_index.read() as view:
        assert ask(view) == 3
    assert tmp_index.transact(lambda view: (ask(view), ask(view))) == (4, 4)

    def write(view) -> tuple[int, int, int]:
        first = ask(view)
        view.put("meta", b"elsewhere", b"2")
        second = ask(view)
        view.put("rules", b"r" + b"http://b.test/", b"x")
        return first, second, ask(view)

    assert tmp_index.transact(write) == (5, 5, 6)


def test_a_record_read_before_it_changed_is_read_as_it_is_now(tmp_index):
    """Readers share the records they decoded (``committed``), by their bytes: a page stored
    again, or seen again, reads as it is now."""
    old, new = record(1, "http://a.example/x", seed=0), record(1, "http://a.example/x", seed=1)
    tmp_index.transact(lambda view: view.put_page(old))
    with tmp_index.read() as view:
        assert view.page(1) == old
    tmp_index.transact(lambda view: view.put_page(new))
    with tmp_index.read() as view:
        assert view.page(1) == new
    tmp_index.transact(lambda view: view.touch_page(new, 1_800_000_000.0))
    with tmp_index.read() as view:
        assert view.page(1) == replace(new, last_seen=1_800_000_000.0)


def test_an_answer_is_kept_for_later_readers_once_it_is_settled(tmp_index):
    """A reader's answer is worked out again until it says it is settled; then every later
    reader reuses it, whatever was committed since; a write view never files one."""
    computed: list[int] = []

    def ask(view, settled_from: int) -> int:
        def compute() -> tuple[int, bool]:
            computed.append(len(computed) + 1)
            return computed[-1], computed[-1] >= settled_from

        return view.settled("question", compute)

    assert tmp_index.transact(lambda view: ask(view, settled_from=1)) == 1  # not filed
    for settled_from, answer in ((4, 2), (3, 3), (1, 3)):
        with tmp_index.read() as view:
            assert ask(view, settled_from) == answer
        tmp_index.transact(lambda view: view.put("meta", b"elsewhere", b"committed"))
    assert computed == [1, 2, 3]
