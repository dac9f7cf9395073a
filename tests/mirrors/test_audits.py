"""Audits: a faithful rule tested again on the pages its kept side gains after it was made; a
copier faithful only where the samples could look never gets its victim's other pages pruned."""

from __future__ import annotations

import re

import pytest

from dedup_filter import Config
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.mirrors.store import MirrorStore

from .conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree, interleave
from .test_detection import leaves_in_sample_order
from .test_precedence import walking_sides

VICTIM = "http://victim.test/docs/"
COPIER = "http://copier.test/docs/"
OTHER_TEXT = ("statistics", "fractions", "getopt", "gettext")


def copier_met_first(open_filter, corpus, modules, stdlib_page, **overrides):
    """The copier's index page and the pages it lists, copied faithfully, come first; then the
    victim's index page (the pair is made, its samples drawn from those pages); then the
    copier's ``extra/``, other text under the victim's names; then the rest of the victim."""
    dedup = open_filter(**overrides)
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copier = copy_tree(victim, VICTIM, COPIER)
    others = iter(OTHER_TEXT)
    for url in sorted(copier):
        if url.startswith(COPIER + "extra/") and url.endswith(".html"):
            copier[url] = stdlib_page(next(others)).encode()
    pages = victim | copier
    copier_order = breadth_first(copier, COPIER)
    top = [url for url in copier_order if "/extra/" not in url]
    extra = [url for url in copier_order if "/extra/" in url]
    crawl = OnlineCrawl(dedup, pages).visit(
        [*top, VICTIM, *extra, *breadth_first(victim, VICTIM)[1:]]
    )
    return dedup, crawl, victim


def lost_text(crawl: OnlineCrawl, tree: dict[str, bytes]) -> list[str]:
    """Pages of ``tree`` whose bytes no fetched page (probes included) served."""
    served = {crawl.pages[url] for url in crawl.fetched if url in crawl.pages}
    return [url for url, body in tree.items() if body not in served]


@pytest.mark.parametrize("code", ["<pre>x = 1</pre>", ""])
def test_a_copier_faithful_only_where_the_samples_looked_is_revoked_by_an_audit(
    open_filter, corpus, modules, stdlib_page, code
):
    """With or without code blocks in its other text: a pair revoked by an audit is no pair of
    editions, whose pages one side's page without code blocks stands for (``EDITION_PROSE``)."""
    other = lambda name: stdlib_page(name).replace("</body>", f"{code}</body>")  # noqa: E731
    dedup, crawl, victim = copier_met_first(open_filter, corpus, modules, other, audit_first=1)
    assert lost_text(crawl, victim) == []
    assert dedup.mirror_rules() == []  # revoked, its pair kept rejected
    with dedup.index.read() as view:  # not as editions, one side's prose standing for the other's
        assert not MirrorStore(view).has_revoked()
    revoked = [d for d in crawl.decisions.values() if d.evidence.get("mirrors_revoked")]
    assert revoked
    assert revoked[0].evidence["mirrors_revoked"] == [VICTIM]


def test_without_audits_the_copier_gets_its_victims_other_pages_pruned(
    open_filter, corpus, modules, stdlib_page
):
    """What the audits are for: samples drawn when the pair was made see the faithful part."""
    dedup, crawl, victim = copier_met_first(
        open_filter, corpus, modules, stdlib_page, audit_first=0
    )
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [VICTIM]
    assert sorted(lost_text(crawl, victim)) == sorted(
        url for url in victim if "/extra/" in url and url.endswith(".html")
    )


@pytest.mark.parametrize(("audit_first", "most"), [(1, 3), (32, 1)])
def test_a_faithful_copy_passes_its_audits(open_filter, corpus, modules, audit_first, most):
    """The same order with a whole copy: the audits of the pages the copy (the kept side) gains
    after the rule find copies there, the rule stays, and they cost a probe or two."""
    dedup = open_filter(audit_first=audit_first)
    origin = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copy = copy_tree(origin, VICTIM, COPIER)
    copy_order = breadth_first(copy, COPIER)
    top = [url for url in copy_order if "/extra/" not in url]
    extra = [url for url in copy_order if "/extra/" in url]
    crawl = OnlineCrawl(dedup, origin | copy).visit(
        [*top, VICTIM, *extra, *breadth_first(origin, VICTIM)[1:]]
    )
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [VICTIM]
    assert lost_text(crawl, origin) == []
    audited = [url for url in crawl.probes if url.startswith(VICTIM + "extra/")]
    assert (audit_first == 1) <= len(audited) <= most


