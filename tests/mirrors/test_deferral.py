"""Rules never cost content: a URL under a rule is dropped only when its counterpart is held,
deferred while that is unknown, and fetched when the counterpart is missing or takes too long."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.mirrors.store import MirrorStore

from .conftest import (
    FIXED_NOW,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    table_of_contents,
)


@pytest.fixture
def clock():
    return [FIXED_NOW]


@pytest.fixture
def ruled(tmp_path, origin_tree, stdlib_page, clock):
    """A filter whose index holds the rule MIRROR -> ORIGIN, the origin crawled but for
    ``late.html``, which both sides hold; ``new.html`` exists under the mirror only."""
    index = LmdbIndex.open(tmp_path / "index", Config.default())
    dedup = DedupFilter(index, Config.default(), clock=lambda: clock[0])
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    yield dedup, {"late.html": stdlib_page("fractions").encode()}
    dedup.close()


def test_a_url_whose_counterpart_is_held_is_dropped_at_once(ruled):
    dedup, _ = ruled
    verdict = dedup.check_url(MIRROR + "extra/wave.html")
    assert (verdict.action, verdict.duplicate_of) == ("drop", ORIGIN + "extra/wave.html")
    assert dedup.settle_deferred(0.0) == []


def test_a_deferred_url_is_dropped_once_its_counterpart_is_fetched(ruled):
    dedup, late = ruled
    verdict = dedup.check_url(MIRROR + "late.html")
    assert (verdict.action, verdict.reason) == ("defer", "counterpart_pending")
    assert (verdict.deferred, verdict.dropped) == (True, False)
    assert verdict.duplicate_of == ORIGIN + "late.html"
    assert verdict.probes == (ORIGIN + "late.html",)  # the crawl fetches the origin's page
    again = dedup.check_url(MIRROR + "late.html")
    assert (again.action, again.probes) == ("defer", ())  # the probe is outstanding
    assert dedup.settle_deferred(float("inf")) == []  # nothing known yet
    dedup.check_page(ORIGIN + "late.html", late["late.html"])
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.url, settled.action, settled.reason) == (
        MIRROR + "late.html",
        "drop",
        "mirrored_directory",
    )
    assert settled.duplicate_of == ORIGIN + "late.html"
    assert dedup.settle_deferred(0.0) == [settled]  # given again until acted upon
    dedup.release_deferred([settled.url])
    assert dedup.settle_deferred(0.0) == []


def test_a_deferred_url_with_a_tracking_tag_is_dropped_once_its_counterpart_is_fetched(ruled):
    """Its counterpart, ``late.html`` with the tag, is an alias the URL rules drop once the
    origin's ``late.html`` is held: the settle pass sees that as ``check_url`` does (before, the
    URL waited out ``deferred_max_age_s`` and was fetched; a red team)."""
    dedup, late = ruled
    tagged = MIRROR + "late.html?utm_source=news"
    assert dedup.check_url(tagged).probes == (ORIGIN + "late.html",)  # past the alias
    dedup.check_page(ORIGIN + "late.html", late["late.html"])
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.url, settled.action) == (tagged, "drop")
    assert settled.duplicate_of == ORIGIN + "late.html"


@pytest.mark.parametrize("report", ["probe_failed", "counterpart_failed"])
def test_a_deferred_url_whose_counterpart_is_missing_is_fetched(ruled, report):
    dedup, _ = ruled
    assert dedup.check_url(MIRROR + "new.html").deferred
    getattr(dedup, report)(ORIGIN + "new.html", 404)
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.url, settled.action, settled.reason) == (
        MIRROR + "new.html",
        "keep",
        "counterpart_missing",
    )
    assert settled.evidence["status"] == 404
    verdict = dedup.check_url(MIRROR + "new.html")  # known absent: no second wait
    assert (verdict.action, verdict.reason) == ("keep", "counterpart_missing")


def test_a_url_deferred_too_long_is_fetched_and_judged_like_any_page(ruled, clock, stdlib_page):
    dedup, _ = ruled
    assert dedup.check_url(MIRROR + "new.html").deferred
    clock[0] += 30.0
    assert dedup.settle_deferred(60.0) == []
    clock[0] += 31.0
    [settled] = dedup.settle_deferred(60.0)
    assert (settled.action, settled.reason) == ("keep", "counterpart_timed_out")
    assert settled.evidence["waited_s"] == 61.0
    page = dedup.check_page(MIRROR + "new.html", stdlib_page("statistics").encode())
    assert (page.action, page.reason) == ("keep", "unique")


def test_deferred_urls_survive_a_restart(tmp_path, ruled, stdlib_page):
    dedup, _ = ruled
    assert dedup.check_url(MIRROR + "new.html").deferred
    dedup.close()
    with DedupFilter.open(tmp_path / "index") as reopened:
        assert reopened.pending_probes() == [ORIGIN + "new.html"]
        reopened.check_page(ORIGIN + "new.html", stdlib_page("statistics").encode())
        [settled] = reopened.settle_deferred(float("inf"))
        assert (settled.url, settled.action) == (MIRROR + "new.html", "drop")


def test_a_settled_url_never_released_is_settled_again_after_a_crash(tmp_path, ruled):
    dedup, _ = ruled
    assert dedup.check_url(MIRROR + "new.html").deferred
    dedup.probe_failed(ORIGIN + "new.html", 404)
    [settled] = dedup.settle_deferred(float("inf"))  # the process dies before acting on it
    dedup.close()
    with DedupFilter.open(tmp_path / "index") as reopened:
        [again] = reopened.settle_deferred(float("inf"))
        assert (again.url, again.action, again.reason) == (
            settled.url,
            "keep",
            "counterpart_missing",
        )


def test_a_protected_host_is_taken_for_the_origin(tmp_path, origin_tree):
    config = Config.default().with_overrides({"mirror.protected_prefixes": ["mirror.copy.test"]})
    with DedupFilter(LmdbIndex.open(tmp_path / "index", config), config) as dedup:
        pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
        crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
        assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
            (ORIGIN, MIRROR)
        ]
        assert not any(url.startswith(MIRROR) for url in crawl.pruned)


def test_a_prefix_pinned_after_its_rule_was_made_is_never_pruned(tmp_path, ruled):
    dedup, _ = ruled
    dedup.close()
    config = Config.default().with_overrides({"mirror.protected_prefixes": [MIRROR + "extra/"]})
    with DedupFilter(LmdbIndex.open(tmp_path / "index", config), config) as pinned:
        verdict = pinned.check_url(MIRROR + "extra/wave.html")
        assert (verdict.action, verdict.reason) == ("keep", "protected")
        assert pinned.check_url(MIRROR + "bisect.html").dropped


def test_a_counterpart_fetched_as_a_file_is_held_by_the_crawl(ruled):
    dedup, _ = ruled
    assert dedup.check_url(MIRROR + "_sources/notes.txt").deferred
    dedup.probe_failed(ORIGIN + "_sources/notes.txt", 200)  # fetched, not a page to check
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.action, settled.duplicate_of) == ("drop", ORIGIN + "_sources/notes.txt")


def test_the_stream_frontier_holds_a_deferred_url_until_it_settles(ruled):
    from dedup_filter.streams.frontier import Frontier

    dedup, late = ruled
    frontier = Frontier(dedup, cache_size=0, deferred_max_age_s=float("inf"))
    assert frontier.settle() == []  # nothing deferred by this process yet
    [verdict] = frontier.check([MIRROR + "late.html"])
    assert verdict.action == "defer"
    assert frontier.settle() == []
    dedup.check_page(ORIGIN + "late.html", late["late.html"])
    assert [(d.url, d.action) for d in frontier.settle()] == [(MIRROR + "late.html", "drop")]


def test_the_stream_frontier_releases_a_deferred_url_that_waited_too_long(ruled, clock):
    from dedup_filter.streams.frontier import Frontier

    dedup, _ = ruled
    frontier = Frontier(dedup, cache_size=0, deferred_max_age_s=60.0)
    frontier.check([MIRROR + "late.html"])
    clock[0] += 61
    [released] = frontier.settle()
    assert (released.action, released.reason) == ("keep", "counterpart_timed_out")


def test_a_restarted_stream_frontier_settles_what_an_earlier_process_deferred(ruled):
    from dedup_filter.streams.frontier import Frontier

    dedup, late = ruled
    assert (
        Frontier(dedup, cache_size=0, deferred_max_age_s=float("inf"))
        .check([MIRROR + "late.html"])[0]
        .deferred
    )  # that process stops here
    restarted = Frontier(dedup, cache_size=0, deferred_max_age_s=float("inf"))
    dedup.check_page(ORIGIN + "late.html", late["late.html"])
    [settled] = restarted.settle()
    assert (settled.url, settled.action) == (MIRROR + "late.html", "drop")
    restarted.release([settled])
    assert restarted.settle() == []


def test_a_check_without_writing_leaves_deferrals_to_the_writer(ruled):
    dedup, _ = ruled
    assert dedup.check_url_unless_deferred(MIRROR + "late.html") is None  # a wait to write
    assert dedup.settle_deferred(float("inf")) == []  # and none was written
    kept = dedup.check_url_unless_deferred(ORIGIN + "late.html")
    dropped = dedup.check_url_unless_deferred(MIRROR + "extra/wave.html")
    assert kept == dedup.check_url(ORIGIN + "late.html")
    assert dropped == dedup.check_url(MIRROR + "extra/wave.html")


def test_a_url_dropped_for_a_probes_answer_names_that_page_to_crawl_instead(ruled):
    """The origin's page arrived as a probe's answer, which the crawler's parser never sees: the
    mirror's URL is dropped and names that page to crawl in its place, until the crawler says it
    handed the page to its spider; a page crawled as itself names nothing."""
    dedup, late = ruled
    dedup.check_url(MIRROR + "late.html")  # deferred, its counterpart probed
    dedup.check_page(ORIGIN + "late.html", late["late.html"])  # the probe's answer
    [settled] = dedup.settle_deferred(float("inf"))
    assert settled.dropped
    assert settled.evidence["crawl_instead"] == ORIGIN + "late.html"
    dedup.probe_served(ORIGIN + "late.html")
    again = dedup.check_url(MIRROR + "late.html")
    assert again.dropped
    assert "crawl_instead" not in again.evidence
    crawled = dedup.check_url(MIRROR + "extra/wave.html")
    assert crawled.dropped
    assert "crawl_instead" not in crawled.evidence


@pytest.mark.parametrize(
    ("mirror", "unpruned"),
    [
        ("http://docs.other.test/guide/", True),
        ("http://mirror.other.test/guide/", False),  # named a copy
        ("http://docs.other.test/", False),  # as deep as its origin
    ],
    ids=["deeper", "named", "as_deep"],
)
def test_a_mirror_holding_a_page_its_origin_at_a_host_root_lacks_is_no_longer_pruned(
    tmp_path, origin_tree, stdlib_page, mirror, unpruned
):
    """The mirror side holds a page whose counterpart the origin, at its host's root, answers
    with a 404. Unless a name, a session id or a pin calls the mirror the copy, the origin may be
    a copier's copy filed at its root (depth takes it for the origin), and the mirror its
    victim, whose pages link what the copy's do not: its URLs are fetched from then on."""
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, mirror)
    OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), mirror])
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [mirror]
    assert dedup.check_url(mirror + "extra/wave.html").dropped
    assert dedup.check_url(mirror + "new.html").deferred
    dedup.probe_failed(ORIGIN + "new.html", 404)
    page = dedup.check_page(mirror + "new.html", stdlib_page("statistics").encode())
    verdict = dedup.check_url(mirror + "extra/wave.html")
    [rule] = dedup.mirror_rules()
    assert rule["origin_lacks"] is unpruned
    assert ("mirrors_origin_lacking" in page.evidence) is unpruned
    assert verdict.dropped is not unpruned
    if unpruned:
        assert (verdict.reason, rule["pruned"]) == ("origin_incomplete", [])
    dedup.close()


