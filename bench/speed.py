"""One core, one run: check_page speed, where the time goes, and the peers; bytes on disk at scale.

    python bench/speed.py [--pages N] [--seed S] [--scale-pages 100000]

Pages come from the labelled real-text corpus (testweb.labelled: pydoc pages of the standard
library in site templates, with their near-duplicates and hard negatives), in crawl order, each
checked once on a fresh index. The process is pinned to one CPU. The peers (bench/peers.py) get
their tokens from the core's own decoder and tokenizer, so parsing costs the same on both sides;
a second table compares what each pipeline does after parsing. The scale run is bench/disk.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from disk import scale_run
from peers import BothPeers, DatasketchPipeline, SimhashPipeline, page_tokens
from selectolax.lexbor import LexborHTMLParser

from dedup_filter import Config, DedupFilter
from dedup_filter.fingerprint import Fingerprinter
from dedup_filter.hashing import sequence_hash, token_hashes
from dedup_filter.minhash import MinHasher, super_shingles
from dedup_filter.shingles import shingle_hashes
from dedup_filter.simhash import simhash
from dedup_filter.text import decode_body, html_tokens
from dedup_filter.urls import normalize_url
from testweb.labelled import labelled_corpus

SMALL_PAGE_BYTES = 100_000
BATCH = 64
TOKEN_CLASSES = ((0, 1_000), (1_000, 3_000), (3_000, 10**9))
Page = tuple[str, bytes]
PEERS = (DatasketchPipeline, SimhashPipeline, BothPeers)


@dataclass(frozen=True, slots=True)
class Run:
    """Per-page latencies of one pipeline over the corpus (ms), and what it left on disk."""

    name: str
    latencies_ms: np.ndarray
    disk_bytes: int = 0
    kept: int = 0


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    pages = [(page.url, page.body) for page in labelled_corpus(args.seed, originals=10_000)]
    pages = pages[: args.pages] if args.pages else pages
    sizes = np.array([len(body) for _, body in pages])
    tokens = [page_tokens(url, body) for url, body in pages]
    counts = np.array([len(terms) for terms in tokens])
    print(f"# bench/speed.py --pages {len(pages)} --seed {args.seed} (pinned to CPU {cpu})\n")
    print(
        f"corpus: {len(pages)} pages, median {np.median(sizes) / 1000:.1f} KB and "
        f"{np.median(counts):,.0f} tokens, max {sizes.max() / 1000:.0f} KB, "
        f"{np.mean(sizes <= SMALL_PAGE_BYTES):.0%} of pages <= 100 KB\n"
    )
    config = Config.default()
    ours = _run_filter("dedup-filter check_page (B + C + LMDB, sync=true)", pages, config)
    unsynced = config.with_overrides({"index.sync": False})
    runs = [ours, _run_filter("dedup-filter check_page, index.sync=false", pages, unsynced)]
    runs += [Run(peer.name, _latencies(pages, peer().check)) for peer in PEERS]
    _print_throughput(runs, sizes)
    rate = _batch_rate(pages, config)
    print(f"dedup-filter check_pages in batches of {BATCH} (sync=true): {rate:,.0f} pages/s\n")
    stages = _stage_times(pages, config)
    stages["index transaction (check_page - fingerprint)"] = ours.latencies_ms - _latencies(
        pages, _fingerprinter(config)
    )
    _print_stages(stages, ours.latencies_ms)
    parse_ms = stages["decode"] + stages["parse (lexbor tree)"] + stages["text + tokenizer"]
    _print_after_parsing(ours, parse_ms, pages, tokens)
    _print_by_size(runs, counts)
    print(
        f"bytes on disk after the corpus: {ours.disk_bytes:,} for {ours.kept} kept pages = "
        f"{ours.disk_bytes / max(ours.kept, 1):,.0f} bytes/page\n"
    )
    if args.scale_pages:
        print(f"## Scale run (bench/disk.py --pages {args.scale_pages})\n")
        scale_run(args.scale_pages, config, args.seed)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=0, help="corpus pages to use (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the labelled corpus")
    parser.add_argument(
        "--scale-pages", type=int, default=100_000, help="pages of the disk-size run (0: skip)"
    )
    return parser.parse_args(argv)


def _run_filter(name: str, pages: list[Page], config: Config) -> Run:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        kept = 0

        def check(url: str, body: bytes) -> None:
            nonlocal kept
            kept += not dedup.check_page(url, body).dropped

        latencies = _latencies(pages, check)
        dedup.index.sync()
        return Run(name, latencies, dedup.index.disk_bytes(), kept)


def _batch_rate(pages: list[Page], config: Config) -> float:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        start = time.perf_counter()
        for first in range(0, len(pages), BATCH):
            dedup.check_pages(pages[first : first + BATCH])
        return len(pages) / (time.perf_counter() - start)


def _fingerprinter(config: Config) -> Callable[[str, bytes], object]:
    """What ``check_page`` computes before it opens a transaction: the page's features."""
    fingerprinter = Fingerprinter(config)
    return lambda url, body: fingerprinter.fingerprint(normalize_url(url), body)


