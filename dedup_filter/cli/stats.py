"""``dedup-filter stats``: what an index holds and what it costs on disk."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dedup_filter.maintenance import index_stats

from .options import config_options, load_config, open_existing_index

_MIB = 1 << 20


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "stats",
        parents=[config_options()],
        help="page count, entries per table, size on disk and the index's parameters",
    )
    parser.add_argument("--index", type=Path, required=True, metavar="DIR", help="index directory")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    index = open_existing_index(args.index, load_config(args))
    try:
        stats = index_stats(index)
    finally:
        index.close()
    print(json.dumps(stats, sort_keys=True) if args.json else render(stats))
    return 0


def render(stats: dict[str, Any]) -> str:
    per_page = stats["bytes_per_page"]
    map_bytes = stats["map_bytes"]
    lines = [
        f"index            {stats['path']}",
        f"pages            {stats['pages']:,}",
        f"size on disk     {stats['disk_bytes'] / _MIB:,.2f} MiB ({stats['disk_bytes']:,} bytes)",
        f"bytes per page   {'-' if per_page is None else f'{per_page:,.1f}'}",
        f"map size         {map_bytes / _MIB:,.0f} MiB",
        f"schema           {stats['schema']}",
        f"created          {_when(stats['created_at'])}",
        f"config           fingerprint {stats['config_fingerprint']}",
    ]
    params = sorted((stats["params"] or {}).items())
    lines += [f"  {key} = {json.dumps(value)}" for key, value in params]
    lines.append("entries per table")
    lines += [f"  {name:<12} {count:>12,}" for name, count in stats["tables"].items()]
    return "\n".join(lines)


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat(timespec="seconds")
