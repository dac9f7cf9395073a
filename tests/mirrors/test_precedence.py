"""Which side of a rule is pruned: the side held second, never the side held first unless
order-free evidence names it the copy; an origin's page met after its copy is not fetched where
the copy holds it; a copier never gets its victim pruned when the victim was crawled first."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.precedence import (
    HeldFirst,
    after_absence,
    held_before,
    held_first,
    held_first_through,
)
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.rules import pruned_sides, reweigh_through
from dedup_filter.mirrors.soft404 import absent_url
from dedup_filter.mirrors.soft404 import ask as ask_absent
from dedup_filter.mirrors.store import MirrorStore

from .conftest import (
    DEEP_COPY,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    deeper_copy_first,
    docs_tree,
    interleave,
    prose_guide,
)
from .test_orientation import VICTIM, listing_its_own, lost, without_every_third_leaf

NOT_FOUND = (
    b"<html><head><title>Not found</title></head><body><h1>Not found</h1><p>The page you asked "
    b"for is not on this mirror any more. Try the search form or the table of contents of the "
    b"mirror, which lists every manual it still carries.</p></body></html>"
)


def under(urls, base: str) -> list[str]:
    return [url for url in urls if url.startswith(base)]


UNNAMED_COPY = "http://www.copy.test/pub/notes/"  # deeper: the mirror, by depth alone
COPIER = "http://copier.test/"


def unnamed_copy_first(dedup, copy: dict[str, bytes], origin_tree) -> OnlineCrawl:
    pages = origin_tree | copy
    return OnlineCrawl(dedup, pages).visit(
        breadth_first(copy, UNNAMED_COPY) + breadth_first(origin_tree, ORIGIN)
    )


def walking_sides(origin_tree) -> tuple[dict[str, bytes], list[str], list[str], list[str]]:
    """The origin and its unnamed copy: their pages, the copy's documents walked forward, the
    origin's walked backward (the two meet in the middle), and both sides' index pages."""
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    copy_order, origin_order = breadth_first(copy, UNNAMED_COPY), breadth_first(origin_tree, ORIGIN)
    copy_documents = [url for url in copy_order if not url.endswith("/")]
    origin_documents = [url for url in origin_order if not url.endswith("/")][::-1]
    listings = [url for url in copy_order + origin_order if url.endswith("/")]
    return origin_tree | copy, copy_documents, origin_documents, listings


def meeting_in_the_middle(dedup, origin_tree, extra: int):
    """The two sides of ``walking_sides`` crawled in turns, the copy ``extra`` documents ahead,
    meeting in the middle where the index pages are met: the pages, the crawl, its one rule and
    half the copy's documents."""
    pages, copy_documents, origin_documents, listings = walking_sides(origin_tree)
    half = len(copy_documents) // 2
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(copy_documents[: half + extra], origin_documents[:half])
        + listings
        + interleave(copy_documents[half + extra :], origin_documents[half:])
    )
    (rule,) = dedup.mirror_rules()
    return pages, crawl, rule, half


def test_an_origin_met_after_its_copy_is_pruned_where_the_copy_held_first_holds_it(
    open_filter, origin_tree
):
    """Nothing but depth names the copy, and it was held first: it is never pruned (it may be a
    copier's victim); the origin's documents it holds are, its index pages are fetched."""
    dedup = open_filter()
    crawl = unnamed_copy_first(dedup, copy_tree(origin_tree, ORIGIN, UNNAMED_COPY), origin_tree)
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"]) == (UNNAMED_COPY, ORIGIN)
    assert (rule["held_first"], rule["copy_named"], rule["pruned"]) == ("mirror", False, ["origin"])
    assert under(crawl.pruned, UNNAMED_COPY) == []
    pruned = {url: crawl.pruned[url] for url in under(crawl.pruned, ORIGIN)}
    assert len(pruned) >= len(origin_tree) // 2
    for url, decision in pruned.items():
        assert decision.reason == "mirrored_directory"
        assert decision.duplicate_of == UNNAMED_COPY + url[len(ORIGIN) :]
        assert decision.duplicate_of in crawl.fetched
    assert {ORIGIN, ORIGIN + "extra/"} <= set(crawl.fetched)  # its listings are fetched
    assert lost(crawl, ORIGIN) == []
    assert dedup.check_url(ORIGIN + "csv.html").dropped
    assert dedup.check_url(UNNAMED_COPY + "csv.html").reason == "crawled_first"