@pytest.mark.parametrize(
    ("location", "unpruned"),
    [
        ("new.v2.html", False),  # a page moved: the origin holds it elsewhere
        ("/", True),  # where a host that lacks a page sends its visitors
        ("http://docs.other.test/guide/new.html", True),  # off its host
        (None, True),  # nobody said where
    ],
    ids=["moved", "to_the_root", "off_host", "unknown"],
)
def test_a_page_its_origin_at_a_host_root_moved_leaves_the_mirror_pruned(
    tmp_path, origin_tree, stdlib_page, location, unpruned
):
    """As above, but the origin answers the counterpart with a 301: to another document of its
    host, the page moved (sites rename pages; their mirrors keep the old names), which is no
    page the origin lacks, and the mirror side stays pruned. On the eleventh holdout web with
    redirects (random order) two mirrors of an origin that had moved one page in six were
    fetched whole after its first move: 1,165 fetches. A redirect to the root, off the host or
    to nowhere said counts as lacking, as a 404 does."""
    mirror = "http://docs.other.test/guide/"
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, mirror)
    OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), mirror])
    assert dedup.check_url(mirror + "new.html").deferred
    dedup.probe_failed(ORIGIN + "new.html", 301, location)
    dedup.check_page(mirror + "new.html", stdlib_page("statistics").encode())
    [rule] = dedup.mirror_rules()
    assert rule["origin_lacks"] is unpruned
    assert dedup.check_url(mirror + "extra/wave.html").dropped is not unpruned
    dedup.close()


