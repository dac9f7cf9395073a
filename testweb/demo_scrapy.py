"""The main job's Scrapy part: a real ``scrapy crawl`` of the served test web, with and without the
filter, compared from the server's own request log.

``run_scrapy_demo(web, workdir)`` serves the web on loopback, runs both crawls as subprocesses
through the server's proxy and returns the table data; ``format_scrapy_demo`` renders it and
``scrapy_section`` is the demo section (``testweb.demo_scrapy:scrapy_section``). Alone::

    python -m testweb.demo_scrapy --scale demo --seed 0 --concurrent-requests 1
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dedup_filter import Config, DedupFilter

from .scrapy_project.run import CrawlRun, scrapy_crawl
from .server import LoggedRequest, serve
from .site import TestWeb, build_web

if TYPE_CHECKING:
    from .demo import DemoContext

INDEX_DIR = Path(".scrapy", "dedup-index")  # the default DEDUP_INDEX_PATH of the project
DECISION_LOG = "with_filter.decisions.jsonl"


def run_scrapy_demo(
    web: TestWeb,
    workdir: Path,
    *,
    config: Config | None = None,
    concurrent_requests: int = 1,
) -> dict[str, Any]:
    """Crawl ``web`` without, then with the filter; what each fetched, parsed and dropped.

    One request at a time by default, so the crawl meets pages in the breadth-first order the
    ground truth assumes (which copy is seen first decides which one is kept).
    """
    settings = {"CONCURRENT_REQUESTS": concurrent_requests}
    overrides = {"DEDUP_OVERRIDES": _dotted(config.to_dict())} if config is not None else {}
    with serve(web) as server:
        runs = {}
        for name, extra in (
            ("without_filter", {"DEDUP_ENABLED": False}),
            ("with_filter", {"DEDUP_DECISION_LOG": DECISION_LOG, **overrides}),
        ):
            server.request_log.clear()
            run = scrapy_crawl(
                workdir, server.proxy_url, web.start_urls, name=name, settings=settings | extra
            )
            runs[name] = _summary(run, server.request_log.entries(), web)
    without, with_filter = runs["without_filter"], runs["with_filter"]
    return {
        "pages_in_web": len(web.pages),
        "concurrent_requests": concurrent_requests,
        "crawls": runs,
        "dropped": with_filter["dropped"],
        "mirror_rules": mirror_rules(workdir / INDEX_DIR, config),
        "saving": {
            "fetches": without["fetches"] - with_filter["fetches"],
            "fetch_share": _share(without["fetches"] - with_filter["fetches"], without["fetches"]),
            "bytes": without["bytes"] - with_filter["bytes"],
            "bytes_share": _share(without["bytes"] - with_filter["bytes"], without["bytes"]),
        },
    }


def mirror_rules(index_dir: Path, config: Config | None = None) -> list[dict[str, Any]]:
    """The rules the crawl left in its index, with their evidence and boundaries."""
    with DedupFilter.open(index_dir, config) as dedup:
        return dedup.mirror_rules()


def format_scrapy_demo(result: Mapping[str, Any]) -> str:
    without, with_filter = result["crawls"]["without_filter"], result["crawls"]["with_filter"]
    rows = [("", "without filter", "with filter")]
    for label, key in (
        ("pages fetched", "fetches"),
        ("bytes fetched", "bytes"),
        ("pages parsed by the spider", "parsed"),
        ("probes", "probes"),
        ("crawl seconds", "seconds"),
    ):
        rows.append((label, f"{without[key]:,}", f"{with_filter[key]:,}"))
    mirrored = [
        f"{crawl['mirrored_pages_fetched']:,} of {crawl['mirrored_pages']:,}"
        for crawl in (without, with_filter)
    ]
    rows.append(("mirrored pages fetched", mirrored[0], mirrored[1]))
    width = max(len(row[0]) for row in rows)
    lines = [f"{row[0]:<{width}}  {row[1]:>15}  {row[2]:>15}" for row in rows]
    saving = result["saving"]
    lines.append(
        f"saving: {saving['fetches']:,} fetches ({saving['fetch_share']:.0%}), "
        f"{saving['bytes']:,} bytes ({saving['bytes_share']:.0%})"
    )
    lines.append(
        "dropped by reason: "
        + (
            ", ".join(f"{reason} {count}" for reason, count in sorted(result["dropped"].items()))
            or "none"
        )
    )
    lines.append(f"mirror rules ({len(result['mirror_rules'])}):")
    lines += [
        f"  {rule['mirror']} -> {rule['origin']}  (boundary: {rule.get('boundary')}, "
        f"{rule.get('matches')}/{rule.get('samples')} samples matched)"
        for rule in result["mirror_rules"]
    ]
    return "\n".join(lines)


def scrapy_section(context: DemoContext) -> None:
    """Demo section: the test web crawled by Scrapy with and without the filter."""
    print("\n== Scrapy: a real crawl of a local multi-host web, with and without the filter ==")
    started = time.perf_counter()
    web = build_web(seed=context.seed, scale="demo")
    print(f"test web built in {time.perf_counter() - started:.1f} s: {web.case_counts()}")
    result = run_scrapy_demo(web, context.workdir / "scrapy", config=context.config)
    print(format_scrapy_demo(result))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testweb.demo_scrapy", description=__doc__)
    parser.add_argument("--scale", choices=("small", "demo"), default="demo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrent-requests", type=int, default=1)
    args = parser.parse_args(argv)
    web = build_web(seed=args.seed, scale=args.scale)
    with tempfile.TemporaryDirectory(prefix="dedup-scrapy-") as scratch:
        result = run_scrapy_demo(web, Path(scratch), concurrent_requests=args.concurrent_requests)
    print(format_scrapy_demo(result))
    return 0


def _summary(run: CrawlRun, fetched: list[LoggedRequest], web: TestWeb) -> dict[str, Any]:
    if run.returncode != 0:
        msg = f"scrapy crawl {run.name} exited with {run.returncode}:\n{run.log[-2000:]}"
        raise RuntimeError(msg)
    urls = {entry.url for entry in fetched}
    return {
        "fetches": len(fetched),
        "bytes": sum(entry.bytes_sent for entry in fetched),
        "parsed": len(run.parsed),
        "seconds": round(run.seconds, 1),
        "probes": run.stat("dedup/probes"),
        "dropped": {
            key.removeprefix("dedup/dropped/"): value
            for key, value in run.dedup_stats().items()
            if key.startswith("dedup/dropped/")
        },
        "mirrored_pages_fetched": len(web.mirrored_urls & urls),
        "mirrored_pages": len(web.mirrored_urls),
        "statuses": dict(Counter(entry.status for entry in fetched)),
    }


def _dotted(tables: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {
        f"{table}.{key}": json.loads(json.dumps(value))
        for table, values in tables.items()
        for key, value in values.items()
    }


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
