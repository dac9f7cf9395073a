"""Precision and recall of the filter on real text: the labelled corpus of testweb, seeded.

The bars sit below the lowest values measured over seeds 0-9 at this corpus size (120 originals,
about 285 pages; ``docs/benchmarks.md``): overall precision 0.939-1.000 and recall 1.000,
same-site precision 0.879-1.000, cross-site precision and recall 1.000. Same-site precision is
the weak spot, as Henzinger found: database records that differ in 10-30 consecutive words pass
the combined rule (every false drop measured is one). Recall keeps a margin for the expected
loss: Broder's P(6, 14, 2) misses about 2 % of pairs at resemblance 0.97, and the same-site rule
needs B.
"""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.urls import normalize_url
from testweb.corpus import documentation_pages
from testweb.labelled import DUPLICATE_KINDS, LabelledPage, labelled_corpus
from testweb.scoring import CROSS_SITE, OVERALL, SAME_SITE, Score, score

ORIGINALS = 120
SEEDS = (0, 1)
FIELD_KINDS = (
    "timestamp",
    "execution_time",
    "visitor_count",
    "session_id",
    "message_id",
    "server_name",
    "combination",
    "url_in_text",
)


@pytest.fixture(scope="module", params=SEEDS, ids=[f"seed{seed}" for seed in SEEDS])
def corpus(request: pytest.FixtureRequest) -> list[LabelledPage]:
    return labelled_corpus(seed=request.param, originals=ORIGINALS)


@pytest.fixture(scope="module")
def result(corpus: list[LabelledPage], tmp_path_factory: pytest.TempPathFactory) -> Score:
    with DedupFilter.open(tmp_path_factory.mktemp("index"), Config.default()) as dedup:
        decisions = [dedup.check_page(page.url, page.body) for page in corpus]
    return score(corpus, decisions)


@pytest.fixture(scope="module")
def fingerprints(corpus: list[LabelledPage]) -> dict[str, int]:
    fingerprinter = Fingerprinter(Config.default())
    return {
        page.url: fingerprinter.fingerprint(normalize_url(page.url), page.body).exact
        for page in corpus
    }


def test_overall_precision_and_recall(result: Score) -> None:
    overall = result.by_relation[OVERALL]
    assert overall.precision >= 0.92
    assert overall.recall >= 0.97


def test_same_site_precision_survives_boilerplate_and_database_records(result: Score) -> None:
    same_site = result.by_relation[SAME_SITE]
    assert same_site.precision >= 0.85
    assert same_site.recall >= 0.95


def test_cross_site_pairs_are_found_and_right(result: Score) -> None:
    cross_site = result.by_relation[CROSS_SITE]
    assert cross_site.precision >= 0.98
    assert cross_site.recall >= 0.98


@pytest.mark.parametrize("kind", DUPLICATE_KINDS)
def test_every_difference_kind_is_caught(result: Score, kind: str) -> None:
    tally = result.by_kind[kind]
    assert tally.expected >= 5
    assert tally.recall >= 0.8


def test_plain_originals_are_never_dropped(result: Score) -> None:
    assert result.by_kind["original"].dropped == 0


def test_formatting_variants_are_exact_duplicates(
    corpus: list[LabelledPage], fingerprints: dict[str, int]
) -> None:
    copies = [page for page in corpus if page.kind == "formatting"]
    assert copies
    assert all(fingerprints[page.url] == fingerprints[page.duplicate_of] for page in copies)


def test_field_variants_change_the_text(
    corpus: list[LabelledPage], fingerprints: dict[str, int]
) -> None:
    copies = [page for page in corpus if page.kind in FIELD_KINDS]
    assert {page.kind for page in copies} == set(FIELD_KINDS)
    assert all(fingerprints[page.url] != fingerprints[page.duplicate_of] for page in copies)


def test_duplicates_come_after_their_originals_on_both_relations(
    corpus: list[LabelledPage],
) -> None:
    seen: set[str] = set()
    for page in corpus:
        assert page.duplicate_of is None or page.duplicate_of in seen
        seen.add(page.url)
    relations = {page.same_site for page in corpus if page.duplicate_of}
    assert relations == {True, False}


def test_the_corpus_is_reproducible() -> None:
    assert labelled_corpus(seed=5, originals=20) == labelled_corpus(seed=5, originals=20)


def test_documentation_pages_are_real_and_plentiful() -> None:
    pages = documentation_pages()
    names = [page.name for page in pages]
    assert len(pages) >= 300
    assert names == sorted(set(names))
    assert all(
        page.html.startswith(b"<!DOCTYPE html>") and b"<title>Python: " in page.html
        for page in pages
    )
