"""Wall time per request of a real Scrapy crawl with the filter, against the same crawl without.

    PYTHONPATH=. python bench/crawl_speed.py [--rounds 5] [--scale demo] [--seed 0]
        [--concurrent-requests 16] [--prepare-processes 1] [--baseline CHECKOUT] [--no-errback]

The web is ``testweb.site.build_web``: pydoc's HTML for the standard library (real documentation
pages, rendered offline, so any machine has them) on several hosts, with mirrors and duplicates;
or, with ``--scale`` one of the evaluation webs' (``full``, ``holdout2``...), that web
(``testweb.evalweb``: Debian documentation trees, their copies, aliases and look-alikes, fetched
with apt-get when missing), where the filter has many more rules and pairs to weigh a URL by.
It is served on loopback by ``testweb.server``, so the crawl is CPU-bound and its own cost shows.
Each round runs the plain crawl (``DEDUP_ENABLED=0``) and the filtered crawl (default settings
but ``--prepare-processes``, a fresh index) as real ``scrapy crawl`` subprocesses, in alternating
order, so the load of a shared machine falls on both alike. A crawl's time is the spider's
``crawl_seconds`` (spider opened to closed: no interpreter start-up), divided by the requests the
server answered (probes included).
Its CPU time (the crawl's process and its children, the deciding process included, start-up
included) shows what the crawl costs a machine whose cores are all busy. Two more columns keep the
first honest: the whole ``scrapy crawl`` process's wall time (interpreter and the filter's
start-up included: a cost moved before the spider opens still shows there), and the CPU time of
the reactor's thread from the first start request to the spider's close (Scrapy's own work, and
what the filter leaves in it).

The spider gives every request an errback that records the filter's drops (docs/scrapy.md), so
each request dropped before its fetch is one more call of spider code (and an item); with
``--no-errback`` its requests carry none, as most spiders' do, and such a drop is Scrapy's alone.

``--baseline CHECKOUT`` adds a third crawl to each round: the filtered crawl with the filter of
another checkout (say a ``git worktree`` of the last release, with the links ``dedup_filter/scrapy
-> ../scrapy_ext`` and ``dedup_filter/streams -> ../streams`` that the wheel's layout makes), so
two versions of the code are measured side by side; on this machine two crawls of the same code
differ by several percent, one draw from another.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from testweb.evalweb.builder import LAYOUTS, build_eval_web
from testweb.scrapy_project.run import CHECKOUT, CrawlRun, scrapy_crawl
from testweb.server import RunningServer, serve
from testweb.site import TestWeb, build_web

CRAWLS = {"plain": {"DEDUP_ENABLED": False}, "filtered": {}, "baseline": {}}


@dataclass(frozen=True, slots=True)
class Measured:
    """One crawl: requests the server answered, and milliseconds per request of wall time (the
    spider open, and the whole process), CPU time (the process and its children) and the
    reactor thread's CPU time."""

    requests: int
    wall_ms: float
    process_wall_ms: float
    cpu_ms: float
    reactor_cpu_ms: float


