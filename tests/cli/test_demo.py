"""The main job: scoring against labels, the corpus section end to end, and section isolation."""

from __future__ import annotations

import re
import sys
import types

import pytest

from dedup_filter import Decision
from testweb import demo
from testweb.labelled import LabelledPage
from testweb.scoring import CROSS_SITE, OVERALL, SAME_SITE, score

ORIGINAL = LabelledPage("http://a.example/x", b"", None, "original", False)
SAME = LabelledPage("http://www.a.example/copy/x", b"", ORIGINAL.url, "timestamp", True)
CROSS = LabelledPage("http://b.example/x", b"", ORIGINAL.url, "url_only", False)
NEGATIVE = LabelledPage("http://a.example/y", b"", None, "boilerplate", True)


def keep(page):
    return Decision(page.url, "keep", "unique")


def drop(page, of, relation="same_site"):
    return Decision(page.url, "drop", "near_duplicate", of.url, {"site_relation": relation})


def test_a_drop_in_favour_of_any_member_of_the_family_is_correct():
    result = score(
        [ORIGINAL, SAME, CROSS, NEGATIVE],
        [
            keep(ORIGINAL),
            drop(SAME, ORIGINAL),
            drop(CROSS, SAME, "cross_site"),
            drop(NEGATIVE, ORIGINAL),
        ],
    )
    overall = result.by_relation[OVERALL]
    assert (overall.expected, overall.dropped, overall.correct) == (2, 3, 2)
    assert overall.precision == pytest.approx(2 / 3)
    assert overall.recall == 1.0
    assert result.by_relation[CROSS_SITE].precision == 1.0
    assert result.by_relation[SAME_SITE].precision == 0.5  # the negative counts where it was judged
    assert [outcome.false_drop for outcome in result.outcomes] == [False, False, False, True]


def test_a_kept_duplicate_or_a_drop_in_favour_of_a_stranger_is_a_miss():
    pages = [ORIGINAL, NEGATIVE, SAME, CROSS]
    result = score(pages, [keep(ORIGINAL), keep(NEGATIVE), keep(SAME), drop(CROSS, NEGATIVE)])
    assert result.by_relation[OVERALL].recall == 0.0
    assert [outcome.page for outcome in result.outcomes if outcome.missed] == [SAME, CROSS]
    assert result.by_kind["url_only"].precision == 0.0


def test_score_needs_one_decision_per_page():
    with pytest.raises(ValueError, match="2 pages but 1 decisions"):
        score([ORIGINAL, SAME], [keep(ORIGINAL)])


def test_corpus_section_reports_reasons_examples_and_scores(monkeypatch, capsys):
    # the Scrapy and Kafka sections have tests of their own (tests/scrapy_ext, tests/integration)
    monkeypatch.setattr(demo, "SECTIONS", ("testweb.demo:corpus_section",))
    assert demo.main(["--originals", "12", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "decisions by reason" in out
    assert re.search(r"drop near_duplicate +\d+", out)
    row = re.search(r"\n  all +(\d+) +(\d+) +(\d+) +([\d.]+) +([\d.]+)\n", out)
    expected, dropped, correct, precision, recall = row.groups()
    assert int(correct) <= min(int(expected), int(dropped))
    assert float(precision) >= 0.8
    assert float(recall) >= 0.8


def test_a_failing_section_is_reported_and_the_others_still_run(monkeypatch, capsys):
    sections = types.ModuleType("demo_sections_under_test")
    ran = []
    sections.broken = lambda context: 1 / 0
    sections.fine = lambda context: ran.append(context.seed)
    monkeypatch.setitem(sys.modules, sections.__name__, sections)
    names = (f"{sections.__name__}:broken", f"{sections.__name__}:fine")
    monkeypatch.setattr(demo, "SECTIONS", names)
    assert demo.main(["--seed", "5"]) == 1
    assert ran == [5]
    out = capsys.readouterr().out
    assert "ZeroDivisionError" in out
    assert f"sections that failed: {sections.__name__}:broken" in out
