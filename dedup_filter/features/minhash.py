"""Min-wise hashing and Broder's features (super-shingles): Henzinger's Algorithm B.

The permutations are a seeded family of linear maps x -> a*x + b over 64-bit words (odd a), which
Broder notes is good enough in practice; the tests check the estimates against exact Jaccard.
"""

from __future__ import annotations

import functools
import math
import struct
from collections.abc import Sequence

import numpy as np

from dedup_filter.features import kernels
from dedup_filter.features.hashing import U64, hash64, seeded_constants


class MinHasher:
    """Min-hash signatures of shingle sets under ``num_perm`` seeded linear permutations."""

    def __init__(self, num_perm: int, seed: int) -> None:
        self.num_perm = num_perm
        self.seed = seed
        self._multipliers = seeded_constants(seed, num_perm, "minhash-a") | np.uint64(1)
        self._offsets = seeded_constants(seed, num_perm, "minhash-b")

    def signature(self, shingles: U64) -> U64:
        """The minimum of every permutation over ``shingles``, shape (num_perm,).

        An empty set has the all-ones signature (it shares nothing with a real document).
        """
        minima: U64 = kernels.permuted_minima(shingles, self._multipliers, self._offsets)
        return minima


def super_shingles(signature: U64, features: int, seed: int) -> list[int]:
    """Broder's features: the signature in ``features`` groups, each hashed with its number."""
    groups = signature.astype(">u8").reshape(features, -1)
    return [
        hash64(struct.pack(">I", number) + group.tobytes(), seed)
        for number, group in enumerate(groups)
    ]


def estimated_resemblance(first: U64, second: U64) -> float:
    """Share of agreeing min-hash values: an unbiased estimate of Jaccard resemblance."""
    return float(np.mean(first == second))


def bbit_sketch(signature: U64, bits: int) -> bytes:
    """The lowest ``bits`` bits of every min-value, packed: Li and König's b-bit min-hash, a
    verification sketch of ceil(num_perm * bits / 8) bytes (21 for 84 values of 2 bits)."""
    return kernels.packed_low_bits(signature, bits).tobytes()


def sketch_resemblance(
    first: bytes, second: bytes, bits: int, values: int, left_out: Sequence[range] = ()
) -> float:
    """Jaccard resemblance estimated from two b-bit sketches of ``values`` min-values, the
    values at the positions of ``left_out`` not counted.

    Two min-values agree with probability r; two that differ still agree in their low ``bits``
    bits with probability 2**-bits, so P(agree) = r + (1 - r) 2**-bits and r = (P - c) / (1 - c)
    (Li and König, for shingle sets much larger than 2**bits). Clipped to [0, 1].
    """
    differing = int.from_bytes(first, "big") ^ int.from_bytes(second, "big")
    shift = 1
    while shift < bits:  # fold every differing bit of a value onto the value's lowest bit
        differing |= differing >> shift
        shift *= 2
    counted, mask = _counted_values(len(first), bits, values, tuple(left_out))
    agreeing = 1 - (differing & mask).bit_count() / counted
    chance = 2.0**-bits
    return min(max((agreeing - chance) / (1 - chance), 0.0), 1.0)


@functools.lru_cache(maxsize=64)
def _counted_values(
    length: int, bits: int, values: int, left_out: tuple[range, ...]
) -> tuple[int, int]:
    """How many values a sketch of ``length`` bytes counts, and the mask of their lowest bits
    (the sketch's integer read big-endian; value i lies ``bits * (i % per_byte)`` bits up in
    byte ``i // per_byte``). Padding is never counted: zero in both sketches, it would agree."""
    per_byte, mask = 8 // bits, bytearray(length)
    counted = [i for i in range(values) if not any(i in positions for positions in left_out)]
    for i in counted:
        mask[i // per_byte] |= 1 << (bits * (i % per_byte))
    return len(counted), int.from_bytes(mask, "big")


def sketch_deviation(resemblance: float, bits: int, values: int) -> float:
    """The standard deviation of ``sketch_resemblance``'s estimate for two sets of Jaccard
    resemblance ``resemblance``: each of the ``values`` min-values agrees in its low ``bits``
    bits with probability P = r + (1 - r) 2**-bits, a binomial count, scaled as the estimate is."""
    chance = 2.0**-bits
    agreeing = resemblance + (1 - resemblance) * chance
    return math.sqrt(agreeing * (1 - agreeing) / values) / (1 - chance)
