"""The ``dedup-filter`` command line: one module per sub-command, listed in ``COMMANDS``.

A sub-command module exposes ``add_parser(subparsers)`` (adds its parser; take the shared
``--config``/``--set`` options from ``options.config_options()``) and ``run(args) -> int``. Adding
a core command is one more name in ``COMMANDS``; an integration adds its own through the entry-point
group ``dedup_filter.commands`` (the core never imports an integration). Modules are imported to
build the parser, so a command that needs a heavy or optional package imports it inside ``run``.
Exit codes: 0 done, 1 the index or an input could not be used, 2 bad usage or configuration.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import io
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from types import ModuleType

from dedup_filter import __version__
from dedup_filter.errors import ConfigError, DedupError

COMMANDS: tuple[str, ...] = ("check", "curve", "stats", "gc", "prune", "rules", "config")
PLUGIN_GROUP = "dedup_filter.commands"

logger = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dedup-filter",
        description="Crawler-side duplicate filter: exact and near-duplicate pages, mirrors.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log what the filter does (INFO)"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _command_modules():
        known = set(subparsers.choices)
        module.add_parser(subparsers)
        for added in set(subparsers.choices) - known:
            subparsers.choices[added].set_defaults(run=module.run)
    return parser


def _command_modules() -> Iterator[ModuleType]:
    """The core's commands, then those the installed integrations register (an integration whose
    extra is not installed is left out: its command would fail on import)."""
    for name in COMMANDS:
        yield importlib.import_module(f"{__name__}.{name}")
    for entry in sorted(importlib.metadata.entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        try:
            yield entry.load()
        except ImportError as error:
            logger.debug("command %s not available: %s", entry.name, error)


def escape_unencodable_output() -> None:
    """Let every line this process prints or logs survive characters its streams cannot encode (a
    lone surrogate in a URL, any non-ASCII character under an ASCII locale): they are written as
    backslash escapes instead of ending the command with a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit code (the console script exits with it)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help, --version and usage errors: argparse has printed why
        return stop.code if isinstance(stop.code, int) else 2
    escape_unencodable_output()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.run(args))
    except ConfigError as error:
        print(f"dedup-filter: configuration error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly, as `cat` does
        # point stdout at /dev/null so flushing it at interpreter exit raises nothing either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (DedupError, OSError) as error:
        print(f"dedup-filter {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dedup-filter: interrupted", file=sys.stderr)
        return 130