def test_a_page_a_victim_gained_since_its_copy_is_fetched_though_both_name_one_release(
    tmp_path, origin_tree, stdlib_page
):
    """A copier at a host's root holds the victim's pages as they were before the victim gained
    one, linked only from one of its documents; both index pages name the same release (a copy
    made between releases). The copier is crawled first: the victim's documents its copy holds
    are fetched all the same, since a dropped document's links are never followed, and the
    gained page, reached only through one of them, is kept (a session that dropped them for the
    copier's pages under the same release lost it)."""
    victim = "http://docs.other.test/guide/"
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    gained = victim + "extra/gained.html"
    linking = victim + "extra/wave.html"
    pages = with_release(origin_tree, ORIGIN, "2.4")
    copied = with_release(copy_tree(origin_tree, ORIGIN, victim), victim, "2.4")
    copied[linking] = copied[linking].replace(
        b"</body>", b'<a href="gained.html">gained</a></body>', 1
    )
    copied[gained] = stdlib_page("statistics").encode()
    copied[victim + "new.html"] = stdlib_page("fractions").encode()
    pages |= copied
    crawl = OnlineCrawl(dedup, pages)
    crawl.visit([*breadth_first(pages, ORIGIN), victim, victim + "new.html"])
    crawl.visit(breadth_first(pages, victim))
    assert linking in crawl.fetched
    crawl.visit([gained])  # what the fetched page links
    assert gained in crawl.fetched
    dedup.close()


