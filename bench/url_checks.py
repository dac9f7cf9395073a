"""What a URL check costs in a crawl's index: the checks an evaluation crawl made, asked again.

    PYTHONPATH=. python bench/url_checks.py WORKDIR/filter-ORDER [--checks 4000] [--rounds 5]
        [--commit-every 0,4]

``WORKDIR/filter-ORDER`` is one crawl of ``bench/eval_web.py --workdir WORKDIR``: its index (with
the rules the crawl ended with) is copied, and the URLs of its decision log's URL checks are
asked again, in the log's order, with ``check_url_unless_deferred`` (the reactor thread's check in
Scrapy). A crawl commits between its checks (a batch of pages every few URLs): ``--commit-every
K`` writes one row of ``meta`` and commits after every K checks (0: never), so what a reader
reuses until the rule tables change (``index/rules_memo.py``) is measured as a crawl would use it
(its pages commit, its rules seldom change). The report is
the median over the rounds of microseconds per check; run two checkouts in turns to compare them
(``farm-bench``, or one after the other on a quiet machine).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from dedup_filter import DedupFilter
from dedup_filter.decision import PAGE_REASONS, Reason

_INDEX = Path(".scrapy", "dedup-index")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/url_checks.py", description=__doc__)
    parser.add_argument("crawl", type=Path, help="a crawl's directory, WORKDIR/filter-ORDER")
    parser.add_argument("--checks", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--commit-every", default="0,4", help="checks between commits, 0: none")
    args = parser.parse_args(argv)
    urls = _checked_urls(args.crawl / "decisions.jsonl", args.checks)
    print(f"# bench/url_checks.py {args.crawl}: {len(urls)} URL checks, {args.rounds} rounds\n")
    print("| commits | µs per check (median) | fastest round | slowest round |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="url-checks-") as scratch:
        index = Path(scratch, "index")
        shutil.copytree(args.crawl / _INDEX, index)
        for every in (int(value) for value in args.commit_every.split(",")):
            rounds = [_round(index, urls, every) for _ in range(args.rounds)]
            label = f"every {every} checks" if every else "none"
            print(
                f"| {label} | {statistics.median(rounds):.1f} | {min(rounds):.1f}"
                f" | {max(rounds):.1f} |"
            )
    return 0


def _checked_urls(log: Path, limit: int) -> list[str]:
    """The URLs of the log's URL checks (the decisions whose reason is no page's nor a failed
    probe's)."""
    urls = []
    with log.open() as lines:
        for line in lines:
            decision = json.loads(line)
            if decision["reason"] not in PAGE_REASONS | {Reason.PROBE_FAILED}:
                urls.append(decision["url"])
            if len(urls) == limit:
                break
    return urls


def _round(index: Path, urls: list[str], every: int) -> float:
    """Microseconds per check of one pass over ``urls``, committing after every ``every``."""
    with DedupFilter.open(index) as dedup:
        dedup.check_url_unless_deferred(urls[0])  # the first read opens the tables
        elapsed = 0.0
        for number, url in enumerate(urls, 1):
            started = time.perf_counter()
            dedup.check_url_unless_deferred(url)
            elapsed += time.perf_counter() - started
            if every and number % every == 0:
                tick = b"%d" % number
                dedup.index.transact(lambda view, tick=tick: view.put("meta", b"bench:tick", tick))
    return elapsed / len(urls) * 1e6


if __name__ == "__main__":
    raise SystemExit(main())
