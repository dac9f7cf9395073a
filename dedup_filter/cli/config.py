"""``dedup-filter config``: print the documented defaults (the file ``--config`` takes)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dedup_filter.config import DEFAULT_TOML


def add_parser(subparsers: Any) -> None:
    subparsers.add_parser(
        "config",
        help="print the default configuration, every key documented",
        description=(
            "Print the default configuration file shipped with the package: every key of the "
            "[dedup.*] and [stream] tables with its default and what it does. Save it, edit it "
            "and pass it with --config."
        ),
    )


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(DEFAULT_TOML.read_text(encoding="utf-8"))
    return 0
