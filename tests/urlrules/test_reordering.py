"""Pairs the page rules cannot see: aliases of an alias, and views that only sort a page."""

from __future__ import annotations

import pytest

from .conftest import HOST, hold


def test_an_alias_dropped_against_an_alias_supports_its_rule_once_the_other_is_learnt(site):
    for page in range(6):  # the crawl meets every page first under a session id
        assert site.fetch(f"/p{page}.html?sessionid=S{page}", page).reason == "unique"
    for page in range(2):
        site.fetch(f"/p{page}.html", page)
    assert site.rule("docs.a.test drop sessionid")["state"] == "confirmed"
    for page in range(2, 5):  # print views of pages held under their session URL
        assert site.fetch(f"/p{page}.html?format=print", page).reason == "exact_duplicate"
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    pruned = site.check("/p5.html?format=print")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/p5.html?sessionid=S5")


def test_well_known_parameters_are_set_aside_to_explain_a_pair(learning_site):
    site = learning_site
    for page in range(4):  # met first through a newsletter's tracking links
        assert site.fetch(f"/p{page}.html?utm_source=news&utm_medium=email", page).reason == (
            "unique"
        )
    for page in range(3):
        assert site.fetch(f"/p{page}.html?format=print", page).reason == "exact_duplicate"
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    assert site.rule("docs.a.test drop utm_medium&utm_source") is None  # no pair of its own
    # a page held under tracking parameters only stands for its class once they are a rule
    waiting = site.check("/p3.html?format=print")
    assert (waiting.action, waiting.duplicate_of) == ("defer", f"{HOST}/p3.html")
    hold(site, range(4, 5))
    assert site.check("/p4.html?format=print").reason == "duplicate_url"


def _listing(path: str, rows: list[tuple[str, int]]) -> str:
    """An autoindex page of ``rows`` (name, size), in the order given."""
    lines = "".join(
        f'<tr><td><a href="{name}">{name}</a></td>'
        f"<td>2024-0{size % 9 + 1}-1{size % 7} 12:{size:02d}</td><td>{size * 37 % 1000}K</td>"
        f"<td>notes on {name.split('.')[0]}</td></tr>\n"
        for name, size in rows
    )
    head = f"<html><head><title>Index of {path}</title></head><body><h1>Index of {path}</h1>"
    return f"{head}\n<table>\n{lines}</table></body></html>"


def _rows(directory: int) -> list[tuple[str, int]]:
    return [
        (f"entry-{directory}-{number:02d}.html", (number * 7 + directory) % 60)
        for number in range(40)
    ]


def test_sorted_views_of_listings_become_a_rule_though_their_shingles_differ(site):
    for directory in range(4):
        rows = _rows(directory)
        path = f"/d{directory}/"
        assert site.dedup.check_page(HOST + path, _listing(path, rows).encode()).reason == "unique"
        if directory == 3:
            break
        for query, ordered in (
            ("C=N;O=D", sorted(rows, reverse=True)),
            ("C=S;O=A", sorted(rows, key=lambda row: row[1])),
        ):
            sorted_view = _listing(path, ordered).encode()
            decision = site.dedup.check_page(f"{HOST}{path}?{query}", sorted_view)
            assert decision.reason == "unique"  # the shingles tell them apart
    assert site.rule("docs.a.test drop C&O")["state"] == "confirmed"
    pruned = site.check("/d3/?C=M;O=A")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/d3/")


def test_a_sort_that_shows_other_items_of_a_paginated_listing_is_no_rule(site):
    for directory in range(3):
        items = _rows(2 * directory) + _rows(2 * directory + 1)
        by_name, by_size = sorted(items), sorted(items, key=lambda row: (row[1], row[0]))
        path = f"/shop{directory}/"
        first = _listing(path, by_name[:20]).encode()
        assert site.dedup.check_page(HOST + path, first).reason == "unique"
        other = _listing(path, by_size[:20]).encode()
        assert site.dedup.check_page(f"{HOST}{path}?sort=size", other).reason == "unique"
    rule = site.rule("docs.a.test drop sort")
    assert rule is not None
    assert rule["state"] == "dead"
    assert site.check("/shop9/?sort=size").action == "keep"


def _short_page(number: int, greeting: str = "") -> bytes:
    """A news item of about forty words, as a portal's template serves it."""
    words = " ".join(f"change{number}x{word} fixes issue{word * 7 + number}" for word in range(14))
    line = f"<p>{greeting}</p>" if greeting else ""
    head = f"<html><head><title>Item {number}</title></head>"
    return f"{head}<body>{line}<p>{words}</p></body></html>".encode()


