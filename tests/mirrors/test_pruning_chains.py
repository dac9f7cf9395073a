"""A counterpart that another rule prunes is waited for under the name the crawl keeps. In a
holdout crawl (breadth-first, docs/evaluation.md) a host's copy deferred its renamed archive's
pages for their counterparts on the origin host, which a renamed-copy rule there prunes; the
counterparts were probed under their archive names (75 fetches), and the crawl then fetched the
same pages again under the names that rule keeps. A copy held first, crawled whole, still gives
way to another copy of its counterpart that the crawl fetched: its own twin under the renamed
copy, or a third site's copy held before it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter import DedupFilter
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import SAMPLE_PROBE, MirrorStore

COPY, ORIGIN = "http://copy.test/", "http://origin.test/"
ARCHIVE, GUIDE = "archive/guide-old/", "guide/"  # a renamed copy within the origin host
PAGE = "install.html"


def _rules(view) -> None:
    store = MirrorStore(view)
    store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0))
    store.put_rule(Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0))


def test_a_counterpart_another_rule_prunes_is_probed_under_the_name_it_keeps(tmp_path):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_rules)
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.duplicate_of) == ("defer", ORIGIN + GUIDE + PAGE)
    assert decision.probes == (ORIGIN + GUIDE + PAGE,)


def test_the_copy_page_is_dropped_once_the_kept_page_is_held(tmp_path, stdlib_page):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_rules)
        dedup.check_url(COPY + ARCHIVE + PAGE)
        dedup.check_page(ORIGIN + GUIDE + PAGE, stdlib_page("fractions").encode())
        for absent in dedup.check_url(COPY + ARCHIVE + PAGE).probes:  # what the kept side
            dedup.probe_failed(absent, 404)  # answers for a page it lacks: nothing
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.duplicate_of) == ("drop", ORIGIN + GUIDE + PAGE)


# The same two rules with the copy held first: it is crawled whole and its origin pruned, so a
# renamed copy inside it has no rule of its own (it lies on a rule's mirror side), and the copy's
# archive and guide held each other's pages twice (holdout, round robin: 80 fetches).
def _copy_held_first(view, archive_matches: int = 3, copy_matches: int = 4) -> None:
    store = MirrorStore(view)
    copy = Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, copy_matches, 0, mirror_held_first=True)
    store.put_rule(copy)
    archive = Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, archive_matches, 0)
    store.put_rule(archive)


def _crawled_then_checked(dedup, crawled: str, checked: str, page) -> object:
    dedup.check_page(crawled, page.encode())
    for absent in dedup.check_url(checked).probes:  # what the copy answers for a page it lacks
        dedup.probe_failed(absent, 404)
    return dedup.check_url(checked)


def _coded(stdlib_page, name: str, code: str) -> str:
    """The standard-library page ``name`` with a code block holding ``code``."""
    return stdlib_page(name).replace("</body>", f"<pre>{code}</pre></body>", 1)


def _prose_checked(dedup, edition: str, guide: str, stdlib_page) -> object:
    """The guide's page checked once its edition's was crawled, both editions holding one
    prose page alike (the evidence that their prose is the same)."""
    for side in (edition, guide):
        dedup.check_page(side + "about.html", stdlib_page("abc").encode())
    return _crawled_then_checked(dedup, edition + PAGE, guide + PAGE, stdlib_page("fractions"))


def _dropped_as_prose_of(decision, page: str) -> bool:
    return (decision.action, decision.reason, decision.duplicate_of) == (
        "drop",
        "edition_prose",
        page,
    )


@pytest.mark.parametrize(("crawled", "checked"), [(GUIDE, ARCHIVE), (ARCHIVE, GUIDE)])
def test_a_copy_held_first_drops_a_page_whose_twin_it_crawled(
    tmp_path, stdlib_page, crawled, checked
):
    """Its guide's page for its archive's (the archive rule's kept page), or the other way
    round (every sample of the archive rule matched). The copy held two documents before: not
    side by side with its origin (``test_a_copy_page_beside_an_origin_page_...``)."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, [COPY + "a.html", COPY + "b.html"], stdlib_page)  # before the rules came
        dedup.index.transact(_copy_held_first)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, COPY + crawled + PAGE, COPY + checked + PAGE, page)
    assert (decision.action, decision.duplicate_of) == ("drop", COPY + crawled + PAGE)
    assert decision.evidence["copy_rule"] == ORIGIN + ARCHIVE


