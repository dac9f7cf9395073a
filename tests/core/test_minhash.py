"""Min-hash estimates Jaccard resemblance; features are deterministic; stored bytes are golden."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_filter import Config
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.hashing import token_hashes
from dedup_filter.features.minhash import (
    MinHasher,
    bbit_sketch,
    estimated_resemblance,
    sketch_deviation,
    sketch_resemblance,
    super_shingles,
)
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.text import html_tokens

WIDTH = 8
SEED = 1


def shingle_set(tokens: list[str]) -> np.ndarray:
    return shingle_hashes(token_hashes(tokens, SEED), WIDTH, SEED)


def jaccard(first: np.ndarray, second: np.ndarray) -> float:
    union = np.union1d(first, second)
    return len(np.intersect1d(first, second)) / len(union)


@st.composite
def document_pairs(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A random document and a copy with random substitutions, insertions and deletions."""
    length = draw(st.integers(min_value=20, max_value=600))
    rng = np.random.default_rng(draw(st.integers(min_value=0, max_value=2**32 - 1)))
    original = [f"w{value}" for value in rng.integers(0, 5000, size=length)]
    edited = list(original)
    edit_rate = draw(st.floats(min_value=0.0, max_value=0.12))
    for _ in range(1 + round(edit_rate * length)):
        position = int(rng.integers(0, len(edited)))
        operation = rng.integers(0, 3)
        if operation == 0:
            edited[position] = f"new{rng.integers(0, 10**9)}"
        elif operation == 1:
            edited.insert(position, f"ins{rng.integers(0, 10**9)}")
        elif len(edited) > 1:
            del edited[position]
    return original, edited


@settings(max_examples=80, derandomize=True, deadline=None, database=None)
@given(document_pairs())
def test_estimate_agrees_with_exact_jaccard_within_five_standard_errors(pair):
    num_perm = 1024
    hasher = MinHasher(num_perm, SEED)
    first, second = shingle_set(pair[0]), shingle_set(pair[1])
    exact = jaccard(first, second)
    estimate = estimated_resemblance(hasher.signature(first), hasher.signature(second))
    standard_error = math.sqrt(exact * (1 - exact) / num_perm)
    assert abs(estimate - exact) <= 5 * standard_error + 1 / num_perm


def test_estimates_are_unbiased_over_many_pairs_at_84_permutations():
    hasher = MinHasher(84, SEED)
    rng = np.random.default_rng(20240601)
    errors, variances = [], []
    for pair in range(300):
        universe = shingle_set([f"p{pair}t{i}" for i in range(400 + WIDTH - 1)])
        split = rng.integers(1, 399, size=2)
        first, second = universe[: max(split)], universe[min(split) :]
        exact = jaccard(first, second)
        estimate = estimated_resemblance(hasher.signature(first), hasher.signature(second))
        errors.append(estimate - exact)
        variances.append(exact * (1 - exact) / 84)
    mean_error = float(np.mean(errors))
    standard_error_of_mean = math.sqrt(sum(variances)) / len(errors)
    assert abs(mean_error) <= 4 * standard_error_of_mean
    assert float(np.std(errors)) <= 1.5 * math.sqrt(float(np.mean(variances)))


