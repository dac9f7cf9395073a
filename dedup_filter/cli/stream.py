"""``dedup-filter stream``: the Kafka stream processor (the same as ``python -m streams``).

The core never imports a Kafka client: the options come from ``streams.options`` (no Kafka import)
and the processor itself is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any


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
    importlib.import_module("streams.options").add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    command = importlib.import_module("streams.__main__")
    return int(command.run(args))
