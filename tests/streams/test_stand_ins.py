"""A failed fetch on the kept side of a mirror rule: the page's counterpart on the pruned side,
not held, goes out on the kept-URLs topic to be fetched in its place (real LMDB, fake Kafka
clients)."""

from __future__ import annotations

import threading

from tests.mirrors.conftest import ORIGIN

from .conftest import COPY, PAGES, URLS


def test_a_page_the_kept_side_lacks_sends_its_pruned_counterpart_to_the_kept_urls(
    ruled_processor, producer, batch, page
):
    processor = ruled_processor
    failed = [
        page(ORIGIN + "extra/gone.html", "", status=404),
        page(COPY + "x.html", "", status=404),
    ]
    processor.process(batch(PAGES, failed), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [
        (COPY + "extra/gone.html").encode()
    ]
    assert processor.metrics.totals["stand_ins"] == 1


def test_a_failed_probe_stands_in_for_nothing(ruled_processor, producer, batch, page):
    """The origin's page a deferred copy URL waits for was asked for as a probe: its 404 releases
    that URL once (settled), and names no stand-in beside it."""
    processor = ruled_processor
    waiting = COPY + "extra/gone.html"
    processor.process(batch(URLS, [waiting.encode()]), threading.Event())
    assert producer.on("urls.keep") == []  # deferred, its counterpart probed
    failed = page(ORIGIN + "extra/gone.html", "", status=404)
    processor.process(batch(PAGES, [failed], first_offset=4), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [waiting.encode()]
    assert processor.metrics.totals["stand_ins"] == 0
