"""A mirror's URL whose counterpart under the origin is an alias, under a URL rule of the origin,
of a held page: the counterpart is never fetched (the URL rule prunes it), so the URL waiting for
it is dropped as a copy of that page rather than waiting in vain and being fetched."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dedup_filter import Config, DedupFilter

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree


@pytest.fixture
def ruled(tmp_path, origin_tree) -> Iterator[tuple[DedupFilter, list[str]]]:
    """The mirror rule MIRROR -> ORIGIN, and the URL rule ``drop ref`` (value ``feed``) on the
    origin; the origin's documents."""
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
        OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
        documents = [url for url in origin_tree if url.endswith(".html")][:4]
        for url in documents[:3]:  # the origin's ref parameter changes nothing: a URL rule
            assert dedup.check_page(url + "?ref=feed", pages[url]).reason == "exact_duplicate"
        yield dedup, documents


def test_a_mirror_url_whose_counterpart_is_a_url_rule_alias_of_a_held_page_is_dropped(ruled):
    dedup, documents = ruled
    relative = documents[3].removeprefix(ORIGIN)
    verdict = dedup.check_url(f"{MIRROR}{relative}?ref=feed")
    assert (verdict.action, verdict.reason, verdict.duplicate_of) == (
        "drop",
        "mirrored_directory",
        documents[3],
    )
    assert verdict.evidence["url_rule"] == ["docs.origin.test drop ref"]


def test_a_counterpart_that_waits_under_a_url_rule_is_not_probed_what_it_waits_for_is(
    ruled, stdlib_page
):
    dedup, _ = ruled
    waiting = dedup.check_url(MIRROR + "late.html?ref=feed")
    assert (waiting.action, waiting.duplicate_of) == ("defer", ORIGIN + "late.html?ref=feed")
    assert waiting.probes == (ORIGIN + "late.html",)  # not the alias itself
    dedup.check_page(ORIGIN + "late.html", stdlib_page("fractions").encode())
    verdict = dedup.check_url(MIRROR + "late.html?ref=feed")
    assert (verdict.action, verdict.duplicate_of) == ("drop", ORIGIN + "late.html")
