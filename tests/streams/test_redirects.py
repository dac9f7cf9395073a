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


def test_a_file_sent_to_its_directory_by_a_slash_rule_is_fetched_itself(
    make_processor, producer, batch, page
):
    """The host sends directories' slashless URLs to their slash: a slashless URL is forwarded as
    its directory, and when that fails (a file named without a dot), as itself."""
    processor = make_processor(producer=producer)
    redirects = [
        page(BARE + name, "", status=301, headers={"Location": f"/{name}/"})
        for name in ("a", "b", "c")
    ]
    processor.process(batch(PAGES, redirects), threading.Event())
    processor.process(batch(URLS, [(BARE + "SUMS").encode()], first_offset=3), threading.Event())
    failed = page(BARE + "SUMS/", "", status=404)
    processor.process(batch(PAGES, [failed], first_offset=4), threading.Event())
    kept = [value for _, value, _ in producer.on("urls.keep")]
    assert kept == [(BARE + "SUMS/").encode(), (BARE + "SUMS").encode()]
    processor.process(batch(URLS, [(BARE + "SUMS").encode()], first_offset=5), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")][2:] == [(BARE + "SUMS").encode()]