def test_an_origin_page_waiting_for_a_copy_page_dropped_for_its_twin_is_dropped_for_the_twin(
    tmp_path, stdlib_page
):
    """The origin's guide page waits for the copy's, which the crawl never fetches: it was
    dropped for its twin under the copy's archive. Waiting would end in a fetch of a content the
    crawl holds; it is dropped for the twin, which the crawl fetched and followed."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_copy_held_first)
        page = stdlib_page("fractions")
        twin = _crawled_then_checked(dedup, COPY + ARCHIVE + PAGE, COPY + GUIDE + PAGE, page)
        assert (twin.action, twin.duplicate_of) == ("drop", COPY + ARCHIVE + PAGE)
        decision = dedup.check_url(ORIGIN + GUIDE + PAGE)
    assert (decision.action, decision.reason) == ("drop", "mirrored_directory")
    assert decision.duplicate_of == COPY + ARCHIVE + PAGE
    assert decision.evidence["counterpart"] == COPY + GUIDE + PAGE
    assert decision.evidence["counterpart_dropped_for"] == COPY + ARCHIVE + PAGE


def _side_by_side(view) -> None:
    store = MirrorStore(view)
    copy = Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
    store.put_rule(replace(copy, side_by_side=True))
    store.put_rule(Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0))


def test_a_copy_page_beside_an_origin_page_dropped_for_a_crawled_page_is_dropped_for_it(
    tmp_path, stdlib_page
):
    """Two hosts crawled side by side, the copy held first: its archive page's counterpart on
    the origin host is never fetched (the origin's archive rule drops it for the guide page the
    crawl fetched), so the copy's page is dropped for that guide page, not fetched."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_side_by_side)
        page = stdlib_page("fractions")
        counterpart = _crawled_then_checked(
            dedup, ORIGIN + GUIDE + PAGE, ORIGIN + ARCHIVE + PAGE, page
        )
        assert (counterpart.action, counterpart.duplicate_of) == ("drop", ORIGIN + GUIDE + PAGE)
        for absent in dedup.check_url(COPY + ARCHIVE + PAGE).probes:
            dedup.probe_failed(absent, 404)
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.reason) == ("drop", "mirrored_directory")
    assert decision.duplicate_of == ORIGIN + GUIDE + PAGE
    assert decision.evidence["counterpart"] == ORIGIN + ARCHIVE + PAGE


def test_a_stale_archive_page_never_stands_for_the_guide_page(tmp_path, stdlib_page):
    """The archive rule has a mismatching sample: the archive's page may be the older text, so
    the guide's page is fetched; the archive's page is still dropped for the guide's."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(lambda view: _copy_held_first(view, archive_matches=2))
        page = stdlib_page("fractions")
        kept = _crawled_then_checked(dedup, COPY + ARCHIVE + PAGE, COPY + GUIDE + PAGE, page)
        other = "other.html"
        dropped = _crawled_then_checked(
            dedup, COPY + GUIDE + other, COPY + ARCHIVE + other, stdlib_page("decimal")
        )
    assert (kept.action, kept.reason) == ("keep", "crawled_first")
    assert (dropped.action, dropped.duplicate_of) == ("drop", COPY + GUIDE + other)


def test_a_stale_copy_held_first_keeps_its_pages_whatever_twins_it_crawled(tmp_path, stdlib_page):
    """The host rule has a mismatching sample: the copy's pages are other versions of the
    origin's, so what the origin's archive rule says of the origin says nothing of the copy."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(lambda view: _copy_held_first(view, copy_matches=3))
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, COPY + GUIDE + PAGE, COPY + ARCHIVE + PAGE, page)
    assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_twin_not_crawled_leaves_the_copy_page_to_the_crawl(tmp_path, stdlib_page):
    """Held first, the copy is crawled whole: a page whose twin the crawl has not fetched as
    itself is fetched, not deferred."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_copy_held_first)
        dedup.check_page(ORIGIN + GUIDE + PAGE, stdlib_page("fractions").encode())
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.reason) == ("keep", "crawled_first")


# A third site's copy of the origin's guide, which its rule prunes the origin for: the copy
# held first stands for the host copy's guide as well, where it was held before that guide
# (holdout, round robin: a partial copy crawled first, 127 fetches of the host copy's pages).
THIRD = "http://third.test/pub/guide/"


def _third_copy(view, **held: bool) -> None:
    """The copy held first, and a third site's copy of the guide (held first, unless ``held``
    says how its rule was made)."""
    store = MirrorStore(view)
    store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True))
    held = held or {"mirror_held_first": True}
    store.put_rule(Rule(THIRD, ORIGIN + GUIDE, "", "", 0.0, "content", 4, 4, 0, **held))


def _held(dedup, urls: list[str], stdlib_page) -> None:
    for url, module in zip(urls, ("decimal", "difflib", "heapq", "bisect"), strict=False):
        dedup.check_page(url, stdlib_page(module).encode())


@pytest.mark.parametrize(
    ("third_rule", "dropped"),
    [
        ({"mirror_held_first": True}, True),
        ({"side_by_side": True}, True),  # the holdout's copies of the vim help, breadth-first
        ({"mirror_held_first": False}, False),  # its origin held first: its pages are pruned
    ],
)
def test_a_third_sites_copy_held_before_the_guide_stands_for_its_page(
    tmp_path, stdlib_page, third_rule, dropped
):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(lambda view: _third_copy(view, **third_rule))
        _held(dedup, [THIRD + "a.html", THIRD + "b.html", COPY + GUIDE + "c.html"], stdlib_page)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, THIRD + PAGE, COPY + GUIDE + PAGE, page)
    if dropped:
        assert (decision.action, decision.duplicate_of) == ("drop", THIRD + PAGE)
        assert decision.evidence["copy_rule"] == THIRD
    else:
        assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_guide_held_before_a_third_sites_copy_is_never_pruned_for_it(tmp_path, stdlib_page):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_third_copy)
        guide_first = [COPY + GUIDE + "a.html", COPY + GUIDE + "b.html", THIRD + "c.html"]
        _held(dedup, guide_first, stdlib_page)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, THIRD + PAGE, COPY + GUIDE + PAGE, page)
    assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_copy_crawled_side_by_side_drops_a_page_whose_twin_it_crawled(tmp_path, stdlib_page):
    """Both sides of the host rule are pruned (crawled side by side): the origin's guide page was
    not crawled, but the copy's own archive twin was (holdout, random order: 35 fetches)."""

    def side_by_side(view) -> None:
        _copy_held_first(view)
        store = MirrorStore(view)
        store.put_rule(replace(store.rule(COPY), side_by_side=True))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(side_by_side)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, COPY + ARCHIVE + PAGE, COPY + GUIDE + PAGE, page)
    assert (decision.action, decision.duplicate_of) == ("drop", COPY + ARCHIVE + PAGE)