FIRST_COPY, SECOND_COPY = "http://docs.one.test/guide/", "http://docs.two.test/guide/"


def with_release(pages: dict[str, bytes], base: str, release: str) -> dict[str, bytes]:
    """``pages`` with the index page of ``base`` naming ``release`` in its footer."""
    footer = f"<p>Manual version {release}</p></body>".encode()
    return pages | {base: pages[base].replace(b"</body>", footer, 1)}


@pytest.mark.parametrize("second_newer", [False, True], ids=["made_first", "later_release"])
def test_mirrors_whose_origin_lacks_their_pages_are_crawled_once_between_them(
    tmp_path, origin_tree, stdlib_page, second_newer
):
    """Two copies of one manual, each paired with a copier's partial copy at its host's root
    (depth takes the copier for the origin), each shown to hold a page the copier lacks: neither
    is pruned for the copier's pages (``origin_lacks``), but one is kept for the other, the one
    whose index page names the later release, else the one whose rule came first; the other's
    documents are dropped for its crawled pages (waiting for them), and what only it holds is
    fetched."""
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    new = stdlib_page("statistics").encode()
    pages = dict(origin_tree)
    for copy in (FIRST_COPY, SECOND_COPY):
        pages |= copy_tree(origin_tree, ORIGIN, copy) | {copy + "new.html": new}
    pages = with_release(pages, FIRST_COPY, "2.3.9")
    pages = with_release(pages, SECOND_COPY, "2.4.1" if second_newer else "2.3.9")
    pages[SECOND_COPY + "only.html"] = stdlib_page("fractions").encode()
    crawl = OnlineCrawl(dedup, pages).visit(
        [*breadth_first(origin_tree, ORIGIN), FIRST_COPY, SECOND_COPY]
    )
    crawl.visit([FIRST_COPY + "new.html", SECOND_COPY + "new.html"])
    rules = {rule["mirror"]: rule for rule in dedup.mirror_rules()}
    assert set(rules) == {FIRST_COPY, SECOND_COPY}
    assert all(rule["origin_lacks"] and rule["origin"] == ORIGIN for rule in rules.values())
    kept, pruned = (SECOND_COPY, FIRST_COPY) if second_newer else (FIRST_COPY, SECOND_COPY)
    sampled = set(crawl.fetched)  # the rules' samples among them
    crawl.visit([*breadth_first(pages, FIRST_COPY), *breadth_first(pages, SECOND_COPY)])
    documents = [
        url
        for url in pages
        if url.startswith(pruned) and url.endswith(".html") and url not in sampled
    ]
    dropped = {url for url in documents if url not in crawl.fetched}
    assert dropped == {url for url in documents if not url.endswith(("new.html", "only.html"))}
    assert dropped
    for url in dropped:
        assert crawl.pruned[url].duplicate_of == kept + url[len(pruned) :]
        assert crawl.pruned[url].evidence["origin_lacking"] == ORIGIN
        assert kept + url[len(pruned) :] in crawl.fetched
    assert all(url in crawl.fetched for url in pages if url.startswith(kept))
    assert SECOND_COPY + "only.html" in crawl.fetched
    dedup.close()


