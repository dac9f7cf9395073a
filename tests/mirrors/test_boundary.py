"""The boundary search tries two parents whose index pages differ (a mirror's banner on a short
host root) when another rule pairs two of their children, whichever way round that rule is, and
when a rule pointed at a new origin comes to stand beside such a sibling."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from dedup_filter import Config
from dedup_filter.cli import main
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.mirrors.boundary import Widening, widen
from dedup_filter.mirrors.candidates import CandidateUpdate
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.records import MATCH, MISSING, Candidate, DirEntry, Rule, Sample
from dedup_filter.mirrors.sampling import CoordinateSampler
from dedup_filter.mirrors.sequential import SequentialJudge, Verdict
from dedup_filter.mirrors.store import MirrorStore, pair_reference

from .conftest import OnlineCrawl, breadth_first, copy_tree, file_entry, table_of_contents

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
        alone = widen(store, rule, 4, 0.0, "index.html").candidate
        store.put_rule(sibling)
        return alone, widen(store, rule, 4, 0.0, "index.html").candidate

    alone, beside = tmp_index.transact(decide)
    assert alone is None
    assert beside is not None
    assert (beside.mirror, beside.origin, beside.level) == (MIRROR, ORIGIN, 1)


def test_children_paired_under_other_names_make_no_candidate_of_their_parents(tmp_index):
    """The guide's host and a library's ``debian/``, holding a partial copy of the guide: the
    guide's code edition ruled a copy of the library's copy pairs two of their children, under
    other names. That says nothing of the parents, whose pages outside the guide differ (the
    eighth holdout web, random order: the host ruled a copy of ``debian/`` on samples drawn
    from the guide, two wrong rules)."""
    library = "http://graphics.library.test/debian/"
    rule = _rule(library + "guide-en/", ORIGIN + "guide-en/")
    edition = _rule(ORIGIN + "guide-en-rpm/", library + "guide-en/")

    def decide(view):
        store = MirrorStore(view)
        file_entry(store, library, "", DirEntry(1, 10, ""))
        file_entry(store, ORIGIN, "", DirEntry(2, 20, ""))
        store.put_rule(rule)
        store.put_rule(edition)
        return widen(store, rule, 4, 0.0, "index.html")

    assert tmp_index.transact(decide) == Widening()


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
        alone = widen(store, rule, 4, 0.0, "index.html").candidate
        store.put_rule(_rule(ORIGIN + "guide-en/", THIRD_COPY))
        return alone, widen(store, rule, 4, 0.0, "index.html").candidate

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


def test_parents_without_index_pages_are_paired_beside_a_sibling_rule(tmp_index):
    """Two guides' trees with no page at their tops (the eleventh holdout web's GOsa help): once
    the parents' index pages are known to fail, a sibling rule alone makes them a candidate, its
    index pages the directories' own URLs; before that, they are probed."""
    rule = _rule(MIRROR + "help/guide-en/", ORIGIN + "help/guide-en/")
    sibling = _rule(MIRROR + "help/guide-fr/", ORIGIN + "help/guide-fr/")

    def decide(view):
        store = MirrorStore(view)
        store.put_rule(rule)
        store.put_rule(sibling)
        asked = widen(store, rule, 4, 0.0, "index.html")
        deferrals = Deferrals(view)
        for url in asked.probes:
            deferrals.mark_absent(url, 404)
        retried = widen(store, rule, 4, 0.0, "index.html")
        for url in retried.probes:
            deferrals.mark_absent(url, 404)
        return asked, retried, widen(store, rule, 4, 0.0, "index.html")

    asked, retried, absent = tmp_index.transact(decide)
    assert asked.candidate is None
    assert asked.probes == (MIRROR + "help/", ORIGIN + "help/")
    # a directory's own URL failed: its index page is asked under its file name too
    assert retried.probes == (MIRROR + "help/index.html", ORIGIN + "help/index.html")
    candidate = absent.candidate
    assert (candidate.mirror, candidate.origin, candidate.level) == (
        MIRROR + "help/",
        ORIGIN + "help/",
        1,
    )
    assert (candidate.mirror_index, candidate.origin_index) == (MIRROR + "help/", ORIGIN + "help/")


