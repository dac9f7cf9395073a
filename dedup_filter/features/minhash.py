"""Min-wise hashing and Broder's features (super-shingles): Henzinger's Algorithm B.

The permutations are a seeded family of linear maps x -> a*x + b over 64-bit words (odd a), which
Broder notes is good enough in practice; the tests check the estimates against exact Jaccard.
"""

from __future__ import annotations

import struct
import threading

import numpy as np

from dedup_filter.features.hashing import U64, hash64, seeded_constants

_CHUNK = 1024  # shingles per step: the (num_perm, chunk) work array stays in cache


class MinHasher:
    """Min-hash signatures of shingle sets under ``num_perm`` seeded linear permutations."""

    def __init__(self, num_perm: int, seed: int) -> None:
        self.num_perm = num_perm
        self.seed = seed
        self._multipliers = (seeded_constants(seed, num_perm, "minhash-a") | np.uint64(1))[:, None]
        self._offsets = seeded_constants(seed, num_perm, "minhash-b")[:, None]
        self._local = threading.local()

    def signature(self, shingles: U64) -> U64:
        """The minimum of every permutation over ``shingles``, shape (num_perm,).

        An empty set has the all-ones signature (it shares nothing with a real document).
        """
        minimum = np.full(self.num_perm, np.iinfo(np.uint64).max, dtype=np.uint64)
        work = self._work_array()
        with np.errstate(over="ignore"):
            for start in range(0, len(shingles), _CHUNK):
                chunk = shingles[start : start + _CHUNK]
                permuted = work[:, : len(chunk)]
                np.multiply(chunk[None, :], self._multipliers, out=permuted)
                np.add(permuted, self._offsets, out=permuted)
                np.minimum(minimum, permuted.min(axis=1), out=minimum)
        return minimum

    def _work_array(self) -> U64:
        """This thread's (num_perm, chunk) scratch array.

        Reused across calls because a fresh array of this size is mapped from the OS every time,
        and its page faults cost several times the arithmetic (1.4 ms instead of 0.2 ms for
        2,666 shingles, measured by bench/speed.py's corpus).
        """
        work: U64 | None = getattr(self._local, "work", None)
        if work is None:
            work = self._local.work = np.empty((self.num_perm, _CHUNK), dtype=np.uint64)
        return work


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
