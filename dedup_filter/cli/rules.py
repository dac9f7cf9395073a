"""``dedup-filter rules`` (alias ``mirrors``: the mirror kind only): the mirror rules and the URL
rules with their evidence; ``--candidates`` adds what is not a rule (mirror pairs open, rejected
or expired, with their samples; URL-rule candidates open or dead); ``--remove`` ends one rule.

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

from .options import config_options, load_config, open_existing_index

KINDS = ("mirror", "url")
MIRRORS_ONLY = "mirrors"  # the alias that lists the mirror kind alone


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules",
        aliases=[MIRRORS_ONLY],
        parents=[config_options()],
        help="list mirror and URL rules with their evidence, or remove one ('mirrors': mirror"
        " rules only)",
    )
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument("--json", action="store_true", help="one JSON object a rule")
    parser.add_argument("--kind", choices=KINDS, help="list only mirror rules or only URL rules")
    parser.add_argument(
        "--candidates",
        action="store_true",
        help="list what is not a rule too: mirror candidate pairs with their samples, open and"
        " dead URL-rule candidates (why a parameter is no rule)",
    )
    parser.add_argument(
        "--remove",
        metavar="RULE",
        help='remove a URL rule ("host kind name", as listed) or the mirror rule of a directory',
    )


def run(args: argparse.Namespace) -> int:
    config = load_config(args)
    kind = "mirror" if args.command == MIRRORS_ONLY else args.kind
    with DedupFilter(open_existing_index(args.index, config), config) as dedup:
        if args.remove is not None:
            removed = (kind != "mirror" and dedup.remove_url_rule(args.remove)) or (
                kind != "url" and dedup.remove_mirror_rule(args.remove)
            )
            print(f"{'removed' if removed else 'no rule named'} {args.remove}")
            return 0 if removed else 1
        listed = _listed(dedup, kind, args.candidates)
    for listed_type, entry in listed:
        if args.json:
            print(json.dumps({"type": listed_type} | entry, sort_keys=True))
        else:
            print(_RENDER[listed_type](entry))
    if not args.json:
        print(_counts(listed))
    return 0


def _listed(
    dedup: DedupFilter, kind: str | None, candidates: bool
) -> list[tuple[str, dict[str, Any]]]:
    listed: list[tuple[str, dict[str, Any]]] = []
    if kind in (None, "mirror"):
        listed += [("mirror", rule) for rule in dedup.mirror_rules()]
        listed += [("session", host) for host in dedup.session_hosts()]
        if candidates:
            listed += [("mirror_candidate", pair) for pair in dedup.mirror_candidates()]
    if kind in (None, "url"):
        listed += [("url", rule) for rule in dedup.url_rules(with_candidates=candidates)]
    return listed


def _counts(listed: list[tuple[str, dict[str, Any]]]) -> str:
    def count(listed_type: str, noun: str) -> str:
        n = sum(1 for entry_type, _ in listed if entry_type == listed_type)
        return f"{n} {noun}{'' if n == 1 else 's'}"

    counts = f"{count('mirror', 'mirror rule')}, {count('url', 'URL rule')}"
    if any(entry_type == "session" for entry_type, _ in listed):
        counts += f", {count('session', 'host with session ids')}"
    if any(entry_type == "mirror_candidate" for entry_type, _ in listed):
        counts += f", {count('mirror_candidate', 'mirror candidate')}"
    return counts


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _mirror_rule(rule: dict[str, Any]) -> str:
    evidence = (
        f"confirmed on the rules of its children ({', '.join(rule['on_children'])}), no"
        f" document of its own to sample ({rule['mode']} mode)"
        if rule.get("on_children")
        else f"{rule['matches']}/{rule['samples']} sampled pairs match"
        f" (resemblance {rule['resemblance']:.2f}, {rule['unchecked']} could not be checked,"
        f" {rule['mode']} mode)"
    )
    return (
        f"{rule['mirror']} -> {rule['origin']}\n"
        f"    {evidence}; boundary: {rule['boundary']};"
        f" confirmed {_when(rule['created_at'])}"
        + (f"; absorbed by {rule['absorbed_by']}" if rule.get("absorbed_by") else "")
        + (f"; implied by {' and '.join(rule['implied_by'])}" if rule.get("implied_by") else "")
    )


def _mirror_candidate(candidate: dict[str, Any]) -> str:
    outcomes = ", ".join(f"{path} {outcome}" for path, outcome in candidate["samples"].items())
    why = f" ({candidate['rejected_for']})" if "rejected_for" in candidate else ""
    return (
        f"{candidate['mirror']} -> {candidate['origin']}: {candidate['state']} candidate{why}\n"
        f"    samples: {outcomes or 'none yet'}; opened {_when(candidate['created_at'])}"
    )


def _url_rule(rule: dict[str, Any]) -> str:
    """Two lines: the rule and its state, then its evidence and an example pair."""
    if rule["kind"] == "redirect":
        return _redirect_rule(rule)
    values = "any value" if rule["any_value"] else f"values {', '.join(rule['values'])}"
    scope = f" ({values})" if rule["kind"] == "drop" else ""
    example, when = rule["example"], _when(rule["changed_at"] or rule["created_at"])
    return (
        f"{rule['rule']}{scope}: {rule['state']} {when}\n"
        f"    {rule['support']} duplicate pairs over {rule['classes']} classes"
        f" (needs {rule['needed']}), {rule['counterexamples']} counterexamples,"
        f" {rule['probes']} probes; e.g. {example['alias']} = {example['held']}"
    )


def _redirect_rule(rule: dict[str, Any]) -> str:
    """Two lines: the rule and its state, then what the host was seen to redirect."""
    shape = (
        f"every URL to the same path on {rule['target']}"
        if rule["name"] == "move"
        else "a directory's URL without its slash to the URL with it"
    )
    return (
        f"{rule['rule']}: {rule['state']}\n    {rule['support']} permanent redirects seen: {shape}"
    )


def _session_host(entry: dict[str, Any]) -> str:
    return (
        f"{entry['host']}: session ids {', '.join(entry['session'])}\n"
        "    written into nearly every link; stripped before relative paths are compared"
    )


_RENDER = {
    "mirror": _mirror_rule,
    "mirror_candidate": _mirror_candidate,
    "session": _session_host,
    "url": _url_rule,
}