def measure_crawl(
    server: RunningServer,
    web: TestWeb,
    workdir: Path,
    name: str,
    settings: dict[str, Any],
    checkout: Path = CHECKOUT,
    spider_arguments: dict[str, str] | None = None,
) -> Measured:
    """One crawl in a fresh project directory (``settings`` over the crawl's own), with the
    filter of ``checkout``."""
    server.request_log.clear()
    settings = CRAWLS[name] | settings
    cpu_before = _children_cpu_s()
    run = scrapy_crawl(
        workdir,
        server.proxy_url,
        web.start_urls,
        name=name,
        settings=settings,
        checkout=checkout,
        spider_arguments=spider_arguments,
    )
    cpu_s = _children_cpu_s() - cpu_before  # start-up included: read it as an upper bound
    _check(run)
    requests = len(server.request_log)
    per_request_ms = 1000 / requests
    return Measured(
        requests,
        per_request_ms * float(run.stats["crawl_seconds"]),
        per_request_ms * run.seconds,
        per_request_ms * cpu_s,
        per_request_ms * float(run.stats["reactor_cpu_seconds"]),
    )


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _check(run: CrawlRun) -> None:
    if run.returncode != 0 or run.stat("log_count/ERROR"):
        msg = f"scrapy crawl {run.name} failed ({run.returncode}):\n{run.log[-2000:]}"
        raise RuntimeError(msg)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/crawl_speed.py", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--scale", choices=("small", "demo", *LAYOUTS), default="demo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrent-requests", type=int, default=16)
    parser.add_argument("--prepare-processes", type=int, default=1, help="DEDUP_PREPARE_PROCESSES")
    parser.add_argument("--baseline", type=Path, help="another checkout's filter, crawled too")
    parser.add_argument(
        "--no-errback", action="store_true", help="the spider's requests carry no errback"
    )
    args = parser.parse_args(argv)
    checkouts = {"plain": CHECKOUT, "filtered": CHECKOUT}
    if args.baseline is not None:
        if not (args.baseline / "dedup_filter" / "scrapy").exists():
            parser.error(f"{args.baseline}/dedup_filter/scrapy is missing (see --help)")
        checkouts["baseline"] = args.baseline.resolve()
    settings = {
        "CONCURRENT_REQUESTS": args.concurrent_requests,
        "DEDUP_PREPARE_PROCESSES": args.prepare_processes,
    }
    spider_arguments = {"errback": "no"} if args.no_errback else {}
    web = (
        build_eval_web(args.scale, args.seed).test_web()
        if args.scale in LAYOUTS
        else build_web(seed=args.seed, scale=args.scale)
    )
    load_before = os.getloadavg()
    runs: dict[str, list[Measured]] = {name: [] for name in checkouts}
    with serve(web) as server, tempfile.TemporaryDirectory(prefix="crawl-speed-") as scratch:
        for round_number in range(args.rounds):
            order = list(checkouts) if round_number % 2 == 0 else list(reversed(checkouts))
            for name in order:
                workdir = Path(scratch, f"{name}{round_number}")
                run = measure_crawl(
                    server, web, workdir, name, settings, checkouts[name], spider_arguments
                )
                runs[name].append(run)
                print(
                    f"round {round_number}: {name:<8} {run.requests:5d} requests"
                    f"  {run.wall_ms:6.2f} wall ms/request  {run.process_wall_ms:6.2f} process"
                    f"  {run.cpu_ms:6.2f} CPU ms/request  {run.reactor_cpu_ms:6.2f} reactor"
                )
    print(
        f"\n{len(web.pages)} pages, {args.rounds} rounds, {args.concurrent_requests} at a time,"
        f" DEDUP_PREPARE_PROCESSES={args.prepare_processes},"
        f" {'no errback' if args.no_errback else 'an errback on every request'};"
        f" load average {_load(load_before)} before, {_load(os.getloadavg())} after"
    )
    _print_table(runs)
    return 0


def _print_table(runs: dict[str, list[Measured]]) -> None:
    print(
        "| crawl | requests | wall ms per request | the same, whole process |"
        " CPU ms per request (with start-up) | reactor thread's CPU ms per request |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    medians = {name: _medians(measured) for name, measured in runs.items()}
    for name, (requests, *columns) in medians.items():
        print(f"| {name} | {requests:,.0f} | " + " | ".join(f"{ms:.2f}" for ms in columns) + " |")
    pairs = [("filtered", "plain"), ("baseline", "plain"), ("filtered", "baseline")]
    for mine, theirs in (pair for pair in pairs if set(pair) <= runs.keys()):
        ratios = [f"{ratio:.2f}" for ratio in _ratios(medians[theirs][1:], medians[mine][1:])]
        print(f"| {mine} / {theirs} (of the medians) | | " + " | ".join(ratios) + " |")
        rounds = zip(runs[theirs], runs[mine], strict=True)
        per_round = [_ratios(_columns(their), _columns(my)) for their, my in rounds]
        of_rounds = [f"{statistics.median(column):.2f}" for column in zip(*per_round, strict=True)]
        print(f"| {mine} / {theirs} (median of the rounds) | | " + " | ".join(of_rounds) + " |")


_COLUMNS = ("wall_ms", "process_wall_ms", "cpu_ms", "reactor_cpu_ms")


def _ratios(plain: list[float], filtered: list[float]) -> list[float]:
    return [mine / theirs for theirs, mine in zip(plain, filtered, strict=True)]


def _load(averages: tuple[float, float, float]) -> str:
    return "/".join(f"{average:.1f}" for average in averages)


def _columns(run: Measured) -> list[float]:
    return [getattr(run, column) for column in _COLUMNS]


def _medians(measured: list[Measured]) -> list[float]:
    """The median requests, then the median of each column."""
    return [
        statistics.median(run.requests for run in measured),
        *(statistics.median(column) for column in zip(*map(_columns, measured), strict=True)),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
