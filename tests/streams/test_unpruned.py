"""A page that shows a rule's origin lacking one of its mirror's pages (a copier at its host's
root taken for the origin of its victim's directory) sends the mirror side's URLs the rule may
have dropped from the frontier to be checked again, and they are kept now (real LMDB, fake Kafka
clients): the victim's pages link pages the copier's copy does not."""

from __future__ import annotations

import threading

from tests.mirrors.conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree, docs_tree

PAGES = "pages-in"
VICTIM = "http://docs.other.test/guide/"  # below its host's root: the copier's root is shallower


def test_a_rule_that_stops_pruning_its_mirror_side_sends_what_it_pruned_to_be_fetched(
    make_processor, producer, batch, page, corpus, stdlib_page
):
    origin_tree = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    processor = make_processor(producer=producer)
    dedup = processor.dedup
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, VICTIM)
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), VICTIM])
    pruned = [  # the victim's documents not fetched (as probes) that the rule drops
        url
        for url in pages
        if url.startswith(VICTIM)
        and url not in crawl.fetched
        and dedup.check_url(url).reason == "mirrored_directory"
    ]
    assert pruned
    assert dedup.unpruned(VICTIM) == []  # the rule prunes as before: nothing to send
    assert dedup.check_url(VICTIM + "new.html").deferred  # its counterpart is probed
    dedup.probe_failed(ORIGIN + "new.html", 404)
    lacking = page(VICTIM + "new.html", stdlib_page("statistics"))
    processor.process(batch(PAGES, [lacking]), threading.Event())
    [rule] = dedup.mirror_rules()
    assert rule["origin_lacks"]
    kept_urls = {value.decode() for _, value, _ in producer.on("urls.keep")}
    assert set(pruned) <= kept_urls
    assert all(url.startswith(VICTIM) for url in kept_urls)
    assert processor.metrics.totals["urls_keep"] == len(kept_urls)
