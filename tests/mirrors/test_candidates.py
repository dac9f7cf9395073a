"""Settling candidate pairs directly on the mirror tables: orientation and conflicts."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter import Config
from dedup_filter.mirrors.candidates import CandidateUpdate, index_pair
from dedup_filter.mirrors.code_checks import CodeCheck, revoke
from dedup_filter.mirrors.directories import IndexPages
from dedup_filter.mirrors.orientation import Orientation
from dedup_filter.mirrors.pruning import Protection
from dedup_filter.mirrors.records import (
    MATCH,
    MISMATCH,
    OPEN,
    REJECTED,
    Candidate,
    DirEntry,
    Rejection,
    Rule,
    Sample,
)
from dedup_filter.mirrors.sampling import CoordinateSampler
from dedup_filter.mirrors.store import MirrorStore, pair_reference, relative_hash

from .conftest import file_entry

INDEX_PAGES = IndexPages(("index",), ("", ".html"))


@pytest.fixture
def pair_of(tmp_index):
    """``index_pair`` oriented against an index that holds nothing yet (both sides are new)."""

    def pair(url, original_url):
        def orient(view):
            orientation = Orientation(MirrorStore(view), INDEX_PAGES, Protection(()), 12)
            return index_pair(url, original_url, INDEX_PAGES, orientation)

        return tmp_index.transact(orient)

    return pair


def test_the_shallower_directory_is_the_origin_whichever_page_came_second(pair_of):
    deep, shallow = "http://m.test/pub/notes/", "http://o.test/notes/"
    first = pair_of(deep, shallow)
    second = pair_of(shallow, deep)
    assert (first.mirror.directory, first.origin.directory, first.page_is_origin) == (
        deep,
        shallow,
        False,
    )
    assert (second.mirror.directory, second.page_is_origin) == (deep, True)
    assert pair_of(shallow, shallow + "a/") is None  # nested
    assert pair_of(shallow + "a.html", deep) is None  # not an index page


@pytest.mark.parametrize(
    ("copy", "original"),
    [
        ("http://mirror1.b.test/", "http://docs.a.test/"),  # as deep: arrival order no longer
        ("http://b.test/pub/mirrors/x/", "http://a.test/x/"),
        ("http://docs-mirror.b.test/x/", "http://a.test/library/x/"),  # named beats shallower
        ("http://b.test/pub/x/", "http://a.test/x/"),  # unnamed: the shallower is the origin
    ],
)
def test_a_directory_named_a_mirror_is_the_mirror_whichever_page_came_second(
    pair_of, copy, original
):
    for page, indexed in ((copy, original), (original, copy)):
        pair = pair_of(page, indexed)
        assert (pair.mirror.directory, pair.origin.directory) == (copy, original)


def test_when_nothing_tells_the_directory_indexed_first_is_the_origin(pair_of):
    first, second = "http://a.test/x/", "http://b.test/x/"
    pair = pair_of(second, first)
    assert (pair.mirror.directory, pair.page_is_origin) == (second, False)
    # a name that merely starts with "mirror" says nothing
    assert pair_of("http://mirrorbits.test/x/", first).page_is_origin is False
    assert pair_of(first, "http://mirrorbits.test/x/").page_is_origin is False


def test_a_pair_that_conflicts_once_its_origin_is_collapsed_is_rejected_under_its_own_name(
    tmp_index,
):
    """o.test/ became a mirror of p.test/, so the open pair p.test/sub/ -> o.test/ would make a
    directory of p.test/ a mirror of p.test/ itself: the pair as recorded is rejected."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    mirror, origin = "http://p.test/sub/", "http://o.test/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule("http://o.test/", "http://p.test/", "", "", 0.0, "content", 4, 4, 0))
        store.put_candidate(Candidate(mirror, origin, mirror, origin, 0.0, OPEN))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(mirror, origin)))
        collapsed = store.candidate(pair_reference(mirror, "http://p.test/"))
        rejected = store.candidate(pair_reference(mirror, origin))
        return rejected.state, rejected.rejected_for, collapsed, update.confirmed

    assert tmp_index.transact(settle) == (REJECTED, Rejection.RULED_ALREADY, None, [])