def test_a_copy_crawled_side_by_side_waits_for_a_probe_of_its_counterpart_and_hands_it_over(
    tmp_path, stdlib_page
):
    """The pair's samples probed the origin's page before the host rule came, the copy held
    first beside it: the copy's page waits for the probe rather than being fetched beside it
    (the fifth holdout web, breadth-first: 167 banner-host pages fetched after the probes of
    their counterparts), and is dropped once it lands, the spider crawling the probe's page in
    its place. A page whose counterpart no probe asked for is still fetched."""

    def side_by_side(view) -> None:
        store = MirrorStore(view)
        held_first = {"mirror_held_first": True, "side_by_side": True}
        store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, **held_first))
        store.add_probe(ORIGIN + PAGE, SAMPLE_PROBE, b"sample")

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(side_by_side)
        assert dedup.check_url(COPY + "other.html").reason == "crawled_first"
        waiting = dedup.check_url(COPY + PAGE)
        assert (waiting.action, waiting.duplicate_of) == ("defer", ORIGIN + PAGE)
        dedup.check_page(ORIGIN + PAGE, stdlib_page("fractions").encode())  # the probe's answer
        for absent in dedup.check_url(COPY + PAGE).probes:  # what the origin answers for a
            dedup.probe_failed(absent, 404)  # page it lacks: nothing
        decision = dedup.check_url(COPY + PAGE)
    assert (decision.action, decision.duplicate_of) == ("drop", ORIGIN + PAGE)
    assert decision.evidence["crawl_instead"] == ORIGIN + PAGE


# A library's copy of the origin's guide, held first, whose earlier rule with the guide's rpm
# edition was revoked for its code after it pruned the library's pages; a host mirror of the
# origin besides (the first holdout web, breadth-first and round robin: 40 pages fetched twice).
LIBRARY, MIRROR_HOST = "http://library.test/guide/", "http://mirror.test/"


def _copy_repointed(view, revoked: bool = True) -> None:
    store = MirrorStore(view)
    library = Rule(LIBRARY, ORIGIN + GUIDE, "", "", 0.0, "content", 4, 4, 0)
    store.put_rule(replace(library, mirror_held_first=True))
    store.put_rule(Rule(MIRROR_HOST, ORIGIN, "", "", 0.0, "content", 4, 4, 0))
    if revoked:
        store.put_revoked(Rule(LIBRARY, ORIGIN + "guide-rpm/", "", "", 0.0, "content", 3, 3, 0))


@pytest.mark.parametrize("revoked", [True, False])
def test_an_origin_page_waits_for_no_copy_page_pruned_under_a_revoked_rule(tmp_path, revoked):
    """The guide's page waits for the library's page while the crawl may still fetch it; once
    a rule over the library was revoked after it pruned, the library's page may never come, and
    the guide's is fetched (waiting, it was fetched when the wait ran out, after the host
    mirror's page that waited with it)."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(lambda view: _copy_repointed(view, revoked))
        decision = dedup.check_url(ORIGIN + GUIDE + PAGE)
    if revoked:
        assert (decision.action, decision.reason) == ("keep", "counterpart_pruned")
        assert decision.evidence["revoked_partner"] == ORIGIN + "guide-rpm/"
    else:
        assert (decision.action, decision.reason) == ("defer", "counterpart_pending")
        assert decision.evidence["awaiting_crawl_of"] == LIBRARY + PAGE
    assert decision.evidence["counterpart"] == LIBRARY + PAGE


def test_a_host_mirrors_page_waits_for_the_origin_page_fetched_in_the_pruned_copys_place(
    tmp_path, stdlib_page
):
    """The host mirror's page waits for the guide's page, which the crawl fetches in place of
    the library's, and is dropped for it once it is held; a library page the crawl did fetch
    still stands for both."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_copy_repointed)
        waiting = dedup.check_url(MIRROR_HOST + GUIDE + PAGE)
        assert (waiting.action, waiting.evidence["awaiting_crawl_of"]) == (
            "defer",
            ORIGIN + GUIDE + PAGE,
        )
        held = _crawled_then_checked(
            dedup, ORIGIN + GUIDE + PAGE, MIRROR_HOST + GUIDE + PAGE, stdlib_page("fractions")
        )
        assert (held.action, held.duplicate_of) == ("drop", ORIGIN + GUIDE + PAGE)
        other = "other.html"
        library = _crawled_then_checked(
            dedup, LIBRARY + other, MIRROR_HOST + GUIDE + other, stdlib_page("heapq")
        )
        assert (library.action, library.duplicate_of) == ("drop", LIBRARY + other)
        assert dedup.check_url(ORIGIN + GUIDE + other).action == "drop"