@pytest.mark.parametrize("code", [False, True], ids=["prose", "with_code"])
def test_a_named_copy_waits_for_the_victims_page_its_copier_origin_lacks(
    tmp_path, origin_tree, stdlib_page, code
):
    """A copier at its host's root, crawled first, is the origin of its victim (shown to hold a
    page the copier lacks, so crawled whole) and of a copy named as one (pruned). A document of
    the named copy whose counterpart the copier does not hold waits for the victim's page, the
    copier's never probed (it may lack it, a 404 fetched), and is dropped for it, instead of
    being fetched beside it, code blocks or not (the victim is kept for the copier's other
    mirrors, as a victim's stale copy is dropped for it); one the victim lacks too is fetched."""
    victim, named = "http://docs.one.test/guide/", "http://mirror.two.test/guide/"
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    later = stdlib_page("fractions")
    if code:
        later = later.replace("</body>", "<pre>from fractions import Fraction</pre></body>", 1)
    gained = {"new.html": stdlib_page("statistics"), "later.html": later}
    pages = dict(origin_tree)
    for copy in (victim, named):
        pages |= copy_tree(origin_tree, ORIGIN, copy)
        pages |= {copy + name: body.encode() for name, body in gained.items()}
    pages[named + "own.html"] = stdlib_page("secrets").encode()
    crawl = OnlineCrawl(dedup, pages).visit(
        [*breadth_first(origin_tree, ORIGIN), victim, victim + "new.html", named]
    )
    rules = {rule["mirror"]: rule for rule in dedup.mirror_rules()}
    assert (rules[victim]["origin"], rules[named]["origin"]) == (ORIGIN, ORIGIN)
    assert rules[victim]["origin_lacks"]
    assert (rules[named]["origin_lacks"], rules[named]["copy_named"]) == (False, True)
    waiting = dedup.check_url(named + "later.html")
    assert (waiting.action, waiting.probes) == ("defer", ())  # the copier's page is not asked
    assert waiting.evidence["awaiting_crawl_of"] == victim + "later.html"
    crawl.visit([named + "later.html", named + "own.html", victim + "later.html"])
    assert crawl.fetched[-2:] == [victim + "later.html", named + "own.html"]
    pruned = crawl.pruned[named + "later.html"]
    assert (pruned.reason, pruned.duplicate_of) == ("mirrored_directory", victim + "later.html")
    dedup.close()


