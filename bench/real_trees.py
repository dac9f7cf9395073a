"""The filter on real documentation trees (testweb.real_trees): mirrors and page-level drops.

    python bench/real_trees.py [--root DIR] [--other-build DIR] [--order ...|both] [-v]
    python bench/real_trees.py --web packaged     # Node.js, DocBook, npm and gtk-doc manuals

The web is built from the HTML manuals of an installed Rust toolchain (found under ~/.rustup, or
``--root``); without one the script says so and exits 2. When a second toolchain is installed
(or ``--other-build`` is given), the whole-host mirror serves its build of the same books. Each
crawl runs in memory through the core API (``testweb.online.crawl``) and is scored like
``bench/mirrors.py``. Because nobody
labelled the page-level duplicates of real manuals, every drop of a page the ground truth calls
an original is listed with its evidence (``-v``: all of them, else the first 15) for a reader to
judge, and counted by reason.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from mirrors import HEADER, _row, run_once

from dedup_filter import Config, Decision
from testweb.online import ORDERS, crawl
from testweb.real_trees import PACKAGED_DOCS, find_doc_roots, packaged_docs_web, real_tree_web

_SHOWN = 15


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.web == "packaged":
        sources = {prefix: path for prefix, path in PACKAGED_DOCS.items() if path.is_dir()}
        if not sources:
            print("none of the packaged manuals is installed here")
            return 2
        web = packaged_docs_web(sources)
        print(f"# bench/real_trees.py --web packaged ({', '.join(map(str, sources.values()))})\n")
    else:
        found = find_doc_roots()
        root = args.root or (found[0] if found else None)
        if root is None or not root.is_dir():
            print("no documentation trees found (install a Rust toolchain or pass --root)")
            return 2
        other = args.other_build or next((path for path in found if path != root), None)
        web = real_tree_web(root, other)
        print(f"# bench/real_trees.py --root {root} --other-build {other}\n")
    megabytes = sum(map(len, web.pages.values())) / 1e6
    print(f"web: {web.case_counts()}, {megabytes:.1f} MB of HTML\n")
    unfiltered = crawl(web, None)
    orders = ORDERS if args.order == "both" else (args.order,)
    rows, drops = [], {}
    for order in orders:
        result, _, log = run_once(web, unfiltered, Config.default(), order)
        rows.append(_row("content", order, [result]))
        pages = len(log.decisions)
        print(f"{order}: {pages} pages checked in {result.seconds:.1f} s", end=" ")
        print(f"({pages / result.seconds:.0f} pages/s with the crawl simulation)")
        drops[order] = [
            decision
            for url, decision in log.decisions.items()
            if decision.dropped and url in web.originals
        ]
    print("\n| " + HEADER + " |")
    print("|" + " --- |" * len(HEADER.split("|")))
    for row in rows:
        print(f"| {row} |")
    for order, dropped in drops.items():
        reasons = Counter(decision.reason for decision in dropped)
        print(f"\n{order}: {len(dropped)} originals dropped page by page: {dict(reasons)}")
        for decision in dropped if args.verbose else dropped[:_SHOWN]:
            print("  " + _explained(decision))
    return 0


def _explained(decision: Decision) -> str:
    evidence = decision.evidence
    figures = ", ".join(
        f"{key} {evidence[key]}"
        for key in ("rule", "site_relation", "b_shared", "c_agree_bits", "tokens")
        if key in evidence
    )
    return f"{decision.url} -> {decision.duplicate_of} ({decision.reason}: {figures})"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--web", choices=("rust", "packaged"), default="rust")
    parser.add_argument("--root", type=Path, help="a directory holding the manuals' trees")
    parser.add_argument("--other-build", type=Path, help="another build of the same manuals")
    parser.add_argument("--order", choices=(*ORDERS, "both"), default="both")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every drop")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
