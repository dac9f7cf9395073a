"""URL coordinates: placements under ancestor directories, index pages, parents and depths."""

from __future__ import annotations

import random

import pytest

from dedup_filter.mirrors.directories import (
    IndexPages,
    directory_depth,
    directory_name,
    nested,
    own_placement,
    parent_directory,
    placements,
    relative_key,
    spelled_as,
)

INDEX_PAGES = IndexPages(("index", "default"), ("", ".html", ".php"))


def test_a_page_sits_under_every_ancestor_from_the_host_root():
    places = placements("https://h.test/a/B/c.html?x=/y/", max_depth=12)
    assert [(place.directory, place.relative) for place in places] == [
        ("https://h.test/", "a/B/c.html?x=/y/"),
        ("https://h.test/a/", "B/c.html?x=/y/"),
        ("https://h.test/a/B/", "c.html?x=/y/"),
    ]
    assert places[1].relative_key == "b/c.html?x=/y/"


def test_directories_deeper_than_max_depth_take_no_part():
    assert [place.directory for place in placements("http://h.test/1/2/3/p.html", 1)] == [
        "http://h.test/",
        "http://h.test/1/",
    ]
    assert own_placement("http://h.test/1/2/3/p.html", 1) is None
    assert own_placement("http://h.test/1/p.html", 1).relative == "p.html"


@pytest.mark.parametrize("url", ["", "not a url", "http://", "mailto:x@y.test"])
def test_strings_without_a_path_have_no_placement(url):
    assert placements(url, 12) == []


@pytest.mark.parametrize(
    ("url", "is_index"),
    [
        ("http://h.test/d/", True),
        ("http://h.test/d/INDEX.html", True),
        ("http://h.test/d/default", True),
        ("http://h.test/d/index.htm", False),
        ("http://h.test/d/page.html", False),
        ("http://h.test/d/?sort=name", False),
    ],
)
def test_index_pages_are_recognised_from_the_url(url, is_index):
    assert INDEX_PAGES.is_index(own_placement(url, 12)) is is_index


def test_relative_paths_naming_index_pages():
    assert INDEX_PAGES.names_index("sub/")
    assert INDEX_PAGES.names_index("sub/index.php")
    assert not INDEX_PAGES.names_index("sub/page.html")


def test_parents_names_depths_and_nesting():
    assert parent_directory("http://h.test/a/b/") == "http://h.test/a/"
    assert parent_directory("http://h.test/") is None
    assert (directory_name("http://h.test/a/B/"), directory_name("http://h.test/")) == ("b", "")
    assert (directory_depth("http://h.test/"), directory_depth("http://h.test/a/b/")) == (0, 2)
    assert nested("http://h.test/A/", "http://h.test/a/b/")
    assert not nested("http://h.test/a/", "http://h.test/ab/")


def test_own_placement_is_the_last_placement_when_that_is_the_urls_own():
    rng = random.Random(7)
    pieces = ["a", "b/", "/", "?q=1/", ".html", "=", "x/y"]
    for _ in range(5_000):
        url = rng.choice(["http://h.test", "https://H.T:80", "http://", "h.test", "x:/"])
        url += "".join(rng.choice(pieces) for _ in range(rng.randint(0, 9)))
        for depth in (0, 1, 3, 12):
            places = placements(url, depth)
            expected = places[-1] if places and places[-1].is_own else None
            assert own_placement(url, depth) == expected, (url, depth)


