"""A page's links for URL-mode sampling, read from the parse that tokenizes it, and those of a
duplicate that its twin does not name."""

from __future__ import annotations

from dedup_filter import Config
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.text import MAX_ANCHORS, Anchors, html_anchors, html_tokens
from dedup_filter.mirrors.links import MAX_LINKS, links_beyond_twin, page_links, resolve_links

PAGE = "http://docs.origin.test/lib/index.html"
LINKS_PAGE = """<html><head><base href="/other/"></head><body><p>Guide to <b>the</b> modules</p>
<a href="csv.html">csv</a> <a href=" ../JSON.html#top ">json</a> <a href="csv.html">again</a>
<a href="mailto:me@origin.test">mail</a> <a href="javascript:void(0)">js</a>
<map><area href="http://Img.Origin.test:80/map.html"></map>
<noscript><a href="/plain/">plain version</a></noscript><a name="no-href">anchor</a>
</body></html>"""


def test_asking_for_anchors_changes_no_token(corpus):
    for html in corpus.values():
        tokens, truncated, _ = html_tokens(html, PAGE, anchors=True)
        assert (tokens, truncated) == html_tokens(html, PAGE)


def test_anchors_are_read_before_invisible_elements_are_stripped():
    _, _, anchors = html_tokens(LINKS_PAGE, PAGE, anchors=True)
    assert anchors == html_anchors(LINKS_PAGE)
    assert anchors.base == "/other/"
    assert anchors.hrefs == (
        "csv.html",
        " ../JSON.html#top ",
        "csv.html",
        "mailto:me@origin.test",
        "javascript:void(0)",
        "http://Img.Origin.test:80/map.html",
        "/plain/",
    )


def test_links_resolve_against_the_base_normalised_once_each_in_document_order():
    assert page_links(PAGE, LINKS_PAGE.encode(), None, "cp1252") == [
        "http://docs.origin.test/other/csv.html",
        "http://docs.origin.test/JSON.html",
        "http://img.origin.test/map.html",
        "http://docs.origin.test/plain/",
    ]


def test_a_hostile_page_gives_at_most_max_links():
    hrefs = tuple(f"p{number}.html" for number in range(MAX_LINKS + 50))
    links = resolve_links(PAGE, Anchors(None, hrefs))
    assert len(links) == MAX_LINKS
    assert links[-1] == f"http://docs.origin.test/lib/p{MAX_LINKS - 1}.html"


def test_a_hostile_page_keeps_at_most_max_anchors_and_still_its_base():
    html = "".join(f"<a href=p{number}.html>{number}</a>" for number in range(MAX_ANCHORS + 50))
    anchors = html_anchors(html + "<base href=/other/>")
    assert len(anchors.hrefs) == MAX_ANCHORS >= 8 * MAX_LINKS
    assert anchors.hrefs[-1] == f"p{MAX_ANCHORS - 1}.html"
    assert anchors.base == "/other/"


def test_the_fingerprint_read_with_anchors_is_the_fingerprint(corpus):
    fingerprinter = Fingerprinter(Config.default())
    body = corpus["csv"].encode()
    fingerprint, anchors = fingerprinter.fingerprint_with_anchors(PAGE, body)
    assert fingerprint == fingerprinter.fingerprint(PAGE, body)
    assert len(anchors.hrefs) > 10
    assert fingerprinter.fingerprint_with_anchors(PAGE, b"\x00\x01binary")[1].hrefs == ()


def test_a_duplicate_beside_its_twin_links_nothing_its_twin_does_not():
    links = ["http://one.test/a/b/x.html", "http://one.test/", "http://two.test/y.html"]
    assert links_beyond_twin("http://one.test/a/b/p.html", "http://one.test/a/b/q", links) == []


def test_a_duplicate_beside_a_twin_of_another_name_links_its_own_variants_only():
    links = [
        "http://one.test/a/p.html?lang=fr",
        "http://one.test/a/p.fr.html",
        "http://one.test/a/p-2.html",
        "http://one.test/a/p.html",  # itself
        "http://one.test/a/pa.html",  # another document whose name begins alike
        "http://one.test/a/q.html?lang=fr",  # the twin's own variant: the twin links it too
        "http://one.test/a/p/sub.html",  # below: not beside
        "http://two.test/a/p.html?lang=fr",
    ]
    assert (
        links_beyond_twin("http://one.test/a/p.html", "http://one.test/a/q.html", links)
        == (links[:3])
    )
    # the same document under another URL (a query, the directory's own URL) links the same
    assert (
        links_beyond_twin("http://one.test/a/p.html?s=1", "http://one.test/a/p.html", links) == []
    )
    assert links_beyond_twin("http://one.test/a/", "http://one.test/a/index.html", links) == []


def test_a_duplicate_elsewhere_links_what_its_relative_references_name_on_its_own_host():
    links = [
        "http://copy.test/docs/b.html",  # "b.html": the twin's names origin.test/manual/b.html
        "http://copy.test/docs/sub/?page=2",
        "http://copy.test/other/",  # "../other/": another page than the twin's
        "http://origin.test/manual/b.html",  # absolute, as the twin's own link is
        "https://copy.test/docs/b.html",  # another scheme: absolute too
        "http://[::1/broken.html",  # no URL: left out, no error
    ]
    beyond = links_beyond_twin(
        "http://copy.test/docs/a.html", "http://origin.test/manual/a.html", links
    )
    assert beyond == links[:3]


def test_a_duplicate_on_another_origin_links_beyond_its_twin_each_link_of_its_own_origin():
    links = [
        "http://copy.test/",
        "http://copy.test///copy.test/docs/a.html",  # "//copy.test/...": a host, another path
        "http://copy.test/docs/a.html",
        "https://copy.test/docs/a.html",
        "http://copy.test:8080/docs/",
        "http://origin.test/docs/a.html",
    ]
    page = "http://copy.test/docs/p.html"
    assert links_beyond_twin(page, "http://origin.test/docs/p.html", links) == links[:3]
    assert links_beyond_twin("https://copy.test/docs/p.html", page, links) == [links[3]]


def test_a_link_both_reach_by_the_same_reference_is_not_beyond_the_twin():
    """On one host, at equal depths, ``../../top.html`` names one page from either directory."""
    links = ["http://one.test/top.html", "http://one.test/a/b/x.html", "http://one.test/a/"]
    beyond = links_beyond_twin("http://one.test/a/b/p.html", "http://one.test/c/d/p.html", links)
    assert beyond == links[1:]