def test_identical_sets_agree_everywhere_and_disjoint_sets_nowhere():
    hasher = MinHasher(84, SEED)
    shingles = np.arange(1, 500, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    other = shingles + np.uint64(1)
    assert estimated_resemblance(hasher.signature(shingles), hasher.signature(shingles[::-1])) == 1
    assert estimated_resemblance(hasher.signature(shingles), hasher.signature(other)) == 0


def test_signature_does_not_depend_on_chunking_or_duplicates():
    hasher = MinHasher(84, SEED)
    shingles = shingle_set([f"w{i}" for i in range(10_000)])
    doubled = np.concatenate([shingles, shingles[:5000]])
    assert np.array_equal(hasher.signature(shingles), hasher.signature(doubled))
    assert np.array_equal(hasher.signature(shingles), hasher.signature(shingles[::-1].copy()))


def test_empty_set_has_the_all_ones_signature():
    signature = MinHasher(84, SEED).signature(np.empty(0, dtype=np.uint64))
    assert signature.shape == (84,)
    assert np.all(signature == np.iinfo(np.uint64).max)


def test_shingles_count_and_order():
    hashes = token_hashes([f"t{i}" for i in range(20)], SEED)
    assert shingle_hashes(hashes, WIDTH, SEED).shape == (13,)
    assert shingle_hashes(hashes[:3], WIDTH, SEED).shape == (1,)
    assert shingle_hashes(hashes[:0], WIDTH, SEED).shape == (0,)
    swapped = hashes[[1, 0, *range(2, 20)]]
    assert shingle_hashes(swapped, WIDTH, SEED)[0] != shingle_hashes(hashes, WIDTH, SEED)[0]


def test_a_shingle_hash_does_not_depend_on_its_position():
    tokens = list("abcdefgh")
    alone = shingle_set(tokens)
    inside = shingle_set(["x", "y", *tokens, "z"])
    assert alone[0] in inside


def test_super_shingles_are_deterministic_and_mix_in_the_group_number():
    signature = MinHasher(84, SEED).signature(shingle_set([f"w{i}" for i in range(100)]))
    assert super_shingles(signature, 6, SEED) == super_shingles(signature.copy(), 6, SEED)
    assert super_shingles(signature, 6, SEED) != super_shingles(signature, 6, SEED + 1)
    repeated = np.tile(signature[:14], 6)
    assert len(set(super_shingles(repeated, 6, SEED))) == 6


def test_one_changed_group_changes_exactly_one_feature():
    signature = MinHasher(84, SEED).signature(shingle_set([f"w{i}" for i in range(100)]))
    changed = signature.copy()
    changed[20] ^= np.uint64(1)
    before, after = super_shingles(signature, 6, SEED), super_shingles(changed, 6, SEED)
    assert [old == new for old, new in zip(before, after, strict=True)] == [
        True,
        False,
        True,
        True,
        True,
        True,
    ]


def test_permutations_are_reproducible_across_instances():
    shingles = shingle_set([f"w{i}" for i in range(50)])
    signature = MinHasher(84, SEED).signature(shingles)
    assert np.array_equal(MinHasher(84, SEED).signature(shingles), signature)
    assert not np.array_equal(MinHasher(84, SEED + 1).signature(shingles), signature)


GOLDEN_URL = "http://www.example.com/golden.html"
GOLDEN_HTML = b"""<html><head><title>Golden page</title><style>p{margin:0}</style></head><body>
<h1>Finding near-duplicate web pages</h1>
<p>Broder's shingling and Charikar's random projection were compared on 1.6B distinct pages.
Every maximal alphanumeric run is a term; a URL such as http://www.example.com/a/b.html is broken
at slashes and dots. <img src="http://img.example.org/logo.png"> <img src="/local/icon.gif"></p>
<script>var ignored = 42;</script><p>The combined algorithm keeps B-similar pairs whose C-similarity
is at least 355 of 384 bits.</p></body></html>"""


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_sketch_keeps_the_low_bits_of_every_value(bits):
    signature = np.array([0b1011_0110 + (index << 8) for index in range(84)], dtype=np.uint64)
    signature[::3] ^= np.uint64(0xFF)
    sketch = bbit_sketch(signature, bits)
    assert len(sketch) == math.ceil(84 * bits / 8)
    per_byte, mask = 8 // bits, (1 << bits) - 1
    unpacked = [(sketch[i // per_byte] >> (bits * (i % per_byte))) & mask for i in range(84)]
    assert unpacked == [int(value) & mask for value in signature]


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_sketch_of_identical_and_of_disjoint_sets(bits):
    hasher = MinHasher(84, SEED)
    first = hasher.signature(shingle_set([f"a{i}" for i in range(300)]))
    other = hasher.signature(shingle_set([f"b{i}" for i in range(300)]))
    sketch = bbit_sketch(first, bits)
    assert sketch_resemblance(sketch, sketch, bits, 84) == 1.0
    assert sketch_resemblance(sketch, bbit_sketch(other, bits), bits, 84) < 0.25


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(document_pairs(), st.sampled_from([1, 2, 4]))
def test_sketch_estimate_agrees_with_exact_jaccard_within_five_standard_errors(pair, bits):
    """Li and König's estimator over 1024 values of ``bits`` bits; its variance is that of the
    agreement share P = r + (1 - r) c, scaled by 1 / (1 - c)**2."""
    num_perm = 1024
    hasher = MinHasher(num_perm, SEED)
    first, second = shingle_set(pair[0]), shingle_set(pair[1])
    exact = jaccard(first, second)
    estimate = sketch_resemblance(
        bbit_sketch(hasher.signature(first), bits),
        bbit_sketch(hasher.signature(second), bits),
        bits,
        num_perm,
    )
    standard_error = sketch_deviation(exact, bits, num_perm)
    assert abs(estimate - exact) <= 5 * standard_error + 2 / num_perm


def test_golden_tokens():
    assert html_tokens(GOLDEN_HTML.decode(), GOLDEN_URL)[0] == [
        "golden",
        "page",
        "finding",
        "near",
        "duplicate",
        "web",
        "pages",
        "broder",
        "s",
        "shingling",
        "and",
        "charikar",
        "s",
        "random",
        "projection",
        "were",
        "compared",
        "on",
        "1",
        "6b",
        "distinct",
        "pages",
        "every",
        "maximal",
        "alphanumeric",
        "run",
        "is",
        "a",
        "term",
        "a",
        "url",
        "such",
        "as",
        "http",
        "www",
        "example",
        "com",
        "a",
        "b",
        "html",
        "is",
        "broken",
        "at",
        "slashes",
        "and",
        "dots",
        "http://img.example.org/logo.png",
        "icon.gif",
        "the",
        "combined",
        "algorithm",
        "keeps",
        "b",
        "similar",
        "pairs",
        "whose",
        "c",
        "similarity",
        "is",
        "at",
        "least",
        "355",
        "of",
        "384",
        "bits",
    ]


def test_golden_fingerprint_under_the_default_config():
    """Checked-in values: a change here changes the bytes every existing index holds."""
    fingerprint = Fingerprinter(Config.default()).fingerprint(GOLDEN_URL, GOLDEN_HTML)
    assert fingerprint.token_count == 65
    assert fingerprint.exact == 9850601446277148204
    assert fingerprint.features == (
        17650873580309026614,
        9172807173215504761,
        12090677816324893675,
        13668863661182206791,
        9405071876883346933,
        12121735677287640110,
    )
    assert fingerprint.simhash.hex() == (
        "4144408477eca217170fa691f7aa33405eb1e253211aff1d"
        "1a4c4d65427529d24eae38e24a42d2b858d5721fef698dd1"
    )
    assert fingerprint.sketch.hex() == "98b70ce08d87d467cd0dd4f8446b38ec9f12b5acc6"


def test_golden_config_fingerprint():
    """The parameter stamp in the metadata of every index built with the defaults."""
    assert Config.default().fingerprint() == "01b73e6133e7a6ca"