def test_a_line_inserted_into_a_short_page_is_no_counterexample_but_other_content_is(site):
    for number in range(5):
        assert (
            site.dedup.check_page(f"{HOST}/n{number}.html", _short_page(number)).reason == "unique"
        )
    for number in range(2):
        site.dedup.check_page(f"{HOST}/n{number}.html?sessionid=S{number}", _short_page(number))
    assert site.rule("docs.a.test drop sessionid")["state"] == "confirmed"
    greeted = _short_page(4, "Welcome back! Your session S4 is active.")
    unseen = site.dedup.check_page(f"{HOST}/n4.html?sessionid=S4", greeted)  # fetched in flight
    assert unseen.reason == "unique"  # 8-word shingles of a 40-word page: no near duplicate
    assert "url_rules_killed" not in unseen.evidence
    assert site.rule("docs.a.test drop sessionid")["state"] == "confirmed"
    other = site.dedup.check_page(f"{HOST}/n3.html?sessionid=S3", _short_page(9))
    assert other.evidence["url_rules_killed"] == ["docs.a.test drop sessionid"]


def test_a_counterexample_is_found_against_a_page_held_under_a_session_url(site):
    for page in range(4):  # every item met first under a session id
        assert site.fetch(f"/p{page}.html?sessionid=S{page}", page).reason == "unique"
    site.fetch("/p0.html?show=full", 0)  # a short item: its full view repeats it
    assert site.rule("docs.a.test drop show")["state"] == "open"
    killing = site.fetch("/p1.html?show=full", 12)  # another item's full view: other content
    assert killing.evidence["url_rules_killed"] == ["docs.a.test drop show"]
    for page in (2, 3):
        site.fetch(f"/p{page}.html?show=full", page)
    assert site.rule("docs.a.test drop show")["state"] == "dead"


def test_a_probe_is_built_without_the_well_known_parameters_of_the_page(site):
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    site.fetch("/p0.html?format=print", 0)  # opens drop format, seen with one value
    (probe,) = site.fetch("/p4.html?sessionid=S4", 4).probes
    assert probe == f"{HOST}/p4.html?format=print"


def test_a_session_alias_dropped_against_a_tracking_url_supports_the_session_rule(site):
    for page in range(3):  # met first through a newsletter's tracking links
        site.fetch(f"/p{page}.html?utm_source=news", page)
    for page in range(2):
        assert site.fetch(f"/p{page}.html?sessionid=S{page}", page).reason == "exact_duplicate"
    assert site.rule("docs.a.test drop sessionid")["state"] == "confirmed"


def _sorted_views(site, directory: int, queries: tuple[str, ...], host: str = HOST) -> list:
    rows, path = _rows(directory), f"/d{directory}/"
    orders = {"C=N;O=D": sorted(rows, reverse=True), "C=S;O=A": sorted(rows, key=lambda r: r[1])}
    return [
        site.dedup.check_page(f"{host}{path}?{query}", _listing(path, orders[query]).encode())
        for query in queries
    ]


def _hold_listing(site, directory: int, host: str = HOST) -> None:
    path = f"/d{directory}/"
    listing = _listing(path, _rows(directory)).encode()
    assert site.dedup.check_page(host + path, listing).reason == "unique"


def test_further_views_of_a_listing_that_supports_the_sort_candidate_wait_for_its_fate(site):
    for directory in range(3):
        _hold_listing(site, directory)
    _sorted_views(site, 0, ("C=N;O=D", "C=S;O=A"))  # two values: the candidate covers any
    waiting = site.check("/d0/?C=M;O=A")
    assert (waiting.action, waiting.reason, waiting.duplicate_of) == (
        "defer",
        "candidate_pending",
        f"{HOST}/d0/",
    )
    assert waiting.evidence["url_rule_candidate"] == "docs.a.test drop C&O"
    assert site.check("/d1/?C=M;O=A").action == "keep"  # its class supports nothing yet
    _sorted_views(site, 1, ("C=N;O=D",))
    _sorted_views(site, 2, ("C=N;O=D",))
    assert site.rule("docs.a.test drop C&O")["state"] == "confirmed"
    assert site.check("/d0/?C=M;O=A").reason == "duplicate_url"


def test_a_parameter_seen_with_one_value_keeps_no_other_value_waiting(site):
    _hold_listing(site, 0)
    _sorted_views(site, 0, ("C=N;O=D",))
    assert site.rule("docs.a.test drop C&O")["values"] == ["N&D"]
    assert site.check("/d0/?C=M;O=A").action == "keep"  # page=1 repeats a list, page=2 not


def test_a_candidate_seen_on_listings_probes_listings_only(site):
    _hold_listing(site, 0)
    _sorted_views(site, 0, ("C=N;O=D",))
    document = site.dedup.check_page(f"{HOST}/notes.html", _short_page(1))
    assert document.probes == ()
    _hold_listing(site, 1)
    listing = site.dedup.check_page(f"{HOST}/d5/", _listing("/d5/", _rows(5)).encode())
    assert listing.probes == (f"{HOST}/d5/?C=N;O=D",)