def sampled_pair(open_filter, origin_tree, copy, **overrides):
    """The origin crawled, then the index page of ``copy`` (a tree under MIRROR) fetched with its
    samples' probes left in flight: the pair is being sampled. The filter, the crawl, the probes
    and a document of the copy that no probe asked for."""
    dedup = open_filter(**overrides)
    crawl = OnlineCrawl(dedup, origin_tree | copy).visit(breadth_first(origin_tree, ORIGIN))
    probes = crawl.fetch(MIRROR).probes
    assert probes  # its samples
    document = next(url for url in sorted(copy) if url.endswith(".html") and url not in probes)
    return dedup, crawl, probes, document


def test_a_document_of_a_pair_being_sampled_waits_for_the_rule_and_is_pruned_by_it(
    open_filter, origin_tree
):
    dedup, crawl, probes, document = sampled_pair(
        open_filter, origin_tree, copy_tree(origin_tree, ORIGIN, MIRROR)
    )
    counterpart = ORIGIN + document[len(MIRROR) :]
    verdict = dedup.check_url(document)
    assert (verdict.action, verdict.reason, verdict.duplicate_of) == (
        "defer",
        "mirror_pending",
        counterpart,
    )
    assert verdict.evidence["mirror_candidate"] == MIRROR
    assert verdict.probes == ()  # the pair may be no copy: its samples are probed already
    assert dedup.check_url(MIRROR + "extra/").reason == "not_mirrored"  # index pages are fetched
    assert dedup.settle_deferred(float("inf")) == []  # still sampled
    crawl.answer(probes)
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.url, settled.action, settled.reason, settled.duplicate_of) == (
        document,
        "drop",
        "mirrored_directory",
        counterpart,
    )


def test_a_document_of_a_look_alike_pair_waits_for_its_rejection_and_is_fetched(
    open_filter, origin_tree, stdlib_page
):
    """The copy's index page replicates the origin's, its documents do not: the samples reject
    the pair, and what waited is fetched."""
    others = iter(["fractions", "statistics", "secrets", "graphlib", "ipaddress", "numbers"] * 4)
    look_alike = {
        url: body if url.endswith("/") else stdlib_page(next(others)).encode()
        for url, body in copy_tree(origin_tree, ORIGIN, MIRROR).items()
    }
    dedup, crawl, probes, document = sampled_pair(open_filter, origin_tree, look_alike)
    assert dedup.check_url(document).reason == "mirror_pending"
    crawl.answer(probes)
    assert dedup.mirror_rules() == []
    [settled] = dedup.settle_deferred(float("inf"))
    assert (settled.url, settled.action, settled.reason) == (document, "keep", "not_mirrored")


def test_a_document_of_a_pair_being_sampled_is_fetched_when_waiting_is_off(
    open_filter, origin_tree
):
    copy = copy_tree(origin_tree, ORIGIN, MIRROR)
    dedup, _, _, document = sampled_pair(open_filter, origin_tree, copy, defer_while_sampled=False)
    assert dedup.check_url(document).reason == "not_mirrored"


PARTIAL = "http://partial.test/guide/"  # shallower than the complete copies: taken for the origin
ONE, TWO = "http://docs.one.test/pub/guide/", "http://docs.two.test/pub/guide/"
NAMED_COPY = "http://mirror.one.test/pub/guide/"  # a host label naming a copy


