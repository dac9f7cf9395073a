"""Samples compared with what each directory's pages share discounted.

A copy that adds a banner and a footer to every page, or changes a version string on every page,
parts each short page from its origin's page by the same few lines: short pages then fall below
the near-duplicate rule although each is its origin's page plus the same text. So a sample that
the page rules call a mismatch is compared again once at least ``_MIN_PAIRS`` sampled pairs of the
candidate have both pages indexed, in two ways; either makes it a match. Neither applies to a
pair whose pages differ in length by other than the usual count (the median over the pairs of
two pages of other content whose lengths are known, give or take 2 tokens or a tenth): a page
rewritten since the copy was made seldom keeps its length to the token, and no discount makes it
a copy. A near-duplicate drop's length is kept in its directory entries, so a pair whose copy
page was dropped as a near-duplicate of its origin page tells the usual count too: the longer
pages of a banner copy are such drops, and only its short pages are left to mismatch.

* **Shared bits left out.** Where the added text outweighs a page's own, a simhash bit takes the
  added text's sign on every page of the copy. The bits that are the same on every sampled page of
  one side (what that directory's pages share: a banner, a footer, a navigation bar) are left out,
  and the pair matches when at least ``mirror.discounted_agreement`` of the remaining bits agree,
  and more of them than of all bits: what the sides' pages share is what held the pair apart.
  Unrelated pages agree on about half of them, a copy under a banner on 0.84-0.95 (short pages of
  the test web); template pages of other text agree on fewer once their shared template is left
  out.
* **Added text left out.** When at least ``_MIN_PAIRS`` pairs, and most, differ by the usual
  count (``_steady``: the text the copy adds to every page), a pair whose sketches resemble as
  much as a page and that page with that many tokens added in two places would, give or take the
  sketch's error, matches (``matching.resembles_beside_added``). The bits above see the added
  text only where it outweighs a page's own on every sampled page, which the shortest pages of a
  sample decide; the sketch sees it on each pair, so this rescues the pairs that the bits miss
  (pages of 30-260 words under an 18-token banner: 0.41-0.84 of their shingles' resemblance).
  Pages of other text resemble less than a copy would, whatever their lengths.

One guide's editions with other commands in their code (the same prose, 0.95-1.0 of the bits)
never come here: their code blocks apart make them an ``EDITION`` (``editions.py``). Invariant:
only pairs with both pages indexed take part, so a page the origin lacks stays a mismatch.
"""

from __future__ import annotations

import statistics
from typing import NamedTuple

import numpy as np

from dedup_filter.config import Config
from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.matching import resembles_beside_added
from dedup_filter.mirrors.records import MATCH, MISMATCH, Candidate, DirEntry, Sample
from dedup_filter.mirrors.store import MirrorStore

_MIN_PAIRS = 3  # fewer pages a side tell too little of what the directory's pages share
_MIN_BITS = 64  # fewer bits left to compare tell too little of the pair
# pairs whose lengths differ by the addition give or take this many tokens, or this share of it,
# add the same text (a banner naming each page's own path or date varies by a few tokens)
_ADDED_SLACK_TOKENS = 2
_ADDED_SLACK_SHARE = 0.1


class Pair(NamedTuple):
    """The records standing for a sample's origin page and copy page, and the tokens the copy
    page holds beyond its origin's (None: a length not known, a near-duplicate drop recorded
    before lengths were)."""

    origin: PageRecord
    copy: PageRecord
    added: int | None
    identical: bool  # the two pages are exact duplicates


def discount_shared(store: MirrorStore, candidate: Candidate, config: Config) -> Candidate:
    """The candidate with each mismatch that matches once what the sides' pages share is left
    out turned into a match."""
    if candidate.count(MISMATCH) == 0:
        return candidate
    pairs = {
        sample.relative_hash: pair
        for sample in candidate.samples
        if sample.outcome in (MATCH, MISMATCH)
        and (pair := _pair_records(store, candidate, sample)) is not None
    }
    if len(pairs) < _MIN_PAIRS:
        return candidate
    difference = _usual_difference(pairs)
    mismatched = {
        sample.relative_hash
        for sample in candidate.samples
        if sample.outcome == MISMATCH
        and sample.relative_hash in pairs
        and _in_line(pairs[sample.relative_hash], difference)
    }
    rescued = _beside_shared_bits(pairs, mismatched, config.mirror.discounted_agreement)
    if difference and _steady(pairs, difference):
        rescued |= _beside_added_text(pairs, mismatched - rescued, difference, config)
    for relative_hash in sorted(rescued):
        candidate = candidate.with_outcome(relative_hash, MATCH)
    return candidate


