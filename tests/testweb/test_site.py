"""The test web: deterministic, every mirror case present on both sides, ground truth consistent."""

from __future__ import annotations

import functools
import operator
import re
from collections import Counter, defaultdict

import pytest

from dedup_filter.features.text import html_tokens
from testweb.crawl import breadth_first_crawl, breadth_first_order
from testweb.site import build_web


def _tokens(url, body):
    return html_tokens(body.decode() if isinstance(body, bytes) else body, url)[0]


def test_same_seed_gives_the_same_bytes(web):
    again = build_web(seed=0, scale="small")
    assert again.pages == web.pages
    assert again.mirrors == web.mirrors
    assert again.near_duplicates == web.near_duplicates


def test_another_seed_changes_choices_not_layout(web):
    other = build_web(seed=1, scale="small")
    originals_layout = {url for url in web.pages if "?" not in url}
    assert other.mirrors[2].missing_paths != web.mirrors[2].missing_paths
    assert other.near_duplicates != web.near_duplicates
    assert {mirror.boundary for mirror in other.mirrors} == {
        mirror.boundary for mirror in web.mirrors
    }
    assert len(originals_layout ^ {url for url in other.pages if "?" not in url}) < 40


def test_unknown_scale_is_refused():
    with pytest.raises(ValueError, match="scale must be one of"):
        build_web(scale="huge")


def test_every_mirror_case_is_present(web):
    assert [mirror.kind for mirror in web.mirrors] == [
        "whole_host",
        "renamed_subdirectory",
        "partial",
        "stale",
    ]
    whole, renamed, _, _ = web.mirrors
    assert whole.boundary == ("http://mirror1.beta.test/", "http://docs.alpha.test/")
    assert renamed.d2.rstrip("/").rsplit("/", 1)[-1] != renamed.d1.rstrip("/").rsplit("/", 1)[-1]


@pytest.mark.parametrize("kind", ["whole_host", "renamed_subdirectory", "partial", "stale"])
def test_mirror_pages_exist_on_both_sides_at_the_same_relative_paths(web, kind):
    mirror = next(mirror for mirror in web.mirrors if mirror.kind == kind)
    original_paths = {
        url[len(mirror.d1) :] for url in web.pages if url.startswith(mirror.d1) and "?" not in url
    }
    original_paths -= {path for path in original_paths if path.endswith(".htm")}
    assert set(mirror.relative_paths) | set(mirror.missing_paths) == original_paths
    assert all(mirror.d2 + path in web.pages for path in mirror.relative_paths)
    assert not any(mirror.d2 + path in web.pages for path in mirror.missing_paths)


def test_partial_mirror_lacks_a_fifth_of_its_pages_but_links_to_them(web):
    partial = next(mirror for mirror in web.mirrors if mirror.kind == "partial")
    total = len(partial.relative_paths) + len(partial.missing_paths)
    assert round(0.2 * total) == len(partial.missing_paths) > 0
    linked = {link for url in web.pages if url.startswith(partial.d2) for link in _links(web, url)}
    assert partial.missing_urls <= linked


def test_stale_mirror_holds_older_versions_of_some_pages(web):
    stale = next(mirror for mirror in web.mirrors if mirror.kind == "stale")
    assert len(stale.edited_paths) >= 0.2 * len(stale.relative_paths)
    for path in stale.edited_paths:
        older, current = (
            _tokens(stale.d2 + path, web.pages[stale.d2 + path]),
            _tokens(stale.d1 + path, web.pages[stale.d1 + path]),
        )
        assert 0.8 * len(current) < len(older)
        assert Counter(current) - Counter(older)  # the original has text the old copy lacks


def test_copied_pages_keep_the_text_of_their_originals(web):
    renamed = next(mirror for mirror in web.mirrors if mirror.kind == "renamed_subdirectory")
    for path in renamed.relative_paths:
        assert _tokens(renamed.d2 + path, web.pages[renamed.d2 + path]) == _tokens(
            renamed.d1 + path, web.pages[renamed.d1 + path]
        )


def test_ground_truth_partitions_the_pages(any_seed_web):
    mirror_indexes = {mirror.index_url for mirror in any_seed_web.mirrors}
    parts = [
        any_seed_web.originals,
        any_seed_web.mirrored_urls,
        mirror_indexes,
        set(any_seed_web.near_duplicates),
        set(any_seed_web.exact_duplicates),
    ]
    membership = Counter(url for part in parts for url in part)
    assert set(membership) == set(any_seed_web.pages)
    assert max(membership.values()) == 1
    assert not any_seed_web.originals & any_seed_web.mirrored_urls


def test_duplicates_point_at_originals(any_seed_web):
    for duplicates in (any_seed_web.near_duplicates, any_seed_web.exact_duplicates):
        assert duplicates
        assert set(duplicates.values()) <= any_seed_web.originals