def test_an_origin_page_of_an_editions_prose_is_dropped_for_the_edition_and_the_host_mirrors_too(
    tmp_path, stdlib_page
):
    """The guide's own rule with its rpm edition was revoked too (the holdout's breadth-first
    crawl): the guide's page whose library page was pruned is dropped for the edition's page
    the crawl fetched, without code blocks (the page without code both editions hold is the
    same page), and the host mirror's page waiting for the guide's is dropped for that page too,
    not left waiting for a page the crawl never fetches."""
    edition = ORIGIN + "guide-rpm/"

    def rules(view) -> None:
        _copy_repointed(view)
        guide = Rule(ORIGIN + GUIDE, edition, "", "", 0.0, "content", 3, 3, 0)
        MirrorStore(view).put_revoked(guide)

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        prose = _prose_checked(dedup, edition, ORIGIN + GUIDE, stdlib_page)
        mirrored = dedup.check_url(MIRROR_HOST + GUIDE + PAGE)
    assert _dropped_as_prose_of(prose, edition + PAGE)
    assert (mirrored.action, mirrored.duplicate_of) == ("drop", edition + PAGE)
    assert mirrored.evidence["counterpart_dropped_for"] == edition + PAGE


def test_a_host_held_first_beside_its_origin_drops_a_page_the_origins_archive_crawled(
    tmp_path, stdlib_page
):
    """Two hosts crawled side by side, the copy held first; inside the origin, a renamed
    archive of its guide held first too, whose page the crawl fetched. The copy's guide page
    is dropped for that archive page: the rule over the copy's page is the widest rule pruning
    the guide's page, and stood for itself (the first holdout web, random order of run r3: 113 of
    the partner host's pages fetched after the project's archive held their content)."""

    def rules(view) -> None:
        store = MirrorStore(view)
        copy = Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
        store.put_rule(replace(copy, side_by_side=True))
        archive = Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0)
        store.put_rule(replace(archive, mirror_held_first=True))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, ORIGIN + ARCHIVE + PAGE, COPY + GUIDE + PAGE, page)
    assert (decision.action, decision.reason) == ("drop", "mirrored_directory")
    assert decision.duplicate_of == ORIGIN + ARCHIVE + PAGE


@pytest.mark.parametrize(
    ("copy_rule", "dropped"),
    [
        ({"mirror_held_first": True, "side_by_side": True}, True),
        ({"mirror_held_first": True}, True),
        ({"mirror_held_first": False}, False),  # the origin host held first: never pruned for it
    ],
)
def test_an_origins_archive_held_first_drops_a_page_the_copys_archive_crawled(
    tmp_path, stdlib_page, copy_rule, dropped
):
    """Inside the origin host, its renamed archive of the guide held before the guide keeps its
    pages (``crawled_first``) for that pair; but the whole host is a copy's origin, and the copy,
    held before it, crawled the archive's page: the origin's archive page is dropped for it (the
    eighth holdout web, breadth first: 680 pages of a partner's archive fetched so)."""

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, **copy_rule))
        archive = Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0)
        store.put_rule(replace(archive, mirror_held_first=True))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(
            dedup, COPY + ARCHIVE + PAGE, ORIGIN + ARCHIVE + PAGE, page
        )
    if dropped:
        assert (decision.action, decision.reason) == ("drop", "mirrored_directory")
        assert decision.duplicate_of == COPY + ARCHIVE + PAGE
    else:
        assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_guide_held_first_drops_a_prose_page_its_edition_crawled(tmp_path, stdlib_page):
    """The origin host held first (its copy host's rule keeps it, ``crawled_first``); its
    guide's pair with the guide's rpm edition was revoked for its code. A prose page the
    edition's side crawled stands for the guide's (the holdout web, round robin: 70 of the
    guide's pages fetched after their rpm twins)."""
    edition = ORIGIN + "guide-rpm/"

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(ORIGIN, COPY, "", "", 0.0, "content", 3, 3, 0, mirror_held_first=True))
        store.put_revoked(Rule(ORIGIN + GUIDE, edition, "", "", 0.0, "content", 3, 3, 0))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        decision = _prose_checked(dedup, edition, ORIGIN + GUIDE, stdlib_page)
    assert _dropped_as_prose_of(decision, edition + PAGE)


