"""The mirror tables: values round-trip, a subtree comes in hash order, orphans are found."""

from __future__ import annotations

from dataclasses import replace

from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.mirrors.records import (
    COLLIDING,
    FOLDED,
    KEPT_AS_CANDIDATE,
    MATCH,
    MISSING,
    ORDINARY,
    REJECTED,
    Candidate,
    DirEntry,
    Rejection,
    Rule,
    Sample,
)
from dedup_filter.mirrors.store import MirrorStore, directory_hash, relative_hash, url_hash

from .conftest import file_entry


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
    for why in Rejection:
        told = replace(closed, rejected_for=why)
        assert Candidate.decode(told.encode()) == told
        assert len(told.encode()) == len(closed.encode()) + 1
    assert Rule.decode(rule.encode()) == rule
    for mirror_bare, origin_bare, htm in ((True, False, 0), (False, True, 1), (True, True, 2)):
        spelt = {"mirror_bare": mirror_bare, "origin_bare": origin_bare}
        spelt |= {"mirror_htm": htm == 1, "origin_htm": htm == 2}
        assert Rule.decode(replace(rule, **spelt).encode()) == replace(rule, **spelt)
        assert Candidate.decode(replace(closed, **spelt).encode()) == replace(closed, **spelt)
    flagged = replace(rule, mirror_held_first=True)
    probed = replace(rule, code_probes=3)
    both = replace(rule, copy_named=True, code_probes=3)
    beside = replace(rule, mirror_held_first=True, side_by_side=True)
    moved = replace(rule, through="http://m\u00e9.test/x/")
    moved_probed = replace(moved, code_probes=2, copy_named=True)
    turned = replace(beside, mirror_held_first=False, turned_by_absence=True)
    for changed in (flagged, probed, both, beside, moved, moved_probed, turned):
        assert Rule.decode(changed.encode()) == changed
    assert len(flagged.encode()) == len(rule.encode()) + 1  # older values decode unchanged
    assert len(probed.encode()) == len(rule.encode()) + 2
    assert rule.resemblance == 0.75


def test_a_directory_subtree_is_one_range_in_hash_order(tmp_index):
    paths = [f"p{number}.html" for number in range(20)]

    def write(view):
        store = MirrorStore(view)
        for path in paths:
            file_entry(store, "http://o.test/d/", path, DirEntry(1, 2, path))
        file_entry(store, "http://o.test/other/", "x.html", DirEntry(1, 2, "x.html"))
        return [entry.relative for _, entry in store.subtree("http://o.test/d/")]

    listed = tmp_index.transact(write)
    assert listed == sorted(paths, key=relative_hash)


def test_an_entry_its_page_tells_all_of_is_a_posting_and_moves_when_it_says_more(tmp_index):
    directory, relative = "http://o.test/d/", "Page.html"
    own = DirEntry(1, 5, relative)
    forms = [own, replace(own, role=KEPT_AS_CANDIDATE), replace(own, exact=6), own]

    def write(view):
        store = MirrorStore(view)
        view.put_page(PageRecord(view.new_page_id(), directory + relative, 5, 0, (), b"", 0.0))
        key = directory_hash(directory) + relative_hash("page.html").to_bytes(6, "big")
        stored = []
        for entry in forms:
            file_entry(store, directory, "page.html", entry)
            row, postings = view.get("dirs", key) is not None, view.postings("page_entries", key)
            stored.append((store.entry(directory, "page.html"), row, postings))
        return stored

    assert tmp_index.transact(write) == [
        (own, False, [1]),
        (forms[1], True, []),
        (forms[2], True, []),
        (own, False, [1]),
    ]


