"""A page whose code revokes a mirror rule sends the pruned side's counterparts of the kept
side's coded pages to the kept-URLs topic (real LMDB, fake Kafka clients): an edition's pages
the rule dropped may exist nowhere else."""

from __future__ import annotations

import threading

from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore
from tests.mirrors.test_editions import EDITION, GUIDE, commands, with_code

PAGES = "pages-in"


def test_the_page_that_revokes_an_edition_rule_sends_its_coded_counterparts_to_be_fetched(
    make_processor, producer, batch, page, stdlib_page
):
    processor = make_processor(producer=producer)
    rule = Rule(EDITION, GUIDE, EDITION, GUIDE, 0.0, "content", 3, 3, 0)
    processor.dedup.index.transact(lambda view: MirrorStore(view).put_rule(rule))
    install, remove = stdlib_page("json").encode(), stdlib_page("csv").encode()
    processor.dedup.check_page(GUIDE + "install.html", with_code(install, commands("i", "dpkg")))
    processor.dedup.check_page(GUIDE + "remove.html", with_code(remove, commands("r", "dpkg")))
    edition_page = page(EDITION + "install.html", with_code(install, commands("i", "rpm")).decode())
    processor.process(batch(PAGES, [edition_page]), threading.Event())
    assert processor.dedup.mirror_rules() == []
    kept_urls = [value for _, value, _ in producer.on("urls.keep")]
    assert kept_urls == [(EDITION + "remove.html").encode()]
    assert processor.metrics.totals["urls_keep"] == 1
