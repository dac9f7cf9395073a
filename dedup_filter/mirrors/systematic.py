"""Samples compared with what each directory's pages share discounted.

A copy that adds a banner and a footer to every page, or changes a version string on every page,
shifts the simhash of each of its short pages the same way: where the added text outweighs the
page's own, the bit takes the added text's sign on every page of the copy. Short pages then fall
below the near-duplicate rule although each is its origin's page plus the same few lines.

So a sample that the page rules call a mismatch is compared again once at least
``_MIN_PAIRS`` sampled pairs of the candidate have both pages indexed: the bits that are the same
on every sampled page of one side (what that directory's pages share: a banner, a footer, a
navigation bar) are left out, and the pair matches when at least ``mirror.discounted_agreement``
of the remaining bits agree, and more of them than of all bits: what the sides' pages share is
what held the pair apart. Unrelated pages agree on about half of them, a copy under a banner on
0.84-0.95 (short pages of the test web), a rewritten page on about half; template pages of other
text agree on fewer once their shared template is left out. A page of a few hundred words under
a banner already agrees on 0.9-0.95 of all bits, and the discount raises that (the page rules
part it on its super-shingles); one guide's editions with other commands in their code (the same
prose, 0.95-1.0 of the bits) never come here: their code blocks apart make them an ``EDITION``
(``editions.py``). Invariant: only pairs with both pages indexed take part, so a page the origin
lacks stays a mismatch.
"""

from __future__ import annotations

import numpy as np

from dedup_filter.mirrors.records import MATCH, MISMATCH, Candidate, Sample
from dedup_filter.mirrors.store import MirrorStore

_MIN_PAIRS = 3  # fewer pages a side tell too little of what the directory's pages share
_MIN_BITS = 64  # fewer bits left to compare tell too little of the pair


def discount_shared(store: MirrorStore, candidate: Candidate, min_agreement: float) -> Candidate:
    """The candidate with each mismatch that agrees once shared bits are left out turned into a
    match."""
    if candidate.count(MISMATCH) == 0:
        return candidate
    pairs = {
        sample.relative_hash: bits
        for sample in candidate.samples
        if sample.outcome in (MATCH, MISMATCH)
        and (bits := _pair_bits(store, candidate, sample)) is not None
    }
    if len(pairs) < _MIN_PAIRS:
        return candidate
    origins = np.array([origin for origin, _ in pairs.values()])
    copies = np.array([copy for _, copy in pairs.values()])
    shared = _constant(origins) | _constant(copies)
    compared = ~shared
    if int(compared.sum()) < _MIN_BITS:
        return candidate
    for sample in candidate.samples:
        if sample.outcome != MISMATCH or sample.relative_hash not in pairs:
            continue
        if _closer_without_shared(*pairs[sample.relative_hash], compared, min_agreement):
            candidate = candidate.with_outcome(sample.relative_hash, MATCH)
    return candidate


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
        sample.outcome == MISMATCH and _pair_bits(store, candidate, sample) is not None
        for sample in candidate.samples
    )


def _pair_bits(
    store: MirrorStore, candidate: Candidate, sample: Sample
) -> tuple[np.ndarray, np.ndarray] | None:
    """The simhash bits of the sample's origin and copy pages, when both are indexed."""
    bits = []
    for side in (candidate.origin, candidate.mirror):
        entry = store.entry_by_hash(side.lower(), sample.relative_hash)
        record = store.view.page(entry.representative) if entry is not None else None
        if record is None or not record.simhash:
            return None
        bits.append(np.unpackbits(np.frombuffer(record.simhash, dtype=np.uint8)))
    return bits[0], bits[1]


def _constant(rows: np.ndarray) -> np.ndarray:
    """The bits that are the same in every row."""
    return rows.min(axis=0) == rows.max(axis=0)