def test_an_origin_crawled_beside_its_copy_waits_for_the_copy_instead_of_being_fetched(
    open_filter, origin_tree
):
    """The copy held first is crawled whole (never pruned), so an origin's document whose
    counterpart it has not fetched yet waits for it, unprobed, and is dropped once it arrives."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    pages = origin_tree | copy
    copy_order, origin_order = breadth_first(copy, UNNAMED_COPY), breadth_first(origin_tree, ORIGIN)
    crawl = OnlineCrawl(dedup, pages).visit(
        copy_order[:4] + interleave(origin_order, copy_order[:3:-1])
    )
    (rule,) = dedup.mirror_rules()
    assert rule["pruned"] == ["origin"]
    waited = [url for url in under(crawl.deferred, ORIGIN) if crawl.settled[url].dropped]
    assert waited  # met before the copy held its counterpart, dropped once it did
    assert not any(crawl.deferred[url].probes for url in waited)
    assert [url for url in under(crawl.probes, UNNAMED_COPY) if url in waited] == []
    origin_documents = [url for url in origin_tree if not url.endswith("/")]
    fetched = [url for url in under(crawl.fetched, ORIGIN) if url in origin_documents]
    assert len(fetched) <= 4  # the samples that confirmed the rule (lambda = 4)
    assert lost(crawl, ORIGIN) == []


def test_two_sides_crawled_side_by_side_each_lose_what_the_other_crawled(open_filter, origin_tree):
    """Neither side led by more than a document before their index pages paired them: the side
    held first is pruned too, where the other holds the page as one the crawl fetched (never as
    a probe's answer), and each content is fetched once."""
    dedup = open_filter()
    held_first = "mirror"
    _pages, crawl, rule, half = meeting_in_the_middle(dedup, origin_tree, 0)
    assert (rule["held_first"], rule["side_by_side"]) == (held_first, True)
    assert rule["pruned"] == ["mirror", "origin"]
    beside = rule[held_first]
    other = rule["origin" if held_first == "mirror" else "mirror"]
    pruned_beside = {url: crawl.pruned[url] for url in under(crawl.pruned, beside)}
    assert len(pruned_beside) >= half // 2
    for url, decision in pruned_beside.items():
        assert decision.reason == "mirrored_directory"
        assert decision.duplicate_of == other + url[len(beside) :]
        assert decision.duplicate_of in crawl.fetched
        assert decision.duplicate_of not in crawl.probes  # its links were followed
    assert under(crawl.pruned, other)
    fetched = [url for url in crawl.fetched if not url.endswith("/")]
    contents = {url.removeprefix(UNNAMED_COPY).removeprefix(ORIGIN) for url in fetched}
    assert (
        len(fetched) - len(contents) <= 4 + 4
    )  # the samples (lambda = 4), the audits of held pages
    assert lost(crawl, ORIGIN) == []
    assert lost(crawl, UNNAMED_COPY) == []


def test_a_deep_side_held_first_beside_a_root_copy_on_another_host_is_never_pruned_for_it(
    open_filter, origin_tree
):
    """The deep copy held first by one document, crawled side by side with a host's root: the
    rule takes the root for its mirror, the shape of a copier's copy of a victim's directory
    (which may predate pages the victim gained, and link none of them). The deep side is
    crawled whole, never pruned beside the root; the root's URLs are pruned for its pages, and
    nothing is lost on either side."""
    dedup = open_filter()
    _, crawl, rule, _ = meeting_in_the_middle(dedup, origin_tree, 1)
    assert (rule["mirror"], rule["origin"]) == (ORIGIN, UNNAMED_COPY)
    assert (rule["held_first"], rule["side_by_side"], rule["pruned"]) == (
        "origin",
        True,
        ["mirror"],
    )
    assert under(crawl.pruned, UNNAMED_COPY) == []
    assert under(crawl.pruned, ORIGIN)
    assert lost(crawl, ORIGIN) == []
    assert lost(crawl, UNNAMED_COPY) == []


@pytest.mark.parametrize(
    ("flags", "stands_for_origin"),
    [
        ({"side_by_side": True}, False),
        ({"side_by_side": True, "mirror_held_first": True}, False),
        ({"side_by_side": True, "origin_partial": True}, True),
        ({"side_by_side": True, "turned_by_absence": True, "mirror_held_first": True}, True),
        ({"side_by_side": True, "turned_by_absence": True}, False),
        ({"mirror_held_first": True}, True),
    ],
    ids=["beside", "held_first_beside", "partial", "turned_to_root", "turned_away", "first"],
)
def test_a_root_copy_crawled_beside_a_directory_on_another_host_stands_for_none_of_its_pages(
    flags, stands_for_origin
):
    """A mirror at a host's root whose origin is a directory below another host (a copier's
    copy of its victim), crawled side by side with it, never prunes the origin unless the
    origin was shown to lack pages the root holds. Crawled first, the root stands for it as
    before; under a directory, or a root beside a root, likewise."""
    root_copy = Rule(COPIER, VICTIM, COPIER, VICTIM, 0.0, "content", 3, 3, 0, **flags)
    assert root_copy.mirror_stands_for_origin is stands_for_origin
    if not stands_for_origin:
        assert not root_copy.prunes_origin
        assert not root_copy.prunes_origin_beside
    if flags == {"side_by_side": True, "mirror_held_first": True}:
        assert replace(root_copy, side_by_side=False).prunes_origin  # crawled first: pruned
    below_a_root = replace(root_copy, mirror=COPIER + "docs/", mirror_index=COPIER + "docs/")
    root_beside_a_root = replace(root_copy, origin="http://victim.test/")
    assert below_a_root.mirror_stands_for_origin
    assert root_beside_a_root.mirror_stands_for_origin


def test_a_copy_crawled_first_is_never_pruned_though_the_origin_follows_close(
    open_filter, origin_tree
):
    """The copy led by six documents, more than half of what the origin then held: it was
    crawled first (it may be a copier's victim), and the crawl beside it after that does not
    make the two side by side."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, listings = walking_sides(origin_tree)
    crawl = OnlineCrawl(dedup, pages).visit(
        copy_documents[:6]
        + interleave(origin_documents[:4], copy_documents[6:10])
        + listings
        + interleave(copy_documents[10:], origin_documents[4:])
    )
    (rule,) = dedup.mirror_rules()
    assert (rule["held_first"], rule["side_by_side"]) == ("mirror", False)
    assert rule["pruned"] == ["origin"]
    assert under(crawl.pruned, UNNAMED_COPY) == []
    assert lost(crawl, ORIGIN) == []


@pytest.mark.parametrize("origin_met_first", [True, False])
def test_two_sides_that_fill_side_by_side_after_their_rule_are_both_pruned_from_then_on(
    open_filter, origin_tree, origin_met_first
):
    """The copy led by three documents and the origin held one when their rule was made: the
    copy counted as crawled first. Then both filled in turns, each page held as itself (pages
    of a stream, or fetched before their counterparts): by eight documents a side, a lead of
    three is a coin flip, so the rule is made side by side and the copy loses the URLs whose
    counterparts the origin holds as crawled pages. Not where the copy's lead came before the
    origin's every page: then the copy was crawled first (a copier's victim met before the
    copier), and it is never pruned."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, listings = walking_sides(origin_tree)
    crawl = OnlineCrawl(dedup, pages)
    met_first = [ORIGIN] if origin_met_first else []
    crawl.visit(met_first + copy_documents[:3] + origin_documents[:1] + listings)
    (rule,) = dedup.mirror_rules()
    assert (rule["held_first"], rule["side_by_side"]) == ("mirror", False)
    for url in interleave(copy_documents[3:8], origin_documents[1:]):
        if url not in crawl.decisions:
            crawl.fetch(url)
    (rule,) = dedup.mirror_rules()
    crawl.visit(copy_documents[8:])
    pruned = under(crawl.pruned, UNNAMED_COPY)
    if not origin_met_first:
        assert (rule["side_by_side"], pruned) == (False, [])
        return
    assert any("mirrors_side_by_side" in decision.evidence for decision in crawl.decisions.values())
    assert (rule["side_by_side"], rule["pruned"]) == (True, ["mirror", "origin"])
    assert pruned
    for url in pruned:
        assert crawl.pruned[url].duplicate_of == ORIGIN + url[len(UNNAMED_COPY) :]
        assert crawl.pruned[url].duplicate_of in crawl.fetched
    assert lost(crawl, ORIGIN) == []
    assert lost(crawl, UNNAMED_COPY) == []


@pytest.mark.parametrize("origin_page_first", [True, False])
def test_a_lead_taken_before_the_other_side_was_met_is_a_side_crawled_first(
    open_filter, origin_tree, origin_page_first
):
    """Three documents of one directory, then both directories in turns, eight documents each
    held as themselves: a lead of three is at most half of either side, so the two were crawled
    side by side, unless the lead came before any page of the other (a copier's victim crawled
    before the copier was met)."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, _ = walking_sides(origin_tree)
    met = [ORIGIN] if origin_page_first else []
    for url in met + copy_documents[:3] + interleave(copy_documents[3:8], origin_documents[:8]):
        dedup.check_page(url, pages[url])
    held = dedup.index.transact(lambda view: held_first(MirrorStore(view), UNNAMED_COPY, ORIGIN))
    assert held == HeldFirst(mirror=True, side_by_side=origin_page_first)


@pytest.mark.parametrize("lead", [3, 8])
def test_a_stale_copys_lead_within_a_crawls_concurrency_is_side_by_side(
    open_filter, origin_tree, lead
):
    """A stale copy (``mirror_older``) that led by three documents before any page of its
    origin counts as crawled side by side with it (then pruned as a copy met later:
    ``Rule.prunes_mirror``); one that led by eight was crawled first. An unnamed copy of the
    same release led by three was crawled first too
    (``test_a_lead_taken_before_the_other_side_was_met_is_a_side_crawled_first``)."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, _ = walking_sides(origin_tree)
    crawled = copy_documents[:lead] + interleave(copy_documents[lead:], origin_documents)
    for url in crawled[: lead + 16]:
        dedup.check_page(url, pages[url])

    def weighed(mirror_older: bool) -> HeldFirst:
        return dedup.index.transact(
            lambda view: held_first(MirrorStore(view), UNNAMED_COPY, ORIGIN, mirror_older)
        )

    assert weighed(mirror_older=False) == HeldFirst(mirror=True, side_by_side=False)
    assert weighed(mirror_older=True) == HeldFirst(mirror=True, side_by_side=lead < 8)


def test_a_copy_leading_a_pruned_copier_is_not_held_first_beside_the_victim_it_copies(
    open_filter, origin_tree
):
    """The victim's rule kept the victim and pruned the copier at its host root (one document
    held, probed as samples); a copy crawled beside the victim leads that copier, but its origin
    moved there from the victim, which it did not lead: not held first (holdout6's stale manual
    was crawled whole in two orders of three)."""
    dedup = open_filter()
    victim = ORIGIN + "docs/"
    pages = copy_tree(origin_tree, ORIGIN, victim)
    copier = {COPIER + url[len(victim) :]: body for url, body in pages.items()}
    copy = copy_tree(pages, victim, UNNAMED_COPY)
    pages |= copier | copy
    crawled = breadth_first(copier, COPIER)[:2]
    # in turns, each side fetching first every other page, so each holds half of its pages
    sides = breadth_first(pages, victim), breadth_first(copy, UNNAMED_COPY)
    pairs = list(zip(*sides, strict=True))[:8]
    for number, pair in enumerate(pairs):
        crawled += pair[:: 1 if number % 2 == 0 else -1]
    for url in crawled:
        dedup.check_page(url, pages[url])

    def weighed(moved_from: str) -> HeldFirst:
        return dedup.index.transact(
            lambda view: held_first_through(MirrorStore(view), UNNAMED_COPY, COPIER, moved_from)
        )

    assert weighed("") == dedup.index.transact(
        lambda view: held_first(MirrorStore(view), UNNAMED_COPY, COPIER)
    )
    assert weighed("").mirror
    assert not weighed(victim).mirror


