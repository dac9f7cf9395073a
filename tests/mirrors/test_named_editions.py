"""Editions of a manual named in their URLs (languages, releases, platforms) are never paired:
most pages of one edition are the other's, and a rule between them would prune the edition's own
pages (a translated page, a release's notes, a platform's boot page) with the copies. The names
each kind reads are tested beside it (``test_languages``, ``test_releases``, ``test_platforms``)."""

from __future__ import annotations

import pytest

from dedup_filter.index.lmdb_index import SAMPLE_KEY_VARIABLE

from .conftest import (
    ENGLISH,
    GERMAN,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    assert_editions_kept_apart,
    breadth_first,
    copy_tree,
    docs_tree,
    two_editions,
    two_tree_orders,
)

# kind -> the manual, its edition, the option that keeps them apart
EDITIONS = {
    "language": (ENGLISH, GERMAN, "language_editions_apart"),
    "release": (ORIGIN + "docs/13/", ORIGIN + "docs/14/", "release_editions_apart"),
    "platform": (
        ORIGIN + "releases/bookworm/amd64/",
        ORIGIN + "releases/bookworm/arm64/",
        "platform_editions_apart",
    ),
}


@pytest.mark.parametrize("kind", ["release", "platform"])  # languages: ``test_languages``
@pytest.mark.parametrize("order", ["manual_first", "edition_first", "interleaved"])
def test_two_editions_keep_the_editions_own_pages(
    open_filter, corpus, modules, stdlib_page, kind, order
):
    base, edition_base, _ = EDITIONS[kind]
    pages, own = two_editions(corpus, modules, stdlib_page, base, edition_base)
    urls = two_tree_orders(pages, {"manual": base, "edition": edition_base})[order]
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    reason = assert_editions_kept_apart(dedup, crawl, own, base, edition_base)
    assert reason == f"{kind}_editions"


@pytest.mark.parametrize("kind", sorted(EDITIONS))
@pytest.mark.parametrize(("sample_key", "paired"), [("2", True), ("0", False)])
def test_without_the_names_sampling_alone_decides(
    open_filter, corpus, modules, stdlib_page, kind, sample_key, paired, monkeypatch
):
    """What the names prevent: 3 of 26 pages differ. Under a key whose samples miss them,
    sampling alone confirms the pair and the rule prunes what it never fetched, the edition's
    own pages among them in this order; under one that draws one, that page of other text
    rejects the pair."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, sample_key)
    base, edition_base, option = EDITIONS[kind]
    pages, own = two_editions(corpus, modules, stdlib_page, base, edition_base)
    dedup = open_filter(**{option: False})
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, base) + breadth_first(pages, edition_base)
    )
    rules = [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()]
    assert rules == ([(edition_base, base)] if paired else [])
    assert any(url not in crawl.fetched for url in own) is paired
    if not paired:
        candidates = dedup.mirror_candidates()
        assert any("other_text" in candidate["samples"].values() for candidate in candidates)


@pytest.mark.parametrize(
    ("base", "edition_base", "copy_base"),
    [
        # ``/latest/`` pairs with no numbered release, but a copy filed without one mirrors it
        (ORIGIN + "docs/latest/", ORIGIN + "docs/13/", MIRROR + "pub/docs/"),
        # a copy filed under ``/pub/linux/`` names a platform of another kind
        (ORIGIN + "releases/bookworm/amd64/", None, MIRROR + "pub/linux/install/"),
    ],
)
def test_a_copy_filed_under_no_edition_of_the_kind_is_still_a_mirror(
    open_filter, corpus, modules, base, edition_base, copy_base
):
    manual = docs_tree(corpus, base, modules[:24], "Manual")
    edition = copy_tree(manual, base, edition_base) if edition_base else {}
    copy = copy_tree(manual, base, copy_base)
    pages = manual | edition | copy
    dedup = open_filter()
    urls = breadth_first(pages, base) + breadth_first(edition, edition_base or base)
    OnlineCrawl(dedup, pages).visit(urls + breadth_first(copy, MIRROR))
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(copy_base, base)]


def test_a_copy_of_an_edition_met_after_its_look_alike_pairs_with_that_edition(
    open_filter, corpus, modules, stdlib_page
):
    """An edition's index page that resembles another edition's (met first) is held as its
    own, so the index page of a copy of it met later is matched with it, not with the edition
    it resembles, and its pair opened at once (the platforms web: a mirror's amd64 guide paired
    with i386 alone, rejected, and fetched whole, in one order of each of three runs)."""
    base, edition_base, _ = EDITIONS["platform"]
    pages, _ = two_editions(corpus, modules, stdlib_page, base, edition_base)
    pages[edition_base] = pages[edition_base].replace(
        b"</body>", b"<p>This edition is for 64-bit ARM machines.</p></body>"
    )
    copy_base = MIRROR + "doc/install-guide/amd64/"
    manual = {url: body for url, body in pages.items() if url.startswith(base)}
    pages |= copy_tree(manual, base, copy_base)
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(
        [edition_base, base, *breadth_first(pages, copy_base), *breadth_first(pages, base)]
    )
    assert crawl.decisions[base].evidence["mirror"]["rejected_for"] == "platform_editions"
    copied = crawl.decisions[copy_base]
    assert copied.duplicate_of == base
    assert copied.evidence["mirror"]["origin"] == base
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(copy_base, base)]
