"""Charikar's random-projection fingerprint ("simhash"): Henzinger's Algorithm C.

Every token is projected to ``bits`` dimensions of +1/-1 (the bits of its mixed hash), summed
over the page (a token counts as often as it occurs); the fingerprint keeps the signs. Similar
token multisets give fingerprints that agree in most bits.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from dedup_filter.features import kernels
from dedup_filter.features.hashing import U64, seeded_constants


def simhash(token_hashes: U64, bits: int, seed: int) -> bytes:
    """The ``bits``-bit fingerprint of a token sequence, as ``bits // 8`` big-endian bytes."""
    words = kernels.bit_majorities(token_hashes, _word_seeds(seed, bits // 64))
    return bytes(words.astype(">u8").tobytes())


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
    value, bits = int.from_bytes(fingerprint, "big"), len(fingerprint) * 8
    keys = []
    for number, (start, stop) in enumerate(_band_edges(bits, bands)):
        width = stop - start
        piece = (value >> (bits - stop)) & ((1 << width) - 1)
        padding = -width % 8  # np.packbits' zero bits after the last one
        keys.append(bytes([number]) + (piece << padding).to_bytes((width + padding) // 8, "big"))
    return keys


@functools.cache
def _band_edges(bits: int, bands: int) -> tuple[tuple[int, int], ...]:
    """Where each piece starts and stops, in bits from the fingerprint's first."""
    edges = np.linspace(0, bits, bands + 1).astype(int).tolist()
    return tuple(itertools.pairwise(edges))