def _handbook_page(title: str, body: str, heading: bool) -> bytes:
    said = f"<h1>{title}</h1>" if heading else ""
    return f"<html><head><title>{title}</title></head><body>{said}{body}</body></html>".encode()


def _pydoc_body(html: str) -> str:
    return re.search(r"<body[^>]*>(.*)</body>", html, re.S).group(1)


@pytest.mark.parametrize("bears_title", [False, True], ids=["other_text", "title_borne_out"])
def test_a_copier_crawled_whole_before_its_victim_is_audited_on_its_titles(
    open_filter, corpus, modules, stdlib_page, bears_title
):
    """The copier, crawled whole before its victim is met, gains nothing after its rule, so no
    audit of what comes after tests it; its pages of other text under the titles of the
    victim's pages (both helpers' copiers) are audited as the rule is made
    (``audits.audit_held``): the rule is revoked and the victim crawled. A copier whose other
    text says the title it kept is bound by sampling alone."""
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copier = copy_tree(victim, VICTIM, COPIER)
    others = iter(OTHER_TEXT)
    for url in sorted(victim):
        if url.startswith(VICTIM + "extra/") and url.endswith(".html"):
            title = f"Handbook chapter: {url.rpartition('/')[2][:-5]}"
            victim[url] = _handbook_page(title, _pydoc_body(victim[url].decode()), True)
            other = _pydoc_body(stdlib_page(next(others)))
            copier[COPIER + url[len(VICTIM) :]] = _handbook_page(title, other, bears_title)
    fingerprinter = Fingerprinter(Config.default())
    apart = [u for u, b in copier.items() if fingerprinter.fingerprint(u, b).title_apart]
    assert len(apart) == (0 if bears_title else 4)
    assert not any(fingerprinter.fingerprint(u, b).title_apart for u, b in victim.items())
    crawl = OnlineCrawl(dedup, victim | copier).visit(
        breadth_first(copier, COPIER) + breadth_first(victim, VICTIM)
    )
    extra = sorted(url for url in victim if "/extra/" in url and url.endswith(".html"))
    if bears_title:
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [VICTIM]
        assert sorted(lost_text(crawl, victim)) == extra
        return
    assert lost_text(crawl, victim) == []
    assert dedup.mirror_rules() == []  # revoked, its pair kept rejected
    rejected = {(pair["mirror"], pair["origin"]): pair for pair in dedup.mirror_candidates()}
    assert rejected[VICTIM, COPIER]["rejected_for"] == "revoked_by_audit"
    audited = [url for url in crawl.probes if url in extra]
    assert audited


def test_a_copier_whose_other_text_is_one_filler_page_is_still_revoked(
    open_filter, corpus, modules, stdlib_page
):
    """The copier's other text is one page under every name, and it answers a page it lacks
    with an error: its filler at a name stands for another of its names, but once its answer
    is known no soft 404 explains it, and the rule is revoked; the victim loses nothing."""
    filler = stdlib_page("statistics")
    dedup, crawl, victim = copier_met_first(
        open_filter, corpus, modules, lambda name: filler, audit_first=1
    )
    assert lost_text(crawl, victim) == []
    assert dedup.mirror_rules() == []


def test_a_copier_crawled_beside_its_victim_is_audited_on_the_pages_it_held_before_its_rule(
    open_filter, origin_tree, stdlib_page
):
    """Two sides crawled in turns, meeting in the middle (each side's first documents are the
    other's last): the copier's other text under names its samples never drew, held before the
    rule, stands for the victim's pages there once both sides are pruned. Those pages are drawn
    for audits when the rule is made: their counterparts are probed, other text revokes the
    rule, and neither side's text is lost."""
    dedup = open_filter()
    pages, copy_documents, origin_documents, listings = walking_sides(origin_tree)
    half = len(copy_documents) // 2
    sampled = {ORIGIN + relative for relative in leaves_in_sample_order(origin_tree, ORIGIN)[:6]}
    others = iter((*OTHER_TEXT, "heapq", "locale", "decimal", "pprint"))
    replaced = [url for url in origin_documents[:half] if url not in sampled]
    for url in replaced:
        pages[url] = stdlib_page(next(others)).encode()
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(copy_documents[:half], origin_documents[:half])
        + listings
        + interleave(copy_documents[half:], origin_documents[half:])
    )
    assert replaced
    assert lost_text(crawl, pages) == []