def test_parents_without_index_pages_and_no_sibling_rule_are_no_candidate(tmp_index):
    rule = _rule(MIRROR + "help/guide-en/", ORIGIN + "help/guide-en/")

    def decide(view):
        store = MirrorStore(view)
        store.put_rule(rule)
        for parent in (MIRROR + "help/", ORIGIN + "help/"):
            Deferrals(view).mark_absent(parent, 404)
            Deferrals(view).mark_absent(parent + "index.html", 404)
        return widen(store, rule, 4, 0.0, "index.html")

    assert tmp_index.transact(decide) == Widening()


def _guides(corpus: dict[str, str], base: str) -> dict[str, bytes]:
    """Three guides of five modules each under ``base``, which serves no page of its own."""
    names = sorted(corpus)
    pages = {}
    for number, guide in enumerate(("guide-a", "guide-b", "guide-c")):
        modules = names[5 * number : 5 * number + 5]
        top = f"{base}{guide}/"
        pages[top] = table_of_contents(guide, [(f"{name}.html", name) for name in modules])
        pages |= {f"{top}{name}.html": corpus[name].encode() for name in modules}
    return pages


def test_a_renamed_copy_of_a_tree_without_index_pages_is_ruled_at_its_top(open_filter, corpus):
    """An archive's renamed copy of a help tree whose top serves no page, crawled a guide at a
    time after the origin: once two guides are ruled and the tops' index pages failed, the tops
    are sampled on the third guide's pages, and the copy is ruled at its top (the boundary)."""
    origin, copy = ORIGIN + "help/", MIRROR + "archive/help-old/"
    pages = _guides(corpus, origin)
    pages |= copy_tree(pages, origin, copy)
    by_guide = sorted(breadth_first(pages, copy), key=lambda url: url[len(copy) :].split("/")[0])
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, origin) + by_guide)
    rules = [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()]
    assert (copy, origin) in rules
    assert {copy, origin} <= set(crawl.failed_probes)  # the tops' own URLs, then their files
    assert {copy + "index.html", origin + "index.html"} <= set(crawl.failed_probes)
    assert any(url.startswith(copy + "guide-c/") for url in crawl.pruned)


@pytest.mark.parametrize(
    ("level", "missing", "verdict"),
    [
        (1, 4, Verdict.REJECTED),  # parents tried above a rule, one side lacking most samples
        (2, 6, Verdict.REJECTED),  # the fifth holdout web's host root against ``debian/``
        (1, 3, Verdict.CONFIRMED),  # as many missing as matched: a partial copy's parents
        (0, 6, Verdict.CONFIRMED),  # paired by index pages: a partial copy, whatever it lacks
    ],
)
def test_parents_one_side_mostly_lacks_are_no_mirror_though_their_samples_match(
    level, missing, verdict
):
    """Above a confirmed rule the boundary search samples the parents; their matches come from
    the part both sides hold. Where more samples are missing on one side than match, the rest
    of the parents' documents is mostly absent there: the boundary lies below (on the fifth
    holdout web, depth first, a project's host root was ruled a copy of a university's
    ``debian/`` on 3 matches and 6 missing, one run in five). A pair met by its index pages
    stays a partial copy, confirmed on its matches."""
    samples = [Sample(f"same{i}.html", i, MATCH) for i in range(3)]
    samples += [Sample(f"other{i}.html", 100 + i, MISSING) for i in range(missing)]
    parents = Candidate(MIRROR, ORIGIN, MIRROR, ORIGIN, 0.0, level=level, samples=tuple(samples))
    assert SequentialJudge(Config().mirror).verdict(parents) is verdict


MANUALS = ("guide-de/", "guide-en/", "guide-fr/")


def _parents_after_their_children(view, children: list[Rule], config: Config) -> CandidateUpdate:
    """The hosts tried once every manual is ruled (their index pages differ: a banner), the
    candidate advanced as an arriving page would."""
    store = MirrorStore(view)
    _roots_differ(store)
    for rule in children:
        store.put_rule(rule)
    update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
    update.widen(children[0])
    return update