@pytest.mark.parametrize("origin_page_first", [True, False])
def test_which_side_was_held_before_is_kept_across_reads_only_once_settled(
    open_filter, origin_tree, origin_page_first
):
    """A reader keeps ``held_before``'s answer for the readers after it only once more pages
    cannot change it: a lead of three taken after the other side was met is no longer a side
    held before once both hold eight documents (side by side); one taken before it was met
    stays."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, _ = walking_sides(origin_tree)
    met = [ORIGIN] if origin_page_first else []

    def copy_held_before() -> bool:
        with dedup.index.read() as view:
            return held_before(MirrorStore(view), UNNAMED_COPY, ORIGIN)

    for url in met + copy_documents[:4] + origin_documents[:1]:
        dedup.check_page(url, pages[url])
    assert copy_held_before()
    for url in interleave(copy_documents[4:8], origin_documents[1:8]):
        dedup.check_page(url, pages[url])
    assert copy_held_before() is not origin_page_first


def test_a_copy_named_a_mirror_held_first_is_pruned_and_its_origin_never(open_filter, origin_tree):
    crawl = deeper_copy_first(dedup := open_filter(), origin_tree)
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"]) == (DEEP_COPY, ORIGIN)
    assert (rule["held_first"], rule["copy_named"], rule["pruned"]) == ("mirror", True, ["mirror"])
    assert under(crawl.pruned, ORIGIN) == []
    assert not any(dedup.check_url(url).dropped for url in origin_tree)


def test_an_origin_held_first_is_never_pruned_for_its_copy(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(breadth_first(pages, ORIGIN), breadth_first(pages, UNNAMED_COPY))
    )
    (rule,) = dedup.mirror_rules()
    assert (rule["held_first"], rule["pruned"]) == ("origin", ["mirror"])
    assert under(crawl.pruned, ORIGIN) == []
    assert under(crawl.pruned, UNNAMED_COPY)


def test_a_copy_with_edited_pages_held_first_never_gets_its_origin_pruned(open_filter, origin_tree):
    """A stale copy's pages are older versions: a rule accepted with mismatching samples never
    prunes the origin's current pages."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    leaves = sorted(url for url in copy if not url.endswith("/"))
    for url in leaves[::4]:  # a quarter of the pages rewritten since: their second half
        copy[url] = copy[url][: len(copy[url]) // 2] + NOT_FOUND
    crawl = unnamed_copy_first(dedup, copy, origin_tree)
    (rule,) = dedup.mirror_rules()
    assert rule["matches"] < rule["samples"]
    assert (rule["held_first"], rule["pruned"]) == ("mirror", [])
    assert under(crawl.pruned, ORIGIN) == []
    assert not any(dedup.check_url(url).dropped for url in origin_tree)


def test_a_copy_that_answers_a_page_it_lacks_with_a_page_never_costs_the_origin_that_page(
    open_filter, origin_tree
):
    """The copy, held first, serves a "not found" page with status 200 for a page it lacks: its
    URL holds that page, which is no copy of the origin's (``soft404.py``, asked of the copy)."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    lacking = [UNNAMED_COPY + "extra/textwrap.html"]
    copy |= {url: NOT_FOUND for url in lacking}
    pages = origin_tree | copy | {absent_url(UNNAMED_COPY): NOT_FOUND}  # what it answers a probe
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(copy, UNNAMED_COPY) + breadth_first(origin_tree, ORIGIN)
    )
    (rule,) = dedup.mirror_rules()
    assert rule["pruned"] == ["origin"]
    assert absent_url(UNNAMED_COPY) in crawl.absent_probes
    assert under(crawl.pruned, ORIGIN)
    for url in lacking:
        original = ORIGIN + url[len(UNNAMED_COPY) :]
        assert original in crawl.fetched
        assert dedup.check_url(original).reason == "already_held"


def test_a_partial_copy_serving_soft_404s_held_first_is_sampled_as_partial(
    open_filter, origin_tree
):
    """A copy of a copy lacking every other page, crawled first, that answers those paths with
    one "not found" page and a 200 (the twelfth holdout web's chain): a sample landing there is
    a page the copy lacks (unchecked), not a mismatch, once the copy's own answer for a page it
    lacks is known; so every checked sample matches and the origin's pages the copy holds are
    pruned for them, where before nothing was pruned on either side."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    leaves = sorted(url for url in copy if not url.endswith("/"))
    lacking = leaves[::2]
    copy |= {url: NOT_FOUND for url in lacking}
    pages = origin_tree | copy | {absent_url(UNNAMED_COPY): NOT_FOUND}
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(copy, UNNAMED_COPY) + breadth_first(origin_tree, ORIGIN)
    )
    (rule,) = dedup.mirror_rules()
    assert rule["unchecked"] >= 1
    assert rule["matches"] == rule["samples"]
    assert (rule["held_first"], rule["pruned"]) == ("mirror", ["origin"])
    assert absent_url(UNNAMED_COPY) in crawl.absent_probes
    assert under(crawl.pruned, ORIGIN)
    for url in lacking:  # the origin's pages the copy lacks are fetched
        assert ORIGIN + url[len(UNNAMED_COPY) :] in crawl.fetched


HIDDEN_NAME = "errata.html"  # no sample (samples go by the hash order of relative paths)
HIDDEN = b"<html><body><p>" + b" ".join(b"note%d" % n for n in range(300)) + b"</p></body></html>"


@pytest.mark.parametrize("answered", ["before", "after"])
def test_a_soft_404_on_the_kept_side_has_its_counterpart_crawled_in_its_place(
    open_filter, origin_tree, answered
):
    """The copy, held first, lacks a page that only one origin page links, and serves its "not
    found" page there with a 200: the origin's page is crawled in its place, as for a 404,
    whether the copy's answer for a page it lacks was known when the soft 404 came or came
    after it (the twelfth holdout web lost 119 pages so in one breadth-first crawl)."""
    dedup = open_filter()
    linking = ORIGIN + "bisect.html"
    origin = origin_tree | {ORIGIN + HIDDEN_NAME: HIDDEN}
    anchor = b'<a href="%s">notes</a></body>' % HIDDEN_NAME.encode()
    origin[linking] = origin[linking].replace(b"</body>", anchor)
    copy = copy_tree(origin, ORIGIN, UNNAMED_COPY) | {UNNAMED_COPY + HIDDEN_NAME: NOT_FOUND}
    pages = origin | copy | {absent_url(UNNAMED_COPY): NOT_FOUND}
    copy_order = breadth_first(copy, UNNAMED_COPY)
    soft = UNNAMED_COPY + HIDDEN_NAME
    copy_order.remove(soft)
    origin_order = [url for url in breadth_first(origin, ORIGIN) if url != ORIGIN + HIDDEN_NAME]
    if answered == "before":  # the rule made, the copy's answer known: then the soft 404
        order = copy_order + origin_order + [soft]
    else:  # the soft 404 first: the answer, asked when the rule is made, comes after it
        order = [soft, *copy_order, *origin_order]
    crawl = OnlineCrawl(dedup, pages).visit(order)
    (rule,) = dedup.mirror_rules()
    assert (rule["held_first"], rule["pruned"]) == ("mirror", ["origin"])
    assert linking in crawl.pruned  # the only page linking it was never fetched
    assert ORIGIN + HIDDEN_NAME in crawl.fetched


@pytest.mark.parametrize("copier", ["http://copier.test/", "http://copier.test/docs/"])
def test_a_copier_met_while_its_victim_is_crawled_never_gets_the_victim_pruned(
    open_filter, corpus, modules, copier
):
    """The victim's index page and first pages are held, then the copier (70 % of the victim's
    pages, at its root or as deep) is crawled, then the rest of the victim."""
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copied = without_every_third_leaf(copy_tree(victim, VICTIM, copier), copier)
    pages = victim | copied
    victim_order = breadth_first(pages, VICTIM)
    crawl = OnlineCrawl(dedup, pages).visit(
        victim_order[:3] + breadth_first(pages, copier) + victim_order[3:]
    )
    assert dedup.mirror_rules()
    assert under(crawl.pruned, VICTIM) == []
    assert not any(dedup.check_url(url).dropped for url in victim)
    assert lost(crawl, VICTIM) == []


@pytest.mark.parametrize("copier", ["http://copier.test/", "http://copier.test/docs/"])
def test_a_copier_crawled_first_never_gets_a_page_it_lacks_pruned(
    open_filter, corpus, modules, copier
):
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copied = without_every_third_leaf(copy_tree(victim, VICTIM, copier), copier)
    pages = victim | copied
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, copier)[:3]
        + interleave(breadth_first(pages, copier)[3:], breadth_first(pages, VICTIM))
    )
    only_victim = [url for url in victim if copier + url[len(VICTIM) :] not in copied]
    assert only_victim
    assert not any(url in crawl.pruned for url in only_victim)
    assert not any(dedup.check_url(url).dropped for url in only_victim)
    assert lost(crawl, VICTIM) == []
    for url in under(crawl.pruned, VICTIM):
        assert crawl.pruned[url].duplicate_of in crawl.fetched


