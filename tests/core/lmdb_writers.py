"""Workers for the LMDB concurrency tests: importable by spawned children, runnable as a script.

Each worker opens its own environment after it starts, as every process sharing an index must.
Run as a script, it writes batches until killed and prints the number of each committed batch.
"""

from __future__ import annotations

import functools
import sys
import time
from multiprocessing.synchronize import Barrier

from dedup_filter import Config
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, LmdbIndex, PageRecord


def synthetic_record(page_id: int, url: str) -> PageRecord:
    """A page record whose features and simhash derive from its URL (distinct per URL)."""
    features = tuple(hash64(f"{url}#{group}", 1) for group in range(6))
    simhash = b"".join(hash64(f"{url}@{word}", 2).to_bytes(8, "big") for word in range(6))
    return PageRecord(page_id, url, hash64(url, 3), 100, features, simhash, 0.0)


def put_batch(view: IndexView, urls: list[str]) -> None:
    for url in urls:
        view.put_page(synthetic_record(view.new_page_id(), url))


def batch_urls(prefix: str, batch: int, size: int) -> list[str]:
    return [f"http://{prefix}.example/b{batch}/p{item}.html" for item in range(size)]


_peers: Barrier | None = None  # set in pool workers by ``join_peers``


def join_peers(barrier: Barrier) -> None:
    """Pool initializer: workers wait for each other before they touch the index."""
    global _peers
    _peers = barrier


def _start_with_peers() -> None:
    if _peers is not None:
        _peers.wait(timeout=60)


def write_pages(path: str, prefix: str, batches: int, size: int) -> tuple[int, float, float]:
    """Write ``batches`` batches of ``size`` distinct URLs under ``prefix`` into a 1 MB map.

    Returns:
        Pages written, and the wall-clock times of the first and the last commit.
    """
    index = LmdbIndex.open(path, Config.default().with_overrides({"index.map_size_mb": 1}))
    _start_with_peers()
    commits = []
    try:
        for batch in range(batches):
            urls = batch_urls(prefix, batch, size)
            index.transact(functools.partial(put_batch, urls=urls))
            commits.append(time.time())
    finally:
        index.close()
    return batches * size, commits[0], commits[-1]


def watch_counts(path: str, seconds: float, stop_at: int) -> set[int]:
    """Every page count a reader sees within ``seconds`` or until ``stop_at`` pages are visible."""
    index = LmdbIndex.open(path, Config.default())
    _start_with_peers()
    seen: set[int] = set()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and stop_at not in seen:
            with index.read() as view:
                seen.add(view.count("pages"))
    finally:
        index.close()
    return seen


def write_until_killed(path: str, size: int, max_batches: int) -> None:
    """Commit batch after batch, announcing each on stdout only after its commit returned."""
    index = LmdbIndex.open(path, Config.default())
    for batch in range(max_batches):
        urls = batch_urls("killed", batch, size)
        index.transact(functools.partial(put_batch, urls=urls))
        print(batch, flush=True)
    index.close()


if __name__ == "__main__":
    write_until_killed(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
