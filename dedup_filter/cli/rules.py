"""``dedup-filter rules``: the mirror rules and the URL rules with their evidence; ``--remove``.

A URL rule is named "host kind name" (``docs.example.org drop sessionid``); removing it kills it:
it prunes nothing from then on and is never learnt again. A mirror rule is named by its mirror
directory; removing it deletes it (its URLs are crawled again).
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dedup_filter.filter import DedupFilter

from . import mirrors
from .options import config_options, load_config, open_existing_index

KINDS = ("mirror", "url")


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        parents=[config_options()],
        help="list mirror and URL rules with their evidence, or remove one",
    )
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument("--json", action="store_true", help="one JSON object a rule")
    parser.add_argument("--kind", choices=KINDS, help="list only mirror rules or only URL rules")
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="list the open and dead URL-rule candidates too (why a parameter is no rule)",
    )
    parser.add_argument(
        "--remove",
        metavar="RULE",
        help='remove a URL rule ("host kind name", as listed) or the mirror rule of a directory',
    )


def run(args: argparse.Namespace) -> int:
    config = load_config(args)
    with DedupFilter(open_existing_index(args.index, config), config) as dedup:
        if args.remove is not None:
            removed = dedup.remove_url_rule(args.remove) or dedup.remove_mirror_rule(args.remove)
            print(f"{'removed' if removed else 'no rule named'} {args.remove}")
            return 0 if removed else 1
        listed = _listed(dedup, args.kind, args.candidates)
    for kind, rule in listed:
        if args.json:
            print(json.dumps({"type": kind} | rule, sort_keys=True))
        else:
            print(mirrors.render(rule) if kind == "mirror" else render(rule))
    if not args.json:
        counts = {
            kind: sum(1 for listed_kind, _ in listed if listed_kind == kind) for kind in KINDS
        }
        print(f"{counts['mirror']} mirror rules, {counts['url']} URL rules")
    return 0


def _listed(
    dedup: DedupFilter, kind: str | None, candidates: bool
) -> list[tuple[str, dict[str, Any]]]:
    listed: list[tuple[str, dict[str, Any]]] = []
    if kind in (None, "mirror"):
        listed += [("mirror", rule) for rule in dedup.mirror_rules()]
    if kind in (None, "url"):
        listed += [("url", rule) for rule in dedup.url_rules(with_candidates=candidates)]
    return listed


def render(rule: dict[str, Any]) -> str:
    """Two lines: the rule and its state, then its evidence and an example pair."""
    when = datetime.fromtimestamp(rule["changed_at"] or rule["created_at"], UTC)
    values = "any value" if rule["any_value"] else f"values {', '.join(rule['values'])}"
    scope = f" ({values})" if rule["kind"] == "drop" else ""
    example = rule["example"]
    return (
        f"{rule['rule']}{scope}: {rule['state']} {when:%Y-%m-%d %H:%M:%S UTC}\n"
        f"    {rule['support']} duplicate pairs over {rule['classes']} classes"
        f" (needs {rule['needed']}), {rule['counterexamples']} counterexamples,"
        f" {rule['probes']} probes; e.g. {example['alias']} = {example['held']}"
    )
