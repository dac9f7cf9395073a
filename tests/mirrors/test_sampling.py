"""Coordinate sampling compares a sample's two pages by the page rules, whatever else they match."""

from __future__ import annotations

import re

import pytest

from dedup_filter import Config
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.simhash import agreement
from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.matching import duplicates
from dedup_filter.mirrors.records import Candidate, Rule
from dedup_filter.mirrors.sampling import CoordinateSampler
from dedup_filter.mirrors.store import MirrorStore

from .conftest import MIRROR, ORIGIN, OnlineCrawl, docs_tree

THIRD = "http://news.third.test/notes.html"


def _page(words: list[str]) -> bytes:
    return ("<html><body><p>" + " ".join(words) + "</p></body></html>").encode()


def _record(fingerprint) -> PageRecord:
    return PageRecord(
        1,
        fingerprint.url,
        fingerprint.exact,
        fingerprint.token_count,
        fingerprint.features,
        fingerprint.simhash,
        0.0,
        sketch=fingerprint.sketch,
    )


def between(text: str, filler: str) -> tuple[bytes, bytes, bytes]:
    """An original, a third page that is no duplicate of it (a block of its words rewritten), and
    a copy with part of that block rewritten: a near-duplicate of both, closer to the third.

    Block sizes are searched, since where the page rules draw the line depends on the text."""
    config, fingerprinter = Config.default(), Fingerprinter(Config.default())
    base, other = text.split()[:600], filler.split()
    original = fingerprinter.fingerprint(ORIGIN + "notes.html", _page(base))
    for third_size in range(10, 200, 10):
        third_body = _page(base[:100] + other[:third_size] + base[100 + third_size :])
        third = fingerprinter.fingerprint(THIRD, third_body)
        if duplicates(third, _record(original), config):
            continue
        for copy_size in range(third_size // 2, third_size, 5):
            copy_body = _page(base[:100] + other[:copy_size] + base[100 + copy_size :])
            copy = fingerprinter.fingerprint(MIRROR + "notes.html", copy_body)
            closer = agreement(copy.simhash, third.simhash) > agreement(
                copy.simhash, original.simhash
            )
            near_both = duplicates(copy, _record(original), config) and duplicates(
                copy, _record(third), config
            )
            if closer and near_both:
                return _page(base), third_body, copy_body
    pytest.fail("no rewrite makes a copy closer to a third page than to its original")


def test_a_copy_whose_best_match_is_a_third_page_still_matches_its_original(open_filter, corpus):
    as_text = {name: re.sub("<[^>]+>", " ", corpus[name]) for name in ("calendar", "shlex")}
    original, third, copy = between(as_text["calendar"], as_text["shlex"])
    index = docs_tree({}, ORIGIN, [], "Notes")[ORIGIN].replace(
        b"</ul>", b'<li><a href="notes.html">notes</a></li></ul>'
    )
    pages = {THIRD: third, ORIGIN: index, ORIGIN + "notes.html": original, MIRROR: index}
    pages[MIRROR + "notes.html"] = copy
    dedup = open_filter(samples=1)
    crawl = OnlineCrawl(dedup, pages).visit([THIRD, ORIGIN, ORIGIN + "notes.html", MIRROR])
    assert crawl.decisions[MIRROR + "notes.html"].duplicate_of == THIRD
    [rule] = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"], rule["matches"], rule["samples"]) == (
        MIRROR,
        ORIGIN,
        1,
        1,
    )


def test_a_pair_is_never_sampled_under_a_rule_below_either_side(open_filter, corpus, modules):
    """A project's host root paired with a university's ``debian/`` (the pair turned round: the
    root is its mirror), whose ``en/`` copy of the project's manual is ruled already (the mirror
    of the project's rpm edition): pages under ``en/`` tell only what that rule says, never that
    the host replicates ``debian/``. The fifth holdout web (depth first) ruled the whole host a
    copy of ``debian/`` on three such samples."""
    project, university = "http://httpd.project.test/", "http://univ.test/debian/"
    dedup = open_filter()
    manual = docs_tree(corpus, project + "en/", modules[:8], "Manual")
    other = docs_tree(corpus, project + "de/", modules[8:], "Handbuch")
    copy = {university + url[len(project) :]: body for url, body in manual.items()}
    for url, body in {**manual, **other, **copy}.items():
        dedup.check_page(url, body)

    def samples(view) -> list[str]:
        store = MirrorStore(view)
        store.put_rule(Rule(university + "en/", project + "en-rpm/", university + "en/",
                            project + "en-rpm/", 0.0, "content", 3, 3, 0))  # fmt: skip
        pair = Candidate(project, university, project, university, 0.0, level=2)
        advanced, _ = CoordinateSampler(Config.default()).advance(store, pair)
        return [sample.relative for sample in advanced.samples]

    drawn = dedup.index.transact(samples)
    assert drawn
    assert not [relative for relative in drawn if relative.startswith("en/")]
