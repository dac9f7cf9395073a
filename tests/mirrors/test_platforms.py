"""Platforms named in their URLs are never paired: most pages of a manual's platform editions
are the same text, and a rule between them would prune each platform's own pages with the
copies."""

from __future__ import annotations

import pytest

from dedup_filter.platforms import platform_editions

from .conftest import (
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    docs_tree,
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
        ("http://a.test/amd64/x86/", "http://a.test/arm64/x86/", True),  # a section both hold
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
