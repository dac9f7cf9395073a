"""At-least-once delivery: a page checked again as it was gets the action and duplicate_of it got
the first time, whatever the mirror detector learnt in between."""

from __future__ import annotations

import pytest

from .conftest import (
    DEEP_COPY,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    deeper_copy_first,
    interleave,
)


def replay(crawl: OnlineCrawl) -> dict[str, tuple]:
    """Every page of the crawl checked again in the order it was fetched: url -> (first, again)
    for the pages whose action or duplicate_of changed."""
    changed = {}
    for url in crawl.fetched:
        first, again = crawl.decisions[url], crawl.dedup.check_page(url, crawl.pages[url])
        if (again.action, again.duplicate_of) != (first.action, first.duplicate_of):
            changed[url] = (first.reason, again.reason)
    return changed


@pytest.mark.parametrize(
    ("mode", "samples"), [("content", 4), ("url", 4), ("content", 0)], ids=["content", "url", "λ0"]
)
def test_a_replayed_crawl_repeats_every_action_and_duplicate_of(
    open_filter, origin_tree, mode, samples
):
    dedup = open_filter(mode=mode, samples=samples)
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    order = interleave(breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR))
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    assert replay(crawl) == {}


def test_a_candidate_index_page_replayed_after_its_rule_is_kept_again(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    first = crawl.decisions[MIRROR]
    assert (first.action, first.reason, dedup.mirror_rules()[0]["mirror"]) == (
        "keep",
        "mirror_candidate",
        MIRROR,
    )
    again = dedup.check_page(MIRROR, pages[MIRROR])
    assert (again.action, again.reason, again.duplicate_of) == ("keep", "mirror_candidate", ORIGIN)
    assert again.evidence["mirror_rule"] == MIRROR
    assert dedup.check_url(MIRROR).dropped  # the crawl itself still never fetches it again


def test_an_index_page_that_confirmed_its_mirror_is_dropped_the_same_way_again(
    open_filter, origin_tree
):
    dedup = open_filter(samples=0)
    crawl = OnlineCrawl(dedup, origin_tree | {MIRROR: origin_tree[ORIGIN]}).visit([ORIGIN, MIRROR])
    first, again = crawl.decisions[MIRROR], dedup.check_page(MIRROR, origin_tree[ORIGIN])
    assert (again.action, again.reason, again.duplicate_of) == (
        first.action,
        "mirrored_directory",
        first.duplicate_of,
    )


def test_an_original_met_after_its_copy_names_the_copy_again(open_filter, origin_tree):
    crawl = deeper_copy_first(dedup := open_filter(), origin_tree)
    assert crawl.decisions[ORIGIN + "csv.html"].duplicate_of == DEEP_COPY + "csv.html"
    assert replay(crawl) == {}
    again = dedup.check_page(ORIGIN + "csv.html", origin_tree[ORIGIN + "csv.html"])
    assert (again.reason, again.duplicate_of) == ("unchanged", DEEP_COPY + "csv.html")


def test_an_edited_page_is_no_replay(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    edited = pages[MIRROR].replace(b"</h1>", b"</h1><p>This mirror moves to another host.</p>")
    decision = dedup.check_page(MIRROR, edited)
    assert (decision.action, decision.reason) == ("drop", "near_duplicate")
    assert decision.evidence["mirror_rule"] == MIRROR
