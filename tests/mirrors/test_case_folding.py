"""A mirror on a server that folds case (a Windows or macOS file system) serves one file under two
names that differ only in case (GDK's ``const.KEY_A.html`` and ``const.KEY_a.html``): held
first, it never stands for the other file of the origin's pair."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from dedup_filter.index.lmdb_index import SAMPLE_KEY_VARIABLE

from .conftest import OnlineCrawl, breadth_first, copy_tree, table_of_contents

ORIGIN = "http://docs.origin.test/gdk/"
FOLDING = "http://gtk.winhost.test/gdk/"
KEY_TEXTS = ("statistics", "fractions", "getopt", "gettext", "textwrap", "sched")
KEYS = [f"const.KEY_{letter}.html" for name in "ABC" for letter in (name, name.lower())]


def origin_with_key_pairs(
    corpus, modules, stdlib_page, listed: Sequence[str] = KEYS
) -> dict[str, bytes]:
    """A reference whose ``keys/`` holds three pairs of files named apart only by case, its
    index page listing those ``listed``."""
    pages = {
        ORIGIN: table_of_contents(
            "GDK reference", [(f"{name}.html", name) for name in modules] + [("keys/", "keys.html")]
        )
    }
    pages |= {f"{ORIGIN}{name}.html": corpus[name].encode() for name in modules}
    pages[f"{ORIGIN}keys/"] = table_of_contents("GDK key names", [(key, key) for key in listed])
    texts = zip(KEYS, KEY_TEXTS, strict=True)
    pages |= {f"{ORIGIN}keys/{key}": stdlib_page(text).encode() for key, text in texts}
    return pages


def folded(pages: dict[str, bytes]) -> dict[str, bytes]:
    """``pages`` copied in name order onto a file system that folds case: the file copied last
    is served under every spelling of its name."""
    last = {url.lower(): body for url, body in sorted(pages.items())}
    return {url: last[url.lower()] for url in pages}


def lost_text(crawl: OnlineCrawl, tree: dict[str, bytes]) -> list[str]:
    served = {crawl.pages[url] for url in crawl.fetched if url in crawl.pages}
    return [url for url, body in tree.items() if body not in served]


def crawled(open_filter, corpus, modules, stdlib_page, order, audit_first, listed=KEYS):
    dedup = open_filter(audit_first=audit_first)
    origin = origin_with_key_pairs(corpus, modules, stdlib_page, listed)
    mirror = folded(copy_tree(origin, ORIGIN, FOLDING))
    return OnlineCrawl(dedup, origin | mirror).visit(order(origin, mirror)), origin


def folding_side_whole_first(origin, mirror):
    return [*breadth_first(mirror, FOLDING), *breadth_first(origin, ORIGIN)]


def second_spellings_last(origin, mirror):
    """The folding side's lower-case names come after the origin's: its pages at those names
    were dropped, or waited, before the fold was seen."""
    folding = breadth_first(mirror, FOLDING)
    later = [url for url in folding if lower_key(url)]
    first = [url for url in folding if url not in later]
    return [*first, *breadth_first(origin, ORIGIN), *later]


@pytest.mark.parametrize("audit_first", [0, 32])
@pytest.mark.parametrize("order", [folding_side_whole_first, second_spellings_last])
def test_a_folding_mirror_held_first_never_stands_for_the_other_file_of_a_pair(
    open_filter, corpus, modules, stdlib_page, order, audit_first
):
    """Audits off or on: the fold, not an audit's draw, keeps the origin's pair."""
    crawl, origin = crawled(open_filter, corpus, modules, stdlib_page, order, audit_first)
    assert lost_text(crawl, origin) == []
    assert f"{ORIGIN}csv.html" in crawl.pruned  # the rule still prunes what is one file a name
    keys = [url for url in origin if "/keys/const." in url]
    assert set(keys) <= set(crawl.fetched)  # kept, or fetched back once the fold was seen
    if order is folding_side_whole_first:
        assert not set(keys) & set(crawl.pruned)


def test_a_pair_rejected_for_a_name_its_side_folds_is_sampled_again(
    open_filter, corpus, modules, stdlib_page, monkeypatch
):
    """Under this key the pair's first samples are the folding side's upper-case names, whose
    pages are their lower-case twins' files: unlike the origin's, the pair is rejected. Once
    the fold is seen those samples tell nothing, and the pair is sampled again."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "26")
    upper = [key for key in KEYS if not lower_key(key)]  # no index page lists the twins
    crawl, origin = crawled(
        open_filter, corpus, modules, stdlib_page, second_spellings_last, 0, upper
    )
    assert lost_text(crawl, origin) == []
    assert [rule["pruned"] for rule in crawl.dedup.mirror_rules()] == [["mirror"]]


def second_spellings_never_fetched(origin, mirror):
    """The folding side's lower-case names are never fetched (its host's URL ``case`` rule drops
    them as aliases of the upper-case ones): no fold is ever seen."""
    folding = [url for url in breadth_first(mirror, FOLDING) if not lower_key(url)]
    return [*folding, *breadth_first(origin, ORIGIN)]


def lower_key(url: str) -> bool:
    return "KEY_" in url and url.rpartition("_")[2][0].islower()


def test_a_name_an_index_page_lists_beside_its_case_twin_waits_for_two_files(
    open_filter, corpus, modules, stdlib_page
):
    """The origin's listing names ``const.KEY_A.html`` and ``const.KEY_a.html``: neither is
    dropped for a page of the other side that has not shown them two files."""
    crawl, origin = crawled(
        open_filter, corpus, modules, stdlib_page, second_spellings_never_fetched, 0
    )
    assert lost_text(crawl, origin) == []
    assert [rule["pruned"] for rule in crawl.dedup.mirror_rules()] == [["mirror"]]
    assert f"{ORIGIN}csv.html" in crawl.pruned
    keys = [url for url in origin if "/keys/const." in url]
    assert set(keys) <= set(crawl.fetched)


def test_an_audit_takes_no_file_of_a_listed_case_twin_for_other_text(
    open_filter, corpus, modules, stdlib_page, monkeypatch
):
    """Under this key every sample of the pair matched, and every page is audited: the
    folding side's page at a name listed beside its case twin may be the twin's file, and
    revoked nothing (it did: 45 fetches, against 32 with the rule standing)."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "20")
    crawl, origin = crawled(
        open_filter, corpus, modules, stdlib_page, second_spellings_never_fetched, 1
    )
    assert lost_text(crawl, origin) == []
    assert [(rule["samples"], rule["matches"]) for rule in crawl.dedup.mirror_rules()] == [(3, 3)]


def test_a_sample_at_a_name_listed_beside_its_case_twin_is_not_compared(
    open_filter, corpus, modules, stdlib_page, monkeypatch
):
    """The same key, the twins listed, the fold never seen: the samples drawn at the folding
    side's upper-case names are missing, not mismatches, and the pair is confirmed."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "26")
    crawl, origin = crawled(
        open_filter, corpus, modules, stdlib_page, second_spellings_never_fetched, 0
    )
    assert lost_text(crawl, origin) == []
    assert [rule["pruned"] for rule in crawl.dedup.mirror_rules()] == [["mirror"]]