def test_a_guide_held_first_is_never_pruned_for_another_sites_edition(tmp_path, stdlib_page):
    """The same, the guide's pair with another site's edition of it (a library's, its code
    rewritten) revoked: the guide, held first, is fetched (a side held first is never pruned for
    another site's copy)."""

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(ORIGIN, COPY, "", "", 0.0, "content", 3, 3, 0, mirror_held_first=True))
        store.put_revoked(Rule(LIBRARY, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        decision = _prose_checked(dedup, LIBRARY, ORIGIN + GUIDE, stdlib_page)
    assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_copy_held_first_drops_a_prose_page_its_edition_crawled_where_the_origin_paired_them(
    tmp_path, stdlib_page
):
    """A copy host held first copies the origin's guide and its rpm edition, whose pair was
    revoked for code on the origin: the copy's editions are editions too. A prose page the
    copy's edition crawled stands for the copy's guide page (the holdout web, random order: a
    partner host held first fetched both editions whole, 58 pages twice)."""
    edition = "guide-rpm/"

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 3, 3, 0, mirror_held_first=True))
        store.put_revoked(Rule(ORIGIN + GUIDE, ORIGIN + edition, "", "", 0.0, "content", 3, 3, 0))

    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(rules)
        decision = _prose_checked(dedup, COPY + edition, COPY + GUIDE, stdlib_page)
    assert _dropped_as_prose_of(decision, COPY + edition + PAGE)


EDITION = "guide-rpm/"  # beside the guide: its edition for another package format


def _copy_with_an_edition_rule(view, code_probes: int = 0) -> None:
    """The copy held first of the origin host, whose guide a rule took for a copy of its rpm
    edition beside it (every sample prose: the code was never compared, or ``code_probes``
    coded pages were)."""
    store = MirrorStore(view)
    copy = Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
    store.put_rule(copy)
    edition = Rule(ORIGIN + GUIDE, ORIGIN + EDITION, "", "", 0.0, "content", 3, 3, 0)
    store.put_rule(replace(edition, code_probes=code_probes))


@pytest.mark.parametrize("coded", [False, True], ids=["prose", "code_blocks"])
def test_a_twin_with_code_blocks_between_sibling_directories_stands_for_no_page(
    tmp_path, stdlib_page, coded
):
    """The copy's guide page, crawled, is the twin of its edition page under the rule between
    the origin's sibling directories: it stands for it when it is prose, and not when it has
    code blocks (editions differ there; the edition's page is fetched)."""
    page = (
        _coded(stdlib_page, "fractions", "rpm --install guide.rpm")
        if coded
        else stdlib_page("fractions")
    )
    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, [COPY + "a.html", COPY + "b.html"], stdlib_page)  # before the rules came
        dedup.index.transact(_copy_with_an_edition_rule)
        twin = dedup.check_page(COPY + GUIDE + PAGE, page.encode())
        assert twin.action == "keep"
        for absent in dedup.check_url(COPY + EDITION + PAGE).probes:
            dedup.probe_failed(absent, 404)
        decision = dedup.check_url(COPY + EDITION + PAGE)
    if coded:
        assert (decision.action, decision.reason) == ("keep", "crawled_first")
    else:
        assert (decision.action, decision.duplicate_of) == ("drop", COPY + GUIDE + PAGE)
        assert decision.evidence["copy_rule"] == ORIGIN + GUIDE


@pytest.mark.parametrize(("code_probes", "dropped"), [(63, False), (64, True)])
def test_a_coded_twin_stands_for_its_edition_page_once_the_pair_spent_its_code_budget(
    tmp_path, stdlib_page, code_probes, dropped
):
    """The same pair after it compared its sides' code on as many coded pages as a pair of
    siblings does (``mirror.code_samples_siblings``, 64) and stands: the copy's coded guide
    page stands for its edition page, as the pair's own coded pages do for each other; one
    page short of the budget it does not."""
    page = _coded(stdlib_page, "fractions", "lilypond score.ly")
    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, [COPY + "a.html", COPY + "b.html"], stdlib_page)  # before the rules came
        dedup.index.transact(lambda view: _copy_with_an_edition_rule(view, code_probes))
        decision = _crawled_then_checked(dedup, COPY + GUIDE + PAGE, COPY + EDITION + PAGE, page)
    if dropped:
        assert (decision.action, decision.duplicate_of) == ("drop", COPY + GUIDE + PAGE)
        assert decision.evidence["copy_rule"] == ORIGIN + GUIDE
    else:
        assert (decision.action, decision.reason) == ("keep", "crawled_first")


def test_a_coded_twin_dropped_before_its_pair_is_revoked_is_fetched_back_on_the_pairs_side(
    tmp_path, stdlib_page
):
    """A pair that spent its code budget may still be revoked by a probe's answer in flight:
    the copy's edition page dropped for its coded twin meanwhile is then asked for again, as
    its counterpart on the pair's own side (``code_checks._fetch_back``), so it costs no
    content."""
    page = _coded(stdlib_page, "fractions", "lilypond score.ly")
    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, [COPY + "a.html", COPY + "b.html"], stdlib_page)  # before the rules came
        dedup.index.transact(lambda view: _copy_with_an_edition_rule(view, 64))
        twin = _crawled_then_checked(dedup, COPY + GUIDE + PAGE, COPY + EDITION + PAGE, page)
        assert twin.duplicate_of == COPY + GUIDE + PAGE
        guide, edition = (_coded(stdlib_page, "abc", code) for code in ("dpkg -i x", "rpm -i x"))
        dedup.check_page(COPY + GUIDE + "other.html", guide.encode())
        revoking = dedup.check_page(COPY + EDITION + "other.html", edition.encode())
    assert "mirrors_revoked" in revoking.evidence
    assert ORIGIN + EDITION + PAGE in revoking.evidence["fetch_back"]


