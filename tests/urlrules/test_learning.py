"""Rules learnt from duplicate pairs, confirmed by support, pruning aliases of held pages."""

from __future__ import annotations

import pytest
from dedup_filter.streams.frontier import Frontier
from dedup_filter.streams.metrics import StreamMetrics

from dedup_filter import Config

from .conftest import HOST, hold


def test_session_ids_become_a_rule_after_two_classes_and_prune_aliases_of_held_pages(site):
    hold(site, range(6))
    assert site.fetch("/p0.html?sessionid=A1", 0).reason == "exact_duplicate"
    assert site.check("/p3.html?sessionid=Z9").action == "keep"  # one class: thin support
    confirming = site.fetch("/p1.html?sessionid=B2", 1, greeting="Welcome back, visitor 42")
    assert confirming.reason == "near_duplicate"
    assert confirming.evidence["url_rules_confirmed"] == ["docs.a.test drop sessionid"]
    pruned = site.check("/p3.html?sessionid=Z9")
    assert (pruned.action, pruned.reason) == ("drop", "duplicate_url")
    assert pruned.duplicate_of == f"{HOST}/p3.html"
    assert pruned.evidence["url_rule"] == ["docs.a.test drop sessionid"]


def test_a_url_whose_class_has_no_held_page_is_never_pruned(site):
    hold(site, range(3))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    assert site.check("/p9.html?sessionid=S1").action == "defer"  # test_deferral.py
    site.dedup.probe_failed(f"{HOST}/p9.html", 404)
    assert site.check("/p9.html?sessionid=S1").action == "keep"
    assert site.check("/p0.html?other=1").action == "keep"


def test_a_learnt_parameter_needs_min_support_distinct_classes(site):
    hold(site, range(5))
    for value in ("a", "b", "c"):  # three pairs, one class: one page proves little
        site.fetch(f"/p0.html?ref={value}", 0)
    assert site.rule("docs.a.test drop ref")["state"] == "open"
    site.fetch("/p1.html?ref=d", 1)
    assert site.check("/p4.html?ref=x").action == "keep"
    site.fetch("/p2.html?ref=e", 2)
    rule = site.rule("docs.a.test drop ref")
    assert (rule["state"], rule["support"], rule["classes"]) == ("confirmed", 5, 3)
    assert site.check("/p4.html?ref=x").reason == "duplicate_url"


@pytest.mark.parametrize("edition", ["?v=2", "?version=2.0", "?platform=linux"])
def test_an_edition_that_repeats_the_first_pages_never_prunes_the_pages_it_rewrote(site, edition):
    """A red team's site: the first pages' edition repeats them, a later page's is its own; no
    rule may prune that page before its fetch (sixty-seventh session)."""
    hold(site, range(6))
    for page in range(4):
        assert site.fetch(f"/p{page}.html{edition}", page).reason == "exact_duplicate"
    assert site.check(f"/p5.html{edition}").action == "keep"
    assert site.dedup.url_rules() == []


def test_a_variant_marker_seen_with_one_value_merges_only_that_value(site):
    hold(site, range(5))
    for page in range(3):
        site.fetch(f"/p{page}.html?format=print", page)
    assert site.check("/p4.html?format=print").reason == "duplicate_url"
    assert site.check("/p4.html?format=rss").action == "keep"


@pytest.mark.parametrize(
    ("held", "alias", "label"),
    [
        ("/d{}/", "/d{}/index.html", "docs.a.test index index.html"),
        ("/d{}/index.html", "/d{}/", "docs.a.test index index.html"),
        ("/d{}/page.html", "/print/d{}/page.html", "docs.a.test marker print"),
        ("/D{}/Page.html", "/d{}/page.html", "docs.a.test case"),
    ],
)
def test_path_aliases_become_rules(site, held, alias, label):
    hold(site, range(3), held)
    for page in range(3):
        assert site.fetch(alias.format(page), page).dropped
    assert site.rule(label)["state"] == "confirmed"
    hold(site, range(4, 5), held)
    pruned = site.check(alias.format(4))
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", HOST + held.format(4))


