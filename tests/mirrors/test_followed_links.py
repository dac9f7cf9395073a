"""The links of a page dropped under a mirror rule: the crawl still follows those its URL checks
would not drop, since the page may link what its kept twin does not."""

from __future__ import annotations

from dedup_filter import DedupFilter
from tests.mirrors.conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree


def with_link(body: bytes, href: str) -> bytes:
    return body.replace(b"</body>", f'<p><a href="{href}">more</a></p></body>'.encode(), 1)


def test_a_page_dropped_under_a_rule_names_the_links_its_url_checks_keep(tmp_path, corpus):
    modules = sorted(corpus)
    origin = docs_tree(corpus, ORIGIN, modules, "Standard library notes")
    mirror = copy_tree(origin, ORIGIN, MIRROR)
    with DedupFilter.open(tmp_path / "index") as dedup:
        OnlineCrawl(dedup, origin | mirror).visit([*breadth_first(origin, ORIGIN), MIRROR])
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
        listing = with_link(mirror[MIRROR + "extra/"], "only-here.html")
        listing = with_link(listing, "http://elsewhere.test/page.html")
        decision = dedup.check_page(MIRROR + "extra/", listing)
        assert decision.dropped
        assert "mirror_rule" in decision.evidence
        # the listed documents' counterparts are held: pruned, not followed; the other site's
        # page lies under no rule (the twin links it as well)
        assert dedup.links_to_follow(decision, listing) == [MIRROR + "extra/only-here.html"]


def test_a_plain_duplicate_names_no_links(tmp_path, corpus):
    """A page dropped under no rule is a duplicate like any other: its links stay unfollowed."""
    page = corpus[sorted(corpus)[0]].encode()
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_page("http://one.test/a.html", page)
        copy = with_link(page, "http://two.test/elsewhere.html")
        decision = dedup.check_page("http://two.test/a.html", copy)
        assert decision.dropped
        assert dedup.links_to_follow(decision, copy) == []


HELD_FIRST = "http://www.copy.test/pub/notes/"  # deeper than the origin: a copy, by depth alone


def test_an_origin_listing_met_after_a_copy_held_first_is_kept_and_parsed(tmp_path, corpus):
    """The copy held first prunes its origin (the issue's copy of a copy met first): the
    origin's index pages are still fetched, as listings that may name what the copy lacks, and
    one that duplicates the copy's is kept as the origin's (its spider parses it and follows
    what only it lists); no link of it needs following."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, HELD_FIRST)
    with DedupFilter.open(tmp_path / "index") as dedup:
        OnlineCrawl(dedup, origin | copy).visit([*breadth_first(copy, HELD_FIRST), ORIGIN])
        assert [rule["pruned"] for rule in dedup.mirror_rules()] == [["origin"]]
        assert dedup.check_url(ORIGIN + "extra/").action == "keep"  # a listing: fetched
        listing = with_link(origin[ORIGIN + "extra/"], "only-here.html")
        decision = dedup.check_page(ORIGIN + "extra/", listing)
        assert (decision.action, decision.reason) == ("keep", "mirror_origin")
        assert dedup.links_to_follow(decision, listing) == []
