"""``dedup-filter mirrors``: the mirror rules with their evidence; ``--remove`` deletes one;
``--candidates`` lists the pairs that are not rules (open, rejected, expired) with their samples."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dedup_filter.filter import DedupFilter

from .options import config_options, load_config, open_existing_index


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mirrors",
        parents=[config_options()],
        help="list mirror rules (samples, matches, resemblance, when, boundary) or remove one",
    )
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument("--json", action="store_true", help="one JSON object a rule")
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="list the candidate pairs instead: open, rejected or expired, with their samples",
    )
    parser.add_argument(
        "--remove",
        metavar="DIRECTORY",
        help="delete the rule whose mirror side is DIRECTORY (its URLs are crawled again)",
    )


def run(args: argparse.Namespace) -> int:
    config = load_config(args)
    with DedupFilter(open_existing_index(args.index, config), config) as dedup:
        if args.remove is not None:
            removed = dedup.remove_mirror_rule(args.remove)
            print(f"{'removed' if removed else 'no rule for'} {args.remove}")
            return 0 if removed else 1
        if args.candidates:
            return _list_candidates(dedup.mirror_candidates(), args.json)
        rules = dedup.mirror_rules()
    for rule in rules:
        print(json.dumps(rule, sort_keys=True) if args.json else render(rule))
    if not args.json:
        print(f"{len(rules)} mirror rule{'' if len(rules) == 1 else 's'}")
    return 0


def _list_candidates(candidates: list[dict[str, Any]], as_json: bool) -> int:
    for candidate in candidates:
        if as_json:
            print(json.dumps(candidate, sort_keys=True))
            continue
        outcomes = ", ".join(f"{path} {outcome}" for path, outcome in candidate["samples"].items())
        print(f"{candidate['mirror']} -> {candidate['origin']}: {candidate['state']}")
        print(f"    samples: {outcomes or 'none yet'}; opened {_when(candidate['created_at'])}")
    if not as_json:
        print(f"{len(candidates)} candidate{'' if len(candidates) == 1 else 's'}")
    return 0


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def render(rule: dict[str, Any]) -> str:
    when = _when(rule["created_at"])
    return (
        f"{rule['mirror']} -> {rule['origin']}\n"
        f"    {rule['matches']}/{rule['samples']} sampled pairs match"
        f" (resemblance {rule['resemblance']:.2f}, {rule['unchecked']} could not be checked,"
        f" {rule['mode']} mode); boundary: {rule['boundary']}; confirmed {when}"
    )
