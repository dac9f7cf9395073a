"""A near-duplicate drop proposed by the simhash alone (no super-shingle shared) needs the sketch to
show more resemblance than one the super-shingles back: sharing none of six features says the
pair more likely lies below 0.9, and an estimate of 0.82 is within one standard error of 0.8."""

from __future__ import annotations

import pytest

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index.page_records import PageRecord
from dedup_filter.matching import duplicates

VALUES, BITS = 84, 2  # the default sketch: 84 values of 2 bits
FEATURES = tuple(range(1 << 40, (1 << 40) + 6 * (1 << 32), 1 << 32))


def _sketch(differing_values: int) -> bytes:
    """A sketch whose first ``differing_values`` values differ from an all-zero sketch's."""
    bits = sum(1 << (BITS * value) for value in range(differing_values))
    return bits.to_bytes(VALUES * BITS // 8, "big")


@pytest.mark.parametrize(
    ("shared", "differing", "dropped"),
    [
        (True, 11, True),  # estimated 0.825, backed by the super-shingles
        (False, 11, False),  # 0.825 on the simhash alone: kept
        (False, 6, True),  # 0.905 on the simhash alone
    ],
)
def test_a_pair_the_simhash_alone_proposes_needs_more_resemblance(shared, differing, dropped):
    config = Config.default()
    simhash = bytes(config.simhash.bits // 8)
    original = PageRecord(
        1, "http://origin.test/a.html", 1, 900, FEATURES, simhash, 0.0, sketch=_sketch(0)
    )
    features = FEATURES if shared else tuple(feature + (1 << 60) for feature in FEATURES)
    page = Fingerprint(
        "http://copy.test/a.html", 2, 900, features, simhash, "utf-8", False, 0, _sketch(differing)
    )
    match = duplicates(page, original, config)
    assert (match is not None) is dropped
    if match is not None:
        assert match.evidence["b_shared"] == (6 if shared else 0)
