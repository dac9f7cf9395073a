"""Platforms named in their URLs are never paired: most pages of a manual's platform editions
are the same text, and a rule between them would prune each platform's own pages with the
copies."""

from __future__ import annotations

import pytest

from dedup_filter.platforms import platform_editions

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

AMD64 = ORIGIN + "releases/bookworm/amd64/"
ARM64 = ORIGIN + "releases/bookworm/arm64/"


@pytest.mark.parametrize(
    ("directory", "other", "editions"),
    [
        ("http://a.test/releases/bookworm/amd64/", "http://a.test/releases/bookworm/arm64/", True),
        ("http://a.test/install/windows/", "http://a.test/install/linux/", True),
        ("http://a.test/guide-s390x/", "http://b.test/docs/guide-ppc64el/", True),
        ("http://a.test/linux/amd64/", "http://a.test/linux/i386/", True),  # the system agrees
        ("http://a.test/docs/macos/", "http://a.test/docs/win64/", True),
        # names of one platform
        ("http://a.test/amd64/", "http://b.test/pub/x86_64/", False),
        ("http://a.test/dist-x86-64/", "http://b.test/x64/", False),
        ("http://a.test/aarch64/guide/", "http://b.test/arm64/guide/", False),
        ("http://a.test/osx/", "http://b.test/darwin/", False),
        # platforms of different kinds say nothing: a mirror files the amd64 guide under linux/
        ("http://a.test/releases/bookworm/amd64/", "http://b.test/pub/linux/install/", False),
        # a side that names none: a copy filed anywhere
        ("http://a.test/amd64/", "http://b.test/mirror/", False),
        # words that name other things as often name no platform
        ("http://a.test/doc/arm/", "http://a.test/doc/amd64/", False),
        ("http://a.test/2.0-alpha/", "http://a.test/2.0-i386/", False),
    ],
)
def test_platform_editions_by_name(directory, other, editions):
    assert platform_editions(directory, other) is editions
    assert platform_editions(other, directory) is editions


def two_platforms(corpus, modules, stdlib_page) -> tuple[dict[str, bytes], list[str]]:
    """A manual's amd64 edition and its arm64 edition holding the same pages but for three of
    arm64's own (here: other modules' pages) that no other URL holds; and those three URLs."""
    amd64 = docs_tree(corpus, AMD64, modules[:24], "Manual")
    arm64 = copy_tree(amd64, AMD64, ARM64)
    own = sorted(url for url in arm64 if url.endswith(".html"))[2:12:4]
    for url, module in zip(own, TRANSLATED_MODULES, strict=True):
        arm64[url] = stdlib_page(module).encode()
    return amd64 | arm64, own


@pytest.mark.parametrize("order", ["amd64_first", "arm64_first", "interleaved"])
def test_two_platform_editions_keep_their_own_pages(
    open_filter, corpus, modules, stdlib_page, order
):
    pages, own = two_platforms(corpus, modules, stdlib_page)
    orders = two_tree_orders(pages, {"amd64": AMD64, "arm64": ARM64})
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(orders[order])
    assert dedup.mirror_rules() == []
    namesakes = [AMD64 + url[len(ARM64) :] for url in own]
    assert all(url in crawl.fetched for url in own + namesakes)
    pairs = dedup.mirror_candidates()
    assert {frozenset((pair["mirror"], pair["origin"])) for pair in pairs} >= {
        frozenset((AMD64, ARM64))
    }
    assert {(pair["state"], pair["rejected_for"]) for pair in pairs} == {
        ("rejected", "platform_editions")
    }


def test_without_the_names_the_platform_editions_are_taken_for_a_mirror(
    open_filter, corpus, modules, stdlib_page
):
    """What the names prevent: sampling alone confirms the pair (3 of 26 pages differ) and the
    rule prunes what it never fetched, a platform's own pages among them."""
    pages, own = two_platforms(corpus, modules, stdlib_page)
    dedup = open_filter(platform_editions_apart=False)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, AMD64) + breadth_first(pages, ARM64)
    )
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(ARM64, AMD64)]
    assert any(url not in crawl.fetched for url in own)


def test_a_copy_of_one_platform_edition_filed_under_a_system_is_still_a_mirror(
    open_filter, corpus, modules
):
    """A mirror filing the amd64 edition under ``/pub/linux/`` names a platform of another kind:
    it is paired as any copy is."""
    amd64 = docs_tree(corpus, AMD64, modules[:24], "Manual")
    copy = copy_tree(amd64, AMD64, MIRROR + "pub/linux/install/")
    pages = amd64 | copy
    dedup = open_filter()
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, AMD64) + breadth_first(copy, MIRROR))
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [
        (MIRROR + "pub/linux/install/", AMD64)
    ]
