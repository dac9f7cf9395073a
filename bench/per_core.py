"""Issue 13, target 2: ``check_pages`` against the peer pipeline, per core, on real documentation.

    python bench/per_core.py [DIR ...] [--rounds 3] [--limit 2000] [--max-bytes 100000]
        [--file-paths]

Without a directory it reads the Debian documentation packages the evaluation webs read
(``testweb.evalweb.packages.TREES``, unpacked under ~/.cache/dedup-filter/debdocs and fetched
when missing; other packages in that cache are left out, so the corpus is the same on every
machine): every HTML file of at most ``--max-bytes``, shuffled (seeded). A page's URL is its
path under ``/usr/share/``, as a documentation server publishes it
(``http://docs.test/doc/sqlite3/c3ref/intro.html``: 2-5 directories deep, like a site's pages);
``--file-paths`` gives the whole file path instead (the URLs before the tenth session, 10-12
directories deep: the mirror detector writes an entry a directory, so they weigh its
bookkeeping more than a crawl does).

The peer is ``peers.SelectolaxPeers``: selectolax's own text, ``\\w+`` terms, datasketch
MinHash(84) of 8-token shingles + MinHashLSH and the simhash package's Simhash + SimhashIndex, in
memory. Ours is ``DedupFilter.check_pages`` in batches of 64 (B and
C, persisted in LMDB, sync=true), and ``check_page`` one page at a time for the latencies.

Each round starts fresh indexes; batch by batch, ours checks the batch, then the same pages go one
by one through ``check_page`` and the peer, taking turns, so the load of a shared machine falls on
all alike. Times are CPU time of the process (``time.process_time``: per core, an fsync's wait
excluded), pinned to one CPU. Rates and ratios are medians over rounds.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from peers import SelectolaxPeers
from real_pages import html_files

from dedup_filter import DedupFilter
from testweb.evalweb.packages import unpacked_packages

BATCH = 64
OURS_BATCHED = f"dedup-filter check_pages, batches of {BATCH} (B + C + LMDB)"
OURS_SINGLE = "dedup-filter check_page, one at a time (B + C + LMDB)"
PEER = SelectolaxPeers.name
_COMPILER_DISTRIBUTIONS = ("numba", "llvmlite")
Page = tuple[str, bytes]
_COLD_START = """
import time
started = time.process_time()
import tempfile
from dedup_filter import DedupFilter
with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory) as dedup:
    imported = time.process_time()
    dedup.check_pages([("http://docs.test/a", open({path!r}, "rb").read())])
    first = time.process_time()
    dedup.check_pages([("http://docs.test/b", open({path!r}, "rb").read())])
    second = time.process_time()
print(imported - started, first - imported, second - first)
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    roots = args.roots or [str(path) for path in unpacked_packages()]
    pages = _pages(roots, args.max_bytes, args.limit, args.seed, args.file_paths)
    if not pages:
        print("no HTML files found")
        return 2
    sizes = np.array([len(body) for _, body in pages])
    print(f"# bench/per_core.py --rounds {args.rounds} (pinned to CPU {cpu})\n")
    print(
        f"{len(pages)} pages, median {np.median(sizes) / 1000:.1f} KB, "
        f"max {sizes.max() / 1000:.1f} KB\n"
    )
    _warm_up(pages[:BATCH])
    rounds = [_round(pages) for _ in range(args.rounds)]
    _print_table(rounds)
    _print_cold_start(max((body for _, body in pages), key=len))
    return 0


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "roots", nargs="*", help="directories to read (default: the evaluation webs' packages)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds on fresh indexes")
    parser.add_argument("--limit", type=int, default=2_000, help="pages at most")
    parser.add_argument("--max-bytes", type=int, default=100_000, help="largest page read")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffle")
    parser.add_argument(
        "--file-paths", action="store_true", help="URLs of whole file paths, not site paths"
    )
    return parser.parse_args(argv)


def _pages(roots: list[str], max_bytes: int, limit: int, seed: int, file_paths: bool) -> list[Page]:
    files = [path for path in html_files(roots) if path.stat().st_size <= max_bytes]
    random.Random(seed).shuffle(files)
    return [("http://docs.test/" + _url_path(path, file_paths), path.read_bytes())
            for path in files[:limit]]  # fmt: skip