def test_a_wiki_serving_redirects_of_other_spellings_learns_no_case_rule(site):
    """A wiki answers ``Apple_Pie`` with ``Apple_pie``'s article and a line naming the redirect:
    a near copy, never the same file under two spellings; ``CAN`` and ``Can`` are two articles."""
    hold(site, range(1, 6), "/wiki/Title_{}")
    for page in range(1, 5):
        redirected = site.fetch(f"/wiki/TITLE_{page}", page, greeting="(Redirected from TITLE)")
        assert redirected.reason == "near_duplicate"
    assert site.rule("docs.a.test case") is None
    assert site.check("/wiki/TITLE_5").action == "keep"


def test_the_first_url_fetched_stands_for_its_class(site):
    hold(site, range(3))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    assert site.fetch("/p7.html?sessionid=FIRST", 7).reason == "unique"
    for path in ("/p7.html?sessionid=OTHER", "/p7.html"):
        pruned = site.check(path)
        assert (pruned.reason, pruned.duplicate_of) == (
            "duplicate_url",
            f"{HOST}/p7.html?sessionid=FIRST",
        )


def test_a_held_url_itself_is_never_pruned(site):
    hold(site, range(3))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    assert site.fetch("/p7.html?sessionid=FIRST", 7).reason == "unique"
    assert site.check("/p7.html?sessionid=FIRST").action == "keep"


def test_counters_count_rules_and_pruned_urls(site):
    hold(site, range(4))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    site.check("/p3.html?sessionid=S3")
    counters = site.dedup.counters
    assert counters["url_rules_confirmed"] == 1
    assert counters["urls/drop/duplicate_url"] == 1


@pytest.mark.parametrize("config", [Config().with_overrides({"url_rules.enabled": False})])
def test_disabled_url_rules_learn_and_prune_nothing(site):
    hold(site, range(4))
    for page in range(3):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    assert site.dedup.url_rules(with_candidates=True) == []
    assert site.check("/p3.html?sessionid=S3").action == "keep"


def test_when_every_url_carries_a_session_its_value_is_learnt_not_to_matter(site):
    for page in range(5):  # a site that hands out a session id in every link
        assert site.fetch(f"/p{page}.html?sid=A{page}", page).reason == "unique"
    for page in range(2):
        site.fetch(f"/p{page}.html?sid=B{page}", page)
    assert site.rule("docs.a.test ignore sid")["state"] == "confirmed"
    pruned = site.check("/p4.html?sid=C4")  # kept before any rule: found by its parameter's row
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/p4.html?sid=A4")
    assert site.check("/p4.html").action == "keep"  # an ignore rule says nothing of no sid


def test_stream_metrics_count_the_rules_a_page_confirmed_or_killed(site):
    hold(site, range(3))
    metrics = StreamMetrics()
    for page in range(2):
        metrics.page_decided(site.fetch(f"/p{page}.html?sessionid=S{page}", page))
    metrics.page_decided(site.fetch("/p2.html?sessionid=S2", 12))
    assert metrics.totals["url_rules_confirmed"] == 1
    assert metrics.totals["url_rules_killed"] == 1


def test_the_stream_frontier_drops_aliases_of_held_pages(site):
    hold(site, range(3))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    urls = [f"{HOST}/p2.html?sessionid=Q", f"{HOST}/p9.html?sessionid=Q"]
    verdicts = Frontier(site.dedup, cache_size=0, deferred_max_age_s=600.0).check(urls)
    assert [(v.action, v.reason) for v in verdicts] == [
        ("drop", "duplicate_url"),
        ("defer", "counterpart_pending"),  # until /p9.html is fetched or missing
    ]


