"""``layout`` rules: one manual's translations served by two hosts, a language's directory on
one (``/manual/fr/mod/p1.html``) and the language after the file's name on the other
(``/manual/mod/p1.html.fr``). Exact copies met across them teach the layout, and a URL is then
dropped only where its URL on the other host is held."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.urlrules.induction import explain
from dedup_filter.urlrules.layouts import Layout
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import ANY, LAYOUT, RuleKey, inverse, rewrite
from tests.mirrors.conftest import (
    TRANSLATED_MODULES,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    docs_tree,
    interleave,
)

from .conftest import HOST, Site

DIRECTORIES = "http://deb.b.test"
# a manual, its English copy on another host, and its translations laid out by language
MANUAL, COPY, LAID_OUT = (
    "http://www.origin.test/manual/",
    "http://mirror.copy.test/manual/",
    f"{DIRECTORIES}/manual/",
)
# the rule of the host of language directories, whose pages are met as the other host's copies
VICTIMS = (
    "deb.b.test layout http://deb.b.test/manual/{lang}/{path}"
    ">http://docs.a.test/manual/{path}.{lang}"
)
RULE = (
    "docs.a.test layout http://docs.a.test/manual/{path}.{lang}"
    ">http://deb.b.test/manual/{lang}/{path}"
)


def _directories(site: Site, language: str, page: int, body: int) -> str:
    url = f"{DIRECTORIES}/manual/{language}/mod/p{page}.html"
    return site.dedup.check_page(url, site.bodies[body]).reason


def _suffixed(site: Site, language: str, page: int, body: int) -> str:
    return site.fetch(f"/manual/mod/p{page}.html.{language}", body).reason


def _learnt(site: Site) -> None:
    """The other host's French pages 0-5 held; this host's pages 0-2 met as their copies."""
    for page in range(6):
        assert _directories(site, "fr", page, page) == "unique"
    for page in range(3):
        assert _suffixed(site, "fr", page, page) == "exact_duplicate"
    assert site.rule(RULE)["state"] == "confirmed"


def test_translations_copied_across_two_layouts_drop_only_where_the_other_host_holds_them(site):
    _learnt(site)
    dropped = site.check("/manual/mod/p4.html.fr")
    assert (dropped.reason, dropped.duplicate_of) == (
        "duplicate_url",
        f"{DIRECTORIES}/manual/fr/mod/p4.html",
    )
    assert dropped.evidence["url_rule"] == [RULE]
    assert site.check("/manual/mod/p9.html.fr").action == "keep"  # the other host lacks it
    assert site.check("/manual/mod/p4.html.ja").action == "keep"  # not held there either
    assert site.check("/manual/mod/p4.html").action == "keep"  # no language: no layout
    other = site.dedup.check_url(f"{DIRECTORIES}/manual/fr/mod/p9.html")
    assert other.action == "keep"  # the rule belongs to the copying host


@pytest.mark.parametrize("where", ["this host", "the other host"])
def test_a_page_of_other_content_under_the_layout_on_either_host_kills_the_rule(site, where):
    _learnt(site)
    if where == "this host":
        assert _suffixed(site, "fr", 4, 10) == "unique"
    else:  # this host's page held first, the other host's met with other content
        assert _suffixed(site, "fr", 7, 11) == "unique"
        assert _directories(site, "fr", 7, 12) == "unique"
    assert site.rule(RULE)["state"] == "dead"
    assert site.check("/manual/mod/p5.html.fr").action == "keep"


def _copied_both_ways(site: Site, lead: int) -> None:
    """The host of language directories holds ``lead`` pages, the other host serves the first
    three as its copies, then three more before it, which it then serves as their copies: each
    host's layout rule is confirmed."""
    for page in range(lead):
        assert _directories(site, "fr", page, page) == "unique"
    for page in range(3):
        assert _suffixed(site, "fr", page, page) == "exact_duplicate"
    for page in range(lead, lead + 3):
        assert _suffixed(site, "fr", page, page) == "unique"
    for page in range(lead, lead + 3):
        assert _directories(site, "fr", page, page) == "exact_duplicate"
    assert site.rule(VICTIMS)["state"] == site.rule(RULE)["state"] == "confirmed"


def test_a_host_crawled_first_is_never_pruned_for_a_copier_met_after_it(site):
    """A copier that moves the language, met after its victim held nine pages, serves copies of
    the victim's later pages before the victim does: they teach the victim's host the layout
    too, but the victim, crawled first, loses no URL to it (the copier's page there may hold
    other content), as a mirror rule's victim would not."""
    _copied_both_ways(site, 9)
    assert _suffixed(site, "fr", 15, 15) == "unique"  # the copier's own text
    victim = site.dedup.check_url(f"{DIRECTORIES}/manual/fr/mod/p15.html")
    assert victim.action == "keep"
    assert site.check("/manual/mod/p14.html.fr").action == "keep"  # nothing held for it
    assert site.check("/manual/mod/p10.html.fr").action == "keep"  # held itself


