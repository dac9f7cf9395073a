"""Bytes on disk per page at scale: fill a fresh index with distinct pages of real text.

    python bench/disk.py [--pages 100000] [--batch 1000] [--seed S]
    python bench/disk.py --live INDEX_DIR     # the tables of an index being written, per kept page

Each generated page holds six documentation entries of the corpus (40-150 words each) drawn at
random, so pages share little text and nearly all are kept; they go through ``check_pages`` in
batches of ``--batch`` pages (one write transaction each: 1 is a Scrapy crawl's check_page, 500
the stream processor's default poll). The report gives the data file's allocated size per kept
page, as written, and LMDB's own accounting per sub-database: the pages in use, whose sum is what
a compacting copy would keep; the rest of the file is free pages that later writes reuse (a write
transaction copies every page it changes, and a page it frees is reusable two transactions
later, so the larger the batch, the more free pages). A compacting copy itself is not made:
``Environment.copy(compact=True)`` of py-lmdb 3.0.0 (LMDB 0.9.36) crashes with a segmentation
fault on an index whose ``dupsort`` tables hold many values under one key (see
docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import lmdb

from dedup_filter import Config, DedupFilter
from testweb.variants import entry_words, main_items

BATCH = 1_000
ENTRIES_PER_PAGE = 6
Page = tuple[str, bytes]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=100_000, help="pages to index")
    parser.add_argument("--batch", type=int, default=BATCH, help="pages per write transaction")
    parser.add_argument("--seed", type=int, default=0, help="seed of the page generator")
    parser.add_argument(
        "--live", type=Path, help="only report the tables of this index (a long run's, meanwhile)"
    )
    args = parser.parse_args(argv)
    if args.live:
        _print_tables(args.live, None)
        return
    print(f"# bench/disk.py --pages {args.pages} --batch {args.batch} --seed {args.seed}\n")
    scale_run(args.pages, Config.default(), args.seed, args.batch)


def scale_run(count: int, config: Config, seed: int, batch_size: int = BATCH) -> None:
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        with DedupFilter.open(directory, config) as dedup:
            kept, batch_seconds = 0, []
            for batch in _batches(generated_pages(count, seed), batch_size):
                batch_start = time.perf_counter()
                kept += sum(not decision.dropped for decision in dedup.check_pages(batch))
                batch_seconds.append(time.perf_counter() - batch_start)
            dedup.index.sync()
            disk = dedup.index.disk_bytes()
        elapsed = time.perf_counter() - start
        per_page = max(kept, 1)
        print(
            f"{count:,} pages in batches of {batch_size} ({count / elapsed:,.0f} pages/s with "
            f"check_pages), {kept:,} kept; data.mdb as written: {disk:,} bytes = "
            f"{disk / per_page:,.0f} bytes/page; a batch took "
            f"{statistics.median(batch_seconds):.2f} s (median), {max(batch_seconds):.2f} at most\n"
        )
        rest = disk - _print_tables(Path(directory), per_page)
        print(
            f"the rest of data.mdb (free pages, the free list, the table of tables): {rest:,}"
            f" bytes = {rest / per_page:,.0f} bytes/page\n"
        )


def generated_pages(count: int, seed: int) -> Iterator[Page]:
    """Distinct pages of real text: six documentation entries each, plus a serial number."""
    rng = random.Random(seed)
    paragraphs = [" ".join(entry_words(item)) for item in main_items()]
    for number in range(count):
        text = "</p><p>".join(rng.sample(paragraphs, ENTRIES_PER_PAGE))
        host = f"host{number % 997}.site{number % 13}.example"
        url = f"http://{host}/docs/part-{number // 997}/page-{number}.html"
        yield url, f"<html><body><h1>Page {number}</h1><p>{text}</p></body></html>".encode()


def _batches(pages: Iterator[Page], size: int) -> Iterator[list[Page]]:
    batch: list[Page] = []
    for page in pages:
        batch.append(page)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _print_tables(directory: Path, kept: int | None) -> int:
    """LMDB's own accounting per sub-database (4 KB pages in use), read-only; their bytes.
    ``kept`` None: a live index (read as a registered reader beside its writer), whose ``pages``
    table counts its kept pages."""
    env = lmdb.open(str(directory), readonly=True, lock=kept is None, max_dbs=32)
    with env.begin() as txn:
        names = [bytes(key).decode() for key, _ in txn.cursor()]
        stats = {
            name: txn.stat(env.open_db(name.encode(), txn=txn, create=False)) for name in names
        }
    if kept is None:
        kept = max(stats["pages"]["entries"], 1)
        print(f"{kept:,} pages kept so far\n")
    print("| table | entries | B-tree pages | bytes | bytes/kept page |")
    print("|---|---:|---:|---:|---:|")
    total = 0
    for name, stat in stats.items():
        pages = stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]
        total += pages * stat["psize"]
        print(
            f"| {name} | {stat['entries']:,} | {pages:,} | {pages * stat['psize']:,} "
            f"| {pages * stat['psize'] / kept:,.0f} |"
        )
    print(f"| all tables (pages in use) | | | {total:,} | {total / kept:,.0f} |\n")
    env.close()
    return total


if __name__ == "__main__":
    sys.exit(main())
