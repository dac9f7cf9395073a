"""Redirects the fleet reports (non-2xx page messages with a ``Location``) teach the redirect
rules; a URL a rule drops sends where it lands to the kept URLs instead (real LMDB, fake Kafka
clients)."""

from __future__ import annotations

import threading

PAGES, URLS = "pages-in", "urls-in"
WWW, BARE = "http://www.a.test/", "http://a.test/"


def test_a_host_that_only_redirects_sends_where_its_urls_land(
    make_processor, producer, batch, page
):
    processor = make_processor(producer=producer)
    redirects = [
        page(WWW + name, "", status=301, headers={"Location": BARE + name})
        for name in ("a.html", "b.html", "c.html")
    ]
    processor.process(batch(PAGES, redirects), threading.Event())
    assert [rule["rule"] for rule in processor.dedup.url_rules()] == ["www.a.test redirect move"]
    processor.process(batch(URLS, [(WWW + "d.html").encode()], first_offset=3), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [(BARE + "d.html").encode()]