def test_the_boundary_search_probes_the_origins_parent_index_page(open_filter, origin_tree):
    """Two copied subdirectories are crawled before either parent's index page: both parent
    index pages are probed, and the rule widens to the host roots."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(breadth_first(pages, ORIGIN + "extra/"), breadth_first(pages, MIRROR + "extra/"))
    )
    assert ORIGIN in crawl.probes
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]


def test_a_renamed_copy_inside_another_rules_origin_is_a_rule_too(open_filter, origin_tree):
    """The whole host is mirrored, and the origin's host holds an old copy of its ``extra/``
    under another name: the renamed copy is ruled although it lies within the host rule's
    origin, and the mirror's URLs under it are pruned through it."""
    dedup = open_filter()
    renamed = ORIGIN + "archive/extra-old/"
    origin = origin_tree | copy_tree(origin_tree, ORIGIN + "extra/", renamed)
    pages = origin | copy_tree(origin, ORIGIN, MIRROR)
    first = [url for url in breadth_first(pages, ORIGIN) if not url.startswith(renamed)]
    mirror_first = [url for url in breadth_first(pages, MIRROR) if "/archive/" not in url]
    crawl = OnlineCrawl(dedup, pages).visit(interleave(first, mirror_first))
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]
    crawl.visit(breadth_first(pages, renamed))
    rules = {
        (rule["mirror"], rule["origin"], bool(rule.get("implied_by")))
        for rule in dedup.mirror_rules()
    }
    twin = (MIRROR + "archive/extra-old/", MIRROR + "extra/", True)  # listed, pruning nothing
    assert rules == {(MIRROR, ORIGIN, False), (renamed, ORIGIN + "extra/", False), twin}
    crawl.visit(breadth_first(pages, MIRROR + "archive/"))
    assert lost(crawl, ORIGIN) == []
    assert set(under(crawl.pruned, MIRROR + "archive/")) >= set(
        breadth_first(pages, MIRROR + "archive/extra-old/")[1:]
    )


def test_an_index_page_under_a_language_negotiated_name_pairs_its_directory(
    open_filter, origin_tree
):
    """The origin's index page was fetched as ``index.en.html`` (the name its ``index.html``
    aliases) before the copy's ``index.html``, which duplicates it."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    negotiated = {ORIGIN + "index.en.html": origin_tree[ORIGIN]}
    pages = origin_tree | negotiated | copy | {UNNAMED_COPY + "index.html": copy[UNNAMED_COPY]}
    origin_first = [ORIGIN + "index.en.html", *breadth_first(origin_tree, ORIGIN)[1:]]
    OnlineCrawl(dedup, pages).visit(
        [*origin_first, UNNAMED_COPY + "index.html", *breadth_first(copy, UNNAMED_COPY)[1:]]
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
        (UNNAMED_COPY, ORIGIN)
    ]


def test_a_parent_index_page_is_probed_under_the_name_its_children_use(open_filter, origin_tree):
    """A server that serves its index pages as ``index.html`` only (the directory's own URL is
    a 404): the parents' index pages are asked for as ``index.html``."""
    dedup = open_filter()
    named = {
        url + "index.html" if url.endswith("/") else url: body for url, body in origin_tree.items()
    }
    pages = named | copy_tree(named, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(breadth_first(pages, ORIGIN + "extra/"), breadth_first(pages, MIRROR + "extra/"))
    )
    assert {ORIGIN + "index.html", MIRROR + "index.html"} <= set(crawl.probes)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]


def test_a_parent_index_page_that_fails_under_its_directory_url_is_asked_as_index_html(
    open_filter, origin_tree
):
    """The subdirectories' index pages are served under their directory URL, the top one only
    as ``index.html`` (its directory URL is a 404)."""
    dedup = open_filter()
    top = {ORIGIN + "index.html": origin_tree[ORIGIN]}
    named = {url: body for url, body in origin_tree.items() if url != ORIGIN} | top
    pages = named | copy_tree(named, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(breadth_first(pages, ORIGIN + "extra/"), breadth_first(pages, MIRROR + "extra/"))
    )
    assert {ORIGIN, MIRROR} <= set(crawl.failed_probes)
    assert {ORIGIN + "index.html", MIRROR + "index.html"} <= set(crawl.probes)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]


def test_a_copy_named_a_mirror_paired_by_documents_and_held_first_is_the_mirror(
    open_filter, origin_tree
):
    """A pair found from documents takes the side held first for the origin; a name that says
    the other side is the copy turns it round when it is confirmed."""
    dedup = open_filter()
    copy = listing_its_own(copy_tree(origin_tree, ORIGIN, MIRROR), MIRROR)
    pages = origin_tree | copy
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(copy, MIRROR) + breadth_first(origin_tree, ORIGIN)
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]
    assert under(crawl.pruned, ORIGIN) == []


HELD_FIRST_COPY = "http://fast.copy.test/pub/notes/"  # deeper than the origin: taken for a copy
LATER_COPY = "http://slow.copy.test/pub/notes/"


def test_a_copy_met_after_its_origin_waits_for_the_copy_held_first_instead_of_probing_the_origin(
    open_filter, origin_tree
):
    """Two copies of one origin: one held before the origin (a rule that prunes the origin),
    one after it (a rule that prunes that copy). The later copy's URLs are decided against the
    copy held first, which the crawl fetches whole: probing the origin's pages for them would
    make each of that copy's fetches a duplicate."""
    dedup = open_filter()
    pages = (
        origin_tree
        | copy_tree(origin_tree, ORIGIN, HELD_FIRST_COPY)
        | copy_tree(origin_tree, ORIGIN, LATER_COPY)
    )
    first, origin, later = (
        breadth_first(pages, base) for base in (HELD_FIRST_COPY, ORIGIN, LATER_COPY)
    )
    crawl = OnlineCrawl(dedup, pages).visit(
        first[:3] + origin[:1] + later[:1] + interleave(first[3:], origin[1:], later[1:])
    )
    pruned = {rule["mirror"]: rule["pruned"] for rule in dedup.mirror_rules()}
    assert pruned == {HELD_FIRST_COPY: ["origin"], LATER_COPY: ["mirror"]}
    assert under(crawl.pruned, HELD_FIRST_COPY) == []
    for url in under(crawl.pruned, LATER_COPY):
        assert crawl.pruned[url].duplicate_of in crawl.fetched
    documents = [url for url in origin_tree if not url.endswith("/")]
    origin_fetched = [url for url in under(crawl.fetched, ORIGIN) if url in documents]
    assert len(origin_fetched) <= 4  # the samples that confirmed the first rule (lambda = 4)
    assert len(crawl.fetched) <= len(origin_tree) + 2 * 4 + 2 * 2  # samples and index pages
    for base in (ORIGIN, HELD_FIRST_COPY, LATER_COPY):
        assert lost(crawl, base) == []


def test_a_copy_whose_index_page_alone_came_first_is_not_the_side_held_first(
    open_filter, origin_tree
):
    """The copy's index page is fetched one page before the origin's, then both directories are
    crawled side by side, the origin a little ahead: an index page fetched early is not a
    directory crawled first, so the copy is pruned, and the origin crawled whole."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    copy_order, origin_order = breadth_first(copy, UNNAMED_COPY), breadth_first(origin_tree, ORIGIN)
    crawl = OnlineCrawl(dedup, origin_tree | copy).visit(
        copy_order[:1] + origin_order[:3] + interleave(origin_order[3:], copy_order[1:])
    )
    (rule,) = dedup.mirror_rules()
    assert (rule["held_first"], rule["pruned"]) == ("origin", ["mirror"])
    assert under(crawl.pruned, ORIGIN) == []
    assert under(crawl.pruned, UNNAMED_COPY)
    assert lost(crawl, UNNAMED_COPY) == []


def test_a_page_the_kept_side_lacks_stands_in_for_its_counterpart_on_the_pruned_side(
    open_filter, origin_tree
):
    """A copy held first keeps its side and the origin's documents go, so a page of the origin
    linked only from them is met only through the copy, which links it but lacks it (a 404):
    that failure names the origin's page to crawl, and the origin's page is then fetched."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    missing = sorted(under(copy, UNNAMED_COPY + "extra/"))[-1]
    counterpart = ORIGIN + missing[len(UNNAMED_COPY) :]
    OnlineCrawl(dedup, origin_tree | copy).visit(
        [url for url in breadth_first(copy, UNNAMED_COPY) if url != missing]
        + [url for url in breadth_first(origin_tree, ORIGIN) if url != counterpart]
    )
    (rule,) = dedup.mirror_rules()
    assert rule["pruned"] == ["origin"]
    assert dedup.check_url(counterpart).reason == "counterpart_pending"  # waits for the copy
    (stand_in,) = dedup.fetch_failed(missing, 404)
    assert (stand_in.url, stand_in.action, stand_in.reason) == (counterpart, "keep", "stand_in")
    assert stand_in.evidence == {"mirror_rule": UNNAMED_COPY, "missing_on_kept_side": missing}
    assert dedup.check_url(counterpart).reason == "counterpart_missing"
    assert dedup.fetch_failed(ORIGIN + "gone.html", 404) == []  # the origin is the pruned side
    assert dedup.fetch_failed("http://elsewhere.test/gone.html", 404) == []


