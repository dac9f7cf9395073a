"""Counterexamples kill rules for good, traps never become rules, thin support asks for probes."""

from __future__ import annotations

import re

import pytest

from dedup_filter import Config

from .conftest import HOST, hold


def test_a_default_document_held_before_the_rule_is_found_by_its_url(site):
    hold(site, range(5), "/d{}/index.html")
    for page in range(3):
        site.fetch(f"/d{page}/", page)
    pruned = site.check("/d4/")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/d4/index.html")


def test_a_parameter_that_selects_content_on_most_pages_never_becomes_a_rule(site):
    hold(site, range(8))
    # rev=2: the same page where nothing was revised (0, 1, 5, 6, 7), another page on 2..4
    site.fetch("/p0.html?rev=2", 0)
    site.fetch("/p1.html?rev=2", 1)
    killing = site.fetch("/p2.html?rev=2", 12)
    assert killing.reason == "unique"
    assert killing.evidence["url_rules_killed"] == ["docs.a.test drop rev"]
    for page in (5, 6, 7):
        assert site.fetch(f"/p{page}.html?rev=2", page).dropped
    rule = site.rule("docs.a.test drop rev")
    assert (rule["state"], rule["counterexamples"]) == ("dead", 1)
    assert rule["example"] == {"alias": f"{HOST}/p2.html?rev=2", "held": f"{HOST}/p2.html"}
    assert site.check("/p3.html?rev=2").action == "keep"


def test_a_counterexample_met_before_any_pair_is_a_tombstone(site):
    hold(site, range(6))
    site.fetch("/p0.html?page=2", 12)  # the second page of a listing: other content
    for page in (1, 2, 3, 4):  # page=1 repeats the listing's first page
        site.fetch(f"/p{page}.html?page=1", page)
    assert site.rule("docs.a.test drop page")["state"] == "dead"
    assert site.check("/p5.html?page=1").action == "keep"
    assert site.dedup.url_rules() == []


def test_a_group_naming_a_content_parameter_is_no_rule(site):
    hold(site, range(6))
    site.fetch("/p0.html?id=7", 12)
    for page in (1, 2, 3, 4):
        site.fetch(f"/p{page}.html?id=1&sort=asc", page)
    assert site.rule("docs.a.test drop id&sort") is None
    assert site.check("/p5.html?id=1&sort=asc").action == "keep"


def test_an_alias_held_first_is_a_counterexample_when_the_page_itself_comes(site):
    hold(site, range(1))
    site.fetch("/p0.html?rev=2", 0)  # opens the candidate
    assert site.fetch("/p1.html?rev=2", 13).reason == "unique"
    assert site.fetch("/p1.html", 1).evidence["url_rules_killed"] == ["docs.a.test drop rev"]


def test_one_counterexample_kills_a_confirmed_rule(site):
    hold(site, range(5))
    for page in range(3):
        site.fetch(f"/p{page}.html?ref=r{page}", page)
    assert site.check("/p3.html?ref=x").reason == "duplicate_url"
    site.fetch("/p4.html?ref=special", 14)  # a fetch the rule did not stop shows other content
    assert site.rule("docs.a.test drop ref")["state"] == "dead"
    assert site.check("/p3.html?ref=x").action == "keep"
    assert site.dedup.counters["url_rules_killed"] == 1


def test_thin_support_asks_for_probes_whose_pages_confirm_the_rule(site):
    hold(site, range(2))
    opened = site.fetch("/p0.html?format=print", 0)
    assert opened.probes == (f"{HOST}/p1.html?format=print",)  # a long page held before
    probes = [site.fetch(f"/p{page}.html", page).probes for page in (4, 5, 6)]
    assert probes == [(f"{HOST}/p4.html?format=print",), (), ()]
    for page in (1, 4):
        site.fetch(f"/p{page}.html?format=print", page)  # the integration fetches each probe
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    assert site.dedup.counters["probes"] == 2


