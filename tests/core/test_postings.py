"""The posting tables' layout: fixed-size values under a few LMDB keys, against a plain model."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import lmdb
import pytest

from dedup_filter import IndexMismatchError
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.features.simhash import band_keys
from dedup_filter.index import posting_runs
from dedup_filter.index.lmdb_index import SCHEMA_VERSION, LmdbIndex, PageRecord, url_key
from dedup_filter.matching import duplicates, find_exact

SHARD_7 = 7 << 48
HIGH_EPOCH = 1 << 33  # a page id whose counter passed 2**32


def page(page_id: int, seed: int) -> PageRecord:
    rng = random.Random(seed)
    features = tuple(rng.getrandbits(64) for _ in range(6))
    url = f"http://a.example/{seed}"
    return PageRecord(page_id, url, rng.getrandbits(64), 100, features, rng.randbytes(48), 0.0)


# bytes of a posting key that the tables keep (a band's number and its 4-byte piece)
KEPT = {"exact": 5, "features": 5, "bands": 5, "urls": 8}


@pytest.mark.parametrize(("table", "group", "value_bytes"), [("bands", 1, 7), ("features", 0, 8)])
def test_a_posting_is_a_short_value_under_its_group_and_the_first_id_of_its_run(
    tmp_index, table, group, value_bytes
):
    pages = [page(page_id, seed=page_id) for page_id in (1, 2, 3)]
    tmp_index.transact(lambda view: [view.put_page(record) for record in pages])
    with tmp_index.read() as view:
        rows = list(view.scan(table, b""))
    groups = range(12) if group else [None]
    keys = {(bytes([number]) if number is not None else b"") + bytes(8) for number in groups}
    assert {key for key, _ in rows} == keys
    assert {len(value) for _, value in rows} == {value_bytes}
    assert len(rows) == (12 if group else 6) * len(pages)


def test_ids_of_other_shards_and_epochs_come_in_id_order_within_a_batch_and_after(tmp_index):
    shared = page(5, seed=0)
    ids = [SHARD_7 | 2, 9, HIGH_EPOCH | 1, 4]
    copies = [replace(shared, page_id=number, url=f"http://b.example/{number}") for number in ids]
    keys = [("exact", shared.exact.to_bytes(8, "big")), ("bands", band_keys(shared.simhash, 12)[3])]

    def put_then_read(view):
        for copy in copies:
            view.put_page(copy)
        return [view.postings(*key) for key in keys]

    assert tmp_index.transact(put_then_read) == [sorted(ids)] * 2
    with tmp_index.read() as view:
        assert [view.postings(*key) for key in keys] == [sorted(ids)] * 2


@pytest.fixture
def small_runs(monkeypatch):
    """Runs of 4 to 16 ids: the tests' few pages open, close and merge many."""
    monkeypatch.setattr(posting_runs, "BASE_BITS", 2)
    monkeypatch.setattr(posting_runs, "MAX_BITS", 4)


@pytest.mark.parametrize("runs", ["default", "small"])
def test_posting_tables_agree_with_the_pages_they_index(tmp_index, request, runs):
    if runs == "small":
        request.getfixturevalue("small_runs")
    rng = random.Random(5)
    # features, simhashes and exact hashes from small pools: many pages under one key
    features = [rng.getrandbits(64) for _ in range(10)]
    simhashes = [rng.randbytes(48) for _ in range(4)]
    live: dict[int, PageRecord] = {}
    for _ in range(10):
        changes = [_random_page(rng, features, simhashes) for _ in range(40)]
        tmp_index.transact(lambda view, changes=changes: _apply(view, live, changes))
        with tmp_index.read() as view:
            expected = _expected_postings(live.values())
            assert {posting: view.postings(*posting) for posting in expected} == expected
            assert view.count("features") == sum(len(page.features) for page in live.values())
            assert all(view.page_id_for_url(page.url) == page.page_id for page in live.values())


def test_closed_runs_merge_as_a_binary_counter_and_keep_their_postings(tmp_index, small_runs):
    pages = [page(page_id, seed=page_id) for page_id in range(1, 24)]
    for record in pages:  # one page a transaction, as a Scrapy crawl writes
        tmp_index.transact(lambda view, record=record: view.put_page(record))
    with tmp_index.read() as view:
        runs = view.get("meta", b"id_runs") or b""
        features = [key for key, _ in view.scan("features", b"")]
        found = [view.postings("exact", record.exact.to_bytes(8, "big")) for record in pages]
    # 1-3, 4-7, ... closed as 4-id runs, merged into 0-15, then 16-19; 20-23 is open
    assert [(int.from_bytes(runs[at : at + 8], "big"), runs[at + 8]) for at in (0, 9, 18)] == [
        (0, 4),
        (16, 2),
        (20, 2),
    ]
    assert sorted(set(features)) == [bytes(8), (16).to_bytes(8, "big"), (20).to_bytes(8, "big")]
    assert found == [[record.page_id] for record in pages]


