"""A real Scrapy crawl of a partial copy met before its origin: the origin's table of contents is
dropped as a duplicate of the copy's, and the page only the origin holds, which the copy links but
lacks, is linked from it alone, and fetched. Either nothing pairs the two directories (their
tables of contents carry no index name, and only the origin's directory URL answers, with a page
of its own) or their documents do (both directory URLs answer a 404)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirrors.conftest import table_of_contents
from testweb.site import TestWeb

from .conftest import logged_crawl

ORIGIN = "http://docs.vendor.test/manual/"
COPY = "http://docs.partner.test/manual/"  # no name calls either side a copy


@pytest.mark.parametrize("paired", [False, True])
def test_a_page_linked_only_from_a_duplicate_of_a_partial_copy_is_fetched(
    corpus, stdlib_page, tmp_path: Path, paired: bool
):
    modules = sorted(corpus)[:5]
    contents = table_of_contents("Library manual", [(f"{name}.html", name) for name in modules])
    origin = {ORIGIN + "contents.html": contents}
    origin |= {f"{ORIGIN}{name}.html": corpus[name].encode() for name in modules}
    copy = {url.replace(ORIGIN, COPY): body for url, body in origin.items()}
    if not paired:
        origin[ORIGIN] = (
            b"<html><body><h1>Vendor</h1><p>Manuals of the vendor's tools.</p></body></html>"
        )
    only_here = f"{ORIGIN}{modules[-1]}.html"
    del copy[only_here.replace(ORIGIN, COPY)]
    start = [COPY + "contents.html", ORIGIN + "contents.html"]
    web = TestWeb(0, "unpaired-copy", origin | copy, {}, start, [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "unpaired-copy")
    verdicts = {d["url"]: d for d in decisions if "tokens" in d["evidence"]}
    dropped = verdicts[ORIGIN + "contents.html"]
    assert (dropped["action"], dropped["duplicate_of"]) == ("drop", COPY + "contents.html")
    assert any("mirror_rule" in d["evidence"] for d in decisions) == paired
    assert only_here in fetched
    assert only_here in run.parsed
    assert run.stats["dedup/links_followed"] >= 1
