"""A near-duplicate drop proposed by the simhash alone (fewer super-shingles shared than the
combined rule needs) needs the sketch to show more resemblance than one the super-shingles back:
sharing none or one of six features says the pair more likely lies below 0.9, and menu pages at
a true 0.78-0.79 were estimated at 0.857."""

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
        (6, 11, True),  # estimated 0.825, backed by the super-shingles
        (0, 11, False),  # 0.825 on the simhash alone: kept
        (0, 9, False),  # 0.857
        (1, 9, False),  # one feature shared: still the simhash alone
        (1, 8, True),  # 0.873
        (0, 6, True),  # 0.905
    ],
)
def test_a_pair_the_simhash_alone_proposes_needs_more_resemblance(shared, differing, dropped):
    """With drops taking what a mirror's sample takes (``drop_resemblance`` at 0.8)."""
    config = Config.default().with_overrides({"minhash.drop_resemblance": 0.8})
    match = _duplicates(config, shared, differing)
    assert (match is not None) is dropped
    if match is not None:
        assert match.evidence["b_shared"] == shared


@pytest.mark.parametrize(
    ("differing", "dropped"),
    [(11, False), (9, True)],  # estimated 0.825 and 0.857, backed by the super-shingles
)
def test_a_drop_needs_the_drop_resemblance_whatever_backs_it(differing, dropped):
    """Pages mostly one menu lie at 0.78-0.80 from each other, and an estimate over 84 values of
    2 bits strays by 0.05: a drop, final for its page, takes 0.85 (a sample takes 0.8)."""
    match = _duplicates(Config.default(), 6, differing)
    assert (match is not None) is dropped


def _duplicates(config: Config, shared: int, differing: int):
    simhash = bytes(config.simhash.bits // 8)
    original = PageRecord(
        1, "http://origin.test/a.html", 1, 900, FEATURES, simhash, 0.0, sketch=_sketch(0)
    )
    features = FEATURES[:shared] + tuple(feature + (1 << 60) for feature in FEATURES[shared:])
    page = Fingerprint(
        "http://copy.test/a.html", 2, 900, features, simhash, "utf-8", False, 0, _sketch(differing)
    )
    return duplicates(page, original, config)
