"""Token w-shingles as 64-bit fingerprints (Broder's S(D)), computed in one compiled pass."""

from __future__ import annotations

import functools

import numpy as np

from dedup_filter.features import kernels
from dedup_filter.features.hashing import U64, seeded_constants


def shingle_hashes(token_hashes: U64, width: int, seed: int) -> U64:
    """Fingerprints of every run of ``width`` consecutive tokens, shape (n - width + 1,).

    A document shorter than ``width`` tokens is one shingle. Each shingle is a position-weighted
    sum of its token hashes (odd weights, so every position matters), then mixed.
    """
    if len(token_hashes) == 0:
        return np.empty(0, dtype=np.uint64)
    width = min(width, len(token_hashes))
    result: U64 = kernels.shingle_values(token_hashes, _weights(seed, width))
    return result


@functools.cache
def _weights(seed: int, width: int) -> U64:
    weights = seeded_constants(seed, width, "shingle") | np.uint64(1)
    weights.flags.writeable = False
    return weights
