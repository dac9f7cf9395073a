"""``dedup-filter curve``: Broder's P(k, s, r) against resemblance, to choose feature parameters."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

import numpy as np

from dedup_filter.curve import acceptance_probability, resemblance_at

from .options import config_options, load_config

LANDMARKS = (0.01, 0.5, 0.99)
_BAR_WIDTH = 40


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "curve",
        parents=[config_options()],
        help="print Broder's acceptance probability P(k,s,r) against resemblance",
        description=(
            "The probability that two pages of resemblance rho share at least r of k features of "
            "s min-hash values each. k, s and r default to the configuration "
            "(minhash.features, num_perm / features, min_shared_features)."
        ),
    )
    parser.add_argument("--k", type=int, help="features per page")
    parser.add_argument("--s", type=int, help="min-hash values per feature")
    parser.add_argument("--r", type=int, help="shared features needed")
    parser.add_argument("--step", type=float, default=0.05, help="resemblance step of the table")
    parser.add_argument(
        "--png", metavar="FILE", help="also draw the curve (needs matplotlib: the 'plot' extra)"
    )


def run(args: argparse.Namespace) -> int:
    minhash = load_config(args).minhash
    k = minhash.features if args.k is None else args.k
    s = minhash.values_per_feature if args.s is None else args.s
    r = minhash.min_shared_features if args.r is None else args.r
    if not 0.0 < args.step <= 0.5:
        print("dedup-filter curve: --step must lie in (0, 0.5]", file=sys.stderr)
        return 2
    try:
        rows = np.linspace(0.0, 1.0, round(1.0 / args.step) + 1)
        probabilities = acceptance_probability(rows, k, s, r)
        landmarks = {p: resemblance_at(p, k, s, r) for p in LANDMARKS} if r > 0 else {}
    except ValueError as error:
        print(f"dedup-filter curve: {error}", file=sys.stderr)
        return 2
    if args.png and not _matplotlib_available():
        hint = "install it with: pip install 'dedup-filter[plot]'"
        print(f"dedup-filter curve: --png needs matplotlib; {hint}", file=sys.stderr)
        return 2
    print(f"P(k={k}, s={s}, r={r}): probability that two pages share >= {r} of {k} features")
    print(f"{'resemblance':>11}  {'P(accept)':>10}")
    for rho, probability in zip(rows, probabilities, strict=True):
        bar = "#" * round(probability * _BAR_WIDTH)
        print(f"{rho:>11.3f}  {probability:>10.3g}  {bar}".rstrip())
    for probability, rho in landmarks.items():
        print(f"P = {probability:g} at resemblance {rho:.4f}")
    if args.png:
        _draw(args.png, k, s, r, landmarks)
        print(f"wrote {args.png}")
    return 0


def _matplotlib_available() -> bool:
    try:
        importlib.import_module("matplotlib")  # the optional extra "plot"
    except ImportError:
        return False
    return True


def _draw(path: str, k: int, s: int, r: int, landmarks: dict[float, float]) -> None:
    importlib.import_module("matplotlib").use("Agg")  # files only: no display needed
    plt = importlib.import_module("matplotlib.pyplot")

    rho = np.linspace(0.0, 1.0, 1001)
    figure, axes = plt.subplots(figsize=(7, 4.5))
    axes.plot(rho, acceptance_probability(rho, k, s, r), label=f"P(k={k}, s={s}, r={r})")
    for probability, at in landmarks.items():
        axes.plot([at], [probability], marker="o", color="grey")
        axes.annotate(
            f"P = {probability:g} at {at:.3f}",
            (at, max(probability, 0.05)),
            xytext=(-8, 0),
            textcoords="offset points",
            ha="right",
            va="center",
            fontsize=8,
        )
    axes.set(xlabel="resemblance", ylabel="probability of acceptance", xlim=(0, 1), ylim=(0, 1))
    axes.legend(loc="upper left")
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