def test_a_lead_of_a_few_pages_is_no_crawl_first(site):
    """Two hosts met a few pages apart (a crawl fetches several at once) were crawled side by
    side: each host's rule drops its URLs where the other holds their pages."""
    _copied_both_ways(site, 3)
    assert _suffixed(site, "fr", 8, 8) == "unique"
    dropped = site.dedup.check_url(f"{DIRECTORIES}/manual/fr/mod/p8.html")
    assert (dropped.reason, dropped.duplicate_of) == (
        "duplicate_url",
        f"{HOST}/manual/mod/p8.html.fr",
    )
    assert dropped.evidence["url_rule"] == [VICTIMS]


def test_near_copies_teach_no_layout(site):
    """A translation with a line more on one host is a near copy: an edition of it, maybe."""
    for page in range(4):
        assert _directories(site, "fr", page, page) == "unique"
        assert site.fetch(f"/manual/mod/p{page}.html.fr", page, "Bienvenue").dropped
    assert site.rule(RULE) is None


def test_layouts_can_be_turned_off(tmp_path, config: Config, corpus):
    off = replace(config, url_rules=replace(config.url_rules, language_layouts=False))
    with DedupFilter.open(tmp_path / "index", off) as dedup:
        site = Site(dedup, [html.encode() for html in corpus.values()])
        for page in range(4):
            assert _directories(site, "fr", page, page) == "unique"
            assert _suffixed(site, "fr", page, page) == "exact_duplicate"
        assert site.rule(RULE) is None
        assert site.check("/manual/mod/p5.html.fr").action == "keep"


@pytest.mark.parametrize(
    ("dropped", "held", "name"),
    [
        (
            "http://a.test/manual/fr/x.html",
            "http://b.test/fr/manual/x.html",
            "http://a.test/manual/{lang}/{path}>http://b.test/{lang}/manual/{path}",
        ),
        (
            "http://a.test/doc/pt-br/mod/x.html",
            "http://b.test/mod/x.html.pt-br",
            "http://a.test/doc/{lang}/{path}>http://b.test/{path}.{lang}",
        ),
    ],
)
def test_a_language_moved_between_two_hosts_is_a_layout(dropped, held, name):
    explanation = explain(dropped, held, ())
    assert explanation.key.label == f"{UrlParts.parse(dropped).authority} layout {name}"
    layout = Layout.parse(name)
    assert layout.moved(UrlParts.parse(dropped)).url() == held
    assert layout.moved_back(UrlParts.parse(held)).url() == dropped


@pytest.mark.parametrize(
    ("dropped", "held"),
    [
        ("http://a.test/manual/fr/x.html", "http://b.test/docs/fr/x.html"),  # a mirror's pair
        ("http://a.test/manual/fr/x.html", "http://b.test/manual/x.html.de"),  # two languages
        ("http://a.test/manual/fr/x.html", "http://b.test/manual/y.html.fr"),  # two pages
        ("http://a.test/manual/x.html.fr", "http://b.test/docs/x.html.fr"),  # nothing moved
        ("http://a.test/manual/fr/", "http://b.test/manual/index.html.fr"),  # a directory
        ("http://a.test/manual/fr/x.html?s=1", "http://b.test/manual/x.html.fr"),
        (f"{HOST}/manual/fr/x.html", f"{HOST}/manual/x.html.fr"),  # one host
        ("http://a.test/{path}/fr/x.html", "http://b.test/{path}/x.html.fr"),  # no name
    ],
)
def test_pairs_no_layout_explains(dropped, held):
    explanation = explain(dropped, held, ())
    assert explanation is None or explanation.key.kind != LAYOUT


@pytest.mark.parametrize(
    "name",
    [
        "",
        "http://a.test/{lang}/{path}",  # one side
        "http://a.test/{lang}/{path}>b.test/{path}.{lang}",  # no origin
        "http://a.test/{lang}/{lang}/{path}>http://b.test/{path}.{lang}",
        "http://a.test/x{lang}/{path}>http://b.test/{path}.{lang}",
        "http://a.test/{lang}/{path}>http://b.test/{path}.{lang}.{lang}",
    ],
)
def test_a_name_that_gives_no_layout_moves_nothing(name):
    """A rule record whose name no template reads (hand-edited, or from another version) is
    never a rewrite: it moves no URL either way."""
    assert Layout.parse(name) is None
    key = RuleKey("a.test", LAYOUT, name)
    parts = UrlParts.parse("http://a.test/fr/x.html")
    assert rewrite(key, parts) is None
    assert inverse(key, UrlParts.parse("http://b.test/x.html.fr"), ANY) is None


def _french(corpus: dict[str, str], stdlib_page, count: int) -> list[tuple[str, bytes]]:
    """The manual's first ``count`` page names, each with its French text (another module's
    page, which no page of the manual holds)."""
    modules = (*TRANSLATED_MODULES, "ipaddress", "secrets")[:count]
    texts = [stdlib_page(module).encode() for module in modules]
    return list(zip(sorted(corpus)[:count], texts, strict=True))


