"""What only one side of a mirror rule, or one of two duplicates, links: the links of a page
dropped under a rule that its URL checks would not drop, those of a duplicate under no rule that
its twin does not name, and the listings of a mirror side no name calls the copy."""

from __future__ import annotations

from dataclasses import replace

from dedup_filter import DedupFilter
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore
from tests.mirrors.conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree


def with_link(body: bytes, href: str) -> bytes:
    return body.replace(b"</body>", f'<p><a href="{href}">more</a></p></body>'.encode(), 1)


def mirrored(dedup: DedupFilter, corpus: dict[str, str]) -> dict[str, bytes]:
    """The mirror's pages, once a crawl made it a rule."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    mirror = copy_tree(origin, ORIGIN, MIRROR)
    OnlineCrawl(dedup, origin | mirror).visit([*breadth_first(origin, ORIGIN), MIRROR])
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    return mirror


def test_a_page_dropped_under_a_rule_names_the_links_its_url_checks_keep(tmp_path, corpus):
    with DedupFilter.open(tmp_path / "index") as dedup:
        mirror = mirrored(dedup, corpus)
        listing = with_link(mirror[MIRROR + "extra/"], "only-here.html")
        listing = with_link(listing, "http://elsewhere.test/page.html")
        decision = dedup.check_page(MIRROR + "extra/", listing)
        assert decision.dropped
        assert "mirror_rule" in decision.evidence
        # the listed documents' counterparts are held: pruned, not followed; the other site's
        # page lies under no rule (the twin links it as well)
        assert dedup.links_to_follow(decision, listing) == [MIRROR + "extra/only-here.html"]


def test_the_links_to_follow_are_decided_by_the_checks_that_chose_them(tmp_path, corpus):
    """As ``check_urls`` decides them: a link whose counterpart is not known yet waits."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        listing = with_link(mirrored(dedup, corpus)[MIRROR + "extra/"], "only-here.html")
        decision = dedup.check_page(MIRROR + "extra/", listing)
        followed = dedup.links_to_follow(decision, listing)
        assert not dedup.any_deferred()
        checked = dedup.check_links_to_follow(decision, listing)
        assert [link.url for link in checked] == followed
        assert [link.action for link in checked] == ["defer"]
        assert dedup.any_deferred()
        assert checked[0].probes == (ORIGIN + "extra/only-here.html",)  # asked for once
        assert dedup.check_urls(followed)[0].probes == ()


def test_a_link_the_caller_follows_already_is_seen_and_not_checked(tmp_path, corpus):
    """No deferral is written and no probe asked for a link the caller wrote out before."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        listing = with_link(mirrored(dedup, corpus)[MIRROR + "extra/"], "only-here.html")
        decision = dedup.check_page(MIRROR + "extra/", listing)
        link = MIRROR + "extra/only-here.html"
        checked = dedup.check_links_to_follow(decision, listing, followed={link})
        assert [(seen.url, seen.action, seen.reason) for seen in checked] == [
            (link, "drop", "url_seen")
        ]
        assert not dedup.any_deferred()
        assert dedup.pending_probes() == []


def test_a_duplicate_beside_its_twin_names_no_links(tmp_path, corpus):
    """An alias in its twin's directory links what its twin links: nothing to follow."""
    page = corpus[sorted(corpus)[0]].encode()
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_page("http://one.test/a.html", page)
        alias = with_link(page, "elsewhere.html")
        decision = dedup.check_page("http://one.test/a.html?print=1", alias)
        assert decision.dropped
        assert dedup.links_to_follow(decision, alias) == []


def test_a_duplicate_beside_its_twin_under_another_name_names_its_own_variants(tmp_path, corpus):
    """Two documents of one directory with the same words (tex4ht's footnote pages) each link
    their own translation: the dropped one's is reached through nothing else."""
    page = corpus[sorted(corpus)[0]].encode()
    with DedupFilter.open(tmp_path / "index") as dedup:
        first = with_link(with_link(page, "note47.html?lang=fr"), "note48.html")
        dedup.check_page("http://one.test/ref/note47.html", first)
        second = with_link(with_link(page, "note48.html?lang=fr"), "note49.html")
        decision = dedup.check_page("http://one.test/ref/note48.html", second)
        assert (decision.reason, decision.duplicate_of) == (
            "exact_duplicate",
            "http://one.test/ref/note47.html",
        )
        # its next page is linked from others; its own French page from it alone
        assert dedup.links_to_follow(decision, second) == [
            "http://one.test/ref/note48.html?lang=fr"
        ]


