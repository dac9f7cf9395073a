"""``dedup-filter gc``: delete the records of pages not seen for a while, with their features and
the mirror detector's records tied to them."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from dedup_filter.maintenance import parse_duration, sweep

from .options import config_options, load_config, open_existing_index


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gc",
        parents=[config_options()],
        help="delete pages not seen for DURATION (e.g. 30d, 12h, 90m, 45s)",
        description=(
            "Pages last kept or seen unchanged longer ago than DURATION are deleted with their "
            "features, then the mirror detector's directory entries and recorded links of those "
            "pages, in write transactions of --batch-size; crawls may keep running."
        ),
    )
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument(
        "--older-than", required=True, metavar="DURATION", help="e.g. 30d, 12h, 90m, 45s, 1h30m"
    )
    parser.add_argument(
        "--batch-size", type=int, default=1000, metavar="N", help="pages per write transaction"
    )


def run(args: argparse.Namespace) -> int:
    try:
        older_than_s = parse_duration(args.older_than)
    except ValueError as error:
        print(f"dedup-filter gc: --older-than: {error}", file=sys.stderr)
        return 2
    if args.batch_size < 1:
        print("dedup-filter gc: --batch-size must be >= 1", file=sys.stderr)
        return 2
    index = open_existing_index(args.index, load_config(args))
    try:
        done = sweep(index, older_than_s, time.time(), args.batch_size)
        with index.read() as view:
            remaining = view.count("pages")
    finally:
        index.close()
    age = args.older_than
    print(f"pages removed: {done.pages} (not seen for {age}); pages remaining: {remaining}")
    # the first line is what scripts read; what went with the pages is a detail, on stderr
    print(
        f"forgotten with them: {done.mirror_entries} mirror directory entries,"
        f" {done.links} recorded links",
        file=sys.stderr,
    )
    return 0
