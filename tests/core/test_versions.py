"""Release numbers read from a page's text, and which of two pages names the later release: a
number only one side names, or edits that move numbers both ways, say nothing."""

from __future__ import annotations

import pytest

from dedup_filter.features.versions import MAX_RELEASES, later_release, page_releases


def test_a_pages_releases_are_its_dotted_numbers_in_order_of_appearance():
    text = "GNU gettext 0.22.4 manual. See 1.2 and 0.22.4 again; port 8080, 3 items, v2.1."
    assert page_releases(text) == ((0, 22, 4), (1, 2), (0, 22, 4), (2, 1))


def test_a_date_written_day_first_reads_year_first_and_overlong_numbers_are_no_release():
    assert page_releases("updated 30.11.2026, then 01.12.2026") == ((2026, 11, 30), (2026, 12, 1))
    assert page_releases("1.2.3.4.5 and 1234567890.1 and 10.0.0.1") == ((10, 0, 0, 1),)


def test_a_servers_signature_and_a_files_size_are_no_releases():
    """A directory listing names its server's version and its files' sizes, never the release
    of what it lists: against an index page naming sections 7.1 to 10.3 it says nothing (the
    twelfth holdout web's copy of a copy was marked stale so, and crawled whole)."""
    listing = (
        "Index of /bdb-docs/gsg/JAVA/ Name Last modified Size index.html 2023-05-01 10:00 4.0K"
        " DB.html 2023-05-01 10:00 12.5M big.tar 2023-05-01 10:00 1.2GiB"
        " Apache/2.4.57 (Debian) Server at db.cdn.test Port 80"
    )
    assert page_releases(listing) == ()
    index_page = "Getting Started with Berkeley DB 11.2.5.3: 7.1 Cursors 8.1 Joins 10.3 Indexes"
    assert later_release(page_releases(listing), page_releases(index_page)) == 0
    # a release written after a word and a slash in running text is a path, a version or a
    # ratio all the same; one after a space, or after a letter, stays a release
    assert page_releases("see docs/2.4.57 and python3.11.2, gettext 0.22, v1.9") == (
        (3, 11, 2),
        (0, 22),
        (1, 9),
    )


def test_a_long_listing_keeps_the_releases_at_its_top_and_bottom():
    sections = " ".join(f"{chapter}.{section}" for chapter in range(1, 20) for section in range(9))
    releases = page_releases(f"Manual 4.5.6 {sections} version 4.5.6-final footer 9.8.7")
    assert len(releases) == MAX_RELEASES
    assert releases[0] == (4, 5, 6)
    assert releases[-2:] == ((4, 5, 6), (9, 8, 7))


def test_a_section_added_in_the_middle_of_a_long_listing_leaves_the_footer_to_tell():
    """The newer manual's listing has one more section, and a footer naming its release; the
    stale copy's names the older release in its footer alone, the newer one in its text."""
    sections = [f"{chapter}.{section}" for chapter in range(1, 20) for section in range(1, 9)]
    newer = f"gettext 0.21 {' '.join(sections)} Manual version 0.21"
    del sections[40]
    stale = f"gettext 0.21 {' '.join(sections)} Manual version 0.19.8"
    assert later_release(page_releases(newer), page_releases(stale)) == 1


@pytest.mark.parametrize(
    ("first", "second", "later"),
    [
        ("Manual version 2.39.5, section 1.2", "Manual version 2.39.2, section 1.2", 1),
        ("release 0.21 of 30.11.2025", "release 0.22 of 01.06.2026", -1),
        ("version 1.9", "version 1.10", -1),  # numbers, not strings
        # a copy's banner names a number the origin does not: no release replaced
        ("version 2.4.1", "version 2.4.1. Mirrored with sync 3.0", 0),
        # an edit moved numbers both ways
        ("version 2.4 needs 1.8", "version 2.5 needs 1.6 and 3.1", 0),
        # ... but the release a manual repeats (title, header, footer) moved one way
        (
            "Tornado 6.2 docs. Tornado 6.2 needs Python 3.7. Release 6.2. (c) 6.2",
            "Tornado 6.1 docs. Tornado 6.1 needs Python 3.5.2 or 2.7. Release 6.1.",
            1,
        ),
        ("no numbers", "version 1.0", 0),
        ("version 1.0", "version 1.0", 0),
    ],
)
def test_the_later_release_is_named_only_where_one_side_replaced_the_others(first, second, later):
    assert later_release(page_releases(first), page_releases(second)) == later
    assert later_release(page_releases(second), page_releases(first)) == -later


def test_pathological_numbers_are_no_releases_and_cost_one_pass():
    """A million digits, a chain of dots, a page of numbers: no error, nothing kept beyond the
    bounds (a release has at most four numbers of at most nine digits; a page keeps 32)."""
    assert page_releases("9" * 1_000_000 + ".1") == ()
    assert page_releases("1." * 200_000 + "1") == ()
    many = page_releases(" ".join(f"{n}.{n}" for n in range(100_000)))
    assert len(many) == MAX_RELEASES
    assert later_release(many, many[::-1]) == 0