def test_a_posting_range_comes_in_key_order_across_runs(tmp_index, small_runs):
    rng = random.Random(3)
    keys = {page_id: rng.choice([b"a", b"b"]) + rng.randbytes(13) for page_id in range(1, 60)}
    keys[59] = keys[58]  # two pages under one key
    postings = sorted((key, page_id) for page_id, key in keys.items())
    for page_id, key in keys.items():  # one a transaction: runs open, close and merge

        def file(view, key=key, page_id=page_id):
            view.add_posting("page_entries", key, page_id)

        tmp_index.transact(file)
    with tmp_index.read() as view:
        assert list(view.posting_range("page_entries", b"")) == postings
        assert list(view.posting_range("page_entries", b"a")) == [
            posting for posting in postings if posting[0].startswith(b"a")
        ]


def test_runs_merged_under_a_larger_cap_stay_found(tmp_index, small_runs, monkeypatch):
    pages = {page_id: page(page_id, seed=page_id) for page_id in range(1, 40)}
    tmp_index.transact(lambda view: [view.put_page(record) for record in pages.values()])
    monkeypatch.setattr(posting_runs, "MAX_BITS", 2)  # runs of 16 ids are there already
    tmp_index.transact(lambda view: view.delete_page(pages.pop(16)))
    with tmp_index.read() as view:
        assert view.postings("exact", page(16, seed=16).exact.to_bytes(8, "big")) == []
        assert view.count("exact") == len(pages)


def test_a_closed_run_fills_its_pages(tmp_path, config, monkeypatch):
    """Random postings fill about two-thirds of LMDB's pages; a closed run's are rewritten in
    order and fill them."""
    monkeypatch.setattr(posting_runs, "BASE_BITS", 13)
    index = LmdbIndex.open(tmp_path / "index", config)
    for start in range(1, 8194, 1000):  # ids 1-8191 close their run when 8192 comes
        batch = [page(page_id, seed=page_id) for page_id in range(start, min(start + 1000, 8194))]
        index.transact(lambda view, batch=batch: [view.put_page(record) for record in batch])
    index.close()
    env = lmdb.open(str(tmp_path / "index"), readonly=True, max_dbs=32)
    with env.begin() as txn:
        stat = txn.stat(env.open_db(b"bands", txn=txn, create=False))
    env.close()
    full_pages = 12 * math.ceil(8191 * 7 / (stat["psize"] - 16))  # 180; in random order, ~245
    # a page a band more (a sub-database's first page splits in half) and the table's own leaf
    assert stat["leaf_pages"] <= full_pages + 12 + 1


def test_an_index_of_another_byte_layout_refuses_to_open(tmp_path, config):
    index = LmdbIndex.open(tmp_path / "old", config)
    index.transact(lambda view: view.put("meta", b"schema", str(SCHEMA_VERSION - 1).encode()))
    index.close()
    with pytest.raises(IndexMismatchError, match=f"byte layout {SCHEMA_VERSION - 1}"):
        LmdbIndex.open(tmp_path / "old", config)


def _random_page(rng: random.Random, features: list[int], simhashes: list[bytes]) -> PageRecord:
    page_id = rng.randrange(1, 120) | rng.choice((0, SHARD_7, HIGH_EPOCH))
    simhash = bytearray(rng.choice(simhashes))
    simhash[rng.randrange(48)] ^= 1 << rng.randrange(8)  # one band of twelve differs
    chosen = tuple(sorted(set(rng.choices(features, k=6))))
    url = f"http://h{page_id % 7}.example/{page_id}"
    return PageRecord(page_id, url, rng.randrange(5), 100, chosen, bytes(simhash), 0.0)


def _apply(view, live: dict[int, PageRecord], changes: list[PageRecord]) -> None:
    """Put each page (replacing the page of its id), or delete the page of its id."""
    for record in changes:
        if record.page_id in live and record.exact == 0:
            view.delete_page(live.pop(record.page_id))
        else:
            view.put_page(record)
            live[record.page_id] = record


def _expected_postings(pages) -> dict[tuple[str, bytes], list[int]]:
    expected: dict[tuple[str, bytes], set[int]] = {}
    for record in pages:
        keys = [("exact", record.exact.to_bytes(8, "big")), ("urls", url_key(record.url))]
        keys += [("features", feature.to_bytes(8, "big")) for feature in record.features]
        keys += [("bands", key) for key in band_keys(record.simhash, 12)]
        for posting in keys:
            expected.setdefault(posting, set()).add(record.page_id)
    # a lookup finds every page whose key agrees in the bytes kept
    return {
        (table, key): sorted(
            {
                page_id
                for (other_table, other), ids in expected.items()
                if other_table == table and other[: KEPT[table]] == key[: KEPT[table]]
                for page_id in ids
            }
        )
        for table, key in expected
    }


def test_pages_a_shortened_key_finds_too_are_judged_on_their_full_keys(tmp_index, config):
    """A page whose exact hash and super-shingles agree with an indexed page's in the 5 bytes the
    postings keep, and differ after, is neither an exact nor a near-duplicate of it."""
    indexed = page(3, seed=3)
    tmp_index.transact(lambda view: view.put_page(indexed))
    near_miss = Fingerprint(
        "http://other.example/",
        indexed.exact ^ 1,
        indexed.token_count,
        tuple(feature ^ 1 for feature in indexed.features),
        indexed.simhash,
        "utf-8",
        False,
    )
    with tmp_index.read() as view:
        assert view.postings("exact", near_miss.exact.to_bytes(8, "big")) == [3]
        assert find_exact(view, near_miss, None) is None
        assert duplicates(near_miss, view.page(3), config) is None
