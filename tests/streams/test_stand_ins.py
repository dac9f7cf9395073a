"""A failed fetch on the kept side of a mirror rule: the page's counterpart on the pruned side,
not held, goes out on the kept-URLs topic to be fetched in its place (real LMDB, fake Kafka
clients)."""

from __future__ import annotations

import threading

from tests.mirrors.conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree

PAGES, URLS = "pages-in", "urls-in"
COPY = "http://www.copy.test/pub/notes/"


def _ruled(make_processor, producer, corpus):
    """A processor whose index holds the rule COPY -> ORIGIN, the origin held first."""
    processor = make_processor(producer=producer)
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    copy = copy_tree(origin, ORIGIN, COPY)
    OnlineCrawl(processor.dedup, origin | copy).visit(
        breadth_first(origin, ORIGIN) + breadth_first(copy, COPY)
    )
    assert [rule["pruned"] for rule in processor.dedup.mirror_rules()] == [["mirror"]]
    return processor


def test_a_page_the_kept_side_lacks_sends_its_pruned_counterpart_to_the_kept_urls(
    make_processor, producer, batch, page, corpus
):
    processor = _ruled(make_processor, producer, corpus)
    failed = [
        page(ORIGIN + "extra/gone.html", "", status=404),
        page(COPY + "x.html", "", status=404),
    ]
    processor.process(batch(PAGES, failed), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [
        (COPY + "extra/gone.html").encode()
    ]
    assert processor.metrics.totals["stand_ins"] == 1


def test_a_failed_probe_stands_in_for_nothing(make_processor, producer, batch, page, corpus):
    """The origin's page a deferred copy URL waits for was asked for as a probe: its 404 releases
    that URL once (settled), and names no stand-in beside it."""
    processor = _ruled(make_processor, producer, corpus)
    waiting = COPY + "extra/gone.html"
    processor.process(batch(URLS, [waiting.encode()]), threading.Event())
    assert producer.on("urls.keep") == []  # deferred, its counterpart probed
    failed = page(ORIGIN + "extra/gone.html", "", status=404)
    processor.process(batch(PAGES, [failed], first_offset=4), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [waiting.encode()]
    assert processor.metrics.totals["stand_ins"] == 0
