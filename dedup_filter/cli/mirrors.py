"""``dedup-filter mirrors``: the mirror rules with their evidence; ``--remove`` deletes one."""

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
        rules = dedup.mirror_rules()
    for rule in rules:
        print(json.dumps(rule, sort_keys=True) if args.json else render(rule))
    if not args.json:
        print(f"{len(rules)} mirror rule{'' if len(rules) == 1 else 's'}")
    return 0


def render(rule: dict[str, Any]) -> str:
    when = datetime.fromtimestamp(rule["created_at"], UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return (
        f"{rule['mirror']} -> {rule['origin']}\n"
        f"    {rule['matches']}/{rule['samples']} sampled pairs match"
        f" (resemblance {rule['resemblance']:.2f}, {rule['unchecked']} could not be checked,"
        f" {rule['mode']} mode); boundary: {rule['boundary']}; confirmed {when}"
    )