def test_a_page_a_mirror_lacks_stands_in_for_its_origin_pruned_beside_it(open_filter):
    """The origin pruned beside its mirror (crawled side by side, or held first passed to it for
    a page the mirror lacked): a page the mirror answers with a 404 is asked for on the origin,
    whose copy of the link the crawl never followed."""
    dedup = open_filter()
    mirror, origin = "http://docs.copy.test/notes/", "http://docs.origin.test/notes/"
    turned = Rule(mirror, origin, mirror, origin, 0.0, "content", 3, 3, 0, turned_by_absence=True)
    dedup.index.transact(lambda view: MirrorStore(view).put_rule(turned))
    [rule] = dedup.mirror_rules()
    assert rule["pruned"] == ["mirror", "origin"]
    (stand_in,) = dedup.fetch_failed(mirror + "gone.html", 404)
    assert (stand_in.url, stand_in.reason) == (origin + "gone.html", "stand_in")
    missing = {"mirror_rule": mirror, "missing_on_kept_side": mirror + "gone.html"}
    assert stand_in.evidence == missing


def test_a_page_the_origin_held_first_lacks_stands_in_for_its_mirror_counterpart(
    open_filter, origin_tree
):
    """The other way round: the origin held first keeps its side, the copy's URLs go."""
    dedup = open_filter()
    copy = copy_tree(origin_tree, ORIGIN, UNNAMED_COPY)
    OnlineCrawl(dedup, origin_tree | copy).visit(
        breadth_first(origin_tree, ORIGIN) + breadth_first(copy, UNNAMED_COPY)
    )
    (rule,) = dedup.mirror_rules()
    assert (rule["origin"], rule["pruned"]) == (ORIGIN, ["mirror"])
    (stand_in,) = dedup.fetch_failed(ORIGIN + "extra/gone.html", 404)
    assert stand_in.url == UNNAMED_COPY + "extra/gone.html"
    assert dedup.fetch_failed(ORIGIN + "extra/", 404) == []  # its counterpart is held
    assert dedup.fetch_failed(UNNAMED_COPY + "gone.html", 404) == []


def test_a_page_beside_a_dropped_duplicate_is_pruned_for_the_page_kept_for_that_duplicate(
    open_filter, origin_tree
):
    """Two sides crawled side by side: a page whose counterpart was dropped as a duplicate of a
    page the crawl fetched is pruned for it, on either side. Waiting for the counterpart as a
    page of its own would wait for ever (a duplicate is never kept), and its fetch would be
    dropped alike: its links were the crawl's to give up, and were."""
    dedup = open_filter()
    pages, crawl, rule, _ = meeting_in_the_middle(dedup, origin_tree, 0)
    assert rule["side_by_side"]
    assert rule["pruned"] == ["mirror", "origin"]
    for side, other in ((rule["mirror"], rule["origin"]), (rule["origin"], rule["mirror"])):
        kept = next(url for url in crawl.fetched if url.startswith(other) and url.endswith("l"))
        assert crawl.decisions[kept].action == "keep"
        name = f"twin-of-{kept.rpartition('/')[2]}"  # one name a content: two would be a mismatch
        twin = other + name
        assert dedup.check_page(twin, pages[kept]).reason == "exact_duplicate"
        verdict = dedup.check_url(side + name)
        assert (verdict.action, verdict.reason) == ("drop", "mirrored_directory")
        assert verdict.duplicate_of == twin


# modules whose pydoc pages the origin gained after its copy was made
ADDED = ("fractions", "statistics", "secrets", "graphlib", "ipaddress", "numbers")


@pytest.mark.parametrize("partial_side", ["mirror", "origin"])
def test_a_side_held_first_that_lacks_a_page_beside_its_counterpart_passes_held_first_on(
    open_filter, origin_tree, stdlib_page, partial_side
):
    """Two sides crawled side by side, the one held first lacking pages the other holds (a
    partial copy of a copy, reached early): without the turn each page it lacks costs a 404
    before the other side's page is fetched in its place. Its first 404 beside a page the
    other side holds passes held first to that side, once: the partial side's other URLs wait
    for the complete side's pages and are dropped for them, and nothing is lost."""
    dedup = open_filter()
    _, crawl, rule, _ = meeting_in_the_middle(
        dedup, origin_tree, 0 if partial_side == "mirror" else 1
    )
    assert (rule["held_first"], rule["side_by_side"], rule["turned_by_absence"]) == (
        partial_side,
        True,
        False,
    )
    partial, complete = rule[partial_side], rule["origin" if partial_side == "mirror" else "mirror"]
    crawl.pages |= {f"{complete}{name}.html": stdlib_page(name).encode() for name in ADDED}
    crawl.visit(
        interleave(
            [f"{partial}{name}.html" for name in ADDED],
            [f"{complete}{name}.html" for name in ADDED],
        )
    )
    (turned,) = dedup.mirror_rules()
    assert turned["turned_by_absence"]
    assert turned["held_first"] != partial_side
    assert turned["pruned"] == ["mirror", "origin"]
    assert crawl.missing == [f"{partial}{ADDED[0]}.html"]  # one 404, not six
    for name in ADDED[1:]:
        pruned = crawl.pruned[f"{partial}{name}.html"]
        assert (pruned.reason, pruned.duplicate_of) == (
            "mirrored_directory",
            f"{complete}{name}.html",
        )
    assert lost(crawl, ORIGIN) == lost(crawl, UNNAMED_COPY) == []


DEEP_UNNAMED = "http://docs.other.test/pub/notes/"  # deeper, and no name calls it a copy
# twelve more pages the origin holds and the copy crawled first lacks (linked from its pages)
LACKED = (*ADDED, "decimal", "random", "operator", "functools", "getopt", "codecs")


def test_a_copy_crawled_first_that_lacks_pages_passes_held_first_on_at_its_eighth_404(
    open_filter, origin_tree, stdlib_page
):
    """A copy filed deeper on another host, crawled before its origin (held first, so the
    origin's pages were pruned for it), lacks twelve pages the origin holds (a partial copy of
    a copy met first): each costs a 404 and then the origin's page in its place. At the eighth,
    held first passes to the origin: the copy's other URLs wait for the origin's pages and are
    dropped for them, four 404s spared, nothing lost."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_UNNAMED)
    order = breadth_first(pages, DEEP_UNNAMED) + breadth_first(pages, ORIGIN)
    crawl = OnlineCrawl(dedup, pages).visit(order)
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["held_first"], rule["side_by_side"]) == (
        DEEP_UNNAMED,
        "mirror",
        False,
    )
    crawl.pages |= {f"{ORIGIN}{name}.html": stdlib_page(name).encode() for name in LACKED}
    crawl.visit([f"{DEEP_UNNAMED}{name}.html" for name in LACKED])
    (turned,) = dedup.mirror_rules()
    assert (turned["held_first"], turned["turned_by_absence"], turned["absences"]) == (
        "origin",
        True,
        8,
    )
    assert crawl.missing == [f"{DEEP_UNNAMED}{name}.html" for name in LACKED[:8]]
    for name in LACKED[8:]:
        pruned = crawl.pruned[f"{DEEP_UNNAMED}{name}.html"]
        assert (pruned.reason, pruned.duplicate_of) == (
            "mirrored_directory",
            f"{ORIGIN}{name}.html",
        )
    assert all(f"{ORIGIN}{name}.html" in crawl.fetched for name in LACKED)
    assert lost(crawl, ORIGIN) == lost(crawl, DEEP_UNNAMED) == []


def test_a_copy_crawled_first_counts_at_its_rule_the_404s_the_crawl_met_before_it(
    open_filter, origin_tree, stdlib_page
):
    """As above, but the copy's twelve 404s and the origin's pages it lacks all came before the
    pair was a rule (its broken links crawled first, the origin's pages met before its index
    page): the rule counts them when it is made, and turns then. Counted only from the rule
    on, none of them was, and the copy kept held first."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_UNNAMED)
    pages |= {f"{ORIGIN}{name}.html": stdlib_page(name).encode() for name in LACKED}
    order = breadth_first(pages, DEEP_UNNAMED) + [f"{DEEP_UNNAMED}{name}.html" for name in LACKED]
    order += [f"{ORIGIN}{name}.html" for name in LACKED] + breadth_first(pages, ORIGIN)
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert crawl.missing == [f"{DEEP_UNNAMED}{name}.html" for name in LACKED]
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["held_first"], rule["turned_by_absence"], rule["absences"]) == (
        DEEP_UNNAMED,
        "origin",
        True,
        8,
    )
    assert lost(crawl, ORIGIN) == lost(crawl, DEEP_UNNAMED) == []