def test_exact_duplicates_differ_in_markup_only(web):
    for url, original in web.exact_duplicates.items():
        assert web.pages[url] != web.pages[original]
        assert _tokens(url, web.pages[url]) == _tokens(original, web.pages[original])


def test_near_duplicates_add_a_few_terms_and_remove_none(web):
    for url, original in web.near_duplicates.items():
        duplicate_terms, original_terms = (
            Counter(_tokens(url, web.pages[url])),
            Counter(_tokens(original, web.pages[original])),
        )
        assert 0 < sum((duplicate_terms - original_terms).values()) <= 25
        assert not original_terms - duplicate_terms


def test_listings_look_alike_over_files_that_differ(web):
    listing = next(trap for trap in web.traps if trap.kind == "directory_listing")
    bodies = [web.pages[directory].decode() for directory in listing.directories]
    assert len(set(bodies)) == len(bodies)
    assert (
        len(
            {
                tuple(_tokens("http://x.test/", re.sub(r"Server at \S+", "", body)))
                for body in bodies
            }
        )
        == 1
    )
    files = [url for url in web.assets if url.startswith(listing.directories[0])]
    for url in files:
        name = url.rsplit("/", 1)[-1]
        assert len({web.assets[directory + name][1] for directory in listing.directories}) == len(
            bodies
        )
    assert not [
        url
        for url in web.pages
        if url.startswith(listing.directories) and url not in listing.directories
    ]


def test_generated_guides_share_an_index_page_but_no_chapter(web):
    skeleton = next(trap for trap in web.traps if trap.kind == "generator_skeleton")
    gamma, delta = skeleton.directories
    assert web.pages[gamma + "index.html"] == web.pages[delta]
    for path in skeleton.shared_paths:
        first, second = (
            set(_tokens(directory + path, web.pages[directory + path]))
            for directory in skeleton.directories
        )
        assert len(first & second) < 0.5 * len(first | second)


def test_boilerplate_pages_are_dominated_by_their_template(web):
    assert len(web.boilerplate_urls) >= 20
    assert web.boilerplate_urls <= web.originals
    terms = {url: _tokens(url, web.pages[url]) for url in web.boilerplate_urls}
    template = functools.reduce(operator.and_, (Counter(sequence) for sequence in terms.values()))
    assert all(sum(template.values()) >= 0.4 * len(sequence) for sequence in terms.values())
    assert len({tuple(sequence) for sequence in terms.values()}) == len(terms)


def test_every_page_is_reachable_and_originals_come_first(any_seed_web):
    order = breadth_first_order(any_seed_web)
    assert sorted(order) == sorted(any_seed_web.pages)
    position = {url: index for index, url in enumerate(order)}
    for mirror in any_seed_web.mirrors:
        assert all(
            position[mirror.d1 + path] < position[mirror.d2 + path]
            for path in mirror.relative_paths
        )
    for duplicates in (any_seed_web.near_duplicates, any_seed_web.exact_duplicates):
        assert all(position[original] < position[url] for url, original in duplicates.items())


def test_an_ideal_crawler_reaches_every_original_through_originals_only(any_seed_web):
    visited = set(breadth_first_crawl(any_seed_web, lambda url: url in any_seed_web.originals))
    assert any_seed_web.originals <= visited
    assert {mirror.index_url for mirror in any_seed_web.mirrors} <= visited
    assert not visited & any_seed_web.mirrored_urls


def test_demo_scale_has_over_a_thousand_pages(demo_web):
    assert 1_000 <= len(demo_web.pages) <= 2_000
    assert set(breadth_first_order(demo_web)) == set(demo_web.pages)


@pytest.mark.parametrize("web_fixture", ["web", "demo_web"])
def test_originals_of_different_hosts_share_no_passage(web_fixture, request):
    """Only pydoc's stock text (named tuples, enums) may repeat across hosts: <= 25 windows."""
    web = request.getfixturevalue(web_fixture)
    trap_indexes = {
        url for trap in web.traps for url in web.pages if url.startswith(trap.directories)
    }
    hosts_of_window = defaultdict(set)
    windows_of_page = {}
    for url in web.originals - trap_indexes:
        terms = _tokens(url, web.pages[url])
        windows_of_page[url] = {hash(tuple(terms[i : i + 25])) for i in range(len(terms) - 24)}
        for window in windows_of_page[url]:
            hosts_of_window[window].add(url.split("/")[2])
    shared = {
        url: sum(len(hosts_of_window[w]) > 1 for w in windows)
        for url, windows in windows_of_page.items()
    }
    assert max(shared.values()) <= 25


def _links(web, url):
    from testweb.crawl import page_links

    return page_links(url, web.pages[url])
