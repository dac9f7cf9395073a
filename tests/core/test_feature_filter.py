"""Algorithm B's feature filter behaves like Broder's P(6, 14, 2) (statistical tests, seeded)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dedup_filter import Config
from dedup_filter.curve import acceptance_probability
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.hashing import token_hashes
from dedup_filter.features.minhash import MinHasher, super_shingles
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.text import html_tokens

FEATURES, VALUES_PER_FEATURE, MIN_SHARED = 6, 14, 2
SEED = 1
HASHER = MinHasher(FEATURES * VALUES_PER_FEATURE, SEED)


def pair_with_resemblance(resemblance: float, size: int, label: str) -> tuple[np.ndarray, ...]:
    """Two shingle sets of union ``size`` with Jaccard resemblance ``resemblance`` (+- 1/size)."""
    tokens = [f"{label}:{i}" for i in range(size)]
    universe = shingle_hashes(token_hashes(tokens, SEED), 1, SEED)
    shared = round(resemblance * size)
    split = shared + (size - shared) // 2
    return universe[:split], np.concatenate([universe[:shared], universe[split:]])


def accepted(first: np.ndarray, second: np.ndarray) -> bool:
    first_features, second_features = (
        set(super_shingles(HASHER.signature(shingles), FEATURES, SEED))
        for shingles in (first, second)
    )
    return len(first_features & second_features) >= MIN_SHARED


def acceptance_rate(resemblance: float, pairs: int) -> float:
    built = (pair_with_resemblance(resemblance, 500, f"r{resemblance}p{n}") for n in range(pairs))
    return sum(accepted(*pair) for pair in built) / pairs


def predicted(resemblance: float) -> float:
    return float(acceptance_probability(resemblance, FEATURES, VALUES_PER_FEATURE, MIN_SHARED))


def test_pairs_at_resemblance_098_are_almost_always_caught():
    assert acceptance_rate(0.98, 200) >= 0.95


def test_pairs_at_resemblance_05_are_almost_never_caught():
    assert acceptance_rate(0.5, 200) <= 0.01


def test_pair_builder_hits_the_requested_resemblance():
    first, second = pair_with_resemblance(0.9, 500, "check")
    exact = len(np.intersect1d(first, second)) / len(np.union1d(first, second))
    assert exact == pytest.approx(0.9, abs=0.002)


@pytest.mark.parametrize("resemblance", [0.80, 0.88, 0.91, 0.94, 0.97])
def test_observed_acceptance_follows_the_closed_form_curve(resemblance):
    pairs = 300
    expected = predicted(resemblance)
    margin = 4 * math.sqrt(expected * (1 - expected) / pairs) + 1 / pairs
    assert abs(acceptance_rate(resemblance, pairs) - expected) <= margin


def test_closed_form_matches_broders_numbers():
    # Broder rounds: the miss rate first drops below 0.01 just above 97.5 % (0.0107 at 0.975)
    assert predicted(0.976) > 0.99
    assert 1 - predicted(0.99) < 0.00022
    assert predicted(0.77) < 0.01
    assert predicted(0.5) < 0.6e-7
    assert predicted(0.909) == pytest.approx(0.5, abs=0.01)


def test_real_text_edits_are_accepted_as_often_as_the_curve_predicts(corpus):
    """Pydoc pages with random word substitutions, through the whole Fingerprinter pipeline."""
    fingerprinter = Fingerprinter(Config.default())
    rng = np.random.default_rng(2006)
    expected, observed, variance = 0.0, 0, 0.0
    for trial in range(160):
        tokens = html_tokens(corpus[sorted(corpus)[trial % len(corpus)]], "http://a.example/")[0]
        edited = list(tokens)
        for position in rng.choice(len(tokens), size=1 + int(rng.integers(0, 4)), replace=False):
            edited[position] = f"edit{trial}x{position}"
        first, second = (
            fingerprinter.fingerprint("http://a.example/", " ".join(words).encode())
            for words in (tokens, edited)
        )
        probability = predicted(shingle_resemblance(tokens, edited))
        expected += probability
        variance += probability * (1 - probability)
        observed += len(set(first.features) & set(second.features)) >= MIN_SHARED
    assert abs(observed - expected) <= 4 * math.sqrt(variance) + 1
    assert 0.2 * 160 < expected < 0.98 * 160


def shingle_resemblance(first: list[str], second: list[str]) -> float:
    width = Config.default().minhash.shingle_width
    first_set, second_set = (
        set(shingle_hashes(token_hashes(tokens, SEED), width, SEED).tolist())
        for tokens in (first, second)
    )
    return len(first_set & second_set) / len(first_set | second_set)