def _url_path(path: Path, file_paths: bool) -> str:
    """The page's path on the documentation server: under ``/usr/share/`` when it is there."""
    whole = path.as_posix().lstrip("/")
    return whole if file_paths else whole.split("/usr/share/", 1)[-1]


def _warm_up(pages: list[Page]) -> None:
    """Caches, tables and lazy imports filled before anything is timed (cold start: see below)."""
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory) as dedup:
        dedup.check_pages(pages)
    peer = SelectolaxPeers()
    for page in pages:
        peer.check(*page)


def _round(pages: list[Page]) -> dict[str, np.ndarray]:
    """CPU ms per page of each pipeline; ours batched is a batch's time spread over its pages."""
    times: dict[str, list[float]] = {OURS_BATCHED: [], OURS_SINGLE: [], PEER: []}
    peer = SelectolaxPeers()
    with (
        tempfile.TemporaryDirectory() as batched_dir,
        tempfile.TemporaryDirectory() as single_dir,
        DedupFilter.open(batched_dir) as batched,
        DedupFilter.open(single_dir) as single,
    ):
        for first in range(0, len(pages), BATCH):
            batch = pages[first : first + BATCH]
            started = time.process_time()
            batched.check_pages(batch)
            times[OURS_BATCHED] += [(time.process_time() - started) / len(batch)] * len(batch)
            for page in batch:
                for name, check in ((OURS_SINGLE, single.check_page), (PEER, peer.check)):
                    started = time.process_time()
                    check(*page)
                    times[name].append(time.process_time() - started)
    return {name: np.array(values) * 1000 for name, values in times.items()}


def _print_table(rounds: list[dict[str, np.ndarray]]) -> None:
    print(
        "| pipeline (one core, CPU time) | pages/s | p50 ms | p99 ms "
        "| pages/s relative to the peer |"
    )
    print("|---|---:|---:|---:|---:|")
    for name in (OURS_BATCHED, OURS_SINGLE, PEER):
        rates = [1000 / times[name].mean() for times in rounds]
        ratios = [times[PEER].mean() / times[name].mean() for times in rounds]
        latency = "| - | -" if name == OURS_BATCHED else (
            f"| {np.median([np.percentile(times[name], 50) for times in rounds]):.2f} "
            f"| {np.median([np.percentile(times[name], 99) for times in rounds]):.2f}"
        )  # fmt: skip
        spread = f" ({min(ratios):.2f}-{max(ratios):.2f})" if len(rounds) > 1 else ""
        print(f"| {name} | {np.median(rates):,.0f} {latency} | {np.median(ratios):.2f}x{spread} |")
    print()


def _print_cold_start(body: bytes) -> None:
    """What a fresh process pays before its first decision: imports, tables, the kernels' JIT
    (compiled on an installation's first use, loaded from numba's cache afterwards)."""
    print("| fresh process (CPU ms) | import | first page | second page |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as empty_cache:  # also the cwd: not on the import path
        page = Path(empty_cache) / "page.html"
        page.write_bytes(body)
        script = _COLD_START.format(path=str(page))
        for label, environment in (
            ("kernels compiled (first use of an installation)", {"NUMBA_CACHE_DIR": empty_cache}),
            ("kernels loaded from numba's cache", {}),
        ):
            output = subprocess.run(
                [sys.executable, "-c", script],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, **environment},
                cwd=empty_cache,
            ).stdout
            imported, first, second = (float(value) * 1000 for value in output.split())
            print(f"| {label} | {imported:.0f} | {first:.0f} | {second:.1f} |")
    sizes = {name: _installed_mb(name) for name in _COMPILER_DISTRIBUTIONS}
    listed = ", ".join(f"{name} {size:.0f} MB" for name, size in sizes.items())
    print(f"\ninstalled for the kernels: {listed} (total {sum(sizes.values()):.0f} MB)\n")


def _installed_mb(distribution: str) -> float:
    files = importlib.metadata.distribution(distribution).files or []
    return sum(Path(file.locate()).stat().st_size for file in files) / 1e6


if __name__ == "__main__":
    sys.exit(main())