def test_two_files_whose_names_differ_only_in_case_leave_their_path_colliding(tmp_index):
    """``Check.html`` and ``check.html`` are one path to the index: once both were recorded the
    entry says so (``COLLIDING``), whichever is recorded again; one file recorded again, or an
    index page under two names (the key ``""``), is no collision."""
    directory = "http://o.test/d/"

    def write(view):
        store = MirrorStore(view)
        for name in ("Check.html", "check.html", "index.html"):
            view.put_page(PageRecord(view.new_page_id(), directory + name, 5, 0, (), b"", 0.0))
        upper, lower, index = (
            DirEntry(1, 5, "Check.html"),
            DirEntry(2, 6, "check.html"),
            DirEntry(3, 7, "index.html"),
        )
        roles = []
        for entry in (upper, upper, lower, upper):
            file_entry(store, directory, "check.html", entry)
            roles.append(store.entry(directory, "check.html").role)
        file_entry(store, directory, "", replace(index, relative=""))
        file_entry(store, directory, "", index)
        return roles, store.entry(directory, "").role

    roles, index_role = tmp_index.transact(write)
    assert roles == [ORDINARY, ORDINARY, COLLIDING, COLLIDING]
    assert index_role == ORDINARY


def test_one_file_served_under_two_names_that_differ_only_in_case_is_folded(tmp_index):
    """A server on a file system that folds case serves ``KEY_a.html`` for ``KEY_A.html``: the
    same bytes under both names (``FOLDED``), said once; other bytes under one name later make
    them two files."""
    directory = "http://o.test/d/"

    def write(view):
        store = MirrorStore(view)
        view.put_page(PageRecord(view.new_page_id(), directory + "KEY_A.html", 5, 0, (), b"", 0.0))
        told = []
        for entry in (
            DirEntry(1, 5, "KEY_A.html"),
            DirEntry(1, 5, "KEY_a.html"),
            DirEntry(1, 5, "KEY_A.html"),
            DirEntry(1, 6, "KEY_a.html"),
        ):
            other = store.put_entry(directory, "key_a.html", entry, view.page(1))
            told.append((other, store.entry(directory, "key_a.html").role))
        return told

    assert tmp_index.transact(write) == [
        (None, ORDINARY),
        ("KEY_A.html", FOLDED),
        (None, FOLDED),
        (None, COLLIDING),
    ]


def test_a_subtree_merges_both_tables_in_hash_order(tmp_index):
    # every other entry's exact hash differs from its page's: a dirs row
    exacts = {f"d/p{number}.html": 7 + number % 2 for number in range(20)}

    def write(view):
        store = MirrorStore(view)
        for path, exact in exacts.items():
            page_id = view.new_page_id()
            view.put_page(PageRecord(page_id, f"http://o.test/{path}", 7, 0, (), b"", 0.0))
            file_entry(store, "http://o.test/", path, DirEntry(page_id, exact, path))
        return [(entry.relative, entry.exact) for _, entry in store.subtree("http://o.test/")]

    ordered = sorted(exacts.items(), key=lambda item: relative_hash(item[0]))
    assert tmp_index.transact(write) == ordered
    with tmp_index.read() as view:
        assert view.count("page_entries") == view.count("dirs") == 10


def test_an_orphaned_page_entry_is_found_and_forgotten(tmp_index):
    def write(view):
        store = MirrorStore(view)
        record = PageRecord(view.new_page_id(), "http://o.test/a.html", 1, 0, (), b"", 0.0)
        view.put_page(record)
        file_entry(store, "http://o.test/", "a.html", DirEntry(record.page_id, 1, "a.html"))
        kept = store.orphans("dirs")
        view.delete_page(record)
        orphans = store.orphans("dirs")
        forgotten = [store.forget_orphan("dirs", key) for key in orphans * 2]
        return kept, len(orphans), forgotten, view.count("page_entries")

    assert tmp_index.transact(write) == ([], 1, [True, False], 0)


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
        file_entry(store, "http://o.test/", "a.html", DirEntry(live + 1, 2, "a.html"))  # no page
        file_entry(store, "http://o.test/", "b.html", DirEntry(live + 2, 3, "b.html"))
        orphans = store.orphans("dirs")
        file_entry(store, "http://o.test/", "a.html", DirEntry(live, 2, "a.html"))  # seen again
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