def test_a_page_an_editions_side_lacks_is_fetched_on_the_other_side(tmp_path, stdlib_page):
    """A library's copy of a guide was paired with the guide's rpm edition, and revoked for its
    code: the edition's prose pages are dropped for the library's (``_beside_edition``). A page
    the library links but lacks is then reached through nothing but the library's 404: the
    edition's page is crawled in its place, once."""
    edition = ORIGIN + "guide-rpm/"
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(
            lambda view: MirrorStore(view).put_revoked(
                Rule(LIBRARY, edition, "", "", 0.0, "content", 3, 3, 0)
            )
        )
        [stand_in] = dedup.fetch_failed(LIBRARY + "lacking.html", 404)
        assert (stand_in.url, stand_in.reason) == (edition + "lacking.html", "stand_in")
        assert stand_in.evidence["missing_on_kept_side"] == LIBRARY + "lacking.html"
        dedup.check_page(edition + "lacking.html", stdlib_page("fractions").encode())
        assert dedup.fetch_failed(LIBRARY + "lacking.html", 404) == []  # held now


@pytest.mark.parametrize("side_by_side", [True, False], ids=["side_by_side", "crawled_first"])
def test_a_stale_copy_held_first_beside_its_origin_is_pruned_as_one_met_later(
    tmp_path, stdlib_page, side_by_side
):
    """A stale copy (its index page names an older release) held first by a coin flip, the two
    crawled side by side: its page is dropped where the origin holds its counterpart, and waits
    for it, probed, where the origin does not yet (the eighth holdout web's stale copy was
    crawled whole: 753 pages breadth first, then 739 in round robin when only pages beside
    the origin's were dropped); the origin's page is never dropped for its older text. Crawled
    first, it keeps its pages."""
    stale = Rule(
        COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True, mirror_older=True
    )
    stale = replace(stale, side_by_side=side_by_side)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(lambda view: MirrorStore(view).put_rule(stale))
        page = stdlib_page("fractions")
        decision = _crawled_then_checked(dedup, ORIGIN + PAGE, COPY + PAGE, page)
        origin = _crawled_then_checked(dedup, COPY + "other.html", ORIGIN + "other.html", page)
        ahead = dedup.check_url(COPY + "ahead.html")
    if side_by_side:
        assert (decision.action, decision.duplicate_of) == ("drop", ORIGIN + PAGE)
        assert (ahead.action, ahead.duplicate_of) == ("defer", ORIGIN + "ahead.html")
        assert ahead.probes == (ORIGIN + "ahead.html",)
    else:
        assert (decision.action, decision.reason) == ("keep", "crawled_first")
        assert (ahead.action, ahead.reason) == ("keep", "crawled_first")
    assert (origin.action, origin.reason) == ("keep", "not_mirrored")


def _edition_paired_with_the_library(view) -> None:
    """The copy held first of the origin host; the origin's edition paired with the library."""
    store = MirrorStore(view)
    store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True))
    store.put_rule(Rule(ORIGIN + EDITION, LIBRARY, "", "", 0.0, "content", 3, 3, 0))


LIBRARY_FIRST = [LIBRARY + "a.html", LIBRARY + "b.html", COPY + EDITION + "c.html"]
EDITION_FIRST = [COPY + EDITION + "c.html", COPY + EDITION + "d.html", LIBRARY + "a.html"]
SIDE_BY_SIDE = [COPY + EDITION + "c.html", LIBRARY + "a.html", COPY + EDITION + "d.html"]


@pytest.mark.parametrize(
    ("first", "coded", "dropped"),
    [
        (LIBRARY_FIRST, False, True),
        (LIBRARY_FIRST, True, False),
        (SIDE_BY_SIDE, False, True),  # a lead of one document: a coin flip
        (EDITION_FIRST, False, False),
    ],
    ids=["held_before", "code_blocks", "side_by_side", "edition_held_before"],
)
def test_a_third_sites_copy_of_the_counterparts_side_stands_for_the_page(
    tmp_path, stdlib_page, first, coded, dropped
):
    """The copy held first of the origin host; a rule between the origin's rpm edition and a
    library's copy of the guide, confirmed on prose. The library's page stands for the copy's
    edition page where the library was not met after the copy's edition and the page is prose
    (eighth holdout web, breadth first: 523 of the edition's pages fetched after the library's
    copies of them)."""
    page = (
        _coded(stdlib_page, "fractions", "rpm --install guide.rpm")
        if coded
        else stdlib_page("fractions")
    )
    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, first, stdlib_page)
        dedup.index.transact(_edition_paired_with_the_library)
        decision = _crawled_then_checked(dedup, LIBRARY + PAGE, COPY + EDITION + PAGE, page)
    if dropped:
        assert (decision.action, decision.duplicate_of) == ("drop", LIBRARY + PAGE)
        assert decision.evidence["copy_rule"] == ORIGIN + EDITION
    else:  # fetched: crawled first, or asked for as the coded page's own check
        assert (decision.action, decision.duplicate_of) == ("keep", None)


