"""Coordinate sampling compares a sample's two pages by the page rules, whatever else they match."""

from __future__ import annotations

import re

import pytest

from dedup_filter import Config
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.simhash import agreement
from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.matching import duplicates

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
