"""The mirror tables: values round-trip, a subtree comes in hash order, orphans are found."""

from __future__ import annotations

from dataclasses import replace

from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.mirrors.records import (
    MATCH,
    MISSING,
    REJECTED,
    Candidate,
    DirEntry,
    Rule,
    Sample,
)
from dedup_filter.mirrors.store import MirrorStore, relative_hash, url_hash


def test_candidates_rules_and_entries_round_trip():
    samples = (Sample("a/\u00e9.html", 7, MATCH), Sample("b.html?q=1", 2**64 - 1, MISSING))
    candidate = Candidate(
        "http://m.test/x/",
        "http://o.test/x/",
        "http://m.test/x/",
        "http://o.test/x/index.html",
        1.5,
        REJECTED,
        3,
        samples,
    )
    rule = Rule(
        "http://m.test/",
        "http://o.test/",
        "http://m.test/",
        "http://o.test/",
        2.5,
        "url",
        4,
        3,
        1,
        2,
    )
    assert Candidate.decode(candidate.encode()) == candidate
    closed = replace(candidate, closed=True)
    assert Candidate.decode(closed.encode()) == closed
    assert len(closed.encode()) == len(candidate.encode()) + 1  # older values decode unchanged
    assert Rule.decode(rule.encode()) == rule
    flagged = replace(rule, mirror_held_first=True)
    probed = replace(rule, code_probes=3)
    both = replace(rule, copy_named=True, code_probes=3)
    beside = replace(rule, mirror_held_first=True, side_by_side=True)
    for changed in (flagged, probed, both, beside):
        assert Rule.decode(changed.encode()) == changed
    assert len(flagged.encode()) == len(rule.encode()) + 1  # older values decode unchanged
    assert len(probed.encode()) == len(rule.encode()) + 2
    assert rule.resemblance == 0.75


def test_a_directory_subtree_is_one_range_in_hash_order(tmp_index):
    paths = [f"p{number}.html" for number in range(20)]

    def write(view):
        store = MirrorStore(view)
        for path in paths:
            store.put_entry("http://o.test/d/", path, DirEntry(1, 2, path))
        store.put_entry("http://o.test/other/", "x.html", DirEntry(1, 2, "x.html"))
        return [entry.relative for _, entry in store.subtree("http://o.test/d/")]

    listed = tmp_index.transact(write)
    assert listed == sorted(paths, key=relative_hash)


def test_rules_below_a_directory_and_origins_are_prefix_ranges(tmp_index):
    def write(view):
        store = MirrorStore(view)
        for mirror, origin in [
            ("http://m.test/a/", "http://o.test/a/"),
            ("http://m.test/a/b/", "http://o.test/a/b/"),
            ("http://m.test/ab/", "http://o.test/ab/"),
        ]:
            store.put_rule(Rule(mirror, origin, mirror, origin, 0.0, "content", 4, 4, 0))
        return (
            [rule.mirror for rule in store.rules_under("http://m.test/a/")],
            store.has_origin_under("http://o.test/a/"),
            store.has_origin_at("http://o.test/"),
        )

    assert tmp_index.transact(write) == (["http://m.test/a/", "http://m.test/a/b/"], True, False)


def test_an_orphaned_entry_recorded_again_meanwhile_is_not_forgotten(tmp_index):
    def write(view):
        store = MirrorStore(view)
        live = view.new_page_id()
        view.put_page(PageRecord(live, "http://o.test/live.html", 1, 0, (), b"", 0.0))
        store.put_entry("http://o.test/", "a.html", DirEntry(live + 1, 2, "a.html"))  # no page
        store.put_entry("http://o.test/", "b.html", DirEntry(live + 2, 3, "b.html"))
        orphans = store.orphans("dirs")
        store.put_entry("http://o.test/", "a.html", DirEntry(live, 2, "a.html"))  # seen again
        forgotten = [store.forget_orphan("dirs", key) for key in orphans]
        return (
            len(orphans),
            forgotten,
            [entry.relative for _, entry in store.subtree("http://o.test/")],
        )

    assert tmp_index.transact(write) == (2, [False, True], ["a.html"])


def test_links_belong_to_the_page_that_made_them(tmp_index):
    def write(view):
        store = MirrorStore(view)
        live = view.new_page_id()
        view.put_page(PageRecord(live, "http://o.test/live.html", 1, 0, (), b"", 0.0))
        store.add_link("http://m.test/kept.html", live + 1)
        store.add_link("http://m.test/kept.html", live)  # linked again by a page still indexed
        store.add_link("http://m.test/gone.html", live + 1)  # its page was deleted
        view.put("links", url_hash("http://m.test/old.html"), b"")  # the untied older layout
        orphans = store.orphans("links")
        forgotten = [store.forget_orphan("links", key) for key in orphans]
        links = ("kept", "gone", "old")
        return forgotten, [store.has_link(f"http://m.test/{name}.html") for name in links]

    assert tmp_index.transact(write) == ([True, True], [True, False, False])
