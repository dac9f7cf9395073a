"""One core, one run: check_page speed, where the time goes, and the peers; bytes on disk at scale.

    python bench/speed.py [--pages N] [--seed S] [--scale-pages 100000]

Pages come from the labelled real-text corpus (testweb.labelled: pydoc pages of the standard
library in site templates, with their near-duplicates and hard negatives), in crawl order, each
checked once on a fresh index. The process is pinned to one CPU, and the pipelines take turns page
by page, so the load of a shared machine falls on all of them alike. The peers (bench/peers.py)
get their tokens from the core's own decoder and tokenizer, so parsing costs the same on both
sides; a second table compares what each pipeline does after parsing. The scale run is
bench/disk.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence

import numpy as np
from disk import scale_run
from peers import BothPeers, DatasketchPipeline, SimhashPipeline, page_tokens
from selectolax.lexbor import LexborHTMLParser

from dedup_filter import Config, DedupFilter
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.hashing import sequence_hash, span_hashes
from dedup_filter.features.minhash import MinHasher, super_shingles
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.simhash import simhash
from dedup_filter.features.text import decode_body, html_text, lowered_token_spans
from dedup_filter.urls import normalize_url
from testweb.labelled import labelled_corpus

SMALL_PAGE_BYTES = 100_000
BATCH = 64
TOKEN_CLASSES = ((0, 1_000), (1_000, 3_000), (3_000, 10**9))
PEERS = (DatasketchPipeline, SimhashPipeline, BothPeers)
OURS = "dedup-filter check_page (B + C + LMDB, sync=true)"
OURS_UNSYNCED = "dedup-filter check_page, index.sync=false"
FEATURES_ONLY = "dedup-filter features only (no index)"
AFTER_PARSING = ", after parsing"
Page = tuple[str, bytes]


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
    unsynced_config = config.with_overrides({"index.sync": False})
    with (
        tempfile.TemporaryDirectory() as synced_dir,
        tempfile.TemporaryDirectory() as unsynced_dir,
        DedupFilter.open(synced_dir, config) as synced,
        DedupFilter.open(unsynced_dir, unsynced_config) as unsynced,
    ):
        times = _interleaved(len(pages), _pipelines(pages, tokens, config, synced, unsynced))
        synced.index.sync()
        with synced.index.read() as view:
            kept = view.count("pages")
        disk = synced.index.disk_bytes()
    _print_throughput(times, sizes)
    rate = _batch_rate(pages, config)
    print(f"dedup-filter check_pages in batches of {BATCH} (sync=true): {rate:,.0f} pages/s\n")
    stages = _stage_times(pages, config)
    stages["index transaction (check_page - features)"] = times[OURS] - times[FEATURES_ONLY]
    _print_stages(stages, times[OURS])
    parse_ms = (
        stages["decode"]
        + stages["parse (lexbor tree)"]
        + stages["visible text (formatting tags, images, scripts)"]
    )
    _print_after_parsing(times, parse_ms.mean())
    _print_by_size(times, counts)
    print(
        f"bytes on disk after the corpus: {disk:,} for {kept} kept pages = "
        f"{disk / max(kept, 1):,.0f} bytes/page\n"
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


def _pipelines(
    pages: list[Page],
    tokens: list[list[str]],
    config: Config,
    synced: DedupFilter,
    unsynced: DedupFilter,
) -> dict[str, Callable[[int], object]]:
    """Every timed pipeline, as a function of the page's position in the corpus."""
    fingerprinter = Fingerprinter(config)

    def features(index: int) -> object:
        url, body = pages[index]
        return fingerprinter.fingerprint(normalize_url(url), body)

    pipelines: dict[str, Callable[[int], object]] = {
        OURS: lambda index: synced.check_page(*pages[index]),
        OURS_UNSYNCED: lambda index: unsynced.check_page(*pages[index]),
        FEATURES_ONLY: features,
    }
    for peer in PEERS:
        whole, after_parsing = peer(), peer()
        pipelines[peer.name] = lambda index, whole=whole: whole.check(*pages[index])
        pipelines[peer.name + AFTER_PARSING] = lambda index, peer=after_parsing: peer.check_tokens(
            pages[index][0], tokens[index]
        )
    return pipelines


def _interleaved(
    count: int, pipelines: dict[str, Callable[[int], object]]
) -> dict[str, np.ndarray]:
    """Per-page latencies in ms; every pipeline takes page i before any takes page i + 1."""
    times: dict[str, list[float]] = {name: [] for name in pipelines}
    for index in range(count):
        for name, check in pipelines.items():
            start = time.perf_counter()
            check(index)
            times[name].append(time.perf_counter() - start)
    return {name: np.array(values) * 1000 for name, values in times.items()}


def _batch_rate(pages: list[Page], config: Config) -> float:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        start = time.perf_counter()
        for first in range(0, len(pages), BATCH):
            dedup.check_pages(pages[first : first + BATCH])
        return len(pages) / (time.perf_counter() - start)


def _print_throughput(times: dict[str, np.ndarray], sizes: np.ndarray) -> None:
    reference = times[OURS].mean()
    small = sizes <= SMALL_PAGE_BYTES
    print(
        "| pipeline (one core, same parser and tokens) | pages/s | p50 ms | p99 ms "
        "| p99 ms, pages <= 100 KB | time relative to dedup-filter |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name in (OURS, OURS_UNSYNCED, *(peer.name for peer in PEERS)):
        latencies = times[name]
        print(
            f"| {name} | {1000 / latencies.mean():,.0f} | {np.percentile(latencies, 50):.2f} "
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
        "visible text (formatting tags, images, scripts)",
        "terms + their hashes + exact hash",
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
        visible = html_text(text, url).text
        marks.append(time.perf_counter())
        hashes = span_hashes(*lowered_token_spans(visible), minhash.seed)
        sequence_hash(hashes, minhash.seed)
        marks.append(time.perf_counter())
        shingles = shingle_hashes(hashes, minhash.shingle_width, minhash.seed)
        super_shingles(hasher.signature(shingles), minhash.features, minhash.seed)
        marks.append(time.perf_counter())
        simhash(hashes, simhash_config.bits, simhash_config.seed)
        marks.append(time.perf_counter())
        durations = np.diff(marks) * 1000
        durations[2] -= durations[1]  # html_text parses again: keep only what it adds
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


def _print_after_parsing(times: dict[str, np.ndarray], parse_ms: float) -> None:
    """What each pipeline costs once the page is tokens (parsing is the same for all)."""
    ours = times[OURS].mean() - parse_ms
    print("| after parsing (mean ms/page) | ms | dedup-filter speed-up |")
    print("|---|---:|---:|")
    print(f"| dedup-filter: hashes, B, C, LMDB (check_page - parse) | {ours:.3f} | 1.00x |")
    for peer in PEERS:
        after = times[peer.name + AFTER_PARSING].mean()
        print(f"| {peer.name} | {after:.3f} | {after / ours:.2f}x |")
    print()


def _print_by_size(times: dict[str, np.ndarray], counts: np.ndarray) -> None:
    names = (OURS, OURS_UNSYNCED, *(peer.name for peer in PEERS))
    print("| pages by token count | pages | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for low, high in TOKEN_CLASSES:
        chosen = (counts >= low) & (counts < high)
        if not chosen.any():
            continue
        means = [times[name][chosen].mean() for name in names]
        cells = [f"{mean:.2f} ms ({mean / means[0]:.1f}x)" for mean in means]
        label = f"{low:,}-{high - 1:,}" if high < 10**9 else f">= {low:,}"
        print(f"| {label} | {int(chosen.sum())} | " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    sys.exit(main())