def test_an_origin_held_first_after_a_turn_is_pruned_beside_what_the_copy_fetched(
    open_filter, origin_tree, stdlib_page
):
    """The copy crawled first turns at its eighth 404 before the origin's documents are
    crawled: the origin's pages it fetched before the turn stand for the origin's, which are
    dropped for them (the eighth holdout web's guide was otherwise fetched whole after a
    library's partial copy of it, breadth first: 700 pages), and the pages it lacks are the
    origin's to fetch."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_UNNAMED)
    pages |= {f"{ORIGIN}{name}.html": stdlib_page(name).encode() for name in LACKED}
    origin_index_pages = [url for url in breadth_first(pages, ORIGIN) if url.endswith("/")]
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, DEEP_UNNAMED) + origin_index_pages)
    crawl.visit([f"{DEEP_UNNAMED}{name}.html" for name in LACKED])
    (turned,) = dedup.mirror_rules()
    assert (turned["held_first"], turned["turned_by_absence"]) == ("origin", True)
    assert turned["pruned"] == ["mirror", "origin"]
    copied = {
        ORIGIN + url[len(DEEP_UNNAMED) :]: url
        for url in breadth_first(pages, DEEP_UNNAMED)
        if not url.endswith("/")
    }
    sampled = {url for url in copied if url in crawl.fetched}  # the rule's samples
    crawl.visit(list(copied))
    assert {url: crawl.pruned[url].duplicate_of for url in copied.keys() - sampled} == {
        url: copy for url, copy in copied.items() if url not in sampled
    }
    assert len(sampled) < len(copied) / 2
    assert all(f"{ORIGIN}{name}.html" in crawl.fetched for name in LACKED)
    assert lost(crawl, ORIGIN) == lost(crawl, DEEP_UNNAMED) == []


def test_a_rule_moved_through_a_copy_that_turned_is_weighed_against_its_origin_alone(
    open_filter, stdlib_page
):
    """A library's partial copy of a guide, crawled first, then the guide's edition, then the
    guide: the edition's rule, moved onto the guide through the library's, led the guide but
    not the library, so the guide was held first against it. Once the library turns (shown
    partial: the guide held first), the edition's rule is weighed against the guide alone: the
    edition led it, so the guide's pages are pruned for the edition's (the eighth holdout web,
    breadth first: 347 of the guide's pages fetched after the edition's)."""
    library, edition, guide = (
        "http://library.test/debian/guide/",
        "http://docs.origin.test/guide-rpm/",
        "http://docs.origin.test/guide/",
    )
    dedup = open_filter()
    held = {  # distinct pages: each side holds its documents as themselves
        library: ("decimal", "difflib", "heapq"),
        edition: ("bisect", "fractions", "glob"),
        guide: ("random", "operator", "functools"),
    }
    for side, modules in held.items():
        for module in modules:
            dedup.check_page(f"{side}{module}.html", stdlib_page(module).encode())

    def turn(view) -> tuple[bool, bool]:
        store = MirrorStore(view)
        copy = Rule(library, guide, "", "", 0.0, "content", 3, 3, 0, mirror_held_first=True)
        moved = Rule(edition, guide, "", "", 0.0, "content", 3, 3, 0, through=library)
        for rule in (copy, moved):
            store.put_rule(rule)
        reweigh_through(store, copy)  # not turned: nothing changes
        before = store.rule(edition).mirror_held_first
        turned = replace(copy, mirror_held_first=False, turned_by_absence=True)
        store.put_rule(turned)
        reweigh_through(store, turned)
        return before, store.rule(edition).mirror_held_first

    assert dedup.index.transact(turn) == (False, True)


CDN, LIBRARY, GUIDE = (
    "http://cdn.test/docs/",
    "http://library.test/debian/guide/",
    "http://docs.origin.test/guide/",
)
LACKED_BY_CDN = ("decimal", "difflib", "heapq", "bisect", "fractions", "glob", "random", "operator")


def cdn_held_first(open_filter, stdlib_page, through: bool):
    """A filter whose rules pair the library with the guide, and the CDN, holding two pages and
    held first, with the guide (moved onto it through the library's rule with ``through``)."""
    dedup = open_filter()
    for module in ("functools", "itertools"):
        dedup.check_page(f"{CDN}{module}.html", stdlib_page(module).encode())

    def rules(view) -> None:
        store = MirrorStore(view)
        store.put_rule(Rule(LIBRARY, GUIDE, "", "", 0.0, "content", 3, 3, 0))
        moved = Rule(CDN, GUIDE, "", "", 0.0, "content", 3, 3, 0, mirror_held_first=True)
        store.put_rule(replace(moved, through=LIBRARY if through else ""))

    dedup.index.transact(rules)
    return dedup


def assert_cdn_turned(dedup) -> None:
    rule = {rule["mirror"]: rule for rule in dedup.mirror_rules()}[CDN]
    assert (rule["held_first"], rule["turned_by_absence"], rule["absences"]) == ("origin", True, 8)


def test_a_copy_of_a_copy_held_first_turns_on_the_pages_it_lacks_of_the_copy_it_was_paired_with(
    open_filter, stdlib_page
):
    """A copy of a copy, crawled first, paired with the copy and moved onto the origin through
    it (held first): the copy's pages it lacks show it partial as the origin's would. The
    eleventh holdout web (depth first): a CDN's partial copy of a renamed copy was never
    turned, the renamed copy's pages it lacked being counted for no rule, and was crawled whole
    after most of its pages had been fetched on the renamed copy (390 fetches)."""
    dedup = cdn_held_first(open_filter, stdlib_page, through=True)

    def absent(view) -> None:
        for module in LACKED_BY_CDN:
            Deferrals(view).mark_absent(f"{CDN}{module}.html", 404)

    dedup.index.transact(absent)
    for module in LACKED_BY_CDN:
        dedup.check_page(f"{LIBRARY}{module}.html", stdlib_page(module).encode())
    assert_cdn_turned(dedup)


@pytest.mark.parametrize(("through", "soft_404"), [(False, False), (True, False), (False, True)])
def test_a_copy_held_first_turns_on_its_failed_fetches_of_pages_the_origin_holds_already(
    open_filter, stdlib_page, through, soft_404
):
    """The other order of the above: the origin's pages (or the copy's that the rule was moved
    through) held first, the copy held first failing to fetch them later, with a 404 or with its
    "not found" page and a 200 (a soft 404, the twelfth holdout web's copy of a copy): as many
    absences."""
    dedup = cdn_held_first(open_filter, stdlib_page, through)
    holder = LIBRARY if through else GUIDE
    for module in LACKED_BY_CDN:
        dedup.check_page(f"{holder}{module}.html", stdlib_page(module).encode())
    if soft_404:
        dedup.index.transact(lambda view: ask_absent(MirrorStore(view), CDN))
        dedup.check_page(absent_url(CDN), NOT_FOUND)
    for module in LACKED_BY_CDN:
        if soft_404:
            dedup.check_page(f"{CDN}{module}.html", NOT_FOUND)
        else:
            dedup.fetch_failed(f"{CDN}{module}.html", 404)
    assert_cdn_turned(dedup)


SECOND_COPY = "http://archive.third.test/notes/"


def test_a_second_copys_page_is_dropped_for_what_the_turned_copy_fetched_not_probed(
    open_filter, origin_tree, stdlib_page
):
    """As above, then a second copy of the origin is crawled: its pages' counterparts in the
    origin are pruned beside the pages the turned copy fetched, so those stand for them too,
    and no origin page is probed for it (the ninth holdout web's second copy probed 256 of
    them, breadth first). A page the turned copy lacks is probed and fetched."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_UNNAMED)
    pages |= {f"{ORIGIN}{name}.html": stdlib_page(name).encode() for name in LACKED}
    second = copy_tree(origin_tree, ORIGIN, SECOND_COPY)
    second |= {f"{SECOND_COPY}{name}.html": stdlib_page(name).encode() for name in LACKED}
    pages |= second
    origin_index_pages = [url for url in breadth_first(pages, ORIGIN) if url.endswith("/")]
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, DEEP_UNNAMED) + origin_index_pages)
    crawl.visit([f"{DEEP_UNNAMED}{name}.html" for name in LACKED])
    crawl.visit(breadth_first(pages, SECOND_COPY))
    rules = {rule["mirror"]: rule for rule in dedup.mirror_rules()}
    assert rules[DEEP_UNNAMED]["turned_by_absence"]
    assert SECOND_COPY in rules
    copied = {
        url: DEEP_UNNAMED + url[len(SECOND_COPY) :]
        for url in second
        if not url.endswith("/") and DEEP_UNNAMED + url[len(SECOND_COPY) :] in crawl.fetched
    }
    dropped = {url: crawl.pruned[url].duplicate_of for url in copied if url in crawl.pruned}
    assert len(dropped) > len(copied) / 2
    held = set(crawl.fetched)
    for url, duplicate_of in dropped.items():  # the turned copy's page, or a sample's
        assert duplicate_of == copied[url] or (
            duplicate_of.startswith(ORIGIN) and duplicate_of in held
        )
    # the origin pages probed are the second pair's samples (all 16 without the twin)
    probed = {ORIGIN + url[len(DEEP_UNNAMED) :] for url in copied.values()} & set(crawl.probes)
    assert len(probed) < len(copied) / 2
    crawl.visit(breadth_first(pages, ORIGIN))
    assert all(f"{ORIGIN}{name}.html" in crawl.fetched for name in LACKED)
    assert lost(crawl, ORIGIN) == lost(crawl, SECOND_COPY) == []


SHALLOW_PARTIAL, DEEP_COMPLETE = "http://partial.test/guide/", "http://docs.one.test/pub/guide/"


def partial_crawled_first(dedup, origin_tree, stdlib_page, suffix: str) -> OnlineCrawl:
    """The shallow copy crawled whole, then the deep one's index pages; the deep one alone holds
    the ``LACKED`` pages, named with ``suffix``."""
    pages = copy_tree(origin_tree, ORIGIN, SHALLOW_PARTIAL)
    pages |= copy_tree(origin_tree, ORIGIN, DEEP_COMPLETE)
    pages |= {f"{DEEP_COMPLETE}{name}{suffix}": stdlib_page(name).encode() for name in LACKED}
    order = breadth_first(pages, SHALLOW_PARTIAL) + [
        url for url in breadth_first(pages, DEEP_COMPLETE) if url.endswith("/")
    ]
    return OnlineCrawl(dedup, pages).visit(order)


def test_a_partial_origin_crawled_first_is_marked_and_pruned_beside_its_mirror(
    open_filter, origin_tree, stdlib_page
):
    """A partial copy, shallower (the origin by depth) and crawled first, lacks twelve pages its
    complete copy holds: at the complete copy's eighth page whose counterpart was a 404 the rule
    marks the origin partial (said in that page's decision); the partial copy's other URLs are
    then dropped for the complete copy's pages, crawled, instead of answering 404."""
    dedup = open_filter()
    crawl = partial_crawled_first(dedup, origin_tree, stdlib_page, ".html")
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["held_first"]) == (DEEP_COMPLETE, "origin")
    crawl.visit([f"{DEEP_COMPLETE}{name}.html" for name in LACKED])
    (marked,) = dedup.mirror_rules()
    assert (marked["origin_partial"], marked["absences"], marked["held_first"]) == (
        True,
        8,
        "origin",
    )
    assert marked["pruned"] == ["mirror", "origin"]
    eighth = crawl.decisions[f"{DEEP_COMPLETE}{LACKED[7]}.html"]
    assert eighth.evidence["mirrors_origin_partial"] == [DEEP_COMPLETE]
    crawl.visit([f"{SHALLOW_PARTIAL}{name}.html" for name in LACKED])
    for name in LACKED:
        pruned = crawl.pruned[f"{SHALLOW_PARTIAL}{name}.html"]
        assert pruned.duplicate_of == f"{DEEP_COMPLETE}{name}.html"
    assert not [url for url in crawl.missing if url.startswith(SHALLOW_PARTIAL)]


def test_a_rule_whose_side_held_first_lacks_pages_turns_once_and_a_side_crawled_first_later(
    open_filter,
):
    """Side by side, one 404 or 410 turns it; a side crawled first turns at the eighth (a
    partial copy of a copy crawled first; a copier's victim never lacks its own pages); a
    redirect (a page moved) or an error counts for nothing; a rule turned once never turns
    back (two partial copies would turn it at each page the other lacks); a mismatched sample
    keeps it as it is. (Neither side holds a document here: the share of the side crawled
    first's documents is met at once.)"""
    with open_filter().index.read() as view:
        _turns(MirrorStore(view))


def _turns(store: MirrorStore) -> None:
    beside = Rule(
        "http://m.test/",
        "http://o.test/",
        "",
        "",
        0.0,
        "content",
        3,
        3,
        0,
        mirror_held_first=True,
        side_by_side=True,
    )
    turned = after_absence(store, beside, False, 404)
    assert turned is not None
    assert (turned.mirror_held_first, turned.turned_by_absence) == (False, True)
    assert after_absence(store, beside, False, 410).turned_by_absence
    for status in (301, 500, 0, None):
        assert after_absence(store, beside, False, status) is None
    assert after_absence(store, beside, True, 404) is None  # the page is on the side held first
    assert after_absence(store, turned, True, 404) is None
    first = replace(beside, side_by_side=False)  # crawled first
    for count in range(1, 8):
        first = after_absence(store, first, False, 404)
        assert (first.absences, first.mirror_held_first, first.turned_by_absence) == (
            count,
            True,
            False,
        )
    assert Rule.decode(first.encode()) == first
    last = after_absence(store, first, False, 404)
    assert (last.absences, last.mirror_held_first, last.turned_by_absence) == (8, False, True)
    assert Rule.decode(last.encode()) == last
    stale = replace(beside, checked=4)  # a sample mismatched
    assert after_absence(store, stale, False, 404) is None


@pytest.mark.parametrize("copies", [1, 2])
def test_a_partial_origin_crawled_first_never_turns_but_is_pruned_beside_its_copies(
    tmp_index, copies
):
    """A partial copy held first as the origin of copies that hold pages it lacks: its 404s are
    counted, it never turns (the copy that turned it would be crawled whole, beside any other
    copy), but from the eighth on it is marked partial, so its URLs are dropped where a copy
    holds their pages; then nothing more is written."""
    partial = "http://p.test/"
    mirrors = ("http://a.test/guide/", "http://b.test/guide/")[:copies]

    def count(view):
        store = MirrorStore(view)
        rules = [Rule(copy, partial, "", "", 0.0, "content", 3, 3, 0) for copy in mirrors]
        for rule in rules:
            store.put_rule(rule)
        states = [rules[0]]
        for _ in range(8):
            states.append(after_absence(store, states[-1], True, 404))
        return states, after_absence(store, states[-1], True, 404)

    states, further = tmp_index.transact(count)
    assert [(rule.absences, rule.origin_partial) for rule in states[7:]] == [(7, False), (8, True)]
    assert not any(rule.turned_by_absence or rule.mirror_held_first for rule in states)
    assert not any(rule.side_by_side for rule in states)
    assert pruned_sides(states[8]) == (("mirror", True), ("origin", True))
    assert Rule.decode(states[8].encode()) == states[8]
    assert further is None  # marked: nothing more to count


def test_a_copier_at_its_root_crawled_beside_its_victim_waits_for_the_victims_pages(
    open_filter, origin_tree, stdlib_page
):
    """A copier's copy at its host's root (taken for the origin by depth), crawled side by side
    with its victim, lacks a page the victim holds (``origin_lacks``): the victim is crawled
    whole, so the copier's documents that both gained since wait for the victim's pages and
    are dropped for them, rather than being fetched beside them."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, listings = walking_sides(origin_tree)
    half = len(copy_documents) // 2
    crawl = OnlineCrawl(
        dedup, pages
    ).visit(
        copy_documents[:1]  # no side leads by more than a document: more documents decide
        + origin_documents[:half]
        + listings
        + interleave(origin_documents[half:], copy_documents[1:])
    )
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["held_first"], rule["side_by_side"]) == (
        UNNAMED_COPY,
        "origin",
        True,
    )
    crawl.pages[UNNAMED_COPY + "new.html"] = stdlib_page("sched").encode()
    crawl.visit([UNNAMED_COPY + "new.html"])  # its counterpart on the copier is a 404
    (rule,) = dedup.mirror_rules()
    assert rule["origin_lacks"]
    gained = {f"{side}{name}.html" for name in ADDED for side in (ORIGIN, UNNAMED_COPY)}
    crawl.pages |= {url: stdlib_page(url.rsplit("/", 1)[1][:-5]).encode() for url in gained}
    copier_first = interleave(
        [f"{ORIGIN}{name}.html" for name in ADDED], [f"{UNNAMED_COPY}{name}.html" for name in ADDED]
    )
    waiting = dedup.check_url(copier_first[0])
    assert (waiting.action, waiting.reason, waiting.probes) == ("defer", "counterpart_pending", ())
    assert waiting.evidence["awaiting_crawl_of"] == UNNAMED_COPY + ADDED[0] + ".html"
    crawl.visit(copier_first)
    for name in ADDED:
        assert crawl.decisions[f"{UNNAMED_COPY}{name}.html"].action == "keep"
        assert f"{ORIGIN}{name}.html" not in crawl.fetched
        assert crawl.pruned[f"{ORIGIN}{name}.html"].duplicate_of == f"{UNNAMED_COPY}{name}.html"
    assert lost(crawl, ORIGIN) == lost(crawl, UNNAMED_COPY) == []


@pytest.mark.parametrize("met_before_the_lead", [True, False])
def test_an_index_page_held_as_the_other_sides_copy_is_where_its_side_was_met(
    open_filter, origin_tree, met_before_the_lead
):
    """The copy's index page, then the origin's, an exact copy of it and so held as the copy's
    page, then three of the copy's documents, then both sides in turns (the random order of a
    copier and its victim): the origin was met before the copy's lead, so the two were crawled
    side by side, though the origin holds no page of its own from before that lead. Met only
    after the lead, the copy was crawled first."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, _ = walking_sides(origin_tree)
    lead = copy_documents[:3]
    order = [UNNAMED_COPY, *([ORIGIN, *lead] if met_before_the_lead else [*lead, ORIGIN])]
    for url in order + interleave(copy_documents[3:8], origin_documents[:8]):
        dedup.check_page(url, pages[url])
    held = dedup.index.transact(lambda view: held_first(MirrorStore(view), UNNAMED_COPY, ORIGIN))
    assert held == HeldFirst(mirror=True, side_by_side=met_before_the_lead)


