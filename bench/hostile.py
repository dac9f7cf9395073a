"""Worst time and peak memory of ``check_page`` per class of hostile page, up to the body limit.

    python bench/hostile.py [--sizes 50000,500000,5000000] [--repeats 3] [--only CLASS ...]

Each class of ``testweb.hostile.MARKUP_SHAPES`` (and a real page for comparison) is grown to each
size and checked ``--repeats`` times in a child process of its own, so its peak resident memory is
its own: the table shows the median CPU and wall time at the size where the class is slowest, and
the most memory a check added to the child's resident set, the body already made (Linux: the peak
is reset through ``/proc/self/clear_refs``). CPU time is the fair figure on a shared machine; wall
time is what a crawl waits.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dedup_filter import Config, DedupFilter
from testweb.corpus import documentation_pages
from testweb.hostile import MARKUP_SHAPES, Shape

REAL_PAGE = "real pages, repeated"


def real_page(size: int) -> bytes:
    """The largest pydoc pages, joined until ``size``: what a long documentation page costs."""
    pages = sorted(documentation_pages(), key=lambda page: len(page.html), reverse=True)[:20]
    joined = b"".join(page.html for page in pages)
    return (joined * (size // len(joined) + 1))[:size]


def measure(shape: Shape, size: int, repeats: int) -> tuple[float, float, float]:
    """(median CPU s, median wall s, peak MB gained) for one class at one size, in this process."""
    body = shape(size)
    with (
        tempfile.TemporaryDirectory() as directory,
        DedupFilter.open(directory, Config.default()) as dedup,
    ):
        dedup.check_page("http://warm.test/", b"<p>warm up the caches</p>")
        baseline = _reset_peak()
        cpu, wall = [], []
        for number in range(repeats):
            started_cpu, started = time.process_time(), time.perf_counter()
            dedup.check_page(f"http://hostile.test/{number}", body)
            cpu.append(time.process_time() - started_cpu)
            wall.append(time.perf_counter() - started)
    return statistics.median(cpu), statistics.median(wall), (_memory_kb("VmHWM") - baseline) / 1024


def _reset_peak() -> int:
    """Reset the peak resident set to the current one, and return it (KiB)."""
    Path("/proc/self/clear_refs").write_text("5")
    return _memory_kb("VmRSS")


def _memory_kb(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))  # type: ignore[union-attr]


def _child(name: str, size: int, repeats: int) -> tuple[float, float, float]:
    shape: Callable[[int], bytes] = real_page if name == REAL_PAGE else MARKUP_SHAPES[name]
    return measure(shape, size, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50000,500000,5000000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="+", metavar="CLASS", help="these classes alone")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    context = multiprocessing.get_context("spawn")
    print("| class | slowest at | CPU s (median) | wall s (median) | peak MB gained |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only or [REAL_PAGE, *MARKUP_SHAPES]:
        results = []
        for size in sizes:
            with context.Pool(1) as pool:
                results.append((pool.apply(_child, (name, size, args.repeats)), size))
        (cpu, wall, _), size = max(results)
        peak = max(0.0, *(result[2] for result, _ in results))
        print(f"| {name} | {size / 1e6:.2f} MB | {cpu:.3f} | {wall:.3f} | {peak:.0f} |", flush=True)


if __name__ == "__main__":
    main()