def test_a_host_pair_replaces_the_rules_order_made_below_it_either_way_round(tmp_index):
    """Crawled side by side, a copied host had some directories confirmed as mirrors of the
    origin's and others the other way round (whichever side was held first); the host pair is
    then confirmed (it used to conflict in both orientations and be rejected), replacing both
    kinds, and a third copy's rule is pointed at the origin host."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    copy, origin, third = "http://p.test/", "http://o.test/", "http://q.test/a/"

    def settle(view):
        store = MirrorStore(view)
        for mirror, its_origin in ((origin + "a/", copy + "a/"), (copy + "b/", origin + "b/")):
            store.put_rule(Rule(mirror, its_origin, "", "", 0.0, "content", 4, 4, 0))
        store.put_rule(Rule(third, copy + "a/", "", "", 0.0, "content", 4, 4, 0))
        store.put_candidate(Candidate(copy, origin, copy, origin, 0.0, OPEN))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(copy, origin)))
        return sorted((rule.mirror, rule.origin) for rule in store.rules_under())

    assert tmp_index.transact(settle) == [(copy, origin), (third, origin + "a/")]


def test_a_pair_the_other_way_round_of_a_rule_leaves_the_rule_as_it_is(tmp_index):
    config = Config.default().with_overrides({"mirror.samples": 0})
    copy, origin = "http://p.test/", "http://o.test/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(copy, origin, "", "", 0.0, "content", 4, 4, 0))
        store.put_candidate(Candidate(origin, copy, origin, copy, 0.0, OPEN))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(origin, copy)))
        rules = [(rule.mirror, rule.origin) for rule in store.rules_under()]
        return rules, store.candidate(pair_reference(origin, copy)).state

    assert tmp_index.transact(settle) == ([(copy, origin)], REJECTED)


def test_a_pair_turned_round_reads_a_page_its_new_mirror_lacks_as_missing(tmp_index):
    """A guide paired from documents with a partial copy held first (the copy its origin, the
    side held first) lies in a host rule's origin, so it is confirmed the other way round: the
    sample the copy lacks, a mismatch as paired (an origin lacking a mirror's page), is a page a
    partial copy lacks once turned. Before, the rule kept the mismatch and pruned neither side
    (holdout, round robin: 40 pages of the guide fetched after the copy's)."""
    config = Config.default().with_overrides({"mirror.samples": 4})
    guide, copy = "http://o.test/guide/", "http://lib.test/pub/guide/"
    names = ("a.html", "b.html", "c.html", "gone.html")

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule("http://p.test/", "http://o.test/", "", "", 0.0, "content", 4, 4, 0))
        for number, name in enumerate(names):
            entry = DirEntry(number + 1, number, name)
            file_entry(store, guide.lower(), name.lower(), entry)
            if name != "gone.html":
                file_entry(store, copy.lower(), name.lower(), entry)
        samples = tuple(
            Sample(name, relative_hash(name), MISMATCH if name == "gone.html" else MATCH)
            for name in names
        )
        store.put_candidate(Candidate(guide, copy, guide, copy, 0.0, OPEN, samples=samples))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(guide, copy)))
        rules = store.rules_under()
        return [(r.mirror, r.origin, r.checked, r.matches, r.missing) for r in rules]

    assert (copy, guide, 3, 3, 1) in tmp_index.transact(settle)


