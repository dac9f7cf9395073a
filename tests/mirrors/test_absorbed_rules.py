"""A rule a wider rule absorbs is listed where a rule made since repeats it on the wider rule's
origin: a renamed copy inside a host that a host rule then took whole."""

from __future__ import annotations

from dedup_filter import DedupFilter
from dedup_filter.cli import main
from dedup_filter.mirrors.records import Candidate, Rule
from dedup_filter.mirrors.rules import install
from dedup_filter.mirrors.store import MirrorStore

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
        install(store, host, "content", 0.0, copy_named=False)
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
    twin = _rule(ORIGIN + ARCHIVE, ORIGIN + GUIDE)
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.index.transact(_host_rule_over(below, twins=(twin,)))
        assert sorted(_listed(dedup)) == [
            (MIRROR, ORIGIN, None),
            (ORIGIN + ARCHIVE, ORIGIN + GUIDE, None),
        ]
