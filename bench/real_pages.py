"""Every HTML file under some directories through ``check_page``: speed, decisions, exceptions.

    python bench/real_pages.py [DIR ...] [--limit 20000] [--seed 1]

Without a directory it takes the HTML documentation this machine has: the installed Rust
toolchains' manuals and API docs and /usr/share/doc. Files are shuffled (seeded), each is one
``check_page`` on a fresh index (sync=true), all under one made-up host. It prints pages/s,
latency percentiles, the decisions by reason, any exception, and the slowest pages.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from dedup_filter import DedupFilter

_DEFAULT_ROOTS = ("~/.rustup/toolchains/*/share/doc/rust/html", "/usr/share/doc")
_SLOWEST = 5


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    files = html_files(args.roots or list(_DEFAULT_ROOTS))
    random.Random(args.seed).shuffle(files)
    files = files[: args.limit]
    if not files:
        print("no HTML files found")
        return 2
    latencies, reasons, errors = [], Counter(), []
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory) as dedup:
        started = time.perf_counter()
        for file in files:
            body = file.read_bytes()
            begun = time.perf_counter()
            try:
                decision = dedup.check_page("http://docs.test/" + file.as_posix().lstrip("/"), body)
            except Exception as error:  # the point is to count them, whatever they are
                errors.append(f"{file}: {error!r}")
                continue
            latencies.append((time.perf_counter() - begun, len(body), file))
            reasons[f"{decision.action}/{decision.reason}"] += 1
        seconds = time.perf_counter() - started
    times = np.array([latency for latency, _, _ in latencies]) * 1000
    print(f"# bench/real_pages.py: {len(files)} files, {seconds:.1f} s\n")
    print(f"{len(files) / seconds:.0f} pages/s; p50 {np.percentile(times, 50):.2f} ms,")
    print(f"p99 {np.percentile(times, 99):.2f} ms, max {times.max():.1f} ms")
    print(f"decisions: {dict(reasons.most_common())}")
    print(f"exceptions: {len(errors)}")
    for line in errors[:10]:
        print("  " + line)
    print("slowest:")
    for latency, size, file in sorted(latencies, key=lambda item: item[0])[-_SLOWEST:]:
        print(f"  {latency * 1000:.1f} ms  {size:,} bytes  {file}")
    return 0


def html_files(roots: list[str]) -> list[Path]:
    """Every HTML file under ``roots`` (globs allowed), sorted."""
    found = set()
    for root in roots:
        for directory in glob.glob(os.path.expanduser(root)):
            found.update(glob.glob(f"{directory}/**/*.htm*", recursive=True))
    return sorted(Path(path) for path in found if os.path.isfile(path))


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("roots", nargs="*", help="directories (globs allowed) to read")
    parser.add_argument("--limit", type=int, default=20_000, help="files at most")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffle")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
