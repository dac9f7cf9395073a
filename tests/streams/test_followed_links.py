"""A page dropped under a mirror rule, or as the duplicate of a page in another directory, sends
what it links and its kept twin may not to the kept-URLs topic, through the frontier's checks
(real LMDB, fake Kafka clients)."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from tests.mirrors.conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree
from tests.mirrors.test_followed_links import with_link

PAGES = "pages-in"


def test_a_link_only_the_dropped_page_has_waits_for_its_counterpart_and_is_released(
    make_processor, producer, batch, page, corpus, stream_config
):
    """Nothing ever fetches the counterpart: the URL is released once it waited its time
    (``deferred_max_age_s``, 0 here: at the next pass)."""
    config = replace(stream_config, deferred_max_age_s=0.0)
    processor = make_processor(producer=producer, config=config)
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    mirror = copy_tree(origin, ORIGIN, MIRROR)
    OnlineCrawl(processor.dedup, origin | mirror).visit([*breadth_first(origin, ORIGIN), MIRROR])
    listing = with_link(mirror[MIRROR + "extra/"], "only-here.html").decode()
    processor.process(batch(PAGES, [page(MIRROR + "extra/", listing)]), threading.Event())
    assert producer.on("urls.keep") == []  # deferred: its counterpart's fate is not known
    assert processor.dedup.any_deferred()
    processor.process(batch(PAGES, []), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [
        (MIRROR + "extra/only-here.html").encode()
    ]


def test_a_duplicate_under_no_rule_sends_the_links_its_twin_does_not_name(
    make_processor, producer, batch, page, corpus
):
    """The copy's page came first: the origin's page is its duplicate, and what the origin's
    page alone reaches in its own directory goes out as a kept URL."""
    processor = make_processor(producer=producer)
    body = corpus[sorted(corpus)[0]]
    processor.process(batch(PAGES, [page("http://copy.test/pub/a.html", body)]), threading.Event())
    origin = with_link(body.encode(), "only-here.html").decode()
    processor.process(batch(PAGES, [page("http://origin.test/a.html", origin)]), threading.Event())
    kept = {value.decode() for _, value, _ in producer.on("urls.keep")}
    assert "http://origin.test/only-here.html" in kept
    assert not [url for url in kept if url.startswith("http://copy.test/")]


def test_while_most_pages_are_duplicates_elsewhere_their_anchors_are_kept_for_their_links(
    make_processor, producer, batch, page, corpus, monkeypatch
):
    """The first batch of duplicates is parsed again for its links; the next one, prepared with
    its anchors, is not (a second parse fails here), and sends the same links."""
    processor = make_processor(producer=producer)
    modules = sorted(corpus)[:4]
    copies = [page(f"http://copy.test/pub/{name}.html", corpus[name]) for name in modules]
    processor.process(batch(PAGES, copies), threading.Event())
    for host, names in (("one.test", modules[:2]), ("two.test", modules[2:])):
        bodies = [with_link(corpus[name].encode(), f"{name}-only.html") for name in names]
        urls = [f"http://{host}/{name}.html" for name in names]
        pages = [page(url, body.decode()) for url, body in zip(urls, bodies, strict=True)]
        processor.process(batch(PAGES, pages), threading.Event())
        assert producer.on("dedup.dead-letters") == []
        kept = {value.decode() for _, value, _ in producer.on("urls.keep")}
        assert {f"http://{host}/{name}-only.html" for name in names} <= kept
        monkeypatch.setattr("dedup_filter.filter.page_links", _no_second_parse)


def _no_second_parse(*_: object) -> list[str]:
    msg = "parsed again"
    raise AssertionError(msg)


@pytest.mark.parametrize("memory", [100, 0])
def test_a_link_followed_from_two_dropped_pages_is_written_once(
    make_processor, producer, batch, page, corpus, stream_config, memory
):
    """Two copies on one host link the same page of theirs: the second copy's link is the
    process's own output again, dropped as seen without a check while it is remembered
    (``followed_links_memory``; 0 remembers nothing, and the link goes out twice)."""
    config = replace(stream_config, followed_links_memory=memory)
    processor = make_processor(producer=producer, config=config)
    first, second = sorted(corpus)[:2]
    originals = [page(f"http://origin.test/{name}.html", corpus[name]) for name in (first, second)]
    processor.process(batch(PAGES, originals), threading.Event())
    for name in (first, second):
        body = with_link(corpus[name].encode(), "common.html").decode()
        processor.process(
            batch(PAGES, [page(f"http://copy.test/{name}.html", body)]), threading.Event()
        )
    written = [value for _, value, _ in producer.on("urls.keep")]
    assert written.count(b"http://copy.test/common.html") == (1 if memory else 2)
    repeats = len(written) - len(set(written))
    seen = processor.metrics.registry.get_sample_value(
        "dedup_stream_urls_total", {"action": "drop", "reason": "url_seen"}
    )
    if memory:
        assert repeats == 0
        assert seen >= 1  # common.html, and what else the second copy links as the first did
    else:
        assert repeats >= 1
        assert seen is None


def test_a_page_whose_outputs_fail_leaves_its_links_to_the_next_copy(
    make_processor, producer, batch, page, corpus, monkeypatch
):
    """A dropped page whose other outputs fail is a dead letter; the links it would have
    followed are not remembered, so the next copy that links them writes them."""
    processor = make_processor(producer=producer)
    first, second = sorted(corpus)[:2]
    originals = [page(f"http://origin.test/{name}.html", corpus[name]) for name in (first, second)]
    processor.process(batch(PAGES, originals), threading.Event())
    check_prepared = processor.dedup.check_prepared

    def lacking_origins(pages):  # as a rule that stopped pruning its mirror side reports it
        return [
            replace(decision, evidence={**decision.evidence, "mirrors_origin_lacking": ["m"]})
            for decision in check_prepared(pages)
        ]

    def failing(mirror):
        raise ValueError(mirror)  # a record's failure (an index failure fails the batch)

    monkeypatch.setattr(processor.dedup, "check_prepared", lacking_origins)
    monkeypatch.setattr(processor.dedup, "unpruned", failing)
    body = with_link(corpus[first].encode(), "common.html").decode()
    processor.process(
        batch(PAGES, [page(f"http://copy.test/{first}.html", body)]), threading.Event()
    )
    assert len(producer.on("dedup.dead-letters")) == 1
    assert producer.on("urls.keep") == []
    monkeypatch.undo()
    body = with_link(corpus[second].encode(), "common.html").decode()
    processor.process(
        batch(PAGES, [page(f"http://copy.test/{second}.html", body)]), threading.Event()
    )
    written = [value for _, value, _ in producer.on("urls.keep")]
    assert b"http://copy.test/common.html" in written
