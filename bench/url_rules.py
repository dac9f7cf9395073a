"""What URL rules cost: bytes per page and check_page / check_url time, rules on against off.

    python bench/url_rules.py [--pages 2000] [--rounds 3] [--seed S]

Pages are bench/disk.py's distinct pages of real text, in two URL spellings: "plain" (no query:
what most documentation trees look like) and "session" (one host, every URL with a fresh ``sid``,
a well-known session parameter, so every kept page files an alias row; every tenth page is
fetched a second time under another ``sid``: the pairs confirm the rule). Each run fills a fresh
index in batches of 100 pages, then checks every page's URL under a third ``sid`` with
``check_urls`` (pruned once the rule is confirmed). Runs with the rules on and off take turns,
round after round, so the load of a shared machine falls on both alike; the report gives the
median of the rounds and their ratio, and LMDB's accounting of the URL-rule tables.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import lmdb
from disk import generated_pages

from dedup_filter import Config, DedupFilter

BATCH = 100
SPELLINGS = ("plain", "session")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=2000, help="distinct pages per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per configuration")
    parser.add_argument("--seed", type=int, default=0, help="seed of the page generator")
    args = parser.parse_args(argv)
    print(f"# bench/url_rules.py --pages {args.pages} --rounds {args.rounds} --seed {args.seed}\n")
    print(
        "| URLs | rules | check_page pages/s | check_url µs/URL | URLs pruned | url_rules B/page"
        " | url_aliases B/page |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for spelling in SPELLINGS:
        runs: dict[bool, list[tuple[float, float, int, int, int]]] = {True: [], False: []}
        for _ in range(args.rounds):
            for enabled in (False, True):
                runs[enabled].append(_run(args.pages, args.seed, spelling, enabled))
        for enabled in (False, True):
            _report(spelling, enabled, runs[enabled], args.pages)
        ratio = statistics.median(r[0] for r in runs[True]) / statistics.median(
            r[0] for r in runs[False]
        )
        print(f"| {spelling} | on/off | {ratio:.2f} | | | | |")


def _run(count: int, seed: int, spelling: str, enabled: bool) -> tuple[float, float, int, int, int]:
    config = Config().with_overrides({"url_rules.enabled": enabled})
    pages = list(_spelled(generated_pages(count, seed), spelling))
    with tempfile.TemporaryDirectory() as directory:
        with DedupFilter.open(directory, config) as dedup:
            started = time.perf_counter()
            for start in range(0, len(pages), BATCH):
                dedup.check_pages(pages[start : start + BATCH])
            page_rate = len(pages) / (time.perf_counter() - started)
            urls = [_spell(url, spelling, "third") for url, _ in generated_pages(count, seed)]
            started = time.perf_counter()
            pruned = sum(decision.dropped for decision in dedup.check_urls(urls))
            url_micros = (time.perf_counter() - started) / len(urls) * 1e6
            dedup.index.sync()
        rules_bytes, alias_bytes = _table_bytes(Path(directory), ("url_rules", "url_aliases"))
    return page_rate, url_micros, pruned, rules_bytes, alias_bytes


def _spelled(pages, spelling: str):
    for number, (url, body) in enumerate(pages):
        yield _spell(url, spelling, "first"), body
        if spelling == "session" and number % 10 == 0:
            yield _spell(url, spelling, "second"), body


def _spell(url: str, spelling: str, visit: str) -> str:
    """The URL as generated, or on one host with a session id (rules are learnt per host)."""
    if spelling == "plain":
        return url
    path = url.split("/", 3)[3]
    return f"http://docs.session.example/{path}?sid={visit}{hash(url) & 0xFFFF:04x}"


def _table_bytes(directory: Path, names: tuple[str, ...]) -> tuple[int, ...]:
    env = lmdb.open(str(directory), readonly=True, lock=False, max_dbs=32)
    with env.begin() as txn:
        sizes = []
        for name in names:
            stat = txn.stat(env.open_db(name.encode(), txn=txn, create=False))
            pages = stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]
            sizes.append(pages * stat["psize"])
    env.close()
    return tuple(sizes)


def _report(spelling: str, enabled: bool, runs, count: int) -> None:
    rate, micros, pruned, rules_bytes, alias_bytes = (
        statistics.median(r[i] for r in runs) for i in range(5)
    )
    print(
        f"| {spelling} | {'on' if enabled else 'off'} | {rate:,.0f} | {micros:,.1f} | {pruned:,.0f}"
        f" | {rules_bytes / count:,.1f} | {alias_bytes / count:,.1f} |"
    )


if __name__ == "__main__":
    sys.exit(main())
