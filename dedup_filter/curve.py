"""Broder's acceptance curve: how likely two pages of a given resemblance share enough features.

With k features of s min-hash values each, two pages of resemblance rho agree on one feature with
probability rho**s, independently per feature, so they share at least r features with probability
P(k, s, r) = sum_{i=r..k} C(k, i) rho**(s*i) (1 - rho**s)**(k-i). The curve is a sharp high-pass
filter; choosing k, s and r means choosing where it rises (``dedup-filter curve`` prints it).
"""

from __future__ import annotations

from math import comb

import numpy as np
import numpy.typing as npt

_BISECTION_STEPS = 60  # halves [0, 1] below 1e-18, past float precision


def _check_parameters(k: int, s: int, r: int) -> None:
    if k < 1 or s < 1:
        msg = f"k (features) and s (values per feature) must be >= 1, got k={k}, s={s}"
        raise ValueError(msg)
    if not 0 <= r <= k:
        msg = f"r (shared features) must lie in 0..k={k}, got r={r}"
        raise ValueError(msg)


def acceptance_probability(
    resemblance: float | npt.ArrayLike, k: int, s: int, r: int
) -> npt.NDArray[np.float64]:
    """P(k, s, r) at each resemblance: the probability that the pair shares at least r features.

    Args:
        resemblance: one value or an array of values in [0, 1].
        k: features per page (Henzinger's B: 6).
        s: min-hash values per feature (B: 14).
        r: features two pages must share to be B-similar (B: 2).

    Returns:
        An array of the shape of ``resemblance`` (shape () for a scalar).

    Raises:
        ValueError: a resemblance outside [0, 1] or an impossible k, s, r.

    Example:
        >>> float(acceptance_probability(0.5, 6, 14, 2)) < 1e-7
        True
    """
    _check_parameters(k, s, r)
    rho = np.asarray(resemblance, dtype=np.float64)
    if np.any(~((rho >= 0.0) & (rho <= 1.0))):
        msg = "resemblance must lie in [0, 1]"
        raise ValueError(msg)
    agree = rho**s  # one feature agrees
    shared = np.arange(r, k + 1)  # shape (k - r + 1,)
    weights = np.array([comb(k, i) for i in shared], dtype=np.float64)
    terms = weights * agree[..., None] ** shared * (1.0 - agree[..., None]) ** (k - shared)
    # rounding can carry the sum just past 1
    return np.asarray(np.clip(terms.sum(axis=-1), 0.0, 1.0), dtype=np.float64)


def resemblance_at(probability: float, k: int, s: int, r: int) -> float:
    """The resemblance where P(k, s, r) equals ``probability`` (the curve rises monotonically).

    Raises:
        ValueError: ``probability`` outside (0, 1), or r = 0 (the curve is then constant at 1).

    Example:
        >>> round(resemblance_at(0.5, 6, 14, 2), 3)
        0.909
    """
    _check_parameters(k, s, r)
    if r == 0:
        msg = "with r = 0 every pair is accepted: P(k, s, 0) = 1 at every resemblance"
        raise ValueError(msg)
    if not 0.0 < probability < 1.0:
        msg = f"probability must lie strictly between 0 and 1, got {probability}"
        raise ValueError(msg)
    low, high = 0.0, 1.0
    for _ in range(_BISECTION_STEPS):
        middle = (low + high) / 2
        if acceptance_probability(middle, k, s, r) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2
