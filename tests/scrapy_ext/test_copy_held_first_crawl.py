"""A real Scrapy crawl of a partial copy met before its origin, whose names say nothing of which
is the copy: the copy held first is crawled whole and the origin's documents it holds are pruned,
so a page of the origin linked only from such a document (never from an index page) and missing
from the copy must still be fetched when the copy answers it with a 404, and one linked only from
an origin page that is dropped as a near-duplicate of the copy's must be reached through it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from testweb.site import TestWeb

from .conftest import logged_crawl

ORIGIN = "http://docs.vendor.test/"
COPY = "http://docs.partner.test/"  # no name calls either side a copy


def origin_and_partial_copy(
    corpus: dict[str, str], stdlib_page: Callable[[str], str]
) -> tuple[dict[str, bytes], dict[str, bytes], str]:
    """The origin's pages, its copy's, and the module name ``guide`` whose document alone links
    ``{guide}-details.html``, a page only the origin holds."""
    modules = sorted(corpus)
    origin = docs_tree(corpus, ORIGIN, modules, "Standard library notes")
    guide = modules[len(modules) // 2]
    origin[f"{ORIGIN}{guide}.html"] = origin[f"{ORIGIN}{guide}.html"].replace(
        b"</body>", f'<p><a href="{guide}-details.html">details</a></p></body>'.encode()
    )
    origin[f"{ORIGIN}{guide}-details.html"] = stdlib_page("fractions").encode()
    copy = copy_tree(origin, ORIGIN, COPY)
    del copy[f"{COPY}{guide}-details.html"]
    return origin, copy, guide


def test_a_page_the_copy_lacks_linked_only_from_a_pruned_document_is_fetched(
    corpus, stdlib_page, tmp_path: Path
):
    origin, copy, guide = origin_and_partial_copy(corpus, stdlib_page)
    deep = f"{ORIGIN}{guide}-details.html"
    web = TestWeb(0, "copy-first", origin | copy, {}, [COPY, ORIGIN], [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "copy-first")
    pruned = [d["url"] for d in decisions if d["reason"] == "mirrored_directory"]
    assert f"{ORIGIN}{guide}.html" in pruned  # the copy held first: the origin's document goes
    assert f"{COPY}{guide}-details.html" in fetched  # the copy lacks the page
    details = [d for d in decisions if "details" in d["url"]]
    assert deep in fetched, details
    assert deep in run.parsed, details


def test_a_page_linked_only_from_a_page_dropped_under_the_rule_is_fetched(
    corpus, stdlib_page, tmp_path: Path
):
    """The origin's ``extra/`` index page lists one page more than the copy's: one link in 66
    words, a near-duplicate of the copy's index page, dropped under the rule before its spider
    parses it. Its links are followed all the same (those whose counterpart the copy holds are
    pruned), so the page only the origin holds is asked of the copy, found missing, and fetched."""
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, COPY)
    listed_only_here = f"{ORIGIN}extra/fractions.html"
    origin[f"{ORIGIN}extra/"] = origin[f"{ORIGIN}extra/"].replace(
        b"</body>", b'<p><a href="fractions.html">fractions</a></p></body>'
    )
    origin[listed_only_here] = stdlib_page("fractions").encode()
    web = TestWeb(0, "copy-first", origin | copy, {}, [COPY, ORIGIN], [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "copy-first")
    index_page = f"{ORIGIN}extra/"
    page_verdicts = [d for d in decisions if d["url"] == index_page and "tokens" in d["evidence"]]
    assert [(d["action"], d["reason"]) for d in page_verdicts] == [("drop", "near_duplicate")]
    assert listed_only_here in fetched
    assert listed_only_here in run.parsed
    assert run.stats["dedup/links_followed"] >= 1