@pytest.mark.parametrize("copy_held_first", [True, False], ids=["held_first", "pruned"])
def test_a_directory_on_a_mirror_side_held_first_pairs_with_a_third_sites_copy(
    tmp_path, stdlib_page, copy_held_first
):
    """The copy held first is crawled whole: its guide's documents, duplicates of a library's
    copy crawled before them, open a pair with the library, collapsed onto the origin's guide
    (the eighth holdout web's GIMP guide, under a banner host's rule, was crawled whole after
    the library's copy: no pair, no rule). A side the rule prunes opens none: its pages are
    dropped for the origin's."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        copy = Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0)
        copy = replace(copy, mirror_held_first=copy_held_first)
        dedup.index.transact(lambda view: MirrorStore(view).put_rule(copy))
        names = ("decimal", "difflib", "heapq")
        for directory in (LIBRARY, COPY + GUIDE):
            listing = "".join(f'<a href="{name}.html">{name}</a>' for name in names)
            dedup.check_page(directory, f"<html><body>{listing}</body></html>".encode())
            for name in names:
                dedup.check_page(f"{directory}{name}.html", stdlib_page(name).encode())
        pairs = {(pair["mirror"], pair["origin"]) for pair in dedup.mirror_candidates()}
    # its origin is pointed where the copy's guide stands in the rule's origin (``repoint``)
    assert (pairs == {(LIBRARY, ORIGIN + GUIDE)}) == copy_held_first


@pytest.mark.parametrize("edition_first", [False, True], ids=["library_first", "edition_first"])
def test_a_page_waiting_for_a_copy_page_a_third_sites_copy_stood_for_is_dropped_for_that(
    tmp_path, stdlib_page, edition_first
):
    """The copy host held first; the origin's edition pruned for the origin's guide; a library's
    copy of the guide held first. The edition's page waits for the copy host's guide page, which
    the library's page, crawled, stands for: the edition's page is dropped for the library's
    rather than waiting until its waits run out (eighth holdout web, random order: 407 pages).
    Not where the edition led the library: a side held first is never pruned for a copy met
    later."""
    first = [LIBRARY + "a.html", LIBRARY + "b.html", COPY + GUIDE + "c.html"]
    if edition_first:
        first = [ORIGIN + EDITION + "e.html", ORIGIN + EDITION + "f.html", *first]

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True))
        store.put_rule(Rule(ORIGIN + EDITION, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0))
        library = Rule(LIBRARY, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0)
        store.put_rule(replace(library, mirror_held_first=True))

    with DedupFilter.open(tmp_path / "index") as dedup:
        _held(dedup, first, stdlib_page)
        dedup.index.transact(rules)
        copy_page = _crawled_then_checked(
            dedup, LIBRARY + PAGE, COPY + GUIDE + PAGE, stdlib_page("fractions")
        )
        assert (copy_page.action, copy_page.duplicate_of) == ("drop", LIBRARY + PAGE)
        decision = dedup.check_url(ORIGIN + EDITION + PAGE)
    if edition_first:
        assert decision.action != "drop"
    else:
        assert (decision.action, decision.duplicate_of) == ("drop", LIBRARY + PAGE)


SECOND = "http://second.test/pub/"  # a second copy of the origin host
MODULES = ("decimal", "difflib", "heapq", "bisect", "fractions")


def _two_copies_crawled_first(dedup, stdlib_page, **first_changes) -> None:
    """Two documents of the first copy, then two of the second, then one of the origin (each copy
    crawled before the origin, the first before the second); then both copies' rules, mirrors
    held first."""
    urls = [COPY + "a.html", COPY + "b.html", SECOND + "c.html", SECOND + "d.html"]
    for url, module in zip([*urls, ORIGIN + "e.html"], MODULES, strict=True):
        dedup.check_page(url, stdlib_page(module).encode())

    def rules(view) -> None:
        store = MirrorStore(view)
        for copy, changes in ((COPY, first_changes), (SECOND, {})):
            rule = Rule(copy, ORIGIN, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
            store.put_rule(replace(rule, **changes))

    dedup.index.transact(rules)


@pytest.mark.parametrize("first_answers", [200, 404], ids=["held", "lacking"])
def test_of_two_copies_held_before_their_origin_the_one_met_later_waits_for_the_other(
    tmp_path, stdlib_page, first_answers
):
    """Both copies crawled before their origin, so neither is pruned for it: the one met later
    waits for the other's page, and is dropped for it once the crawl holds it, or fetched where
    the other lacks it; the copy met first never waits (depth first, the eleventh holdout web's
    two copies of a Javadoc were both crawled whole: 1,105 fetches)."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        _two_copies_crawled_first(dedup, stdlib_page)
        waits = dedup.check_url(SECOND + PAGE)
        assert (waits.action, waits.duplicate_of) == ("defer", COPY + PAGE)
        assert waits.evidence["awaiting_crawl_of"] == COPY + PAGE
        assert not waits.probes  # the crawl fetches that copy whole
        assert dedup.check_url(COPY + "other.html").reason == "crawled_first"
        if first_answers == 200:
            page = stdlib_page("statistics")
            decision = _crawled_then_checked(dedup, COPY + PAGE, SECOND + PAGE, page)
        else:
            dedup.fetch_failed(COPY + PAGE, 404)
            decision = dedup.check_url(SECOND + PAGE)
    if first_answers == 200:
        assert (decision.action, decision.duplicate_of) == ("drop", COPY + PAGE)
        assert decision.evidence["copy_rule"] == COPY
    else:
        assert (decision.action, decision.reason) == ("keep", "counterpart_missing")


