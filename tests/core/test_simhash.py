"""Charikar's simhash (Algorithm C): agreement, widths, term-frequency semantics and band lookup."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_filter.features.hashing import token_hashes
from dedup_filter.features.simhash import agreement, band_keys, simhash

SEED = 2
WIDTHS = (64, 128, 256, 384)


def fingerprint_of(words: list[str], bits: int = 384) -> bytes:
    return simhash(token_hashes(words, 1), bits, SEED)


def flip(fingerprint: bytes, positions: list[int]) -> bytes:
    value = int.from_bytes(fingerprint, "big")
    for position in positions:
        value ^= 1 << position
    return value.to_bytes(len(fingerprint), "big")


WORDS = [f"w{i % 97}" for i in range(1000)]


@pytest.mark.parametrize("bits", WIDTHS)
def test_width_gives_bits_over_eight_bytes(bits):
    assert len(fingerprint_of(WORDS, bits)) == bits // 8


@pytest.mark.parametrize("bits", WIDTHS)
def test_agreement_counts_equal_bits(bits):
    fingerprint = fingerprint_of(WORDS, bits)
    assert agreement(fingerprint, fingerprint) == bits
    assert agreement(fingerprint, flip(fingerprint, [0, 5, bits - 1])) == bits - 3
    assert agreement(fingerprint, flip(fingerprint, list(range(bits)))) == 0


def test_identical_token_multisets_give_identical_fingerprints():
    shuffled = list(WORDS)
    np.random.default_rng(3).shuffle(shuffled)
    assert fingerprint_of(shuffled) == fingerprint_of(WORDS)


def test_term_frequency_counts():
    assert fingerprint_of(["a", "b", "b", "c"] * 5) != fingerprint_of(["a", "b", "c", "c"] * 5)


def test_seed_changes_the_projection():
    hashes = token_hashes(WORDS, 1)
    assert simhash(hashes, 384, SEED) != simhash(hashes, 384, SEED + 1)


def test_small_edits_keep_most_bits_and_unrelated_pages_agree_on_about_half():
    rng = np.random.default_rng(11)
    page = [f"t{value}" for value in rng.integers(0, 3000, size=1500)]
    edited = [*page[:700], "changed", "timestamp", *page[702:]]
    unrelated = [f"u{value}" for value in rng.integers(0, 3000, size=1500)]
    assert agreement(fingerprint_of(page), fingerprint_of(edited)) >= 372
    assert 140 <= agreement(fingerprint_of(page), fingerprint_of(unrelated)) <= 244


def test_agreement_matches_charikars_angle_formula_on_average():
    """Each bit agrees with probability 1 - angle/pi between the term-frequency vectors."""
    rng = np.random.default_rng(42)
    observed, expected = [], []
    for pair in range(200):
        shared = [f"p{pair}s{i}" for i in range(int(rng.integers(10, 60)))]
        first = shared + [f"p{pair}a{i}" for i in range(int(rng.integers(0, 40)))]
        second = shared + [f"p{pair}b{i}" for i in range(int(rng.integers(0, 40)))]
        cosine = len(shared) / math.sqrt(len(first) * len(second))
        expected.append(1 - math.acos(min(cosine, 1.0)) / math.pi)
        observed.append(agreement(fingerprint_of(first), fingerprint_of(second)) / 384)
    standard_error = math.sqrt(sum(p * (1 - p) for p in expected) / 384) / len(expected)
    assert abs(np.mean(observed) - np.mean(expected)) <= 4 * standard_error


@pytest.mark.parametrize(("bits", "bands"), [(64, 4), (128, 8), (256, 12), (384, 12), (384, 48)])
def test_band_keys_count_and_numbering(bits, bands):
    keys = band_keys(fingerprint_of(WORDS, bits), bands)
    assert len(keys) == bands
    assert [key[0] for key in keys] == list(range(bands))


@settings(max_examples=150, derandomize=True, deadline=None, database=None)
@given(
    bits=st.sampled_from(WIDTHS),
    bands=st.integers(min_value=1, max_value=48),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    data=st.data(),
)
def test_fingerprints_differing_in_fewer_than_bands_bits_share_a_band_key(bits, bands, seed, data):
    bands = min(bands, bits // 8)
    fingerprint = np.random.default_rng(seed).bytes(bits // 8)
    differing = data.draw(st.integers(min_value=0, max_value=bands - 1))
    bit = st.integers(min_value=0, max_value=bits - 1)
    positions = st.lists(bit, min_size=differing, max_size=differing, unique=True)
    other = flip(fingerprint, data.draw(positions))
    assert set(band_keys(fingerprint, bands)) & set(band_keys(other, bands))


@pytest.mark.parametrize(("bits", "bands"), [(64, 4), (384, 12), (256, 7)])
def test_one_flipped_bit_in_every_band_shares_no_key(bits, bands):
    """The pigeonhole bound is tight: ``bands`` differing bits, one per band, defeat the lookup."""
    fingerprint = fingerprint_of(WORDS, bits)
    edges = np.linspace(0, bits, bands + 1).astype(int)[:-1]
    other = flip(fingerprint, [bits - 1 - int(edge) for edge in edges])
    assert agreement(fingerprint, other) == bits - bands
    assert not set(band_keys(fingerprint, bands)) & set(band_keys(other, bands))


def test_henzinger_twelve_pieces_find_every_pair_within_eleven_bits():
    fingerprint = fingerprint_of(WORDS)
    rng = np.random.default_rng(5)
    for _ in range(200):
        other = flip(fingerprint, rng.choice(384, size=11, replace=False).tolist())
        assert set(band_keys(fingerprint, 12)) & set(band_keys(other, 12))
