"""Releases named in their URLs are never paired: most pages of one release carry over to the
next, and a rule between them would prune the rewritten ones (a release's notes) with the
copies."""

from __future__ import annotations

import pytest

from dedup_filter.releases import release_editions

from .conftest import (
    MIRROR,
    ORIGIN,
    TRANSLATED_MODULES,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    docs_tree,
    two_tree_orders,
)

OLDER = ORIGIN + "docs/13/"
NEWER = ORIGIN + "docs/14/"
LATEST = ORIGIN + "docs/latest/"


@pytest.mark.parametrize(
    ("directory", "other", "editions"),
    [
        ("http://a.test/13/", "http://a.test/14/", True),
        ("http://a.test/docs/15/PDB/", "http://a.test/docs/16/PDB/", True),
        ("http://a.test/en/3.11/library/", "http://a.test/en/3.12/library/", True),
        ("http://a.test/v2.1/", "http://b.test/docs/v2.2.x/", True),
        ("http://a.test/django-4.2/", "http://a.test/django-5.0/", True),
        ("http://a.test/python3.11/", "http://b.test/python3.12/", True),
        ("http://a.test/latest/", "http://a.test/16/", True),  # which release, the name hides
        ("http://a.test/stable/", "http://a.test/latest/", True),
        # releases that may be one: the shorter is the longer's start
        ("http://a.test/3/library/", "http://a.test/3.11/library/", False),
        ("http://a.test/16/", "http://b.test/pub/llvm-16.0.6/", False),
        ("http://a.test/latest/x/", "http://b.test/latest/x/", False),
        ("http://b.test/pub/otp-25/lib/stdlib-4.3/", "http://a.test/lib/stdlib-4.3/", False),
        # a side that names none: a copy filed anywhere
        ("http://a.test/latest/", "http://b.test/pub/docs/", False),
        ("http://a.test/14/", "http://b.test/mirror/", False),
        # digits glued to a name without a dot name no release
        ("http://a.test/html5/", "http://a.test/html4/", False),
        ("http://a.test/ch01/", "http://a.test/ch02/", False),
    ],
)
def test_release_editions_by_name(directory, other, editions):
    assert release_editions(directory, other) is editions
    assert release_editions(other, directory) is editions


def two_releases(corpus, modules, stdlib_page) -> tuple[dict[str, bytes], list[str]]:
    """A manual's release 13 and its release 14 holding the same pages but for three rewritten
    ones (here: other modules' pages) that no other URL holds; and those three URLs."""
    older = docs_tree(corpus, OLDER, modules[:24], "Manual")
    newer = copy_tree(older, OLDER, NEWER)
    rewritten = sorted(url for url in newer if url.endswith(".html"))[2:12:4]
    for url, module in zip(rewritten, TRANSLATED_MODULES, strict=True):
        newer[url] = stdlib_page(module).encode()
    return older | newer, rewritten


@pytest.mark.parametrize("order", ["older_first", "newer_first", "interleaved"])
def test_two_releases_keep_the_rewritten_pages(open_filter, corpus, modules, stdlib_page, order):
    pages, rewritten = two_releases(corpus, modules, stdlib_page)
    urls = two_tree_orders(pages, {"older": OLDER, "newer": NEWER})[order]
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    assert dedup.mirror_rules() == []
    older_namesakes = [OLDER + url[len(NEWER) :] for url in rewritten]
    assert all(url in crawl.fetched for url in rewritten + older_namesakes)
    pairs = dedup.mirror_candidates()
    assert {frozenset((pair["mirror"], pair["origin"])) for pair in pairs} >= {
        frozenset((OLDER, NEWER))
    }
    assert {(pair["state"], pair["rejected_for"]) for pair in pairs} == {
        ("rejected", "release_editions")
    }
    # a page that carried over is still dropped as a duplicate, once fetched
    carried = [url for url in breadth_first(pages, NEWER) if url.endswith(".html")]
    carried = [url for url in carried if url not in rewritten]
    assert all(
        crawl.decisions[url].dropped or crawl.decisions[OLDER + url[len(NEWER) :]].dropped
        for url in carried
    )


def test_without_the_names_the_releases_are_taken_for_a_mirror(
    open_filter, corpus, modules, stdlib_page
):
    """What the names prevent: sampling alone confirms the pair (3 of 26 pages differ) and the
    rule prunes what it never fetched, rewritten pages among them."""
    pages, rewritten = two_releases(corpus, modules, stdlib_page)
    dedup = open_filter(release_editions_apart=False)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, OLDER) + breadth_first(pages, NEWER)
    )
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(NEWER, OLDER)]
    assert any(url not in crawl.fetched for url in rewritten)


def test_a_copy_of_the_latest_release_is_still_a_mirror(open_filter, corpus, modules):
    """``/latest/`` pairs with no numbered release, but a copy filed under a name without one
    is a mirror of it."""
    latest = docs_tree(corpus, LATEST, modules[:24], "Manual")
    older = copy_tree(latest, LATEST, OLDER)
    copy = copy_tree(latest, LATEST, MIRROR + "pub/docs/")
    pages = latest | older | copy
    dedup = open_filter()
    OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, LATEST) + breadth_first(pages, OLDER) + breadth_first(copy, MIRROR)
    )
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [
        (MIRROR + "pub/docs/", LATEST)
    ]