def test_a_rule_confirmed_on_two_other_hosts_needs_less_support_on_a_new_one(site):
    def learn(host: str, first: int, pages: int) -> dict:
        for page in range(first, first + pages):
            assert site.dedup.check_page(f"{host}/p.html?n={page}", site.bodies[page]).reason == (
                "unique"
            )
            site.dedup.check_page(f"{host}/p.html?n={page}&ref=mail", site.bodies[page])
        return site.rule(f"{host.removeprefix('http://')} drop ref")

    assert learn("http://a.test", 0, 2)["state"] == "open"  # two classes: not enough alone
    assert learn("http://a.test", 2, 1)["state"] == "confirmed"
    assert learn("http://b.test", 3, 3)["needed"] == 3  # one other host proves little
    rule = learn("http://c.test", 6, 1)  # url_rules.min_support_learnt
    assert (rule["state"], rule["needed"]) == ("confirmed", 1)


def test_a_rule_learnt_elsewhere_never_drops_a_value_its_own_host_did_not_show(site):
    """``id`` is content-free on two hosts (a referral tag) and selects the item on a third,
    a catalogue whose ``item`` without an id shows the first item. That one pair confirms
    ``drop id`` there, on the strength of the other hosts' rules: it merges ``id=1`` alone, so
    the other items are fetched, and the first that differs kills the rule on its host."""
    for number, host in enumerate(("http://a.test", "http://b.test")):
        for page in range(3):
            body = site.bodies[3 * number + page]
            site.dedup.check_page(f"{host}/p{page}.html", body)
            site.dedup.check_page(f"{host}/p{page}.html?id={page}{number}", body)
    catalogue = "http://shop.test/item"
    first = site.bodies[10]
    assert site.dedup.check_page(catalogue, first).reason == "unique"
    confirming = site.dedup.check_page(catalogue + "?id=1", first)
    assert confirming.evidence["url_rules_confirmed"] == ["shop.test drop id"]
    assert site.dedup.check_url(catalogue + "?id=2").action == "keep"  # fetched, not dropped
    killing = site.dedup.check_page(catalogue + "?id=2", site.bodies[11])
    assert (killing.reason, killing.evidence["url_rules_killed"]) == (
        "unique",
        ["shop.test drop id"],
    )
    assert site.dedup.check_url(catalogue + "?id=3").action == "keep"


def test_two_unknown_ids_answered_alike_never_merge_a_catalogue(site):
    """``id`` is ignored on two hosts (any value, one page); on a catalogue two unknown ids are
    answered with one "not found" page: a pair of two values alike. Learnt elsewhere, that one
    pair confirmed ``ignore id`` there and merged every item into one class; an ignore rule now
    needs its host's own ``min_support`` classes."""
    for number, host in enumerate(("http://a.test", "http://b.test")):
        for page in range(3):
            body = site.bodies[3 * number + page]
            site.dedup.check_page(f"{host}/p{page}.html?id={page}1", body)
            site.dedup.check_page(f"{host}/p{page}.html?id={page}2", body)
    assert site.rule("b.test ignore id")["state"] == "confirmed"
    not_found = site.bodies[10]
    catalogue = "http://shop.test/item"
    site.dedup.check_page(catalogue + "?id=998", not_found)
    site.dedup.check_page(catalogue + "?id=999", not_found)
    assert site.rule("shop.test ignore id")["state"] == "open"
    assert site.dedup.check_url(catalogue + "?id=3").action == "keep"


def test_a_negotiated_manuals_variant_in_the_crawlers_language_becomes_a_rule(site):
    """Apache's manual negotiates: ``core.html`` is answered with ``core.html.en`` for a crawler
    asking for English, and each page links its variants. The pairs teach ``suffix .en``, which
    prunes the next ``.en`` variant of a held page; ``.fr``, another edition, is never merged."""
    hold(site, range(4), "/manual/p{}.html")
    for page in range(3):
        assert site.fetch(f"/manual/p{page}.html.en", page).dropped
        assert site.fetch(f"/manual/p{page}.html.fr", page + 8).reason == "unique"
    assert site.rule("docs.a.test suffix .en")["state"] == "confirmed"
    pruned = site.check("/manual/p3.html.en")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", HOST + "/manual/p3.html")
    assert site.check("/manual/p3.html.fr").action == "keep"
    assert site.rule("docs.a.test suffix .fr") is None