def test_a_new_candidate_asks_its_probes_on_the_long_pages_its_host_kept_first(site):
    hold(site, range(4))
    opened = site.fetch("/p3.html?format=print", 3)
    assert opened.probes == (f"{HOST}/p0.html?format=print", f"{HOST}/p1.html?format=print")
    for page in (0, 1):
        site.fetch(f"/p{page}.html?format=print", page)
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    assert site.check("/p2.html?format=print").reason == "duplicate_url"


@pytest.mark.parametrize(
    "config", [Config().with_overrides({"url_rules.witness_min_tokens": 10**6})]
)
def test_short_pages_are_no_witnesses(site):
    hold(site, range(4))
    assert site.fetch("/p3.html?format=print", 3).probes == ()


def test_a_well_known_parameter_asks_no_witness(site):
    hold(site, range(4))
    opened = site.fetch("/p3.html?sessionid=S1", 3)
    assert opened.evidence["url_rule_support"] == "docs.a.test drop sessionid"
    assert opened.probes == ()


def test_a_witness_met_under_a_session_id_is_probed_without_it(site):
    hold(site, range(3, 4), "/p{}.html?sessionid=S9")
    hold(site, range(4, 5))
    opened = site.fetch("/p4.html?format=print", 4)
    assert opened.probes == (f"{HOST}/p3.html?format=print",)


def test_pages_under_a_content_query_are_no_witnesses(site):
    hold(site, range(2), "/p{}.html?view=full")  # a probe would name p0.html?view=full&format=print
    hold(site, range(3, 5))
    opened = site.fetch("/p4.html?format=print", 4)
    assert opened.probes == (f"{HOST}/p3.html?format=print",)


def test_a_probe_of_a_trap_kills_it(site):
    hold(site, range(2))
    site.fetch("/p0.html?rev=2", 0)
    (probe,) = site.fetch("/p4.html", 4).probes
    assert probe == f"{HOST}/p4.html?rev=2"
    assert site.fetch("/p4.html?rev=2", 14).evidence["url_rules_killed"]


@pytest.mark.parametrize(
    "config", [Config().with_overrides({"simhash.same_site_threshold": 384})]
)  # the pair search misses every same-site near copy
def test_a_near_copy_the_pair_search_missed_is_no_counterexample(site):
    hold(site, range(3))
    site.fetch("/p0.html?sessionid=A", 0)  # an exact copy: opens the candidate
    missed = site.fetch("/p1.html?sessionid=B", 1, greeting="Welcome back, visitor 7")
    assert missed.reason == "unique"
    assert "url_rules_killed" not in missed.evidence
    assert site.rule("docs.a.test drop sessionid")["state"] != "dead"
    assert site.fetch("/p2.html?rev=2", 12).evidence["url_rules_killed"] == ["docs.a.test drop rev"]


def test_a_page_below_the_token_floor_is_no_counterexample(site):
    """A 10-word page and its print view, 3 words longer: below the token floor only an exact
    match tells anything (the two share none of their few shingles), so the pair leaves the
    host's print rule alive; a page above the floor with other content still kills it."""
    hold(site, range(4))
    tiny = b"<html><body><h1>Contact</h1><p>Write to the editors at the office.</p></body></html>"
    printed = tiny.replace(b"<body>", b"<body><p>Printed from docs.a.test</p>")
    assert site.dedup.check_page(HOST + "/contact.html", tiny).evidence["below_token_floor"]
    kept = site.dedup.check_page(HOST + "/contact.html?format=print", printed)
    assert kept.reason == "unique"
    assert "url_rules_killed" not in kept.evidence
    for page in range(3):
        assert site.fetch(f"/p{page}.html?format=print", page).dropped
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    assert site.fetch("/p3.html?format=print", 13).evidence["url_rules_killed"] == [
        "docs.a.test drop format"
    ]


