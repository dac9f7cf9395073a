"""The write transactions that close a run of postings (``dedup_filter/index/posting_runs.py``),
against the others: the index's own work only, on synthetic records (no parsing).

    python bench/run_pauses.py [--pages 140000] [--batch 1000]

A batch that files the first page of a new run of 2**14 ids rewrites the run before it in key
order, merged with the closed runs of its size: the larger the merged run, the longer the batch.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence

from dedup_filter import Config
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, LmdbIndex, PageRecord


def synthetic_record(page_id: int, number: int) -> PageRecord:
    """A record with uniform hashes of its number: distinct pages, nothing shared."""
    url = f"http://host{number % 997}.example/docs/part-{number // 997}/page-{number}.html"
    features = tuple(hash64(f"{number}#{group}", 1) for group in range(6))
    simhash = b"".join(hash64(f"{number}@{word}", 2).to_bytes(8, "big") for word in range(6))
    return PageRecord(page_id, url, hash64(url, 3), 100, features, simhash, 0.0)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=140_000)
    parser.add_argument("--batch", type=int, default=1_000)
    args = parser.parse_args(argv)
    timings = []
    with tempfile.TemporaryDirectory() as directory:
        index = LmdbIndex.open(directory, Config.default())

        def put(view: IndexView, numbers: range) -> None:
            for number in numbers:
                view.put_page(synthetic_record(view.new_page_id(), number))

        for start in range(0, args.pages, args.batch):
            numbers = range(start, min(start + args.batch, args.pages))
            began = time.perf_counter()
            index.transact(lambda view, numbers=numbers: put(view, numbers))
            timings.append((time.perf_counter() - began, start))
        index.close()
    median = statistics.median(seconds for seconds, _ in timings)
    print(f"{args.pages:,} pages in batches of {args.batch:,}: median batch {median:.3f} s")
    for seconds, start in sorted(timings, reverse=True)[:6]:
        print(f"  {seconds:.3f} s: the batch of pages {start + 1:,}-{start + args.batch:,}")


if __name__ == "__main__":
    sys.exit(main())
