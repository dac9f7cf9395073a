"""Near-duplicate drops between two releases of one manual, judged by exact resemblance.

    python bench/release_pairs.py [--bar 0.85]

Every page two releases hold under one path (Python's documentation 3.9, 3.11 and 3.13, LLVM's
13 to 16, the amd64 installation guide of three Debian releases, every language; Debian packages
fetched as the evaluation webs fetch them) is fingerprinted as the filter fingerprints it. For
the pairs that share the super-shingles the combined rule needs (``minhash.min_shared_features``)
the table counts those at an exact 8-token-shingle Jaccard below 0.8 (a drop there loses the
text one release holds alone) and at 0.8 or more whose sketch estimate reaches ``--bar``: counted
whole, and without the groups that proposed the pair (``matching.resemblance``, ``proposed``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint, Fingerprinter
from dedup_filter.features.hashing import span_hashes
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.text import decode_body, html_text, lowered_token_spans
from dedup_filter.index.page_records import kept_feature
from dedup_filter.matching import resemblance
from testweb.evalweb.packages import TREES, unpacked

PAIRS = (
    ("python-3.9", "python-3.11"),
    ("python-3.11", "python-3.13"),
    ("llvm-13", "llvm-14"),
    ("llvm-14", "llvm-15"),
    ("llvm-15", "llvm-16"),
    ("install-amd64-bullseye", "install-en"),
    ("install-amd64-trixie", "install-en"),
)
RIGHT = 0.8


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bar", type=float, default=0.85, help="the resemblance a drop needs")
    args = parser.parse_args(argv)
    config = Config.default()
    fingerprinter = Fingerprinter(config)
    print("# bench/release_pairs.py\n")
    print("| releases | pairs | below 0.8: whole / without | 0.8 or more: whole / without |")
    print("|---|---|---|---|")
    for older, newer in PAIRS:
        counts = [0, 0, 0, 0, 0]
        for first, second, jaccard in _aligned(older, newer, fingerprinter, config):
            right = jaccard >= RIGHT
            counts[0] += 1
            for proposed in (False, True):
                passed = resemblance(first, second, config, proposed=proposed) >= args.bar
                counts[1 + 2 * right + proposed] += passed
        print(f"| {older} / {newer} | {counts[0]} | {counts[1]} / {counts[2]} | "
              f"{counts[3]} / {counts[4]} |")  # fmt: skip
    return 0


def _aligned(
    older: str, newer: str, fingerprinter: Fingerprinter, config: Config
) -> list[tuple[Fingerprint, Fingerprint, float]]:
    """The two releases' pages under one path that share ``min_shared_features`` super-shingles
    and are not the same text, with their exact Jaccard resemblance."""
    roots = [unpacked(TREES[name].package) / TREES[name].directory for name in (older, newer)]
    pairs = []
    for path in sorted(_paths(roots[0]) & _paths(roots[1])):
        bodies = [(root / path).read_bytes() for root in roots]
        first, second = (
            fingerprinter.fingerprint(f"http://{host}.test/{path}", body)
            for host, body in zip(("a", "b"), bodies, strict=True)
        )
        shared = sum(
            kept_feature(one) == kept_feature(other)
            for one, other in zip(first.features, second.features, strict=False)
        )
        if shared < config.minhash.min_shared_features or first.exact == second.exact:
            continue
        one, other = (_shingles(body, config) for body in bodies)
        pairs.append((first, second, len(one & other) / len(one | other)))
    return pairs


def _paths(root: Path) -> set[str]:
    return {
        str(path.relative_to(root))
        for path in root.rglob("*.html")
        if path.is_file() and path.stat().st_size <= 1_000_000
    }


def _shingles(body: bytes, config: Config) -> set[int]:
    """A page's 8-token shingles as the filter hashes them (a fingerprint keeps none)."""
    text = decode_body(body, None, config.text.fallback_encoding).text or ""
    spans = lowered_token_spans(html_text(text, "http://a.test/").text)
    hashes = span_hashes(*spans, config.minhash.seed)
    return set(shingle_hashes(hashes, config.minhash.shingle_width, config.minhash.seed).tolist())


if __name__ == "__main__":
    raise SystemExit(main())
