"""A near-duplicate drop proposed by the simhash alone (fewer super-shingles shared than the
combined rule needs) needs the sketch to show more resemblance than one the super-shingles back:
sharing none or one of six features says the pair more likely lies below 0.9, and menu pages at
a true 0.78-0.79 were estimated at 0.857."""

from __future__ import annotations

import pytest

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index.page_records import PageRecord
from dedup_filter.matching import duplicates, resemblance

VALUES, BITS = 84, 2  # the default sketch: 84 values of 2 bits
FEATURES = tuple(range(1 << 40, (1 << 40) + 6 * (1 << 32), 1 << 32))


def _sketch(differing_values: int) -> bytes:
    """A sketch whose last ``differing_values`` values differ from an all-zero sketch's (value i
    lies in byte i // 4: the integer's lowest bits hold the last values, in the last groups,
    which the tests' shared super-shingles leave unshared)."""
    bits = sum(1 << (BITS * value) for value in range(differing_values))
    return bits.to_bytes(VALUES * BITS // 8, "big")


@pytest.mark.parametrize(
    ("shared", "differing", "dropped"),
    [
        (2, 7, True),  # 0.833 over the 56 values beside the two shared groups
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
    [(8, False), (6, True)],  # 0.810 and 0.857 over the 56 values beside the two shared groups
)
def test_a_drop_needs_the_drop_resemblance_whatever_backs_it(differing, dropped):
    """Pages mostly one menu lie at 0.78-0.80 from each other, and an estimate over 84 values of
    2 bits strays by 0.05: a drop, final for its page, takes 0.85 (a sample takes 0.8)."""
    match = _duplicates(Config.default(), 2, differing)
    assert (match is not None) is dropped


def test_the_groups_that_proposed_a_pair_are_no_evidence_of_its_resemblance():
    """Two shared super-shingles make a pair a candidate: their 28 values agree because the pair
    was chosen for them. With 9 of the other 56 values apart, counted whole the pair is
    estimated at 0.857, which a drop takes; without them at 0.786: kept."""
    config = Config.default()
    assert _duplicates(config, 2, 9) is None
    page, original = _pair(config, 2, 9)
    assert resemblance(page, original, config) == pytest.approx(0.857, abs=0.001)
    assert resemblance(page, original, config, proposed=True) == pytest.approx(0.786, abs=0.001)


def _duplicates(config: Config, shared: int, differing: int):
    return duplicates(*_pair(config, shared, differing), config)


def _pair(config: Config, shared: int, differing: int) -> tuple[Fingerprint, PageRecord]:
    simhash = bytes(config.simhash.bits // 8)
    original = PageRecord(
        1, "http://origin.test/a.html", 1, 900, FEATURES, simhash, 0.0, sketch=_sketch(0)
    )
    features = FEATURES[:shared] + tuple(feature + (1 << 60) for feature in FEATURES[shared:])
    page = Fingerprint(
        "http://copy.test/a.html", 2, 900, features, simhash, "utf-8", False, 0, _sketch(differing)
    )
    return page, original
