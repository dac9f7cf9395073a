"""The multi-host test web crawled online, breadth-first: the figures the issue asks for."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from testweb.online import crawl
from testweb.site import build_web

from .conftest import FIXED_NOW


@pytest.fixture(scope="module")
def web():
    return build_web(seed=0, scale="small")


def test_breadth_first_crawl_prunes_the_mirrors_and_loses_no_original(tmp_path, web):
    unfiltered = crawl(web, None)
    with DedupFilter(
        DedupFilter.open(tmp_path / "index").index, Config.default(), clock=lambda: FIXED_NOW
    ) as dedup:
        log = crawl(web, dedup, "breadth_first")
        rules = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert rules == {mirror.boundary for mirror in web.mirrors}  # precision, recall and boundaries
    lost = (web.originals & unfiltered.fetched_set) - log.fetched_set
    assert lost == set()
    assert not any(log.decisions[url].dropped for url in web.originals if url in log.decisions)
    never_fetched = web.mirrored_urls - log.fetched_set
    assert len(never_fetched) >= 0.9 * len(web.mirrored_urls)
    # a probe of a page the crawl fetches anyway (an origin's, a trap's) is served to it later
    extra_probes = [
        url for url in log.probes if url not in unfiltered.fetched_set - web.mirrored_urls
    ]
    # a rule's extra probes: its samples' mirror pages, its origin's answer for a page it lacks,
    # its parents, coded pages of a side crawled before it (``mirror.code_samples``), and its
    # audits of the pages its kept side gained after it (``mirror.audit_first``)
    assert len(extra_probes) <= 8 * len(rules)