def test_a_duplicate_under_no_rule_elsewhere_names_what_its_twin_does_not(tmp_path, corpus):
    """A copy's page met before any rule (or of a copy no rule will cover) is dropped, and only
    it leads to the pages of its own directory: a copy held first makes its origin's pages the
    duplicates, and an origin's page missing from the copy is linked from them alone."""
    page = corpus[sorted(corpus)[0]].encode()
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_page("http://copy.test/pub/a.html", page)
        dedup.check_page("http://origin.test/b.html", corpus[sorted(corpus)[1]].encode())
        origin = with_link(with_link(page, "b.html"), "only-here.html")
        origin = with_link(origin, "http://copy.test/pub/b.html")
        decision = dedup.check_page("http://origin.test/a.html", origin)
        assert (decision.reason, decision.duplicate_of) == (
            "near_duplicate",
            "http://copy.test/pub/a.html",
        )
        assert "mirror_rule" not in decision.evidence
        # its own pages (the crawler's seen-filter skips b.html, fetched already); the absolute
        # link is the copy's own, so its twin names it too
        assert dedup.links_to_follow(decision, origin) == [
            "http://origin.test/",  # the page's link to "."
            "http://origin.test/b.html",
            "http://origin.test/only-here.html",
        ]


def test_anchors_kept_at_preparation_name_the_same_links_with_no_second_parse(tmp_path, corpus):
    page = corpus[sorted(corpus)[0]].encode()
    origin = with_link(page, "only-here.html")
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_page("http://copy.test/pub/a.html", page)
        prepared = dedup.preparer.prepare("http://origin.test/a.html", origin, keep_anchors=True)
        plain = dedup.preparer.prepare("http://origin.test/a.html", origin)
        assert prepared.fingerprint == plain.fingerprint
        assert prepared.links() == plain.links() == ()  # the mirror detector reads none
        [decision] = dedup.check_prepared([prepared])
        followed = dedup.links_to_follow(decision, origin)
        assert "http://origin.test/only-here.html" in followed
        assert dedup.links_to_follow(decision, b"", prepared=prepared) == followed
        # a cut body's anchors are not the whole page's: the body is parsed (empty here)
        cut = replace(prepared, fingerprint=replace(prepared.fingerprint, truncated=True))
        assert dedup.links_to_follow(decision, b"", prepared=cut) == []


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


def test_a_listing_below_a_rule_is_fetched_on_a_mirror_side_no_name_calls_the_copy(
    tmp_path, corpus
):
    """Where only counts, depth or order took a side for the copy, it may be the origin: a
    listing below the rule's own on its mirror side may name a page only that side holds (a
    manual's page added since its copy was made), and is fetched (``listing``), while its
    documents stay under the rule. (The holdout web lost such a page in two orders when its
    origin was taken for the mirror, held second by 5 ms.)"""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    with DedupFilter.open(tmp_path / "index") as dedup:
        for url, body in origin.items():
            dedup.check_page(url, body)
        one_side_first = Rule(MIRROR, ORIGIN, MIRROR, ORIGIN, 0.0, "content", 3, 3, 0)
        named = replace(one_side_first, copy_named=True)  # order-free evidence: the copy
        for rule in (one_side_first, replace(one_side_first, side_by_side=True), named):
            dedup.index.transact(lambda view, rule=rule: MirrorStore(view).put_rule(rule))
            listing = dedup.check_url(MIRROR + "extra/")
            document = dedup.check_url(MIRROR + "extra/" + sorted(corpus)[-1] + ".html")
            assert (listing.reason == "listing") is (rule is not named)
            assert document.reason != "listing"
            assert dedup.check_url(MIRROR).reason != "listing"  # it paired the two sides
