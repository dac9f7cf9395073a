"""A real Scrapy crawl of a partial copy met before its origin, whose names say nothing of which
is the copy: the copy held first is crawled whole and the origin's documents it holds are pruned,
so a page of the origin linked only from such a document (never from an index page) and missing
from the copy must still be fetched when the copy answers it with a 404."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from testweb.scrapy_project.run import scrapy_crawl
from testweb.server import serve
from testweb.site import TestWeb

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
    with serve(web) as server:
        run = scrapy_crawl(
            tmp_path,
            server.proxy_url,
            web.start_urls,
            name="copy-first",
            settings={"CONCURRENT_REQUESTS": 1, "DEDUP_DECISION_LOG": "decisions.jsonl"},
        )
        fetched = set(server.request_log.urls())
    assert run.returncode == 0, run.log[-3000:]
    log = tmp_path / ".scrapy" / "decisions.jsonl"
    decisions = [json.loads(line) for line in log.read_text().splitlines()]
    pruned = [d["url"] for d in decisions if d["reason"] == "mirrored_directory"]
    assert f"{ORIGIN}{guide}.html" in pruned  # the copy held first: the origin's document goes
    assert f"{COPY}{guide}-details.html" in fetched  # the copy lacks the page
    assert deep in fetched and deep in run.parsed, [d for d in decisions if "details" in d["url"]]