@pytest.mark.parametrize(
    ("side_index", "other_index", "spelled"),
    [
        ("http://m/pub/INDEX.HTML", "http://o/docs/index.html", "C3REF/OPEN.HTML"),
        ("http://o/docs/index.html", "http://m/pub/INDEX.HTML", "c3ref/Open.html"),
        ("http://m/pub/index.html", "http://o/docs/index.html", "c3ref/Open.html"),
        ("http://m/pub/", "http://o/docs/index.html", "c3ref/Open.html"),
        ("http://m/pub/index.htm", "http://o/docs/index.html", "c3ref/Open.htm"),
        ("http://m/pub/INDEX.HTM", "http://o/docs/index.html", "C3REF/OPEN.HTM"),
        ("http://o/docs/index.html", "http://m/pub/INDEX.HTM", "c3ref/Open.html"),
        ("http://m/pub/index.htm", "http://o/docs/default.html", "c3ref/Open.html"),
        ("http://m/pub/Index.html", "http://o/docs/index.html", "c3ref/Open.html"),
    ],
)
def test_a_path_is_spelled_as_a_side_whose_index_page_renamed_it_spells_it(
    side_index, other_index, spelled
):
    """Only index pages whose names differ in case or in ``.htm`` for ``.html`` alone tell how
    a side renamed its files; a side's own spelling is left as it is (applied again, nothing
    changes)."""
    assert spelled_as("c3ref/Open.html", side_index, other_index) == spelled
    assert spelled_as(spelled, side_index, other_index) == spelled


def test_an_upper_cased_name_is_lower_cased_toward_a_side_that_did_not_upper_case_its_names():
    assert spelled_as("C3REF/OPEN.HTM", "http://o/index.html", "http://m/INDEX.HTM") == (
        "c3ref/open.html"
    )


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("c3ref/open.htm", "C3REF/Open.html", True),
        ("c3ref/open.htm?x=1", "c3ref/open.html?x=1", True),
        ("c3ref/open.htm", "c3ref/open.htmx", False),
        ("c3ref.htm/open", "c3ref.html/open", False),
        ("c3ref/open", "c3ref/open.html", True),
        ("class.Pixbuf", "class.pixbuf.html", True),
        ("c3ref/open?x=1", "c3ref/open.html?x=1", False),
        ("c3ref/", "c3ref.html", False),
        ("c3ref/", "c3ref/index.html", False),
    ],
)
def test_relative_paths_compare_lower_cased_with_htm_and_bare_names_read_as_html(
    first, second, same
):
    assert (relative_key(first) == relative_key(second)) is same


@pytest.mark.parametrize(
    ("relative", "on_bare_side", "back"),
    [
        ("c3ref/Open.html", "c3ref/Open", "c3ref/Open.html"),
        ("class.Pixbuf.html", "class.Pixbuf", "class.Pixbuf.html"),
        ("c3ref/index.html", "c3ref/", "c3ref/index.html"),
        ("index.html", "", ""),
        ("find.html?q=x", "find.html?q=x", "find.html?q=x"),
    ],
)
def test_a_path_is_spelled_bare_toward_a_side_that_names_its_documents_bare(
    relative, on_bare_side, back
):
    """A side serving "pretty" URLs is asked for ``Open`` and ``c3ref/``; the other side for
    the name with its index page's extension, an index page under its index page's name; a
    query's page is left as it is."""
    pretty, plain = "http://m/pub/", "http://o/docs/index.html"
    to_bare = spelled_as(relative, pretty, plain, side_bare=True)
    assert to_bare == on_bare_side
    assert spelled_as(to_bare, plain, pretty, other_bare=True) == back
    assert spelled_as("c3ref/Open", "http://o/docs/index.htm", pretty, other_bare=True) == (
        "c3ref/Open.htm"
    )
    assert spelled_as(relative, pretty, plain, side_bare=True, other_bare=True) == relative


@pytest.mark.parametrize(
    ("relative", "on_htm_side"),
    [
        ("c3ref/Open.html", "c3ref/Open.htm"),
        ("find.html?q=x.html", "find.htm?q=x.html"),
        ("c3ref/", "c3ref/"),
        ("notes.txt", "notes.txt"),
    ],
)
def test_a_path_is_spelled_htm_toward_a_side_whose_index_page_names_its_pages_so(
    relative, on_htm_side
):
    """Both index pages held under their directories' URLs tell nothing by their names; a side
    whose index page links its pages ``.htm`` is asked for them so, and the other side back."""
    copy, origin = "http://m/pub/", "http://o/docs/"
    to_htm = spelled_as(relative, copy, origin, side_htm=True)
    assert to_htm == on_htm_side
    assert spelled_as(to_htm, origin, copy, other_htm=True) == relative
    assert spelled_as(relative, copy, origin, side_htm=True, other_htm=True) == relative