def test_parents_holding_only_ruled_children_are_confirmed_on_them(tmp_index):
    """A banner copy of a host whose root holds only its manuals' directories, each manual ruled
    before the hosts were tried (the eighth holdout web, depth first): the hosts have nothing to
    sample, and are confirmed on their children, which the host rule absorbs. A child renamed
    inside both hosts (a code edition's directory ruled a copy of its guide) stands for the
    same guide on both sides."""
    config = Config.default()
    renamed = "guide-en-rpm/"
    children = [_rule(MIRROR + child, ORIGIN + child) for child in MANUALS]
    children += [
        _rule(MIRROR + renamed, ORIGIN + "guide-en/"),
        _rule(ORIGIN + renamed, ORIGIN + "guide-en/"),
    ]

    def settle(view):
        update = _parents_after_their_children(view, children, config)
        rules = MirrorStore(view).rules_under()
        return update.confirmed, sorted((rule.mirror, rule.origin) for rule in rules)

    confirmed, rules = tmp_index.transact(settle)
    assert [(rule.mirror, rule.origin, rule.checked, rule.level) for rule in confirmed] == [
        (MIRROR, ORIGIN, 0, 1)
    ]
    assert confirmed[0].on_children
    assert rules == [(MIRROR, ORIGIN), (ORIGIN + renamed, ORIGIN + "guide-en/")]


def test_a_rule_confirmed_on_its_children_names_them(tmp_path, capsys):
    """``dedup-filter mirrors`` says what such a rule rests on, in place of samples it has none
    of."""
    config = Config.default()
    index = LmdbIndex.open(tmp_path / "index", config)
    children = [_rule(MIRROR + child, ORIGIN + child) for child in MANUALS]
    index.transact(lambda view: _parents_after_their_children(view, children, config))
    index.close()
    assert main(["mirrors", "--index", str(tmp_path / "index"), "--json"]) == 0
    [rule] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (rule["mirror"], rule["samples"]) == (MIRROR, 0)
    assert rule["on_children"] == [MIRROR + child for child in MANUALS]
    assert main(["mirrors", "--index", str(tmp_path / "index")]) == 0
    text = capsys.readouterr().out
    assert f"confirmed on the rules of its children ({MIRROR}guide-de/," in text
    assert "sampled pairs match" not in text


def _stale(rule: Rule) -> Rule:
    return replace(rule, mirror_older=True)


def _elsewhere(rule: Rule) -> Rule:
    return replace(rule, origin=THIRD_COPY, origin_index=THIRD_COPY)


@pytest.mark.parametrize(
    ("change", "children"),
    [
        (_stale, MANUALS),  # a stale copy's pages may be the older text
        (_elsewhere, MANUALS),  # paired with a third site's copy, not its namesake
        (None, MANUALS[:1]),  # one child: the parents are no candidate
    ],
    ids=["stale_child", "child_paired_elsewhere", "one_child"],
)
def test_parents_whose_children_say_less_are_not_confirmed_on_them(tmp_index, change, children):
    config = Config.default()
    rules = [_rule(MIRROR + child, ORIGIN + child) for child in children]
    if change is not None:
        rules[-1] = change(rules[-1])

    def settle(view):
        update = _parents_after_their_children(view, rules, config)
        return update.confirmed, MirrorStore(view).candidate(pair_reference(MIRROR, ORIGIN))

    confirmed, parents = tmp_index.transact(settle)
    assert confirmed == []
    if len(children) > 1:  # open, with nothing to draw
        assert parents is not None
        assert parents.samples == ()


def test_parents_without_an_index_page_are_not_confirmed_on_their_children(tmp_index):
    """A side whose index page failed may hold more than the crawl met: what else it holds is
    unknown, so its children say nothing of it."""
    config = Config.default()
    children = [_rule(MIRROR + "help/" + child, ORIGIN + "help/" + child) for child in MANUALS]

    def settle(view):
        deferrals = Deferrals(view)
        for parent in (MIRROR + "help/", ORIGIN + "help/"):
            deferrals.mark_absent(parent, 404)
            deferrals.mark_absent(parent + "index.html", 404)
        update = _parents_after_their_children(view, children, config)
        return update.confirmed, MirrorStore(view).candidate(
            pair_reference(MIRROR + "help/", ORIGIN + "help/")
        )

    confirmed, parents = tmp_index.transact(settle)
    assert confirmed == []
    assert parents is not None
