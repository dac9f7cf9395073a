"""``dedup-filter check``: run pages through the filter and say what it keeps and drops, and why."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from dedup_filter.decision import Decision
from dedup_filter.errors import DedupError
from dedup_filter.filter import DedupFilter
from dedup_filter.isolation import Failed, isolated

from .inputs import read_source
from .items import BadInput, Item, PageInput
from .options import config_options, load_config

DEFAULT_BATCH = 64


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check",
        parents=[config_options()],
        help="run HTML files or JSON lines through the filter",
        description=(
            "Print one decision per page and a summary. SOURCE is a file, a directory (every "
            "file under it named .html/.htm/.xhtml/.shtml, .jsonl/.ndjson[.gz] or .warc[.gz]), "
            'or - for JSON lines on stdin: {"url": ..., "body": text} or {"url": ..., '
            '"body_b64": base64}, optionally "headers": {...}. From a WARC file, the HTML '
            "responses with a 2xx status are checked (this needs warcio: pip install "
            "'dedup-filter[warc]'). Bad files, lines and records are reported on stderr and "
            "counted; a file of unknown type is refused."
        ),
    )
    parser.add_argument("source", metavar="FILE|DIR|-")
    parser.add_argument(
        "--index",
        type=Path,
        metavar="DIR",
        help="index directory, created if missing (default: a temporary index, deleted at exit)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="URL of SOURCE's directory, so files get http URLs (default: file:// URLs)",
    )
    parser.add_argument("--json", action="store_true", help="print Decision.to_json() lines")
    parser.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH,
        metavar="N",
        help=f"pages per write transaction (default {DEFAULT_BATCH})",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when any file, line or record was skipped (default: report them, exit 0)",
    )


def run(args: argparse.Namespace) -> int:
    if args.batch_size < 1:
        print("dedup-filter check: --batch-size must be >= 1", file=sys.stderr)
        return 2
    if args.source != "-" and not Path(args.source).exists():
        print(f"dedup-filter check: {args.source}: no such file or directory", file=sys.stderr)
        return 1
    config = load_config(args)
    out: TextIO = sys.stdout
    with contextlib.ExitStack() as stack:
        index_dir = args.index or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        dedup = stack.enter_context(DedupFilter.open(index_dir, config))
        items = read_source(args.source, sys.stdin.buffer, args.base_url)
        outcomes: Counter[tuple[str, str]] = Counter()
        bad = 0
        for results in _batches(dedup, items, args.batch_size):
            for result in results:
                if isinstance(result, BadInput):
                    print(f"dedup-filter check: {result.origin}: {result.problem}", file=sys.stderr)
                    bad += 1
                else:
                    print(result.to_json() if args.json else describe(result), file=out)
                    outcomes[result.action, result.reason] += 1
    print(summary(outcomes, bad), file=sys.stderr if args.json else out)
    return 1 if args.strict and bad else 0


def _batches(
    dedup: DedupFilter, items: Iterator[Item], size: int
) -> Iterator[list[Decision | BadInput]]:
    """For each batch of up to ``size`` pages, the bad inputs met on the way, then its decisions."""
    pages: list[PageInput] = []
    problems: list[Decision | BadInput] = []
    for item in items:
        if isinstance(item, BadInput):
            problems.append(item)
            continue
        pages.append(item)
        if len(pages) == size:
            yield problems + _check(dedup, pages)
            pages, problems = [], []
    if pages or problems:
        yield problems + _check(dedup, pages)


def _check(dedup: DedupFilter, pages: list[PageInput]) -> list[Decision | BadInput]:
    """The batch's decisions; a page the filter fails on is reported alone (the index's own
    failures end the run)."""
    results = isolated(
        [(page.url, page.body, page.headers) for page in pages], dedup.check_pages, (DedupError,)
    )
    return [
        BadInput(page.origin, result.error) if isinstance(result, Failed) else result
        for page, result in zip(pages, results, strict=True)
    ]


def describe(decision: Decision) -> str:
    """One human-readable line: action, reason, URL, what it duplicates and the key evidence."""
    line = f"{decision.action:<4} {decision.reason:<15} {decision.url}"
    if decision.duplicate_of:
        line += f"  of {decision.duplicate_of}"
    evidence = decision.evidence
    details = [str(evidence[key]) for key in ("rule", "site_relation") if key in evidence]
    if "b_similarity" in evidence:
        details.append(f"B {evidence['b_similarity']:.2f}")
    if "c_similarity" in evidence:
        details.append(f"C {evidence['c_similarity']:.3f}")
    if "tokens" in evidence:
        details.append(_plural(evidence["tokens"], "token"))
    flags = ("truncated", "below_token_floor")
    details += [flag.replace("_", " ") for flag in flags if evidence.get(flag)]
    if evidence.get("encoding") == "binary":
        details.append("binary body")
    return f"{line}  ({', '.join(details)})" if details else line


def summary(outcomes: Counter[tuple[str, str]], bad: int) -> str:
    """``checked N pages: kept K (unique ...), dropped D (near_duplicate ...); B bad inputs``."""
    parts = []
    for action, verb in (("keep", "kept"), ("drop", "dropped")):
        reasons = sorted((why, count) for (act, why), count in outcomes.items() if act == action)
        total = sum(count for _, count in reasons)
        by_reason = ", ".join(f"{reason} {count}" for reason, count in reasons)
        parts.append(f"{verb} {total}" + (f" ({by_reason})" if by_reason else ""))
    text = f"checked {_plural(sum(outcomes.values()), 'page')}: {', '.join(parts)}"
    return text + (f"; {_plural(bad, 'bad input')} skipped" if bad else "")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
