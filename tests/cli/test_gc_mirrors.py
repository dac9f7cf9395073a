"""``gc`` and the mirror detector: a deleted page leaves no record under its directories."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.cli import main
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.maintenance import collect_garbage, sweep
from dedup_filter.mirrors.store import MirrorStore

DAY = 86_400.0
DOCS = "http://a.example/docs/"
COPY = "http://b.example/copy/heapq.html"


@pytest.fixture
def index_path(tmp_path, stdlib_page):
    """docs/{csv,heapq,json}.html and an exact copy of heapq on another host, checked 40 days
    ago; csv and json checked again yesterday (so heapq alone is stale)."""
    config = Config.default()
    now = [1_000_000_000.0]
    path = tmp_path / "index"
    pages = {DOCS + f"{name}.html": stdlib_page(name).encode() for name in ("csv", "heapq", "json")}
    with DedupFilter(LmdbIndex.open(path, config), config, clock=lambda: now[0]) as dedup:
        dedup.check_pages(pages.items())
        assert dedup.check_page(COPY, pages[DOCS + "heapq.html"]).reason == "exact_duplicate"
        now[0] += 39 * DAY
        dedup.check_pages([(url, pages[url]) for url in (DOCS + "csv.html", DOCS + "json.html")])
    return path, now[0] + DAY


def recorded(path, places):
    """Which (directory, relative path) places hold a record in the mirror tables."""
    with DedupFilter.open(path) as dedup, dedup.index.read() as view:
        store = MirrorStore(view)
        return {place for place in places if store.entry(*place) is not None}


HEAPQ_PLACES = [
    (DOCS, "heapq.html"),
    ("http://a.example/", "docs/heapq.html"),
    ("http://b.example/copy/", "heapq.html"),  # the copy, represented by the deleted page
    ("http://b.example/", "copy/heapq.html"),
]


def test_gc_forgets_the_mirror_records_of_a_deleted_page_and_of_its_copies(index_path):
    path, now = index_path
    assert recorded(path, HEAPQ_PLACES) == set(HEAPQ_PLACES)
    with DedupFilter.open(path) as dedup:
        assert collect_garbage(dedup.index, 30 * DAY, now) == 1
        with dedup.index.read() as view:
            store = MirrorStore(view)
            assert store.orphans("dirs") == []
            assert sorted(entry.relative for _, entry in store.subtree(DOCS)) == [
                "csv.html",
                "json.html",
            ]
    assert recorded(path, HEAPQ_PLACES) == set()


def test_gc_command_forgets_every_record_when_it_removes_every_page(index_path, capsys):
    path, _ = index_path
    assert main(["gc", "--index", str(path), "--older-than", "1d"]) == 0
    out, err = capsys.readouterr()
    assert "pages removed: 3" in out
    # csv, heapq, json under docs/ and the host root; the copy under copy/ and its host root
    assert "forgotten with them: 8 mirror directory entries, 0 recorded links" in err
    assert recorded(path, [(DOCS, "csv.html"), *HEAPQ_PLACES]) == set()


def test_gc_forgets_the_links_of_deleted_pages_in_url_mode(tmp_path, stdlib_page):
    """URL mode records every link of every page: they go with the page that made them."""
    config = Config.default().with_overrides({"mirror.mode": "url"})
    listing = (
        b'<html><body><a href="csv.html">csv</a> <a href="/x/json.html">json</a></body></html>'
    )
    pages = [(DOCS, listing), (DOCS + "csv.html", stdlib_page("csv").encode())]
    with DedupFilter(
        LmdbIndex.open(tmp_path / "index", config), config, clock=lambda: 0.0
    ) as dedup:
        dedup.check_pages(pages)
        with dedup.index.read() as view:
            assert MirrorStore(view).has_link(DOCS + "csv.html")
            recorded_links = view.count("links")
        done = sweep(dedup.index, 30 * DAY, 31 * DAY)
        with dedup.index.read() as view:
            assert (view.count("links"), MirrorStore(view).has_link(DOCS + "csv.html")) == (
                0,
                False,
            )
    assert (done.pages, done.links) == (2, recorded_links)