def _one_listing_a_host(site, hosts: tuple[str, ...]) -> None:
    for number, host in enumerate(hosts):
        _hold_listing(site, number, host)
        _sorted_views(site, number, ("C=N;O=D", "C=S;O=A"), host)


def test_sorted_views_of_one_listing_on_each_of_three_hosts_prove_the_rule_together(site):
    _one_listing_a_host(site, ("http://a.test", "http://b.test", "http://c.test"))
    assert site.rule("c.test drop C&O")["state"] == "confirmed"  # three classes on three hosts
    assert site.rule("a.test drop C&O")["state"] == "open"
    pruned = site.dedup.check_url("http://a.test/d0/?C=M;O=A")  # it waited: confirmed now
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", "http://a.test/d0/")
    assert site.rule("a.test drop C&O")["state"] == "confirmed"


def test_a_rule_that_died_on_one_host_is_proven_by_no_other_host(site):
    _hold_listing(site, 3, "http://d.test")
    _sorted_views(site, 3, ("C=N;O=D", "C=S;O=A"), "http://d.test")
    other = site.bodies[12]  # a page of other content under a sorted view's URL
    assert site.dedup.check_page("http://d.test/d3/?C=M;O=A", other).reason == "unique"
    assert site.rule("d.test drop C&O")["state"] == "dead"
    _one_listing_a_host(site, ("http://a.test", "http://b.test", "http://c.test"))
    assert site.rule("c.test drop C&O")["state"] == "open"


def test_a_rule_learnt_elsewhere_covers_the_values_its_own_host_showed(site):
    """Two other hosts saw several sorted views each: the third host's rule is confirmed from
    its one view (the kind and name learnt elsewhere), but merges only the value its host
    showed until the host shows a second one. Values seen elsewhere never widen a host's rule:
    a parameter may be content-free on some hosts and select content on another."""
    _one_listing_a_host(site, ("http://a.test", "http://b.test"))  # two values each
    _hold_listing(site, 2, "http://c.test")
    _sorted_views(site, 2, ("C=N;O=D",), "http://c.test")
    rule = site.rule("c.test drop C&O")
    assert (rule["state"], rule["values"], rule["any_value"]) == ("confirmed", ["N&D"], False)
    assert site.dedup.check_url("http://c.test/d2/?C=M;O=A").action == "keep"  # fetched
    _sorted_views(site, 2, ("C=S;O=A",), "http://c.test")
    assert site.rule("c.test drop C&O")["any_value"]
    pruned = site.dedup.check_url("http://c.test/d2/?C=M;O=A")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", "http://c.test/d2/")


def _news_item(number: int, printed: bool = False) -> bytes:
    """A news item of 83 tokens from one template; its print view adds a line after the title,
    which leaves the two pages at a resemblance of about 0.88."""
    words = " ".join(f"release{number}n{n} updates module{n * 5 + number}" for n in range(25))
    note = "<p>Printer-friendly version.</p>" if printed else ""
    head = f"<html><head><title>Item {number}</title></head><body><h1>Item {number}</h1>"
    return f"{head}{note}<p>{words}</p><p>See the other items.</p></body></html>".encode()


@pytest.mark.parametrize("met_as", ["", "?utm_source=news&utm_medium=email"])
def test_print_views_the_super_shingles_miss_still_support_their_rule(site, met_as):
    # items whose print views share at most one of six super-shingles with them (0 and 4 share
    # two: near duplicates) and whose sketches estimate a resemblance of 0.87-0.90 (5: 0.84);
    # met as themselves, or through a newsletter's tracking links
    for number in (2, 3, 9, 5):
        item = site.dedup.check_page(f"{HOST}/n{number}.html{met_as}", _news_item(number))
        assert item.reason == "unique"
    for number in (2, 3, 9):
        printed = site.dedup.check_page(
            f"{HOST}/n{number}.html?format=print", _news_item(number, printed=True)
        )
        assert printed.reason == "unique"
        assert printed.evidence["url_rule_support"] == "docs.a.test drop format"
    assert site.rule("docs.a.test drop format")["state"] == "confirmed"
    if not met_as:  # one held under tracking parameters stands for its class once they are a rule
        pruned = site.check("/n5.html?format=print")
        assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/n5.html")


def test_another_item_of_the_template_under_a_parameter_supports_no_rule(site):
    for number in range(3):
        site.dedup.check_page(f"{HOST}/n{number}.html", _news_item(number))
        other = site.dedup.check_page(f"{HOST}/n{number}.html?item=next", _news_item(number + 10))
        assert "url_rule_support" not in other.evidence
    assert site.rule("docs.a.test drop item")["state"] == "dead"