@pytest.mark.parametrize(
    "first_changes",
    [{"side_by_side": True}, {"side_by_side": True, "mirror_held_first": False}],
    ids=["pruned_beside", "pruned"],
)
def test_a_copy_crawled_beside_its_origin_is_waited_for_by_nothing(
    tmp_path, stdlib_page, first_changes
):
    """The copy met first was crawled side by side with the origin: its pages are pruned where
    the origin holds them, so the crawl may never fetch its page, and the copy met later keeps
    its own (the eighth holdout web, round robin: 549 pages waited on each other until their
    waits ran out)."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        _two_copies_crawled_first(dedup, stdlib_page, **first_changes)
        assert dedup.check_url(SECOND + PAGE).reason == "crawled_first"


# A guide's code edition held first, and a library's partial copy of the guide, which was held
# first too until it showed lacking a page (``turned_by_absence``); a host copy of the origin
# besides: the eighth holdout web, breadth first. The edition's pages had been dropped for the
# library's under a rule repointed since, so the guide's pages, and the host copy's through
# them, waited for edition pages the crawl would never fetch, until their waits ran out: 477
# guide pages and 441 of the host copy's fetched.
def _edition_and_library(view) -> None:
    store = MirrorStore(view)
    store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0))
    edition = Rule(ORIGIN + EDITION, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0)
    store.put_rule(replace(edition, mirror_held_first=True))
    library = Rule(LIBRARY, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0)
    store.put_rule(replace(library, turned_by_absence=True))


@pytest.mark.parametrize("checked", [ORIGIN + GUIDE + PAGE, COPY + GUIDE + PAGE])
def test_a_page_waiting_for_a_copy_held_first_is_dropped_for_a_crawled_copy_beside_it(
    tmp_path, stdlib_page, checked
):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_edition_and_library)
        waiting = dedup.check_url(checked)
        assert waiting.evidence.get("awaiting_crawl_of") == ORIGIN + EDITION + PAGE
        dedup.check_page(LIBRARY + PAGE, stdlib_page("fractions").encode())
        for absent in dedup.check_url(ORIGIN + GUIDE + PAGE).probes:  # the library's answer
            dedup.probe_failed(absent, 404)  # for a page it lacks, asked when its rule came
        decision = dedup.check_url(checked)
    assert (decision.action, decision.reason) == ("drop", "mirrored_directory")
    assert decision.duplicate_of == LIBRARY + PAGE


LIBRARY_TREE, COPIER_PART = "http://library.test/libxml2/", "http://copier.test/ref/xml/"


def test_of_two_copies_held_before_their_origin_the_parts_met_first_and_later_are_weighed(
    tmp_path, stdlib_page
):
    """A library copies the origin's whole tree, a copier one directory of it (``html/``). The
    library's root was met first, then the copier's part, then the library's ``html/``: the
    copier's part led the library's where the two overlap, so the library's ``html/`` page waits
    for the copier's, and the copier's page is never dropped unseen for the library's (its pages
    of other text are fetched, where audits see them). Weighed against the library's whole tree,
    each waited for the other until the waits ran out, and two such pages were lost (the fourth
    helper's web, depth first)."""
    urls = [LIBRARY_TREE + "a.html", LIBRARY_TREE + "b.html"]  # a lead of two documents
    urls += [COPIER_PART + "c.html", COPIER_PART + "d.html", LIBRARY_TREE + "html/e.html"]
    urls += [ORIGIN + "f.html"]
    with DedupFilter.open(tmp_path / "index") as dedup:
        for url, module in zip(urls, [*MODULES, "statistics"], strict=True):
            dedup.check_page(url, stdlib_page(module).encode())

        def rules(view) -> None:
            store = MirrorStore(view)
            for copy, copied in ((LIBRARY_TREE, ORIGIN), (COPIER_PART, ORIGIN + "html/")):
                rule = Rule(copy, copied, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
                store.put_rule(rule)

        dedup.index.transact(rules)
        assert dedup.check_url(COPIER_PART + PAGE).reason == "crawled_first"
        waits = dedup.check_url(LIBRARY_TREE + "html/" + PAGE)
        assert (waits.action, waits.evidence.get("awaiting_crawl_of")) == (
            "defer",
            COPIER_PART + PAGE,
        )
