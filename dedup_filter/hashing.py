"""64-bit hashing primitives shared by the feature extractors.

Everything here is deterministic across processes, platforms and NumPy versions, because the
values end up on disk: seeds come from mmh3 of (seed, index), never from a NumPy random stream.
"""

from __future__ import annotations

import re

import mmh3
import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
_SURROGATE = re.compile("[\ud800-\udfff]")


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
    """One 64-bit hash per token, shape (len(tokens),)."""
    seed32 = seed & 0xFFFFFFFF
    items: list[str] | list[bytes] = tokens
    if _has_surrogates(tokens):  # mmh3 5.x segfaults on strings it cannot encode as UTF-8
        items = [token.encode("utf-8", "surrogatepass") for token in tokens]
    return np.fromiter(
        (mmh3.hash64(item, seed32, signed=False)[0] for item in items),
        dtype=np.uint64,
        count=len(tokens),
    )


def _has_surrogates(tokens: list[str]) -> bool:
    joined = "".join(tokens)
    return not joined.isascii() and _SURROGATE.search(joined) is not None


def sequence_hash(hashes: U64, seed: int) -> int:
    """One 64-bit hash of a whole sequence of 64-bit values (order matters)."""
    return hash64(hashes.astype(">u8").tobytes(), seed)