@pytest.mark.parametrize("origin_documents_held", [8, 16])
def test_a_small_lead_against_eight_times_its_documents_is_no_side_crawled_first(
    open_filter, corpus, origin_documents_held
):
    """The copy's first two documents came before any page of the origin; then the crawl held
    the origin's documents, not the copy's (pruned, or never reached). Against eight times its
    documents a lead of two says nothing, and the origin, holding more, is held first; against
    four times, the copy led and was crawled first."""
    dedup = open_filter()
    guide = prose_guide(corpus, ORIGIN)
    copy = copy_tree(guide, ORIGIN, UNNAMED_COPY)
    copy_documents = [url for url in sorted(copy) if not url.endswith("/")][:2]
    origin_documents = [url for url in sorted(guide) if not url.endswith("/")][::-1]
    for url in copy_documents + origin_documents[:origin_documents_held]:
        dedup.check_page(url, (guide | copy)[url])
    held = dedup.index.transact(lambda view: held_first(MirrorStore(view), UNNAMED_COPY, ORIGIN))
    assert held == HeldFirst(mirror=origin_documents_held < 16, side_by_side=False)


@pytest.mark.parametrize("broken_links", [0, 8])
def test_an_origin_held_first_that_lacks_a_kind_of_name_asks_its_mirror_for_the_rest(
    open_filter, origin_tree, stdlib_page, broken_links
):
    """An English-only copy of a negotiated manual, crawled first (the origin by depth), links
    each page's ``.html.fr`` and answers it with a 404; its complete copy serves them. Once its
    host has answered eight such names with 404s (and none with a page), the origin's other
    ``.fr`` URLs wait for the complete copy's page (probed) and are dropped for it,
    instead of a 404 each before the complete copy's page stands in (the fourth helper's web:
    about 500 404s in four orders of six). The manual's own broken links, probed on the
    origin and absent there, tell the rule's probes mostly find nothing; they do not stop
    these probes, for the complete copy's host has not shown it lacks ``.fr`` names."""
    dedup = open_filter()
    crawl = partial_crawled_first(dedup, origin_tree, stdlib_page, ".html.fr")
    first, rest = LACKED[:8], LACKED[8:]
    crawl.visit([f"{SHALLOW_PARTIAL}{name}.html.fr" for name in first])
    crawl.visit([f"{DEEP_COMPLETE}gone{number}.html" for number in range(broken_links)])
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["held_first"]) == (DEEP_COMPLETE, "origin")
    crawl.visit([f"{SHALLOW_PARTIAL}{name}.html.fr" for name in rest])
    for name in rest:
        url = f"{SHALLOW_PARTIAL}{name}.html.fr"
        assert crawl.pruned[url].duplicate_of == f"{DEEP_COMPLETE}{name}.html.fr"
        assert f"{DEEP_COMPLETE}{name}.html.fr" in crawl.fetched  # the probe's page, crawled
        lacked = crawl.deferred[url].evidence["names_lacked"]
        assert lacked == {"answered": 0, "absent": 8}
    assert [url for url in under(crawl.missing, SHALLOW_PARTIAL) if url.endswith(".fr")] == [
        f"{SHALLOW_PARTIAL}{name}.html.fr" for name in first
    ]


