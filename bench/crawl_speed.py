"""Wall time per request of a real Scrapy crawl with the filter, against the same crawl without.

    python bench/crawl_speed.py [--rounds 5] [--scale demo] [--seed 0] [--concurrent-requests 16]

The web is ``testweb.site.build_web``: pydoc's HTML for the standard library (real documentation
pages, rendered offline, so any machine has them) on several hosts, with mirrors and duplicates.
It is served on loopback by ``testweb.server``, so the crawl is CPU-bound and its own cost shows.
Each round runs the plain crawl (``DEDUP_ENABLED=0``) and the filtered crawl (default settings, a
fresh index) as real ``scrapy crawl`` subprocesses, in alternating order, so the load of a shared
machine falls on both alike. A crawl's time is the spider's ``crawl_seconds`` (spider opened to
closed: no interpreter start-up), divided by the requests the server answered (probes included).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

from testweb.scrapy_project.run import CrawlRun, scrapy_crawl
from testweb.server import RunningServer, serve
from testweb.site import TestWeb, build_web

CRAWLS = {"plain": {"DEDUP_ENABLED": False}, "filtered": {}}


def crawl_ms_per_request(
    server: RunningServer, web: TestWeb, workdir: Path, name: str, concurrent_requests: int
) -> tuple[float, int]:
    """One crawl in a fresh project directory: (wall ms per request, requests served)."""
    server.request_log.clear()
    settings = CRAWLS[name] | {"CONCURRENT_REQUESTS": concurrent_requests}
    run = scrapy_crawl(workdir, server.proxy_url, web.start_urls, name=name, settings=settings)
    _check(run)
    requests = len(server.request_log)
    return 1000 * float(run.stats["crawl_seconds"]) / requests, requests


def _check(run: CrawlRun) -> None:
    if run.returncode != 0 or run.stat("log_count/ERROR"):
        msg = f"scrapy crawl {run.name} failed ({run.returncode}):\n{run.log[-2000:]}"
        raise RuntimeError(msg)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/crawl_speed.py", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale", choices=("small", "demo"), default="demo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrent-requests", type=int, default=16)
    args = parser.parse_args(argv)
    web = build_web(seed=args.seed, scale=args.scale)
    times: dict[str, list[float]] = {name: [] for name in CRAWLS}
    requests: dict[str, list[int]] = {name: [] for name in CRAWLS}
    with serve(web) as server, tempfile.TemporaryDirectory(prefix="crawl-speed-") as scratch:
        for round_number in range(args.rounds):
            order = list(CRAWLS) if round_number % 2 == 0 else list(reversed(CRAWLS))
            for name in order:
                workdir = Path(scratch, f"{name}{round_number}")
                ms, served = crawl_ms_per_request(
                    server, web, workdir, name, args.concurrent_requests
                )
                times[name].append(ms)
                requests[name].append(served)
                print(f"round {round_number}: {name:<8} {served:5d} requests  {ms:6.2f} ms/request")
    plain, filtered = (statistics.median(times[name]) for name in CRAWLS)
    print(f"\n{len(web.pages)} pages, {args.rounds} rounds, {args.concurrent_requests} at a time")
    print("| crawl | requests (median) | wall ms per request (median) |")
    print("|---|---:|---:|")
    for name in CRAWLS:
        median_ms = statistics.median(times[name])
        print(f"| {name} | {statistics.median(requests[name]):,.0f} | {median_ms:.2f} |")
    print(f"ratio filtered / plain: {filtered / plain:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
