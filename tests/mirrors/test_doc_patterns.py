"""Documentation-tree patterns, crawled end to end through the core (``testweb.online``)."""

from __future__ import annotations

import functools

import pytest

from dedup_filter import Config, DedupFilter
from testweb.doc_patterns import PATTERNS, pattern_web
from testweb.doc_traps import theme_trap_web
from testweb.online import ORDERS, crawl

from .conftest import FIXED_NOW

# the banner keeps the copy's top index page from pairing: its top documents are crawled before
# the two subdirectories confirmed below it lead the boundary search up to it; two copied
# sections are two rules, each paying its own samples (three of howto's four pages) and its own
# audit (``mirror.audit_first``: one in 22 pages)
LEAST_NEVER_FETCHED = {"banner_index": 0.5, "copied_sections": 0.65}


@functools.cache
def web_of(name: str):
    if name.startswith("same_theme"):
        return theme_trap_web(theme_at_root=name == "same_theme_root")
    return pattern_web(name)


def crawl_with_filter(tmp_path, web, order):
    with DedupFilter(
        DedupFilter.open(tmp_path / order).index, Config.default(), clock=lambda: FIXED_NOW
    ) as dedup:
        log = crawl(web, dedup, order)
        return log, {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("name", PATTERNS)
def test_a_documentation_mirror_is_found_at_its_boundary(tmp_path, name, order):
    web = web_of(name)
    log, rules = crawl_with_filter(tmp_path, web, order)
    assert rules == {mirror.boundary for mirror in web.mirrors}
    reachable = web.originals & crawl(web, None).fetched_set
    assert reachable - log.fetched_set == set()
    assert not any(log.decisions[url].dropped for url in reachable)
    never_fetched = web.mirrored_urls - log.fetched_set
    assert len(never_fetched) >= LEAST_NEVER_FETCHED.get(name, 0.75) * len(web.mirrored_urls)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("trap", ["same_theme", "same_theme_root"])
def test_two_manuals_sharing_a_theme_and_a_skeleton_are_no_mirror(tmp_path, trap, order):
    """Their boilerplate pages are fetched on both sides before the second index page; at the
    root, they are all the documents the two home pages list."""
    web = web_of(trap)
    log, rules = crawl_with_filter(tmp_path, web, order)
    assert rules == set()
    assert log.pruned == []
    assert log.fetched_set >= set(web.pages)
