"""The boundary search tries two parents whose index pages differ (a mirror's banner on a short
host root) when another rule pairs two of their children, whichever way round that rule is."""

from __future__ import annotations

import pytest

from dedup_filter.mirrors.boundary import widen
from dedup_filter.mirrors.records import DirEntry, Rule
from dedup_filter.mirrors.store import MirrorStore

from .conftest import file_entry

MIRROR, ORIGIN = "http://manuals.partner.test/", "http://manuals.project.test/"


def _rule(mirror: str, origin: str) -> Rule:
    return Rule(mirror, origin, mirror, origin, 0.0, "content", 3, 3, 0)


@pytest.mark.parametrize("sibling_turned", [False, True], ids=["same_way", "other_way"])
def test_a_sibling_rule_either_way_round_makes_the_parents_a_candidate(tmp_index, sibling_turned):
    rule = _rule(MIRROR + "guide-en/", ORIGIN + "guide-en/")
    sibling = _rule(MIRROR + "guide-fr/", ORIGIN + "guide-fr/")
    if sibling_turned:
        sibling = _rule(ORIGIN + "guide-fr/", MIRROR + "guide-fr/")

    def decide(view):
        store = MirrorStore(view)
        file_entry(store, MIRROR, "", DirEntry(1, 10, ""))  # the roots differ: a banner
        file_entry(store, ORIGIN, "", DirEntry(2, 20, ""))
        store.put_rule(rule)
        alone = widen(store, rule, 4, 0.0).candidate
        store.put_rule(sibling)
        return alone, widen(store, rule, 4, 0.0).candidate

    alone, beside = tmp_index.transact(decide)
    assert alone is None
    assert beside is not None
    assert (beside.mirror, beside.origin, beside.level) == (MIRROR, ORIGIN, 1)
