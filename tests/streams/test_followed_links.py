"""A page dropped under a mirror rule sends what it links and its kept twin may not to the
kept-URLs topic, through the frontier's checks (real LMDB, fake Kafka clients)."""

from __future__ import annotations

import threading
from dataclasses import replace

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