@pytest.mark.parametrize("held_first", ["origin", "copy"])
def test_a_section_of_a_copy_taken_for_an_origin_waits_for_its_parents(
    open_filter, corpus, held_first
):
    """A copy of a copy crawled first is ruled a copy of the renamed copy it was made from (deep
    on an archive's host); a section of that renamed copy, paired with the true origin's (a host
    root, held first), lies in the rule's origin. Turned round, the host root would be the copy,
    and the boundary search above it ruled the whole host a copy of the archive's directory (the
    eleventh holdout web, depth first: 525 pages fetched). Its parents are tried instead: the
    archive's directory is ruled a copy of the host, and the copy of a copy pointed there. Where
    the deeper side was held first (a copier at its host's root met after its victim, whose
    directory is the origin of other copies), the pair is turned round as before."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    origin, renamed = "http://www.chart.test/", "http://ftp.archive.test/pub/chart/1.0/api/"
    cdn = "http://cdn.test/chart-api/"
    dedup = open_filter(config)
    first = origin if held_first == "origin" else renamed
    for name in sorted(corpus)[:3]:
        dedup.check_page(f"{first}index-files/{name}.html", corpus[name].encode())

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(cdn, renamed, cdn, renamed, 0.0, "content", 3, 3, 0))
        file_entry(store, origin, "", DirEntry(1, 10, "index.html"))
        file_entry(store, renamed.lower(), "", DirEntry(2, 10, "index.html"))
        section = Candidate(
            renamed + "index-files/", origin + "index-files/", renamed + "index-files/",
            origin + "index-files/", 0.0,
        )  # fmt: skip
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(section)
        rules = sorted((rule.mirror, rule.origin) for rule in store.rules_under())
        return rules, store.candidate(pair_reference(section.mirror, section.origin))

    rules, section = dedup.index.transact(settle)
    if held_first == "origin":
        assert rules == [(cdn, origin), (renamed, origin)]
        assert section is None  # inside the new rule's mirror: forgotten
    else:  # turned round, and the boundary search above the turned pair took the host
        assert (origin, renamed) in rules


@pytest.mark.parametrize("copy_first", [True, False])
def test_a_rule_pointed_through_a_rule_revoked_later_points_back(tmp_index, copy_first):
    """A copy of a guide whose rule is pointed at the guide's edition, because the guide was
    confirmed a mirror of the edition (their prose is the same) either after the copy's rule
    (``repoint``) or before (the copy's pair collapses through it): once the guide's rule is
    revoked for its code, the copy's rule points at the guide again. Left on the edition (the
    holdout web, h23's random order) it paired two editions, and pruned the edition's pages."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    copy, guide = "http://library.test/install/", "http://o.test/install/"
    edition = "http://o.test/install-rpm/"

    def settle(view):
        store = MirrorStore(view)
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        pairs = [(copy, guide), (guide, edition)]
        for mirror, origin in pairs if copy_first else pairs[::-1]:
            store.put_candidate(Candidate(mirror, origin, mirror, origin, 0.0, OPEN))
            update.advance(store.candidate(pair_reference(mirror, origin)))
        moved = sorted((rule.mirror, rule.origin) for rule in store.rules_under())
        revoke(store, store.rule(guide), Config.default(), 2.0, CodeCheck())
        return moved, [(rule.mirror, rule.origin, rule.through) for rule in store.rules_under()]

    moved, revoked = tmp_index.transact(settle)
    assert moved == [(copy, edition), (guide, edition)]
    assert revoked == [(copy, guide, "")]


def test_a_rule_pointed_at_a_new_origin_forgets_the_404s_of_the_old_one(tmp_index):
    """A copy's rule counted its origin's 404s and marked it partial; that origin is then ruled
    a copy of a complete one, and the rule pointed there: the count and the mark were about the
    partial copy, not about the complete origin."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    copy, partial, complete = "http://c.test/guide/", "http://p.test/guide/", "http://o.test/guide/"

    def settle(view):
        store = MirrorStore(view)
        marked = Rule(copy, partial, "", "", 0.0, "content", 4, 4, 0, absences=8)
        store.put_rule(replace(marked, origin_partial=True))
        store.put_candidate(Candidate(partial, complete, partial, complete, 0.0, OPEN))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(partial, complete)))
        return store.rule(copy)

    moved = tmp_index.transact(settle)
    assert moved.origin == complete
    assert (moved.absences, moved.origin_partial) == (0, False)
