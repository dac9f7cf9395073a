"""The platforms a directory URL names, and when two name different ones of one kind (what that
prevents: ``test_named_editions``)."""

from __future__ import annotations

import pytest

from dedup_filter.platforms import platform_editions


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
