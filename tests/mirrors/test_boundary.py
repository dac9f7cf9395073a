"""The boundary search tries two parents whose index pages differ (a mirror's banner on a short
host root) when another rule pairs two of their children, whichever way round that rule is, and
when a rule pointed at a new origin comes to stand beside such a sibling."""

from __future__ import annotations

import pytest

from dedup_filter import Config
from dedup_filter.mirrors.boundary import widen
from dedup_filter.mirrors.candidates import CandidateUpdate
from dedup_filter.mirrors.records import Candidate, DirEntry, Rule
from dedup_filter.mirrors.sampling import CoordinateSampler
from dedup_filter.mirrors.store import MirrorStore, pair_reference

from .conftest import file_entry

MIRROR, ORIGIN = "http://manuals.partner.test/", "http://manuals.project.test/"


def _rule(mirror: str, origin: str) -> Rule:
    return Rule(mirror, origin, mirror, origin, 0.0, "content", 3, 3, 0)


def _roots_differ(store: MirrorStore) -> None:
    """The two hosts' index pages, recorded with other texts (a mirror's banner)."""
    file_entry(store, MIRROR, "", DirEntry(1, 10, ""))
    file_entry(store, ORIGIN, "", DirEntry(2, 20, ""))


@pytest.mark.parametrize("sibling_turned", [False, True], ids=["same_way", "other_way"])
def test_a_sibling_rule_either_way_round_makes_the_parents_a_candidate(tmp_index, sibling_turned):
    rule = _rule(MIRROR + "guide-en/", ORIGIN + "guide-en/")
    sibling = _rule(MIRROR + "guide-fr/", ORIGIN + "guide-fr/")
    if sibling_turned:
        sibling = _rule(ORIGIN + "guide-fr/", MIRROR + "guide-fr/")

    def decide(view):
        store = MirrorStore(view)
        _roots_differ(store)
        store.put_rule(rule)
        alone = widen(store, rule, 4, 0.0).candidate
        store.put_rule(sibling)
        return alone, widen(store, rule, 4, 0.0).candidate

    alone, beside = tmp_index.transact(decide)
    assert alone is None
    assert beside is not None
    assert (beside.mirror, beside.origin, beside.level) == (MIRROR, ORIGIN, 1)


def test_a_rule_pointed_at_a_new_origin_beside_a_sibling_rule_tries_the_parents(tmp_index):
    """A banner copy's guide-en/ was paired with a third site's copy of it, its guide-fr/ with
    the origin's; the third copy is then confirmed a mirror of the origin's guide-en/, and the
    rule of the banner copy's guide-en/ pointed there: beside its sibling, the two hosts are
    paired (the eighth holdout web's banner host was never ruled whole, its subdirectories
    paired one by one, each before its twin was met)."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    third = "http://library.test/debian/guide-en/"

    def settle(view):
        store = MirrorStore(view)
        _roots_differ(store)
        store.put_rule(_rule(MIRROR + "guide-fr/", ORIGIN + "guide-fr/"))
        store.put_rule(_rule(MIRROR + "guide-en/", third))
        store.put_candidate(
            Candidate(third, ORIGIN + "guide-en/", third, ORIGIN + "guide-en/", 0.0)
        )
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(third, ORIGIN + "guide-en/")))
        return sorted((rule.mirror, rule.origin) for rule in store.rules_under())

    rules = tmp_index.transact(settle)
    assert rules == sorted([(MIRROR, ORIGIN), (third, ORIGIN + "guide-en/")])


THIRD_COPY = "http://library.test/debian/guide-en/"  # a third site's copy, taken for the origin


def test_twins_of_one_origin_beside_a_sibling_rule_make_the_parents_a_candidate(tmp_index):
    """Both hosts' guide-en/ are mirrors of a third site's copy (twins, by the same name), their
    guide-fr/ a pair: the hosts are worth sampling, as beside a direct sibling pair."""
    rule = _rule(MIRROR + "guide-fr/", ORIGIN + "guide-fr/")

    def decide(view):
        store = MirrorStore(view)
        _roots_differ(store)
        store.put_rule(rule)
        store.put_rule(_rule(MIRROR + "guide-en/", THIRD_COPY))
        alone = widen(store, rule, 4, 0.0).candidate
        store.put_rule(_rule(ORIGIN + "guide-en/", THIRD_COPY))
        return alone, widen(store, rule, 4, 0.0).candidate

    alone, beside = tmp_index.transact(decide)
    assert alone is None
    assert (beside.mirror, beside.origin, beside.level) == (MIRROR, ORIGIN, 1)


def test_a_twin_confirmed_beside_a_sibling_rule_tries_the_parents_of_the_twins(tmp_index):
    """The banner host's guide-en/ is a mirror of a third site's copy, its guide-fr/ of the
    origin host's; the origin host's guide-en/ is then confirmed a mirror of the third copy
    too (the third copy held first): the two guide-en/ are twins, beside the guide-fr/ pair, and
    the two hosts are paired (the eighth holdout web, round robin: 7 of 8 boundaries)."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    twin = ORIGIN + "guide-en/"

    def settle(view):
        store = MirrorStore(view)
        _roots_differ(store)
        store.put_rule(_rule(MIRROR + "guide-fr/", ORIGIN + "guide-fr/"))
        store.put_rule(_rule(MIRROR + "guide-en/", THIRD_COPY))
        store.put_candidate(Candidate(twin, THIRD_COPY, twin, THIRD_COPY, 0.0))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(twin, THIRD_COPY)))
        return sorted((rule.mirror, rule.origin) for rule in store.rules_under())

    rules = tmp_index.transact(settle)
    assert (MIRROR, ORIGIN) in rules or (ORIGIN, MIRROR) in rules
