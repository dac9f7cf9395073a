"""A real Scrapy crawl of a partial copy whose server renamed every ``.html`` to ``.htm``, met
first: it ends, loses nothing, and sends fewer requests than the web has pages. In memory
(``tests/mirrors/test_probes.py::test_a_renamed_copy_lacking_pages_settles_its_samples``) such a
copy's failed probes were reported for ever; here the prober skips a URL asked again while its
own report is under way, so this crawl ended before the mend too: it guards the integration,
and that no failure had to be refused (``dedup/probe_reports_refused``)."""

from __future__ import annotations

from pathlib import Path

from tests.mirrors.conftest import (
    as_htm,
    guide_with_index_file,
    leave_out,
    renamed_guide,
    two_guides,
)

from .conftest import logged_crawl


def test_a_partial_htm_copy_met_first_is_crawled_to_the_end(corpus, tmp_path: Path):
    guide = guide_with_index_file(corpus, 40)
    web = two_guides(guide, leave_out(renamed_guide(guide, as_htm), 0, 3), as_htm, "copy")
    run, fetched, _ = logged_crawl(web, tmp_path, "partial-htm")
    assert run.stats["finish_reason"] == "finished", run.dedup_stats()
    assert run.stat("dedup/probe_reports_refused") == 0  # the core asked for no failure again
    assert run.stat("dedup/mirror_rules") >= 1
    parsed = {web.pages[url] for url in run.parsed if url in web.pages}
    assert set(guide.values()) <= parsed | {web.pages[url] for url in fetched if url in web.pages}
    assert len(fetched) < len(web.pages)  # fewer requests than pages, probes and 404s included