def test_items_whose_second_part_repeats_them_never_make_the_part_number_a_rule(site):
    """Three single-part items answer ``?part=2`` with their one part (the server clamps the
    number): that says nothing of an item with two parts, whose second is other content and
    must be fetched. ``?part=1`` repeating an item names its first part, and may be learnt."""
    hold(site, range(5))
    for page in range(3):
        assert site.fetch(f"/p{page}.html?part=2", page).dropped  # exact duplicates, as pages
    assert (site.rule("docs.a.test drop part") or {"state": "none"})["state"] != "open"
    assert site.check("/p4.html?part=2").action == "keep"
    for page in range(3):
        site.fetch(f"/p{page}.html?part=1", page)
    assert site.rule("docs.a.test drop part")["state"] == "confirmed"
    assert site.check("/p4.html?part=2").action == "keep"  # only the value its pairs showed


def _item(site, page: int, line: str = "", words: int = 46) -> bytes:
    """A short news item of ``words`` words (the text of corpus page ``page``), ``line`` first."""
    words_of_page = re.findall(
        r"\b[a-z]{3,}\b", re.sub(r"<[^>]+>|&\w+;", " ", site.bodies[page].decode())
    )
    text = " ".join(words_of_page[60 : 60 + words])
    return f"<html><head><title>Item</title></head><body>{line}<p>{text}</p></body></html>".encode()


def test_a_line_inserted_into_a_short_page_opens_its_rule_and_probes_the_long_pages(site):
    hold(site, range(2))  # the host's long pages: its witnesses
    site.dedup.check_page(f"{HOST}/news/n5.html", _item(site, 5))
    note = "<p>Printer-friendly version of this page, from the archive.</p>"
    printed = site.dedup.check_page(f"{HOST}/news/n5.html?format=print", _item(site, 5, note))
    assert printed.reason == "unique"  # 9 words in 56: a resemblance of about 0.7
    assert printed.evidence["url_rule_suspected"] == "docs.a.test drop format"
    assert printed.probes == (f"{HOST}/p0.html?format=print", f"{HOST}/p1.html?format=print")
    opened = site.rule("docs.a.test drop format")
    assert (opened["state"], opened["support"]) == ("open", 0)  # a suspicion supports nothing
    site.fetch("/p0.html?format=print", 0, greeting=note[3:-4])
    assert site.rule("docs.a.test drop format")["support"] == 1


@pytest.mark.parametrize(
    "other",
    [
        lambda site: _item(site, 6),  # another item under the same title
        lambda site: _item(site, 5, words=30) + b"<p>" + b" other" * 16 + b"</p>",  # a part
    ],
)
def test_a_short_page_with_other_text_opens_no_rule(site, other):
    hold(site, range(2))
    site.dedup.check_page(f"{HOST}/news/n5.html", _item(site, 5))
    second = site.dedup.check_page(f"{HOST}/news/n5.html?part=2", other(site))
    assert "url_rule_suspected" not in second.evidence
    assert second.probes == ()
    assert (site.rule("docs.a.test drop part") or {"state": "none"})["state"] != "open"


def test_a_line_inserted_into_short_pages_supports_a_rule_a_probe_supported(site):
    hold(site, range(2))
    note = "<p>Printer-friendly version of this page, from the archive.</p>"
    for item in (5, 6, 7):
        site.dedup.check_page(f"{HOST}/news/n{item}.html", _item(site, item))
    site.dedup.check_page(f"{HOST}/news/n5.html?format=print", _item(site, 5, note))
    assert site.rule("docs.a.test drop format")["support"] == 0
    site.fetch("/p0.html?format=print", 0, greeting=note[3:-4])  # the probe: a duplicate pair
    for item in (6, 7):
        printed = site.dedup.check_page(
            f"{HOST}/news/n{item}.html?format=print", _item(site, item, note)
        )
        assert printed.evidence["url_rule_support"] == "docs.a.test drop format"
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    assert not site.check("/news/n8.html?format=print").dropped  # n8 is not held
    assert site.check("/p1.html?format=print").reason == "duplicate_url"
