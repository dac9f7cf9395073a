"""Redirects a host answers alike become its redirect rule (``urlrules/redirects.py``): the crawl
then asks for where a URL lands instead of being sent there."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter

WWW, BARE = "http://www.a.test/", "http://a.test/"


@pytest.fixture
def dedup(tmp_path):
    with DedupFilter.open(tmp_path / "index") as opened:
        yield opened


def _moved(dedup, paths, status=301, target=BARE):
    return [dedup.redirected(WWW + path, target + path, status) for path in paths]


def test_three_moves_to_the_same_path_make_the_rule_and_its_urls_land_there(dedup, stdlib_page):
    assert _moved(dedup, ["", "a.html", "d/b.html"]) == [None, None, "www.a.test redirect move"]
    dropped = dedup.check_url(WWW + "c.html?x=1")
    assert (dropped.action, dropped.reason, dropped.duplicate_of) == (
        "drop",
        "duplicate_url",
        BARE + "c.html?x=1",
    )
    assert dropped.evidence == {
        "redirect_rule": "www.a.test redirect move",
        "crawl_instead": BARE + "c.html?x=1",
    }
    dedup.check_page(BARE + "e.html", stdlib_page("fractions").encode())
    held = dedup.check_url(WWW + "e.html")
    assert (held.duplicate_of, held.evidence) == (
        BARE + "e.html",
        {"redirect_rule": "www.a.test redirect move"},
    )
    assert dedup.check_url(BARE + "c.html").action == "keep"
    listed = [rule for rule in dedup.url_rules() if rule["kind"] == "redirect"]
    assert listed == [
        {
            "rule": "www.a.test redirect move",
            "host": "www.a.test",
            "kind": "redirect",
            "name": "move",
            "state": "confirmed",
            "support": 3,
            "target": "http://a.test",
        }
    ]


def test_a_host_that_served_a_page_itself_never_gets_a_move(dedup, stdlib_page):
    dedup.check_page(WWW + "own.html", stdlib_page("fractions").encode())
    _moved(dedup, ["a.html", "b.html", "c.html", "d.html"])
    assert dedup.check_url(WWW + "e.html").action == "keep"


def test_a_page_served_after_the_rule_kills_it_for_good(dedup, stdlib_page):
    _moved(dedup, ["a.html", "b.html", "c.html"])
    served = dedup.check_page(WWW + "own.html", stdlib_page("fractions").encode())
    assert served.evidence["url_rules_killed"] == ["www.a.test redirect move"]
    _moved(dedup, ["d.html", "e.html", "f.html"])
    assert dedup.check_url(WWW + "g.html").action == "keep"


@pytest.mark.parametrize(
    "redirects",
    [
        [(WWW + "a.html", BARE + "a.html", 302)] * 3,  # temporary: teaches nothing
        [(WWW + f"{n}.html", BARE + f"{n}.v2.html", 301) for n in range(3)],  # pages moved
        [(WWW + "a.html", BARE + "a.html", 301), (WWW + "b.html", "http://b.test/b.html", 301)]
        + [(WWW + f"{n}.html", BARE + f"{n}.html", 301) for n in range(3)],  # two places
    ],
    ids=["temporary", "pages_moved", "two_targets"],
)
def test_redirects_of_no_single_shape_make_no_rule(dedup, redirects):
    for url, location, status in redirects:
        assert dedup.redirected(url, location, status) is None
    assert dedup.check_url(WWW + "z.html").action == "keep"


def test_a_slashless_url_is_asked_for_as_its_directory_and_as_itself_if_that_fails(
    dedup, stdlib_page
):
    for name in ("a", "b", "c"):
        dedup.redirected(f"{BARE}{name}", f"/{name}/", 301)  # a relative Location
    sent = dedup.check_url(BARE + "docs")
    assert (sent.action, sent.duplicate_of) == ("drop", BARE + "docs/")
    assert sent.evidence == {
        "redirect_rule": "a.test redirect slash",
        "crawl_instead": BARE + "docs/",
    }
    assert dedup.check_url(BARE + "notes.txt").action == "keep"  # named like a file
    dedup.check_page(BARE + "docs/", stdlib_page("fractions").encode())
    held = dedup.check_url(BARE + "docs")
    assert (held.duplicate_of, held.evidence) == (
        BARE + "docs/",
        {"redirect_rule": "a.test redirect slash"},
    )
    # a file named like a directory: its directory URL fails, and it is crawled itself
    (stand_in,) = dedup.fetch_failed(BARE + "README/", 404)
    assert (stand_in.url, stand_in.action, stand_in.reason) == (BARE + "README", "keep", "stand_in")
    assert dedup.check_url(BARE + "README").action == "keep"
    assert dedup.fetch_failed(BARE + "gone.html", 404) == []


def test_a_removed_redirect_rule_drops_nothing_and_is_never_learnt_again(dedup):
    _moved(dedup, ["a.html", "b.html", "c.html"])
    assert dedup.remove_url_rule("www.a.test redirect move")
    assert not dedup.remove_url_rule("www.a.test redirect move")
    _moved(dedup, ["d.html", "e.html", "f.html"])
    assert dedup.check_url(WWW + "g.html").action == "keep"


def test_hosts_a_page_chooses_break_nothing(dedup, stdlib_page):
    """A host name of 600 bytes (LMDB keys stop at 511) or a broken IPv6 one."""
    long_host = "http://" + "a" * 600 + ".test/"
    for path in ("a", "b", "c"):
        dedup.redirected(long_host + path, long_host + path + "/", 301)
    dedup.check_page(long_host + "b/", stdlib_page("fractions").encode())
    assert dedup.check_url(long_host + "b").duplicate_of == long_host + "b/"
    assert dedup.redirected("http://[::1/x", "http://a.test/x", 301) is None
    assert dedup.check_url("http://[::1/y").action == "keep"


def test_a_slashless_directory_dropped_for_its_index_file_goes_with_it(dedup, stdlib_page):
    """Its directory's URL is dropped before its fetch (here a URL rule's alias of the held
    ``index.html``; a mirror's directory whose counterpart is held alike): the slashless URL is
    dropped for the same page."""
    for number, name in enumerate(("csv", "json", "heapq")):
        body = stdlib_page(name).encode()
        dedup.check_page(f"{BARE}d{number}/index.html", body)
        dedup.check_page(f"{BARE}d{number}/", body)
    for name in ("a", "b", "c"):
        dedup.redirected(f"{BARE}{name}", f"{BARE}{name}/", 301)
    dedup.check_page(BARE + "docs/index.html", stdlib_page("fractions").encode())
    dropped = dedup.check_url(BARE + "docs")
    assert (dropped.action, dropped.duplicate_of) == ("drop", BARE + "docs/index.html")
    assert dropped.evidence["redirect_rule"] == "a.test redirect slash"
    assert dropped.evidence["url_rule"] == ["a.test index index.html"]


def test_no_redirect_rule_is_learnt_or_applied_without_the_url_rules(tmp_path):
    off = Config().with_overrides({"url_rules.enabled": False})
    with DedupFilter.open(tmp_path / "index", off) as dedup:
        assert _moved(dedup, ["a.html", "b.html", "c.html"]) == [None, None, None]
    with DedupFilter.open(tmp_path / "index") as dedup:
        assert dedup.check_url(WWW + "d.html").action == "keep"  # nothing was learnt
        assert _moved(dedup, ["e.html", "f.html", "g.html"])[-1] == "www.a.test redirect move"
    with DedupFilter.open(tmp_path / "index", off) as dedup:
        assert dedup.check_url(WWW + "h.html").action == "keep"  # learnt, not applied


def test_a_host_serving_pages_under_bare_names_is_never_sent_to_their_directories(
    dedup, stdlib_page
):
    """A static-site host's "pretty" URLs (``intro`` for ``intro.html``) beside its directories'
    slashless URLs (301 to ``dir/``): once it served a page under such a name, a slashless URL
    there is a page's as likely as a directory's, and is asked as itself (before, each of its
    pages was asked as ``intro/`` first, a 404, then as itself: two requests a page). Its
    directories' URLs still go with their held pages."""
    for name in ("a", "b", "c"):
        dedup.redirected(f"{BARE}{name}", f"{BARE}{name}/", 301)
    assert dedup.check_url(BARE + "guide/intro").evidence["crawl_instead"] == BARE + "guide/intro/"
    dedup.check_page(BARE + "guide/setup", stdlib_page("fractions").encode())
    asked = dedup.check_url(BARE + "guide/intro")
    assert (asked.action, asked.evidence.get("crawl_instead")) == ("keep", None)
    dedup.check_page(BARE + "docs/", stdlib_page("heapq").encode())
    assert dedup.check_url(BARE + "docs").duplicate_of == BARE + "docs/"
    dedup.check_page("http://b.test/item?id=3", stdlib_page("csv").encode())  # names no page
    dedup.check_page("http://b.test/d/x.html", stdlib_page("json").encode())
    for name in ("a", "b", "c"):
        dedup.redirected(f"http://b.test/{name}", f"http://b.test/{name}/", 301)
    assert (
        dedup.check_url("http://b.test/intro").evidence["crawl_instead"] == "http://b.test/intro/"
    )
