"""Frontier URLs that are aliases of pages not held yet: not forwarded, their canonical URL out
as a probe, forwarded or dropped once its fate is known (real LMDB, fake Kafka clients)."""

from __future__ import annotations

import threading

PAGES, URLS = "pages-in", "urls-in"
SITE = "https://a.example"


def _learn_sessions(processor, batch, page, stdlib_page) -> None:
    pages = [page(f"{SITE}/{name}.html", stdlib_page(name)) for name in ("csv", "json")]
    pages += [
        page(f"{SITE}/{name}.html?sessionid=S{name}", stdlib_page(name)) for name in ("csv", "json")
    ]
    processor.process(batch(PAGES, pages), threading.Event())


def test_an_alias_waits_for_its_canonical_url_and_is_dropped_once_it_is_held(
    make_processor, producer, batch, page, stdlib_page
):
    processor = make_processor(producer=producer)
    _learn_sessions(processor, batch, page, stdlib_page)
    alias = f"{SITE}/fractions.html?sessionid=Q".encode()
    processor.process(batch(URLS, [alias], first_offset=0), threading.Event())
    assert producer.on("urls.keep") == []
    probes = [value for _, value, _ in producer.on("urls.probes")]
    assert any(f'{SITE}/fractions.html"'.encode() in value for value in probes)
    assert processor.metrics.totals["url_alias_deferred"] == 1
    fetched = page(f"{SITE}/fractions.html", stdlib_page("fractions"))
    processor.process(batch(PAGES, [fetched], first_offset=4), threading.Event())
    assert producer.on("urls.keep") == []  # settled as a drop: never forwarded
    assert not processor.dedup.any_deferred()


def test_an_alias_whose_canonical_url_is_missing_is_forwarded(
    make_processor, producer, batch, page, stdlib_page
):
    processor = make_processor(producer=producer)
    _learn_sessions(processor, batch, page, stdlib_page)
    alias = f"{SITE}/gone.html?sessionid=Q".encode()
    processor.process(batch(URLS, [alias]), threading.Event())
    missing = page(f"{SITE}/gone.html", "", status=404)
    processor.process(batch(PAGES, [missing], first_offset=4), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [alias]


def test_an_alias_whose_canonical_url_redirects_is_dropped_and_the_canonical_url_forwarded(
    make_processor, producer, batch, page, stdlib_page
):
    """The probe of the canonical URL answered 301 without following it: the alias would be
    sent on alike, so it is dropped, and the canonical URL is forwarded for the fleet to follow
    where it leads (forwarded before, the alias itself was fetched to the same end)."""
    processor = make_processor(producer=producer)
    _learn_sessions(processor, batch, page, stdlib_page)
    alias = f"{SITE}/moved.html?sessionid=Q".encode()
    processor.process(batch(URLS, [alias]), threading.Event())
    moved = page(f"{SITE}/moved.html", "", status=301, headers={"Location": f"{SITE}/new.html"})
    processor.process(batch(PAGES, [moved], first_offset=4), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [f"{SITE}/moved.html".encode()]
    assert not processor.dedup.any_deferred()
