"""A failed fetch on the kept side of a mirror rule: the page's counterpart on the pruned side,
not held, goes out on the kept-URLs topic to be fetched in its place (real LMDB, fake Kafka
clients)."""

from __future__ import annotations

import threading

from tests.mirrors.conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree

PAGES = "pages-in"
COPY = "http://www.copy.test/pub/notes/"


def test_a_page_the_kept_side_lacks_sends_its_pruned_counterpart_to_the_kept_urls(
    make_processor, producer, batch, page, corpus
):
    processor = make_processor(producer=producer)
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, COPY)
    OnlineCrawl(processor.dedup, origin | copy).visit(
        breadth_first(origin, ORIGIN) + breadth_first(copy, COPY)
    )
    assert [rule["pruned"] for rule in processor.dedup.mirror_rules()] == [["mirror"]]
    failed = [page(ORIGIN + "extra/gone.html", "", status=404), page(COPY + "x.html", "", status=404)]
    processor.process(batch(PAGES, failed), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [
        (COPY + "extra/gone.html").encode()
    ]
    assert processor.metrics.totals["stand_ins"] == 1
