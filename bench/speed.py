"""One core, one run: check_page speed, where the time goes, bytes on disk, and the peers.

    python bench/speed.py [--pages N] [--scale-pages 100000] [--seed S]

Pages come from the labelled real-text corpus (testweb.labelled: pydoc pages of the standard
library in site templates, with their near-duplicates and hard negatives), in crawl order. The
process is pinned to one CPU. Peers get the same tokens from the same parser (bench/peers.py), so
the ratios compare what each does after parsing, with parsing included on both sides. The scale
run fills a fresh index with ``--scale-pages`` distinct pages of real text (six documentation
entries each) in batches, and reports LMDB's bytes on disk per kept page and per table.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import lmdb
import numpy as np
from peers import BothPeers, DatasketchPipeline, SimhashPipeline
from selectolax.lexbor import LexborHTMLParser

from dedup_filter import Config, DedupFilter
from dedup_filter.hashing import sequence_hash, token_hashes
from dedup_filter.minhash import MinHasher, super_shingles
from dedup_filter.shingles import shingle_hashes
from dedup_filter.simhash import simhash
from dedup_filter.text import decode_body, html_tokens
from testweb.labelled import labelled_corpus
from testweb.variants import entry_words, main_items

SMALL_PAGE_BYTES = 100_000
SCALE_BATCH = 1_000
Page = tuple[str, bytes]


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    cpu = _pin_to_one_core()
    pages = _corpus(args.seed, args.pages)
    sizes = np.array([len(body) for _, body in pages])
    print(f"# bench/speed.py --pages {len(pages)} --seed {args.seed} (pinned to CPU {cpu})")
    print(
        f"corpus: {len(pages)} pages, median {np.median(sizes) / 1000:.1f} KB, "
        f"max {sizes.max() / 1000:.0f} KB, {np.mean(sizes <= SMALL_PAGE_BYTES):.0%} <= 100 KB\n"
    )
    config = Config.default()
    ours = _run_filter(pages, config)
    fingerprint_ms = _time_fingerprints(pages, config)
    rows = [("dedup-filter check_page (B + C + LMDB)", ours.latencies_ms)]
    for pipeline in (DatasketchPipeline(), SimhashPipeline(), BothPeers()):
        rows.append((pipeline.name, _latencies(pages, pipeline.check)))
    _print_throughput(rows, sizes)
    _print_stages(pages, config, ours.latencies_ms, fingerprint_ms)
    print(
        f"bytes on disk: {ours.disk_bytes:,} for {ours.kept} kept pages = "
        f"{ours.disk_bytes / max(ours.kept, 1):,.0f} bytes/page\n"
    )
    if args.scale_pages:
        _scale_run(args.scale_pages, config, args.seed)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--pages", type=int, default=0, help="pages of the corpus to use (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the labelled corpus")
    parser.add_argument(
        "--scale-pages", type=int, default=100_000, help="pages of the disk-size run (0: skip)"
    )
    return parser.parse_args(argv)


def _pin_to_one_core() -> int:
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def _corpus(seed: int, limit: int) -> list[Page]:
    pages = [(page.url, page.body) for page in labelled_corpus(seed, originals=10_000)]
    return pages[:limit] if limit else pages


class _FilterRun:
    def __init__(self, latencies_ms: np.ndarray, disk_bytes: int, kept: int) -> None:
        self.latencies_ms = latencies_ms
        self.disk_bytes = disk_bytes
        self.kept = kept


def _run_filter(pages: list[Page], config: Config) -> _FilterRun:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        latencies = []
        kept = 0
        for url, body in pages:
            start = time.perf_counter()
            decision = dedup.check_page(url, body)
            latencies.append(time.perf_counter() - start)
            kept += not decision.dropped
        dedup.index.sync()
        return _FilterRun(np.array(latencies) * 1000, dedup.index.disk_bytes(), kept)


def _time_fingerprints(pages: list[Page], config: Config) -> np.ndarray:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        return _latencies(pages, dedup.fingerprint)


def _latencies(pages: list[Page], check: Callable[[str, bytes], object]) -> np.ndarray:
    latencies = []
    for url, body in pages:
        start = time.perf_counter()
        check(url, body)
        latencies.append(time.perf_counter() - start)
    return np.array(latencies) * 1000


def _print_throughput(rows: list[tuple[str, np.ndarray]], sizes: np.ndarray) -> None:
    ours = rows[0][1]
    small = sizes <= SMALL_PAGE_BYTES
    print(
        "| pipeline (one core, same parser and tokens) | pages/s | p50 ms | p99 ms "
        "| p99 ms, pages <= 100 KB "
        "| dedup-filter speed-up |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, latencies in rows:
        print(
            f"| {name} | {1000 / latencies.mean():,.0f} | {np.percentile(latencies, 50):.2f} "
            f"| {np.percentile(latencies, 99):.2f} | {np.percentile(latencies[small], 99):.2f} "
            f"| {latencies.mean() / ours.mean():.2f}x |"
        )
    print()


def _print_stages(
    pages: list[Page], config: Config, check_ms: np.ndarray, fingerprint_ms: np.ndarray
) -> None:
    stages = _stage_times(pages, config)
    stages["index transaction (check_page - fingerprint)"] = check_ms - fingerprint_ms
    print("| stage | mean ms/page | share of check_page | p99 ms |")
    print("|---|---:|---:|---:|")
    for name, times in stages.items():
        print(
            f"| {name} | {times.mean():.3f} | {times.mean() / check_ms.mean():.0%} "
            f"| {np.percentile(times, 99):.3f} |"
        )
    print(
        f"| check_page total | {check_ms.mean():.3f} | 100% | {np.percentile(check_ms, 99):.3f} |\n"
    )


def _stage_times(pages: list[Page], config: Config) -> dict[str, np.ndarray]:
    """The fingerprint pipeline's steps, timed one by one on the core's own functions."""
    minhash, simhash_config = config.minhash, config.simhash
    hasher = MinHasher(minhash.num_perm, minhash.seed)
    names = (
        "decode",
        "parse (lexbor tree)",
        "text + tokenizer",
        "token hashes + exact hash",
        "shingles + min-hash + super-shingles",
        "simhash",
    )
    times: dict[str, list[float]] = {name: [] for name in names}
    for url, body in pages:
        marks = [time.perf_counter()]
        text = decode_body(body, None).text or ""
        marks.append(time.perf_counter())
        LexborHTMLParser(text)
        marks.append(time.perf_counter())
        tokens, _ = html_tokens(text, url, config.text.max_depth)
        marks.append(time.perf_counter())
        hashes = token_hashes(tokens, minhash.seed)
        sequence_hash(hashes, minhash.seed)
        marks.append(time.perf_counter())
        shingles = shingle_hashes(hashes, minhash.shingle_width, minhash.seed)
        super_shingles(hasher.signature(shingles), minhash.features, minhash.seed)
        marks.append(time.perf_counter())
        simhash(hashes, simhash_config.bits, simhash_config.seed)
        marks.append(time.perf_counter())
        durations = np.diff(marks) * 1000
        durations[2] -= durations[1]  # html_tokens parses again: keep only what it adds to parsing
        for name, duration in zip(names, durations, strict=True):
            times[name].append(duration)
    return {name: np.array(values) for name, values in times.items()}


def _scale_run(count: int, config: Config, seed: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        with DedupFilter.open(directory, config) as dedup:
            kept = 0
            for batch in _batches(_scale_pages(count, seed), SCALE_BATCH):
                kept += sum(not decision.dropped for decision in dedup.check_pages(batch))
            dedup.index.sync()
            disk = dedup.index.disk_bytes()
        elapsed = time.perf_counter() - start
        print(
            f"scale run: {count:,} pages in batches of {SCALE_BATCH} "
            f"({count / elapsed:,.0f} pages/s with check_pages), {kept:,} kept; "
            f"data.mdb {disk:,} bytes = {disk / max(kept, 1):,.0f} bytes/page\n"
        )
        _print_tables(Path(directory), kept)


def _scale_pages(count: int, seed: int) -> Iterator[Page]:
    """Distinct pages of real text: six documentation entries each, plus a unique serial number."""
    rng = random.Random(seed)
    paragraphs = [" ".join(entry_words(item)) for item in main_items()]
    for number in range(count):
        text = "</p><p>".join(rng.sample(paragraphs, 6))
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


def _print_tables(directory: Path, kept: int) -> None:
    """LMDB's own accounting per sub-database (pages of 4 KB in use), read-only."""
    env = lmdb.open(str(directory), readonly=True, lock=False, max_dbs=32)
    with env.begin() as txn:
        names = [bytes(key).decode() for key, _ in txn.cursor()]
    print("| table | entries | B-tree pages | bytes | bytes/kept page |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        stat = _table_stat(env, name)
        pages = stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]
        print(
            f"| {name} | {stat['entries']:,} | {pages:,} | {pages * stat['psize']:,} "
            f"| {pages * stat['psize'] / max(kept, 1):,.0f} |"
        )
    env.close()
    print()


def _table_stat(env: lmdb.Environment, name: str) -> dict[str, int]:
    for flags in ({}, {"dupsort": True, "dupfixed": True}, {"dupsort": True}):
        try:
            with env.begin() as txn:
                return dict(txn.stat(env.open_db(name.encode(), txn=txn, create=False, **flags)))
        except lmdb.IncompatibleError:
            continue
    msg = f"cannot open table {name}"
    raise RuntimeError(msg)


if __name__ == "__main__":
    sys.exit(main())