@pytest.mark.parametrize("twin", ["plain", "with_code", "other_release", "sample_mismatched"])
def test_a_page_its_partial_origin_lacks_is_fetched_once_between_its_mirrors(
    tmp_path, origin_tree, stdlib_page, twin
):
    """A partial copy, crawled first and shallower, is the origin of two complete copies; it
    lacks ``new.html``, which both hold. The first copy's page is fetched (its counterpart is
    a 404), the second's is dropped for it: both are copies of one origin by their samples. Not
    when the fetched twin holds code blocks (the copies may be editions of one guide, other
    commands in the same prose), nor when the copies' index pages name other releases, nor when
    a sample of the twin's rule mismatched."""
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    new = stdlib_page("statistics")
    if twin == "with_code":
        new = new.replace("</body>", "<pre>apt install python3-statistics</pre></body>", 1)
    pages = copy_tree(origin_tree, ORIGIN, PARTIAL)
    for copy in (ONE, TWO):
        pages |= copy_tree(origin_tree, ORIGIN, copy) | {copy + "new.html": new.encode()}
    if twin == "other_release":
        pages = with_release(with_release(pages, ONE, "2.4.1"), TWO, "2.3.9")
    order = [*breadth_first(pages, PARTIAL), *breadth_first(pages, ONE), *breadth_first(pages, TWO)]
    crawl = OnlineCrawl(dedup, pages).visit(url for url in order if not url.endswith("new.html"))
    assert {rule["mirror"]: rule["origin"] for rule in dedup.mirror_rules()} == {
        ONE: PARTIAL,
        TWO: PARTIAL,
    }
    if twin == "sample_mismatched":
        dedup.index.transact(lambda view: _one_sample_mismatched(MirrorStore(view), ONE))
    crawl.visit([ONE + "new.html", TWO + "new.html"])
    assert ONE + "new.html" in crawl.fetched
    assert PARTIAL + "new.html" in crawl.failed_probes + crawl.missing
    if twin == "plain":
        pruned = crawl.pruned[TWO + "new.html"]
        assert (pruned.reason, pruned.duplicate_of) == ("mirrored_directory", ONE + "new.html")
        assert pruned.evidence["status"] == 404
        assert pruned.evidence["counterpart"] == PARTIAL + "new.html"
    else:
        assert TWO + "new.html" in crawl.fetched
    dedup.close()


@pytest.mark.parametrize("first", [ONE, NAMED_COPY], ids=["plain", "named_a_copy"])
def test_a_page_its_partial_origin_lacks_checked_on_both_mirrors_at_once_is_fetched_once(
    tmp_path, origin_tree, stdlib_page, first
):
    """As above, but the two copies' pages are checked before either is fetched (a concurrent
    crawl releases both when the origin's 404 comes): one copy's page waits for the crawl to
    fetch the other's, and is dropped for it. Both were fetched. The page fetched is that of the
    copy ruled first, unless a name calls that one a copy (its page stands for none of a side
    nothing names so)."""
    dedup = DedupFilter.open(tmp_path / "index", Config.default())
    new = stdlib_page("statistics")
    pages = copy_tree(origin_tree, ORIGIN, PARTIAL)
    for copy in (first, TWO):
        pages |= copy_tree(origin_tree, ORIGIN, copy) | {copy + "new.html": new.encode()}
    order = [*breadth_first(pages, PARTIAL), *breadth_first(pages, first)]
    order += breadth_first(pages, TWO)
    crawl = OnlineCrawl(dedup, pages).visit(url for url in order if not url.endswith("new.html"))
    fetched, waits = (TWO, first) if first == NAMED_COPY else (first, TWO)
    checks = [dedup.check_url(copy + "new.html") for copy in (first, TWO)]
    assert all(check.deferred for check in checks)
    assert checks[0].probes == (PARTIAL + "new.html",)
    dedup.probe_failed(PARTIAL + "new.html", 404)
    settled = {decision.url: decision for decision in dedup.settle_deferred(float("inf"))}
    dedup.release_deferred(settled)
    assert list(settled) == [fetched + "new.html"]
    assert settled[fetched + "new.html"].reason == "counterpart_missing"
    waiting = dedup.check_url(waits + "new.html")
    assert (waiting.action, waiting.duplicate_of) == ("defer", fetched + "new.html")
    assert waiting.evidence["awaiting_crawl_of"] == fetched + "new.html"
    assert waiting.probes == ()
    crawl.visit([fetched + "new.html"])
    dropped = crawl.settled[waits + "new.html"]
    assert (dropped.reason, dropped.duplicate_of) == ("mirrored_directory", fetched + "new.html")
    assert waits + "new.html" not in crawl.fetched
    dedup.close()