def _latencies(items: Sequence[tuple[str, object]], check: Callable[..., object]) -> np.ndarray:
    latencies = []
    for url, payload in items:
        start = time.perf_counter()
        check(url, payload)
        latencies.append(time.perf_counter() - start)
    return np.array(latencies) * 1000


def _print_throughput(runs: list[Run], sizes: np.ndarray) -> None:
    reference = runs[0].latencies_ms.mean()
    small = sizes <= SMALL_PAGE_BYTES
    print(
        "| pipeline (one core, same parser and tokens) | pages/s | p50 ms | p99 ms "
        "| p99 ms, pages <= 100 KB | time relative to dedup-filter |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for run in runs:
        latencies = run.latencies_ms
        print(
            f"| {run.name} | {1000 / latencies.mean():,.0f} | {np.percentile(latencies, 50):.2f} "
            f"| {np.percentile(latencies, 99):.2f} | {np.percentile(latencies[small], 99):.2f} "
            f"| {latencies.mean() / reference:.2f}x |"
        )
    print()


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
        tokens, _ = html_tokens(text, url)
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
        durations[2] -= durations[1]  # html_tokens parses again: keep only what it adds
        for name, duration in zip(names, durations, strict=True):
            times[name].append(duration)
    return {name: np.array(values) for name, values in times.items()}


def _print_stages(stages: dict[str, np.ndarray], check_ms: np.ndarray) -> None:
    print("| stage of check_page | mean ms/page | share | p99 ms |")
    print("|---|---:|---:|---:|")
    for name, times in stages.items():
        print(
            f"| {name} | {times.mean():.3f} | {times.mean() / check_ms.mean():.0%} "
            f"| {np.percentile(times, 99):.3f} |"
        )
    total = f"{check_ms.mean():.3f} | 100% | {np.percentile(check_ms, 99):.3f}"
    print(f"| check_page total | {total} |\n")


def _print_after_parsing(
    ours: Run, parse_ms: np.ndarray, pages: list[Page], tokens: list[list[str]]
) -> None:
    """What each pipeline costs once the page is tokens (parsing is the same for all)."""
    ours_after = ours.latencies_ms.mean() - parse_ms.mean()
    items = [(url, terms) for (url, _), terms in zip(pages, tokens, strict=True)]
    print("| after parsing (mean ms/page) | ms | dedup-filter speed-up |")
    print("|---|---:|---:|")
    print(f"| dedup-filter: hashes, B, C, LMDB (check_page - parse) | {ours_after:.3f} | 1.00x |")
    for peer in PEERS:
        after = _latencies(items, peer().check_tokens).mean()
        print(f"| {peer.name} | {after:.3f} | {after / ours_after:.2f}x |")
    print()


def _print_by_size(runs: list[Run], counts: np.ndarray) -> None:
    print("| pages by token count | pages | " + " | ".join(run.name for run in runs) + " |")
    print("|---|---:|" + "---:|" * len(runs))
    for low, high in TOKEN_CLASSES:
        chosen = (counts >= low) & (counts < high)
        if not chosen.any():
            continue
        reference = runs[0].latencies_ms[chosen].mean()
        means = [run.latencies_ms[chosen].mean() for run in runs]
        cells = [f"{mean:.2f} ms ({mean / reference:.1f}x)" for mean in means]
        label = f"{low:,}-{high - 1:,}" if high < 10**9 else f">= {low:,}"
        print(f"| {label} | {int(chosen.sum())} | " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    sys.exit(main())
