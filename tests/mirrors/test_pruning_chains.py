"""A counterpart that another rule prunes is waited for under the name the crawl keeps. In a
holdout crawl (breadth-first, docs/evaluation.md) a host's copy deferred its renamed archive's
pages for their counterparts on the origin host, which a renamed-copy rule there prunes; the
counterparts were probed under their archive names (75 fetches), and the crawl then fetched the
same pages again under the names that rule keeps."""

from __future__ import annotations

from dedup_filter import DedupFilter
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore

COPY, ORIGIN = "http://copy.test/", "http://origin.test/"
ARCHIVE, GUIDE = "archive/guide-old/", "guide/"  # a renamed copy within the origin host
PAGE = "install.html"


def _rules(view) -> None:
    store = MirrorStore(view)
    store.put_rule(Rule(COPY, ORIGIN, "", "", 0.0, "content", 4, 4, 0))
    store.put_rule(Rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE, "", "", 0.0, "content", 3, 3, 0))


def test_a_counterpart_another_rule_prunes_is_probed_under_the_name_it_keeps(tmp_path):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_rules)
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.duplicate_of) == ("defer", ORIGIN + GUIDE + PAGE)
    assert decision.probes == (ORIGIN + GUIDE + PAGE,)


def test_the_copy_page_is_dropped_once_the_kept_page_is_held(tmp_path, stdlib_page):
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_rules)
        dedup.check_url(COPY + ARCHIVE + PAGE)
        dedup.check_page(ORIGIN + GUIDE + PAGE, stdlib_page("fractions").encode())
        for absent in dedup.check_url(COPY + ARCHIVE + PAGE).probes:  # what the kept side
            dedup.probe_failed(absent, 404)  # answers for a page it lacks: nothing
        decision = dedup.check_url(COPY + ARCHIVE + PAGE)
    assert (decision.action, decision.duplicate_of) == ("drop", ORIGIN + GUIDE + PAGE)
