"""Two unrelated manuals side by side in an archive share file names (GNU manuals' ``Copying.html``
or ``Concept-Index.html``). Where the pages first sampled are the shared ones, the pair is
confirmed, and a code check then tells the two apart. They are not editions of one guide: no
page of either is dropped for the other's page at its name."""

from __future__ import annotations

import pytest

from dedup_filter.index.lmdb_index import SAMPLE_KEY_VARIABLE

from .conftest import OnlineCrawl, breadth_first, interleave, table_of_contents
from .test_detection import leaves_in_sample_order
from .test_editions import commands, with_code

FLEX = "http://archive.docs.test/archive/flex/"
MPFR = "http://archive.docs.test/archive/mpfr/"
NAMES = [
    f"{name}.html"
    for name in (
        "Introduction",
        "Overview",
        "Copying",
        "Reporting-Bugs",
        "Concept-Index",
        "Installation",
        "Options",
        "Examples",
        "Limitations",
        "Performance",
        "Compatibility",
        "Contributors",
    )
]
SHARED_TEXTS = ("statistics", "fractions", "getopt", "gettext")
OWN_TEXTS = {
    FLEX: ("textwrap", "sched", "bisect", "calendar", "colorsys", "csv", "difflib", "fnmatch"),
    MPFR: ("glob", "heapq", "json", "keyword", "shlex", "string", "base64", "quopri"),
}
MANAGERS = {FLEX: "dpkg", MPFR: "rpm"}
CODED = (5, 8)  # positions in sample order, past the first samples


def manuals(stdlib_page) -> dict[str, bytes]:
    """Both manuals: their index pages list the same names; the first four names in sample order
    (the public hash's, sample key 0) hold the same pages, the others each manual's own text,
    two of them with each manual's own code."""
    pages = {
        base: table_of_contents("Manual", [(name, name) for name in NAMES]) for base in OWN_TEXTS
    }
    order = leaves_in_sample_order({FLEX + name: b"" for name in NAMES}, FLEX)
    shared, own = order[: len(SHARED_TEXTS)], order[len(SHARED_TEXTS) :]
    for base, texts in OWN_TEXTS.items():
        for name, text in (*zip(shared, SHARED_TEXTS, strict=True), *zip(own, texts, strict=True)):
            pages[base + name] = stdlib_page(text).encode()
        for position in CODED:
            name = order[position]
            pages[base + name] = with_code(pages[base + name], commands(name, MANAGERS[base]))
    return pages


@pytest.mark.parametrize("order", ["flex_first", "mpfr_first", "interleaved"])
def test_unrelated_manuals_told_apart_by_their_code_keep_every_page(
    open_filter, stdlib_page, order, monkeypatch
):
    """In turns, the pair is confirmed on the shared pages and revoked when a coded page comes;
    one after the other, the samples drawn from the pages the first crawled tell them apart."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "0")
    pages = manuals(stdlib_page)
    flex, mpfr = breadth_first(pages, FLEX), breadth_first(pages, MPFR)
    urls = {
        "flex_first": flex + mpfr,
        "mpfr_first": mpfr + flex,
        "interleaved": interleave(flex, mpfr),
    }[order]
    crawl = OnlineCrawl(open_filter(), pages).visit(urls)
    served = {crawl.pages[url] for url in crawl.fetched}
    assert [url for url, body in pages.items() if body not in served] == []
    assert crawl.dedup.mirror_rules() == []
    revoked = [
        url for url, decision in crawl.decisions.items() if "mirrors_revoked" in decision.evidence
    ]
    assert bool(revoked) == (order == "interleaved")
