"""Charikar's random-projection fingerprint ("simhash"): Henzinger's Algorithm C.

Every distinct token is projected to ``bits`` dimensions of +1/-1 (the bits of its mixed hash),
weighted by its frequency in the page, summed; the fingerprint keeps the signs. Similar token
multisets give fingerprints that agree in most bits.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from dedup_filter.features.hashing import U64, mix64, seeded_constants


def simhash(token_hashes: U64, bits: int, seed: int) -> bytes:
    """The ``bits``-bit fingerprint of a token sequence, as ``bits // 8`` big-endian bytes."""
    distinct, counts = np.unique(token_hashes, return_counts=True)
    projections = mix64(distinct[:, None] ^ _word_seeds(seed, bits // 64)[None, :])
    signs = np.unpackbits(projections.astype(">u8").view(np.uint8), axis=1)
    # einsum's own loop, not BLAS: a multithreaded BLAS spins its threads on this small product
    # and took 5 ms instead of 0.3 when other processes held the cores (a crawler's usual
    # company); float64 stays exact, every partial sum being an integer below 2**53
    weights = np.einsum("i,ij->j", counts.astype(np.float64), signs)
    return np.packbits(2 * weights > counts.sum()).tobytes()


@functools.cache
def _word_seeds(seed: int, words: int) -> U64:
    constants = seeded_constants(seed, words, "simhash")
    constants.flags.writeable = False
    return constants


def agreement(first: bytes, second: bytes) -> int:
    """Number of bit positions in which two fingerprints agree (Henzinger's C-similarity)."""
    differing = (int.from_bytes(first, "big") ^ int.from_bytes(second, "big")).bit_count()
    return len(first) * 8 - differing


def band_keys(fingerprint: bytes, bands: int) -> list[bytes]:
    """The fingerprint cut into ``bands`` pieces, each prefixed with its band number.

    Two fingerprints that differ in fewer than ``bands`` bits share at least one piece (pigeonhole),
    so a lookup by piece finds every such pair: 12 pieces of 32 bits find all pairs within 11 bits.
    """
    bit_array = np.unpackbits(np.frombuffer(fingerprint, dtype=np.uint8))
    edges = np.linspace(0, len(bit_array), bands + 1).astype(int)
    return [
        bytes([number]) + np.packbits(bit_array[start:stop]).tobytes()
        for number, (start, stop) in enumerate(itertools.pairwise(edges))
    ]
