"""``dedup-filter prune``: frontier pruning, URLs in and the URLs that survive the mirror rules out.

Reads one URL a line (blank lines and ``#`` comments are skipped) from a file or standard input,
checks them against the rules in batches of ``--batch-size`` (one read transaction each) and
writes every kept URL, as given, to standard output; a summary goes to standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import IO, Any

from dedup_filter.filter import DedupFilter

from .options import config_options, load_config, open_existing_index


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "prune",
        parents=[config_options()],
        help="write the URLs of FILE (or stdin) that are not under a mirrored directory",
        description=(
            "Frontier pruning: every URL under the mirror side of a mirror rule whose counterpart "
            "under the origin is held is dropped; the others are written to standard output "
            "in input order."
        ),
    )
    parser.add_argument("input", nargs="?", default="-", metavar="FILE|-", help="URLs, one a line")
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument(
        "--log",
        type=Path,
        metavar="FILE",
        help="also write every decision as a JSON line (the dropped ones say of what)",
    )
    parser.add_argument(
        "--batch-size", type=int, default=1000, metavar="N", help="URLs per read transaction"
    )


def run(args: argparse.Namespace) -> int:
    if args.batch_size < 1:
        print("dedup-filter prune: --batch-size must be >= 1", file=sys.stderr)
        return 2
    config = load_config(args)
    kept = dropped = deferred = 0
    with contextlib.ExitStack() as stack:
        source = sys.stdin
        if args.input != "-":
            source = stack.enter_context(open(args.input, encoding="utf-8", errors="replace"))
        log = stack.enter_context(open(args.log, "w", encoding="utf-8")) if args.log else None
        dedup = stack.enter_context(DedupFilter(open_existing_index(args.index, config), config))
        for batch in _batches(_urls(source), args.batch_size):
            for url, decision in zip(batch, dedup.check_urls(batch), strict=True):
                if log is not None:
                    log.write(decision.to_json() + "\n")
                if decision.dropped:
                    dropped += 1
                else:  # a deferred URL's counterpart is not held: only a fetch keeps its content
                    deferred += decision.deferred
                    kept += 1
                    sys.stdout.write(url + "\n")
    print(
        f"urls kept: {kept} ({deferred} deferred: their counterpart is not held); "
        f"dropped under mirrored directories: {dropped}",
        file=sys.stderr,
    )
    return 0


def _urls(source: IO[str]) -> Iterator[str]:
    for line in source:
        url = line.strip()
        if url and not url.startswith("#"):
            yield url


def _batches(urls: Iterator[str], size: int) -> Iterator[list[str]]:
    while batch := list(islice(urls, size)):
        yield batch