def _one_sample_mismatched(store: MirrorStore, mirror: str) -> None:
    rule = store.rule(mirror)
    store.put_rule(replace(rule, checked=rule.checked + 1))


def _index_file_named(pages: dict[str, bytes], base: str) -> dict[str, bytes]:
    """``pages`` with ``base``'s ``extra/`` table of contents served as ``extra/index.html``,
    and linked so."""
    named = {
        url: body.replace(b'href="extra/"', b'href="extra/index.html"')
        for url, body in pages.items()
    }
    named[base + "extra/index.html"] = named.pop(base + "extra/")
    return named


@pytest.mark.parametrize("copy_index_asked", [True, False], ids=["asked", "never_asked"])
def test_an_index_file_is_not_held_by_a_listing_its_directory_url_answers(
    open_filter, origin_tree, copy_index_asked
):
    """A copy taken for the origin (pinned by the operator, crawled first) lacks
    ``extra/index.html``, and its server answers ``extra/`` with a listing of its own (an
    autoindex). That listing is filed as the directory's index page, but it does not hold the
    other side's table of contents: that ``extra/index.html`` is fetched, once the copy's was
    known to fail (a 404 the crawl met, or a probe's). It was dropped for the listing."""
    dedup = open_filter(protected_prefixes=["mirror.copy.test"])
    origin = _index_file_named(origin_tree, ORIGIN)
    copy = copy_tree(origin, ORIGIN, MIRROR)
    del copy[MIRROR + "extra/index.html"]
    extras = sorted(url[len(MIRROR) + 6 :] for url in copy if url.startswith(MIRROR + "extra/"))
    copy[MIRROR + "extra/"] = table_of_contents("Index of /extra", [(n, n) for n in extras])
    pages = origin | copy
    copy_order = [
        url
        for url in breadth_first(pages, MIRROR)
        if copy_index_asked or url != MIRROR + "extra/index.html"
    ]
    crawl = OnlineCrawl(dedup, pages).visit(
        [*copy_order, MIRROR + "extra/", *breadth_first(pages, ORIGIN)]
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(ORIGIN, MIRROR)]
    assert ORIGIN + "extra/index.html" in crawl.fetched
    assert any(url.startswith(ORIGIN) for url in crawl.pruned)
    assert all(decision.duplicate_of in crawl.fetched for decision in crawl.pruned.values())


def test_an_alias_of_a_probes_answer_names_that_page_to_crawl_instead(ruled):
    """The URL rules drop the spider's own request for an alias of a page that arrived as a
    mirror probe's answer (a tracking parameter here; on an independent web, the origin's
    ``index.html`` for its directory URL, fetched to pair its listing): what only that page
    links is reached when the alias's request is handed to it."""
    dedup, late = ruled
    dedup.check_url(MIRROR + "late.html")  # deferred, its counterpart probed
    dedup.check_page(ORIGIN + "late.html", late["late.html"])  # the probe's answer
    alias = dedup.check_url(ORIGIN + "late.html?utm_source=feed")
    assert (alias.action, alias.reason, alias.duplicate_of) == (
        "drop",
        "duplicate_url",
        ORIGIN + "late.html",
    )
    assert alias.evidence["crawl_instead"] == ORIGIN + "late.html"
    dedup.probe_served(ORIGIN + "late.html")
    assert "crawl_instead" not in dedup.check_url(ORIGIN + "late.html?utm_source=feed").evidence
