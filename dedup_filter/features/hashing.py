"""64-bit hashing primitives shared by the feature extractors.

Everything here is deterministic across processes, platforms and NumPy versions, because the
values end up on disk: seeds come from mmh3 of (seed, index), never from a NumPy random stream.
"""

from __future__ import annotations

import functools

import mmh3
import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]
_RADIX = 0x9E3779B97F4A7C15  # odd, so invertible modulo 2**64
_INVERSE_RADIX = pow(_RADIX, -1, 1 << 64)
_TABLE_SIZE = 1 << 16


def hash64(data: bytes | str, seed: int) -> int:
    """An unsigned 64-bit MurmurHash3 of ``data`` (a str as UTF-8, lone surrogates included)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")  # mmh3 5.x segfaults on lone surrogates
    return int(mmh3.hash64(data, seed & 0xFFFFFFFF, signed=False)[0])


def seeded_constants(seed: int, count: int, label: str) -> U64:
    """``count`` reproducible 64-bit constants, shape (count,)."""
    return np.array([hash64(f"{label}:{seed}:{i}", seed) for i in range(count)], dtype=np.uint64)


def mix64(values: U64) -> U64:
    """SplitMix64's finaliser, element-wise: spreads every input bit over the whole word."""
    with np.errstate(over="ignore"):
        mixed = values ^ (values >> np.uint64(30))
        mixed = mixed * np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(27)
        mixed = mixed * np.uint64(0x94D049BB133111EB)
        mixed ^= mixed >> np.uint64(31)
    return mixed


def token_hashes(tokens: list[str], seed: int) -> U64:
    """One 64-bit hash per token, shape (len(tokens),): ``span_hashes`` of the tokens laid end to
    end, so a token hashes alike whether it comes from a list or from ``text.token_spans``."""
    joined = "".join(tokens).encode("utf-32-le", "surrogatepass")
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    ends = np.cumsum(lengths)
    return span_hashes(np.frombuffer(joined, dtype="<u4"), ends - lengths, ends, seed)


def span_hashes(codes: U32, starts: I64, ends: I64, seed: int) -> U64:
    """One 64-bit hash per span ``codes[start:end]`` of code points, shape (len(starts),).

    A span's value is the polynomial sum of ``codes[j] * R**(j - start)`` modulo 2**64 (R odd),
    read off one prefix sum of ``codes[j] * R**j`` for the whole text: no Python loop over tokens,
    and the value depends only on the span's code points, never on where it stands. The value is
    then mixed with the span's length and the seed.
    """
    with np.errstate(over="ignore"):
        weighted = codes.astype(np.uint64) * _powers(np.arange(len(codes)), _RADIX)
        prefix = np.concatenate(([np.uint64(0)], np.cumsum(weighted, dtype=np.uint64)))
        polynomial = (prefix[ends] - prefix[starts]) * _powers(starts, _INVERSE_RADIX)
        lengths = (ends - starts).astype(np.uint64)
        return mix64(polynomial ^ mix64(lengths ^ _seed_word(seed)))


def _powers(exponents: I64, radix: int) -> U64:
    """``radix ** exponents`` modulo 2**64, from two tables of 65,536 powers (low and high bits)."""
    low = _power_table(radix, 1)
    if len(exponents) == 0 or exponents.max() < _TABLE_SIZE:  # any text below 64 Ki characters
        return low[exponents]
    high = _power_table(radix, _TABLE_SIZE)
    with np.errstate(over="ignore"):
        return low[exponents % _TABLE_SIZE] * high[exponents // _TABLE_SIZE]


@functools.cache
def _power_table(radix: int, step: int) -> U64:
    """``(radix ** step) ** k`` modulo 2**64 for k in 0..65,535 (read-only)."""
    factor = pow(radix, step, 1 << 64)
    table = np.empty(_TABLE_SIZE, dtype=np.uint64)
    table[0] = 1
    with np.errstate(over="ignore"):
        table[1:] = np.cumprod(np.full(_TABLE_SIZE - 1, factor, dtype=np.uint64), dtype=np.uint64)
    table.flags.writeable = False
    return table


@functools.cache
def _seed_word(seed: int) -> np.uint64:
    return np.uint64(hash64(b"token-hash", seed))


def sequence_hash(hashes: U64, seed: int) -> int:
    """One 64-bit hash of a whole sequence of 64-bit values (order matters)."""
    return hash64(hashes.astype(">u8").tobytes(), seed)
