"""Token w-shingles as 64-bit fingerprints (Broder's S(D)), computed without a Python loop."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from dedup_filter.features.hashing import U64, mix64, seeded_constants


def shingle_hashes(token_hashes: U64, width: int, seed: int) -> U64:
    """Fingerprints of every run of ``width`` consecutive tokens, shape (n - width + 1,).

    A document shorter than ``width`` tokens is one shingle. Each shingle is a position-weighted
    sum of its token hashes (odd weights, so every position matters), then mixed.
    """
    if len(token_hashes) == 0:
        return np.empty(0, dtype=np.uint64)
    width = min(width, len(token_hashes))
    weights = seeded_constants(seed, width, "shingle") | np.uint64(1)
    windows = sliding_window_view(token_hashes, width)
    with np.errstate(over="ignore"):
        combined = (windows * weights).sum(axis=1, dtype=np.uint64)
    return mix64(combined)
