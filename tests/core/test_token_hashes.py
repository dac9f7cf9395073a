"""Terms found by array operations and their hashes, against plain-Python definitions of both."""

from __future__ import annotations

import re
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_filter.features.hashing import hash64, span_hashes, token_hashes
from dedup_filter.features.text import _MARK, lowered_token_spans, token_spans, tokenize

SEED = 7
RADIX = 0x9E3779B97F4A7C15
MASK = (1 << 64) - 1
# the term definition as a regex: an image between two marks, or a run of letters and digits
TERM = re.compile(rf"{_MARK}([^{_MARK}]+){_MARK}|{_MARK}{_MARK}|([^\W_]+)")

TEXT = st.text(
    alphabet=st.sampled_from(
        [
            *"abcXYZ019 _-./:\u00a0\u00e9\u00c9\u00df\u0130\u03a3\u6771\u0663\ufb01",
            _MARK,
            "\ud800",
            "\U0001f600",
        ]
    ),
    max_size=60,
)


def reference_hash(token: str, seed: int) -> int:
    """The documented definition, one code point at a time with Python integers."""
    polynomial = sum(ord(char) * pow(RADIX, j, 1 << 64) for j, char in enumerate(token)) & MASK
    length_word = splitmix_finaliser(len(token) ^ hash64(b"token-hash", seed))
    return splitmix_finaliser(polynomial ^ length_word)


def splitmix_finaliser(value: int) -> int:
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK
    return value ^ (value >> 31)


def _span(start: int, end: int) -> tuple[np.ndarray, np.ndarray]:
    return np.array([start], dtype=np.int64), np.array([end], dtype=np.int64)


def test_alphanumeric_runs_are_exactly_str_isalnum():
    text = "".join(chr(code) for code in range(0, sys.maxunicode + 1, 7) if code != ord(_MARK))
    assert tokenize(text) == re.findall(r"[^\W_]+", text.lower())


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_token_spans_agree_with_the_regex_definition(text):
    lowered = text.lower()
    expected = [image or word for image, word in TERM.findall(lowered) if image or word]
    assert tokenize(text) == expected


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_spans_lowered_by_the_table_are_those_of_str_lower(text):
    assert_same_spans(lowered_token_spans(text), token_spans(text.lower()))


def test_every_code_point_lowers_by_the_table_as_by_str_lower():
    plane = "".join(chr(code) for code in range(0x10000) if code not in (0x130, 0x3A3))
    for start in range(0, len(plane), 4_096):  # blocks that are not ASCII: the table's path
        text = "\u00e9 " + plane[start : start + 4_096]
        assert_same_spans(lowered_token_spans(text), token_spans(text.lower()))


def assert_same_spans(found: tuple[np.ndarray, ...], expected: tuple[np.ndarray, ...]) -> None:
    assert all(np.array_equal(mine, theirs) for mine, theirs in zip(found, expected, strict=True))


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT.filter(lambda token: _MARK not in token), max_size=20))
def test_a_token_hashes_alike_from_a_list_and_from_the_text(tokens):
    words = [token for token in tokens if token]
    text = " ".join(words)
    codes, starts, ends = token_spans(text)
    from_text = span_hashes(codes, starts, ends, SEED)
    by_span = {
        text[start:end]: value for start, end, value in zip(starts, ends, from_text, strict=True)
    }
    from_list = token_hashes(list(by_span), SEED)
    assert list(from_list) == list(by_span.values())


def test_span_hash_is_the_polynomial_of_its_code_points_wherever_it_stands():
    token = "fr\u00e9quence\U0001f600"
    for prefix_length in (0, 3, 70_000):  # beyond 64 Ki code points the powers take two tables
        text = "x" * prefix_length + token + "y"
        codes = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
        value = span_hashes(codes, *_span(prefix_length, prefix_length + len(token)), SEED)
        assert int(value[0]) == reference_hash(token, SEED)
    assert int(token_hashes([token], SEED)[0]) == reference_hash(token, SEED)


def test_long_tokens_and_long_texts_hash_without_error():
    values = token_hashes(["a" * 200_000, "a" * 199_999], SEED)
    assert int(values[0]) == reference_hash("a" * 200_000, SEED)
    assert values[0] != values[1]
    codes, starts, ends = token_spans(("word " * 30_000).lower())
    values = span_hashes(codes, starts, ends, SEED)
    assert len(values) == 30_000
    assert len(set(values.tolist())) == 1
