"""A real Scrapy crawl of a partial copy met before its origin, whose names say nothing of which
is the copy: the copy held first is crawled whole and the origin's documents it holds are pruned,
so a page of the origin linked only from such a document (never from an index page) and missing
from the copy must still be fetched when the copy answers it with a 404."""

from __future__ import annotations

from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from testweb.site import TestWeb

from .conftest import logged_crawl

ORIGIN = "http://docs.vendor.test/"
COPY = "http://docs.partner.test/"  # no name calls either side a copy


def test_a_page_the_copy_lacks_linked_only_from_a_pruned_document_is_fetched(
    corpus, stdlib_page, tmp_path: Path
):
    modules = sorted(corpus)
    origin = docs_tree(corpus, ORIGIN, modules, "Standard library notes")
    guide = modules[len(modules) // 2]
    deep = f"{ORIGIN}{guide}-details.html"
    origin[f"{ORIGIN}{guide}.html"] = origin[f"{ORIGIN}{guide}.html"].replace(
        b"</body>", f'<p><a href="{guide}-details.html">details</a></p></body>'.encode()
    )
    origin[deep] = stdlib_page("fractions").encode()  # only the origin holds it
    copy = copy_tree(origin, ORIGIN, COPY)
    del copy[f"{COPY}{guide}-details.html"]
    web = TestWeb(0, "copy-first", origin | copy, {}, [COPY, ORIGIN], [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "copy-first")
    pruned = [d["url"] for d in decisions if d["reason"] == "mirrored_directory"]
    assert f"{ORIGIN}{guide}.html" in pruned  # the copy held first: the origin's document goes
    assert f"{COPY}{guide}-details.html" in fetched  # the copy lacks the page
    assert deep in fetched and deep in run.parsed, [d for d in decisions if "details" in d["url"]]
