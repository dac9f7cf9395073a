"""The releases a directory URL names, and when two name different ones (what that prevents:
``test_named_editions``)."""

from __future__ import annotations

import pytest

from dedup_filter.releases import numbered_against_moving, release_editions, release_left_open


@pytest.mark.parametrize(
    ("directory", "other", "editions"),
    [
        ("http://a.test/13/", "http://a.test/14/", True),
        ("http://a.test/docs/15/PDB/", "http://a.test/docs/16/PDB/", True),
        ("http://a.test/en/3.11/library/", "http://a.test/en/3.12/library/", True),
        ("http://a.test/v2.1/", "http://b.test/docs/v2.2.x/", True),
        ("http://a.test/django-4.2/", "http://a.test/django-5.0/", True),
        ("http://a.test/python3.11/", "http://b.test/python3.12/", True),
        # which release a moving name is, only its index page tells (``numbered_against_moving``)
        ("http://a.test/latest/", "http://a.test/16/", False),
        ("http://a.test/stable/", "http://a.test/latest/", True),
        # code names, and Debian's suites
        ("http://a.test/releases/bookworm/amd64/", "http://a.test/releases/trixie/amd64/", True),
        ("http://a.test/ubuntu/jammy/guide/", "http://b.test/ubuntu/noble/guide/", True),
        ("http://a.test/releases/oldstable/", "http://a.test/releases/stable/", True),
        ("http://a.test/releases/bookworm/", "http://a.test/releases/12/", True),
        ("http://a.test/releases/bookworm/", "http://b.test/pub/debian/bookworm/", False),
        # a name both hold at one place is no release they share
        ("http://a.test/38.0/development/", "http://a.test/39.0/development/", True),
        ("http://a.test/v2/docs/13/", "http://b.test/v2/docs/14/", True),
        # releases that may be one: the shorter is the longer's start
        ("http://a.test/3/library/", "http://a.test/3.11/library/", False),
        ("http://a.test/16/", "http://b.test/pub/llvm-16.0.6/", False),
        ("http://a.test/latest/x/", "http://b.test/latest/x/", False),
        ("http://b.test/pub/otp-25/lib/stdlib-4.3/", "http://a.test/lib/stdlib-4.3/", False),
        # a side that names none: a copy filed anywhere
        ("http://a.test/latest/", "http://b.test/pub/docs/", False),
        ("http://a.test/14/", "http://b.test/mirror/", False),
        ("http://a.test/releases/trixie/", "http://b.test/pub/debian-docs/", False),
        # digits glued to a name without a dot name no release
        ("http://a.test/html5/", "http://a.test/html4/", False),
        ("http://a.test/ch01/", "http://a.test/ch02/", False),
    ],
)
def test_release_editions_by_name(directory, other, editions):
    assert release_editions(directory, other) is editions
    assert release_editions(other, directory) is editions


@pytest.mark.parametrize(
    ("directory", "other", "left_open"),
    [
        # one side names none: a copy filed anywhere
        ("http://a.test/15/", "http://b.test/pub/llvm/docs/", True),
        ("http://a.test/latest/", "http://b.test/pub/docs/", True),
        # a series against one of its releases
        ("http://b.test/openssl-3.0/", "http://a.test/docs/3.0.17/", True),
        ("http://a.test/3/library/", "http://a.test/3.11/library/", True),
        # a moving name against a numbered release
        ("http://a.test/docs/latest/", "http://a.test/docs/3.0.22/", True),
        # one release named alike, or the names say nothing
        ("http://a.test/docs/3.0.20/", "http://b.test/pub/openssl-3.0.20/", False),
        ("http://a.test/latest/x/", "http://b.test/latest/x/", False),
        ("http://a.test/docs/", "http://b.test/pub/docs/", False),
        # different releases: editions, never paired at all
        ("http://a.test/13/", "http://a.test/14/", False),
    ],
)
def test_release_left_open_by_name(directory, other, left_open):
    assert release_left_open(directory, other) is left_open
    assert release_left_open(other, directory) is left_open


@pytest.mark.parametrize(
    ("directory", "other", "numbered"),
    [
        ("http://a.test/docs/latest/", "http://a.test/docs/3.0.22/", {(3, 0, 22)}),
        ("http://a.test/en/stable/", "http://b.test/pub/proj-2.1/", {(2, 1)}),
        ("http://a.test/en/stable/", "http://a.test/en/latest/", set()),  # two words: editions
        ("http://a.test/latest/x/", "http://b.test/latest/x/", set()),  # one name
        ("http://a.test/latest/", "http://b.test/pub/docs/", set()),  # the other names none
        ("http://a.test/3/", "http://a.test/3.11/", set()),
    ],
)
def test_the_numbered_release_named_against_a_moving_one(directory, other, numbered):
    assert numbered_against_moving(directory, other) == numbered
    assert numbered_against_moving(other, directory) == numbered
