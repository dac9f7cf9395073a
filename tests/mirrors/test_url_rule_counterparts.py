"""A mirror's URL whose counterpart under the origin is an alias, under a URL rule of the origin,
of a held page: the counterpart is never fetched (the URL rule prunes it), so the URL waiting for
it is dropped as a copy of that page rather than waiting in vain and being fetched."""

from __future__ import annotations

from dedup_filter import Config, DedupFilter

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree


def test_a_mirror_url_whose_counterpart_is_a_url_rule_alias_of_a_held_page_is_dropped(
    tmp_path, origin_tree
):
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
        OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
        documents = [url for url in origin_tree if url.endswith(".html")][:4]
        for url in documents[:3]:  # the origin's ref parameter changes nothing: a URL rule
            assert dedup.check_page(url + "?ref=feed", pages[url]).reason == "exact_duplicate"
        relative = documents[3].removeprefix(ORIGIN)
        verdict = dedup.check_url(f"{MIRROR}{relative}?ref=feed")
        assert (verdict.action, verdict.reason, verdict.duplicate_of) == (
            "drop",
            "mirrored_directory",
            documents[3],
        )
        assert verdict.evidence["url_rule"] == ["docs.origin.test drop ref"]