def _mirrored(crawl: OnlineCrawl, english: dict[str, bytes]) -> None:
    """Crawl the English manual and its copy side by side: a mirror rule prunes the copy."""
    copied = copy_tree(english, MANUAL, COPY)
    crawl.pages |= copied
    crawl.visit(interleave(breadth_first(english, MANUAL), breadth_first(copied, COPY)))
    rules = {(rule["mirror"], rule["origin"]) for rule in crawl.dedup.mirror_rules()}
    assert rules == {(COPY, MANUAL)}


def test_a_copys_url_waiting_for_a_translation_another_host_holds_is_dropped_for_it(
    site, corpus, stdlib_page
):
    """An English-only copy of a manual links the manual's translations under its own name,
    and under the mirror rule each such URL waits for the manual's translation (asking it as a
    probe). Where the manual's host has learnt that a third host holds its translations laid
    out otherwise, the URL is dropped for the third host's page: nothing is fetched for it."""
    english = docs_tree(corpus, MANUAL, sorted(corpus), "Manual")
    french = _french(corpus, stdlib_page, 4)
    suffixed = {f"{MANUAL}{name}.html.fr": text for name, text in french}
    laid_out = {f"{LAID_OUT}fr/{name}.html": text for name, text in french}
    crawl = OnlineCrawl(site.dedup, english | suffixed | laid_out)
    crawl.visit(laid_out)
    _mirrored(crawl, english)
    crawl.visit(list(suffixed)[:3])  # the manual's host learns the layout
    waiting = f"{COPY}{french[3][0]}.html.fr"
    crawl.visit([waiting])
    assert crawl.pruned[waiting].duplicate_of == f"{LAID_OUT}fr/{french[3][0]}.html"
    assert f"{MANUAL}{french[3][0]}.html.fr" not in crawl.fetched


_GERMAN_WORDS = [" ".join(f"wort{number}x{other}" for other in range(40)) for number in range(12)]


def test_a_copys_url_whose_counterpart_probes_found_nothing_is_dropped_for_its_alias(site, corpus):
    """A copy that links translations its origin lacks has its probes there answered 404, so
    its other URLs are fetched unasked; but one whose counterpart the origin's host names as an
    alias of a held page (``x.html.en`` of ``x.html``, a suffix rule) is that page's copy."""
    names = sorted(corpus)
    english = docs_tree(corpus, MANUAL, names, "Manual")
    crawl = OnlineCrawl(site.dedup, english)
    _mirrored(crawl, english)
    suffixed = {f"{MANUAL}{name}.html.en": english[f"{MANUAL}{name}.html"] for name in names[:3]}
    crawl.pages |= suffixed
    crawl.visit(suffixed)  # the origin's host learns its suffix rule
    german = {
        f"{COPY}{name}.html.de": f"<html><body><p>Deutsch: {name} {text}</p></body></html>".encode()
        for name, text in zip(names[4:16], _GERMAN_WORDS, strict=True)
    }
    crawl.pages |= german
    crawl.visit(german)  # the origin lacks them all
    url = f"{COPY}{names[3]}.html.en"
    crawl.pages[url] = english[f"{MANUAL}{names[3]}.html"]
    crawl.visit([url])
    assert crawl.pruned[url].duplicate_of == f"{MANUAL}{names[3]}.html"
    assert url not in crawl.fetched


def test_a_path_nested_past_the_levels_read_names_no_layout():
    """A hostile pair whose paths name a language in every one of a thousand segments: no
    layout is tried (the product of their readings would be a million templates)."""
    deep = "fr/" * 1000
    dropped = UrlParts.parse(f"http://a.test/{deep}x.html")
    assert explain(dropped.url(), f"http://b.test/{deep}x.html.fr", ()) is None


def test_a_counterpart_held_only_through_a_mirror_rule_drops_nothing(site, corpus, stdlib_page):
    """The other host's URL lies under a mirror rule, unfetched, its directory held by the
    rule's origin: that is the directory's verdict, not this page's (with language editions
    paired, ``mirror.language_editions_apart`` off, a rule holds a translation by its source's
    page), so the URL is fetched."""
    english = docs_tree(corpus, MANUAL, sorted(corpus), "Manual")
    french = _french(corpus, stdlib_page, 5)
    copied = {f"{COPY}{name}.html.fr": text for name, text in french[:3]}
    origins = {f"{MANUAL}{name}.html.fr": text for name, text in french}
    laid_out = {f"{LAID_OUT}fr/{name}.html": text for name, text in french}
    crawl = OnlineCrawl(site.dedup, english | copied | origins | laid_out)
    crawl.visit(copied)
    crawl.visit(list(laid_out)[:3])  # this host learns the copy's layout
    _mirrored(crawl, english)
    crawl.visit([f"{MANUAL}{french[4][0]}.html.fr"])
    assert site.dedup.check_url(f"{LAID_OUT}fr/{french[4][0]}.html").action == "keep"
