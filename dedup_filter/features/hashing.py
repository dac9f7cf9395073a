"""64-bit hashing primitives shared by the feature extractors.

Everything here is deterministic across processes, platforms and NumPy versions, because the
values end up on disk: seeds come from mmh3 of (seed, index), never from a NumPy random stream.
"""

from __future__ import annotations

import functools

import mmh3
import numpy as np
import numpy.typing as npt

from dedup_filter.features import kernels

U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]
_RADIX = np.uint64(0x9E3779B97F4A7C15)  # odd


def hash64(data: bytes | str, seed: int) -> int:
    """An unsigned 64-bit MurmurHash3 of ``data`` (a str as UTF-8, lone surrogates included)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")  # mmh3 5.x segfaults on lone surrogates
    return int(mmh3.hash64(data, seed & 0xFFFFFFFF, signed=False)[0])


def seeded_constants(seed: int, count: int, label: str) -> U64:
    """``count`` reproducible 64-bit constants, shape (count,)."""
    return np.array([hash64(f"{label}:{seed}:{i}", seed) for i in range(count)], dtype=np.uint64)


def token_hashes(tokens: list[str], seed: int) -> U64:
    """One 64-bit hash per token, shape (len(tokens),): ``span_hashes`` of the tokens laid end to
    end, so a token hashes alike whether it comes from a list or from ``text.token_spans``."""
    joined = "".join(tokens).encode("utf-32-le", "surrogatepass")
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    ends = np.cumsum(lengths)
    return span_hashes(np.frombuffer(joined, dtype="<u4"), ends - lengths, ends, seed)


def span_hashes(codes: U32, starts: I64, ends: I64, seed: int) -> U64:
    """One 64-bit hash per span ``codes[start:end]`` of code points, shape (len(starts),).

    A span's value is the polynomial sum of ``codes[j] * R**(j - start)`` modulo 2**64 (R odd):
    it depends only on the span's code points, never on where it stands. The value is then mixed
    with the span's length and the seed (one compiled pass: ``kernels.span_values``).
    """
    return kernels.span_values(codes, starts, ends, _RADIX, _seed_word(seed))


@functools.cache
def _seed_word(seed: int) -> np.uint64:
    return np.uint64(hash64(b"token-hash", seed))


def sequence_hash(hashes: U64, seed: int) -> int:
    """One 64-bit hash of a whole sequence of 64-bit values (order matters)."""
    return hash64(hashes.astype(">u8").tobytes(), seed)
