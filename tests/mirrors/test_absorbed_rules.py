"""A rule a wider rule absorbs is listed where a rule made since repeats it on the wider rule's
origin: a renamed copy inside a host that a host rule then took whole; a rule on the wider rule's
origin is listed on its mirror side too. Its origin elsewhere is paired with the wider rule's
origin: a copier of one directory of a copy."""

from __future__ import annotations

from dedup_filter import DedupFilter
from dedup_filter.cli import main
from dedup_filter.mirrors.records import Candidate, Rule
from dedup_filter.mirrors.rules import install
from dedup_filter.mirrors.store import MirrorStore
from tests.mirrors.conftest import ORIGIN as DOCS
from tests.mirrors.conftest import OnlineCrawl, breadth_first, copy_tree, docs_tree

MIRROR, ORIGIN = "http://install.mirror.test/", "http://install.origin.test/"
ARCHIVE, GUIDE, EDITION = "archive/guide-old/", "guide/", "guide-rpm/"


def _rule(mirror: str, origin: str) -> Rule:
    index_page = "index.html"
    return Rule(mirror, origin, mirror + index_page, origin + index_page, 0.0, "content", 3, 3, 0)


def _host_rule_over(*inner: Rule, twins: tuple[Rule, ...] = ()):
    """Rules inside the mirror host, then the host rule confirmed over them, then ``twins``."""

    def write(view) -> None:
        store = MirrorStore(view)
        for rule in inner:
            store.put_rule(rule)
        host = Candidate(MIRROR, ORIGIN, MIRROR + "index.html", ORIGIN + "index.html", 0.0)
        install(store, host, "content", 0.0, lambda held_first: False)
        for rule in twins:
            store.put_rule(rule)

    return write


def _listed(dedup: DedupFilter) -> list[tuple[str, str, str | None]]:
    return [(r["mirror"], r["origin"], r.get("absorbed_by")) for r in dedup.mirror_rules()]


def test_a_renamed_copy_absorbed_by_a_host_rule_is_listed_once_its_twin_is_confirmed(
    tmp_path, capsys
):
    renamed = _rule(MIRROR + ARCHIVE, MIRROR + GUIDE)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_host_rule_over(renamed))
        assert _listed(dedup) == [(MIRROR, ORIGIN, None)]
        dedup.index.transact(
            lambda view: MirrorStore(view).put_rule(_rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE))
        )
        listed = _listed(dedup)
        assert (MIRROR + ARCHIVE, MIRROR + GUIDE, MIRROR) in listed
        assert dedup.check_url(MIRROR + ARCHIVE + "ch01.html").evidence["mirror_rule"] == MIRROR
        absorbed = next(r for r in dedup.mirror_rules() if r.get("absorbed_by"))
        assert absorbed["pruned"] == []
    assert main(["mirrors", "--index", str(tmp_path / "index")]) == 0
    assert f"confirmed 1970-01-01 00:00:00 UTC; absorbed by {MIRROR}" in capsys.readouterr().out


def test_an_absorbed_rule_no_current_rule_repeats_is_not_listed(tmp_path):
    """An edition paired before the host rule took it, never checked again: its twin on the
    origin host has no rule (revoked there by its code), so it is not listed."""
    edition = _rule(MIRROR + GUIDE, MIRROR + EDITION)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_host_rule_over(edition))
        assert _listed(dedup) == [(MIRROR, ORIGIN, None)]


def test_a_boundary_widened_lists_the_wider_rule_alone(tmp_path):
    below = _rule(MIRROR + GUIDE, ORIGIN + GUIDE)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_host_rule_over(below))
        assert _listed(dedup) == [(MIRROR, ORIGIN, None)]


def test_a_renamed_copy_inside_a_hosts_origin_is_listed_on_the_mirror_host_too(tmp_path, capsys):
    """The renamed copy was ruled on the origin host only (its twin on the mirror host was
    pruned by the host rule before anything paired it): the listing names the twin, implied by
    the two rules, pruning nothing."""
    twin = _rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_host_rule_over(twins=(twin,)))
        assert sorted(_listed(dedup)) == [
            (MIRROR, ORIGIN, None),
            (MIRROR + ARCHIVE, MIRROR + GUIDE, None),
            (ORIGIN + ARCHIVE, ORIGIN + GUIDE, None),
        ]
        implied = next(r for r in dedup.mirror_rules() if r.get("implied_by"))
        assert implied["implied_by"] == [MIRROR, ORIGIN + ARCHIVE]
        assert implied["pruned"] == []
        assert implied["boundary"] == "implied"
        assert dedup.check_url(MIRROR + ARCHIVE + "ch01.html").evidence["mirror_rule"] == MIRROR
    assert main(["mirrors", "--index", str(tmp_path / "index")]) == 0
    assert f"implied by {MIRROR} and {ORIGIN + ARCHIVE}" in capsys.readouterr().out


def test_a_copier_of_a_copys_directory_is_paired_with_the_origins_when_the_copy_is_ruled(
    tmp_path, corpus
):
    """The copier of a copy's ``extra/`` is paired with that directory (its root is shallower: the
    origin), then the copy's host is ruled a mirror of the origin's, absorbing that rule, while
    the origin's ``extra/`` never arrived to pair with the copier itself (on a holdout web it was
    pruned for a stale copy held first). The absorbed rule's origin is paired with the origin's
    directory instead: the copier's boundary is named (a holdout crawl missed it)."""
    copy, copier = "http://docs.app.test/", "http://handbook.test/"
    origin = docs_tree(corpus, DOCS, sorted(corpus), "Standard library notes")
    copied = copy_tree(origin, DOCS, copy)
    copied_again = copy_tree(origin, DOCS + "extra/", copier)
    with DedupFilter.open(tmp_path / "index") as dedup:
        crawl = OnlineCrawl(dedup, origin | copied | copied_again)
        crawl.visit([*breadth_first(copied, copy + "extra/"), *breadth_first(copied_again, copier)])
        assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
            (copy + "extra/", copier)
        ]
        top = [url for url in breadth_first(origin, DOCS) if "/extra/" not in url]
        crawl.visit([*top, *breadth_first(copied, copy)])
        rules = [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()]
        assert sorted(rules) == sorted([(copy, DOCS), (copier, DOCS + "extra/")])