def _beside_shared_bits(
    pairs: dict[int, Pair], mismatched: set[int], min_agreement: float
) -> set[int]:
    """The mismatches whose simhashes agree once the bits every page of a side shares are left
    out."""
    bits = {key: [_bits(pair.origin), _bits(pair.copy)] for key, pair in pairs.items()}
    origins = np.array([origin for origin, _ in bits.values()])
    copies = np.array([copy for _, copy in bits.values()])
    compared = ~(_constant(origins) | _constant(copies))
    if int(compared.sum()) < _MIN_BITS:
        return set()
    return {
        relative_hash
        for relative_hash in mismatched
        if _closer_without_shared(*bits[relative_hash], compared, min_agreement)
    }


def _beside_added_text(
    pairs: dict[int, Pair], mismatched: set[int], added: float, config: Config
) -> set[int]:
    """The mismatches that resemble once the text the copy adds to every page is left out."""
    return {
        key
        for key in mismatched
        if resembles_beside_added(pairs[key].origin, pairs[key].copy, added, config)
    }


def _usual_difference(pairs: dict[int, Pair]) -> float:
    """The median of the tokens the copy's pages hold beyond their origin's (negative: the
    origin's beyond the copy's), over the pairs of two other pages whose lengths are known."""
    differences = [pair.added for pair in _apart(pairs)]
    return statistics.median(differences) if differences else 0.0


def _steady(pairs: dict[int, Pair], difference: float) -> bool:
    """Whether at least ``_MIN_PAIRS`` pairs, and most, differ by about ``difference``: text the
    copy adds to every page, not pages that happen to differ."""
    apart = _apart(pairs)
    steady = sum(1 for pair in apart if _in_line(pair, difference))
    return steady >= _MIN_PAIRS and 2 * steady > len(apart)


def _in_line(pair: Pair, difference: float) -> bool:
    """Whether the pair's pages differ in length by about the usual ``difference``: a page
    rewritten since the copy was made seldom does, and no discount makes it a copy."""
    slack = max(_ADDED_SLACK_TOKENS, _ADDED_SLACK_SHARE * abs(difference))
    return pair.added is not None and abs(pair.added - difference) <= slack


def _apart(pairs: dict[int, Pair]) -> list[Pair]:
    """The pairs of two pages of other content whose lengths are known: both indexed, or one a
    near-duplicate drop of the other (its entry keeps its length). An exact duplicate tells
    nothing of what a copy adds to its other pages."""
    return [pair for pair in pairs.values() if pair.added is not None and not pair.identical]


def _closer_without_shared(
    origin: np.ndarray, copy: np.ndarray, compared: np.ndarray, min_agreement: float
) -> bool:
    """Whether the pair agrees on ``min_agreement`` of the ``compared`` bits, and on more of
    them than of all bits: what the sides' pages share is what held the pair apart."""
    agree = origin == copy
    discounted = int((agree & compared).sum()) / int(compared.sum())
    return discounted >= min_agreement and discounted > float(agree.mean())


def discountable(store: MirrorStore, candidate: Candidate) -> bool:
    """Whether some mismatch of the candidate has both pages indexed (not a page the origin
    lacks), so that it may turn into a match once more pairs are known."""
    return any(
        sample.outcome == MISMATCH and _pair_records(store, candidate, sample) is not None
        for sample in candidate.samples
    )


def _pair_records(store: MirrorStore, candidate: Candidate, sample: Sample) -> Pair | None:
    """The records of the pages standing for the sample's origin and copy pages, when both are
    indexed with features (a simhash and a sketch: not below the token floor)."""
    entries, pages = [], []
    for side in (candidate.origin, candidate.mirror):
        entry = store.entry_by_hash(side.lower(), sample.relative_hash)
        record = store.view.page(entry.representative) if entry is not None else None
        if entry is None or record is None or not record.simhash:
            return None
        entries.append(entry)
        pages.append(record)
    origin, copy = (_own_length(entry, page) for entry, page in zip(entries, pages, strict=True))
    added = None if origin is None or copy is None else copy - origin
    return Pair(pages[0], pages[1], added, entries[0].exact == entries[1].exact)


def _own_length(entry: DirEntry, record: PageRecord) -> int | None:
    """The length of the page an entry tells: its representative's when that is the page or an
    exact duplicate of it, else the length a near-duplicate drop's entry keeps."""
    if entry.exact == record.exact:
        return record.token_count
    return entry.token_count or None


def _bits(page: PageRecord) -> np.ndarray:
    return np.unpackbits(np.frombuffer(page.simhash, dtype=np.uint8))


def _constant(rows: np.ndarray) -> np.ndarray:
    """The bits that are the same in every row."""
    return rows.min(axis=0) == rows.max(axis=0)
