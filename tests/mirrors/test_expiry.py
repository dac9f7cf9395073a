"""Every candidate settles: by the crawl's own fetch, by probes handed out again, or closed as
expired with a stated reason."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.cli import main
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.mirrors.soft404 import absent_url

from .conftest import FIXED_NOW, MIRROR, ORIGIN, breadth_first, copy_tree


@pytest.fixture
def clock():
    return [FIXED_NOW]


@pytest.fixture
def opened(tmp_path, origin_tree, clock):
    """The origin crawled, then the mirror's index page: a candidate whose probes are lost."""
    index = LmdbIndex.open(tmp_path / "index", Config.default())
    dedup = DedupFilter(index, Config.default(), clock=lambda: clock[0])
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    for url in breadth_first(pages, ORIGIN):
        dedup.check_page(url, pages[url])
    asked = dedup.check_page(MIRROR, pages[MIRROR]).probes
    assert asked
    yield dedup, pages, asked
    dedup.close()


def test_samples_are_settled_by_the_crawls_own_fetches(opened):
    dedup, pages, _ = opened
    for url in breadth_first(pages, MIRROR)[1:]:  # the crawl reaches them before any probe
        dedup.check_page(url, pages[url])
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    assert dedup.pending_probes() == [absent_url(ORIGIN)]  # asked when the rule was made


def test_a_candidate_open_too_long_reissues_its_probes_then_expires(opened, clock, tmp_path):
    dedup, _, asked = opened
    assert dedup.settle_candidates(600.0) == []  # not open long enough
    clock[0] += 600.0
    [reissued] = dedup.settle_candidates(600.0)
    assert (reissued.url, reissued.reason) == (MIRROR, "probe")
    assert sorted(reissued.probes) == sorted(asked)
    assert dedup.settle_candidates(600.0) == []  # re-issued once
    clock[0] += 600.0
    [expired] = dedup.settle_candidates(600.0)
    assert (expired.url, expired.action, expired.reason) == (MIRROR, "keep", "candidate_expired")
    assert expired.evidence["mirror"]["state"] == "expired"
    assert dedup.pending_probes() == []
    assert dedup.settle_candidates(600.0) == []
    [candidate] = dedup.mirror_candidates()
    assert (candidate["mirror"], candidate["state"]) == (MIRROR, "expired")
    dedup.close()
    assert main(["mirrors", "--index", str(tmp_path / "index"), "--candidates"]) == 0


def test_the_mirrors_command_lists_candidates(opened, tmp_path, capsys):
    dedup, _, _ = opened
    dedup.close()
    assert main(["mirrors", "--index", str(tmp_path / "index"), "--candidates"]) == 0
    out = capsys.readouterr().out
    assert f"{MIRROR} -> {ORIGIN}: open candidate" in out
    assert "pending" in out
    assert out.rstrip().endswith("0 mirror rules, 0 URL rules, 1 mirror candidate")