SECOND_COMPLETE = "http://docs.two.test/pub/guide/"


@pytest.mark.parametrize("lacking", [DEEP_COMPLETE, SECOND_COMPLETE])
def test_a_name_one_mirror_lacks_too_is_asked_of_the_origins_other_mirror(
    open_filter, origin_tree, stdlib_page, lacking
):
    """Two complete copies of the English-only copy crawled first, two rules over its
    directory; one copy answered a ``.fr`` name with a 404 as well. The name waits for the
    other copy's page, whichever rule is read first (Debian's ``manual/en/`` never holds a
    ``.html.fr``, and its rule came first in two orders of the fourth helper's web)."""
    dedup = open_filter()
    pages = copy_tree(origin_tree, ORIGIN, SHALLOW_PARTIAL)
    for complete in (DEEP_COMPLETE, SECOND_COMPLETE):
        pages |= copy_tree(origin_tree, ORIGIN, complete)
        pages |= {f"{complete}{name}.html.fr": stdlib_page(name).encode() for name in LACKED}
    order = breadth_first(pages, SHALLOW_PARTIAL)
    for complete in (DEEP_COMPLETE, SECOND_COMPLETE):
        order += [url for url in breadth_first(pages, complete) if url.endswith("/")]
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert {(rule["origin"], rule["held_first"]) for rule in dedup.mirror_rules()} == {
        (SHALLOW_PARTIAL, "origin")
    }
    crawl.visit([f"{SHALLOW_PARTIAL}{name}.html.fr" for name in LACKED[:8]])
    name = f"{LACKED[-1]}.html.fr"
    del pages[lacking + name]
    dedup.fetch_failed(lacking + name, 404)
    other = SECOND_COMPLETE if lacking == DEEP_COMPLETE else DEEP_COMPLETE
    decision = dedup.check_url(SHALLOW_PARTIAL + name)
    assert (decision.action, decision.duplicate_of) == ("defer", other + name)
