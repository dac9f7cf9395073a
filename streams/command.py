"""``dedup-filter stream``: the Kafka stream processor (``python -m dedup_filter.streams``).

Registered in the entry-point group ``dedup_filter.commands``: the core's command line finds it
without importing this package. kafka-python is imported only when the command runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import add_arguments


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stream",
        help="run the Kafka stream processor (pages and frontier URLs in, verdicts out)",
        description=(
            "Consume pages and frontier URLs from Kafka, filter them through the shared index and "
            "produce kept pages, verdicts, kept URLs, probes and dead letters; commit offsets only "
            "after the outputs are acknowledged. Stop with SIGTERM or Ctrl-C. Exit codes: 0 clean "
            "stop, 1 fatal error, 2 bad configuration. See docs/kafka.md."
        ),
    )
    add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from .__main__ import run as run_processor

    return run_processor(args)
