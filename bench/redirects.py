"""Real Scrapy crawls of the test web laid out as sites redirect (``testweb.redirects``).

    PYTHONPATH=. python bench/redirects.py [--rounds 3] [--baseline CHECKOUT]

The small test web (our own, built from pydoc pages) with every other directory link written
without its slash (301 to ``dir/``), its origin host also named ``www.`` (every URL there 301 to
the bare host) and 18 pages moved (their old URLs 301 to the new ones), served on loopback and
crawled with the filter one request at a time and 16 at once, ``--rounds`` times each.
``--baseline CHECKOUT`` crawls it with another checkout's filter too, in the same rounds (a
``git worktree`` with the links ``dedup_filter/scrapy -> ../scrapy_ext`` and
``dedup_filter/streams -> ../streams``). Per crawl: requests the server answered, pages
delivered twice, deferrals that ran out (``dedup/deferrals_expired``), repeats sent back through
the dupefilter after a redirect (``dedup/redirected_repeats``) and contents lost (an original
neither parsed nor dropped for a parsed page; a moved page may be dropped under its old URL).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from testweb.redirects import RedirectedWeb, with_redirects
from testweb.scrapy_project.run import CHECKOUT, CrawlRun, scrapy_crawl
from testweb.server import RunningServer, fetched_again, serve
from testweb.site import build_web

HOST = "docs.alpha.test"
_COLUMNS = ("requests", "twice", "deferrals_expired", "redirected_repeats", "lost")


def measure(
    server: RunningServer, redirected: RedirectedWeb, concurrency: int, checkout: Path
) -> dict[str, int]:
    """One crawl of ``redirected`` with the filter of ``checkout``, counted."""
    server.request_log.clear()
    with tempfile.TemporaryDirectory() as directory:
        workdir = Path(directory)
        run = scrapy_crawl(
            workdir,
            server.proxy_url,
            redirected.web.start_urls,
            name="redirects",
            settings={"CONCURRENT_REQUESTS": concurrency, "DEDUP_DECISION_LOG": "decisions.jsonl"},
            checkout=checkout,
        )
        if run.returncode != 0:
            raise SystemExit(run.log[-3000:])
        lines = (workdir / ".scrapy" / "decisions.jsonl").read_text().splitlines()
    fetched = server.request_log.entries()
    decisions = [json.loads(line) for line in lines]
    return {
        "requests": len(fetched),
        "twice": sum(count - 1 for count in fetched_again(fetched).values()),
        "deferrals_expired": run.stat("dedup/deferrals_expired") or 0,
        "redirected_repeats": run.stat("dedup/redirected_repeats") or 0,
        "lost": _lost(redirected, run, decisions),
    }


def _lost(redirected: RedirectedWeb, run: CrawlRun, decisions: list[dict[str, Any]]) -> int:
    """Originals neither parsed nor dropped for a parsed page."""
    parsed = set(run.parsed)
    dropped = {d["url"]: d["duplicate_of"] for d in decisions if d["action"] == "drop"}
    linked_as = {new: old for old, new in redirected.moved.items()}
    return sum(
        (dropped.get(url) or dropped.get(linked_as.get(url, ""))) not in parsed
        for url in redirected.web.originals - parsed
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python bench/redirects.py", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another checkout's filter, crawled too")
    args = parser.parse_args()
    checkouts = {"this checkout": CHECKOUT}
    if args.baseline is not None:
        checkouts["baseline"] = args.baseline.resolve()
    redirected = with_redirects(build_web(seed=0, scale="small"), HOST)
    print("| code | concurrency | round | " + " | ".join(_COLUMNS) + " |")
    print("|---|---:|---:|" + "---:|" * len(_COLUMNS))
    with serve(redirected.web) as server:
        for concurrency in (1, 16):
            for round_number in range(args.rounds):
                for name, checkout in checkouts.items():
                    counts = measure(server, redirected, concurrency, checkout)
                    cells = " | ".join(str(counts[column]) for column in _COLUMNS)
                    print(f"| {name} | {concurrency} | {round_number} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
