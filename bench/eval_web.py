"""The evaluation web of issues 11 and 12 (testweb.evalweb): real Scrapy crawls in four orders,
scored against the ground truth from the server's request log.

    python bench/eval_web.py [--scale full|small|holdout|...|holdout25|sources|versions|platforms
                                      |pythons|retemplated]
                             [--orders breadth_first,round_robin,random,depth_first]
                             [--seed N] [--no-peer] [--workdir DIR] [--breakdown]
                             [--pause-every N] [--redirects] [--query-blind] [--pretty]
                             [--pretty-section] [--no-errback] [-v]

Builds the web from Debian documentation packages (fetched with apt-get into
~/.cache/dedup-filter/debdocs when missing), serves it on loopback, and for each order crawls it
without the filter, with it, and with a plain datasketch MinHashLSH filter (the peer); prints one
table per order, then the worst figure of each column over the orders. docs/evaluation.md says
what each column means. ``--pause-every N`` pauses each filtered (and peer) crawl every N requests
and resumes it from its ``JOBDIR``, as an operator stopping a long crawl with Ctrl-C would.
``--redirects`` serves the web with 301s as real servers send them (testweb/evalweb/redirects.py).
``--pretty`` serves the chain's whole copy under "pretty" URLs, ``intro`` for ``intro.html``
(testweb/evalweb/pretty.py); ``--pretty-section`` serves so only the largest section of the
chain's origin, below a top that names ``.html`` (a site that mixes its naming).
``--query-blind`` serves a URL with a query that names no page as its path's page, as static
servers and most CMSes do: a probe or a canonical URL built with a parameter the server ignores
is answered, not refused (``testweb.site.page_served``).
``--no-errback``: the spider's requests carry no errback, as most spiders' (a drop then reaches no
spider code).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

from testweb.evalweb.breakdown import breakdown_lines, extra_fetches
from testweb.evalweb.builder import LAYOUTS, build_eval_web
from testweb.evalweb.crawls import FILTER, PEER, UNFILTERED, crawl
from testweb.evalweb.orders import ORDERS
from testweb.evalweb.platforms import build_platforms_web
from testweb.evalweb.pretty import prettified, section_prettified
from testweb.evalweb.pythons import build_pythons_web
from testweb.evalweb.redirects import redirected
from testweb.evalweb.retemplated import build_retemplated_web
from testweb.evalweb.scorer import Score, score
from testweb.evalweb.truth import GroundTruth
from testweb.evalweb.versions import build_versions_web
from testweb.server import serve

HEADER = (
    "variant",
    "fetches",
    "saved",
    "lost (must-keep)",
    "rules right",
    "origins pruned",
    "boundaries",
    "near-dup precision",
    "near-dup recall",
    "aliases avoided",
    "trap rules",
)

# webs built from packages, not a layout: one manual's editions side by side on one site, or
# manuals copied into other sites' layouts
_SIDE_BY_SIDE = {
    "versions": build_versions_web,
    "platforms": build_platforms_web,
    "pythons": build_pythons_web,
    "retemplated": build_retemplated_web,
}


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="eval-web-"))
    if workdir.is_dir() and any(workdir.iterdir()):
        # its crawls' indexes would be reused: every page a recrawl's "unchanged", no quality figure
        print(f"eval_web: {workdir} holds an earlier run; give a new or empty --workdir")
        return 2
    side_by_side = _SIDE_BY_SIDE.get(args.scale)
    web = side_by_side() if side_by_side else build_eval_web(args.scale, args.seed)
    if args.pretty:
        web = prettified(web)
    if args.pretty_section:
        web = section_prettified(web)
    if args.redirects:
        web = redirected(web)
    if args.query_blind:
        web = replace(web, query_blind=True)
    workdir.mkdir(parents=True, exist_ok=True)
    truth = GroundTruth.load(web.save_truth(workdir))  # the scorer knows the web by this file only
    variants = (
        " --pretty" * args.pretty
        + " --pretty-section" * args.pretty_section
        + " --redirects" * args.redirects
        + " --query-blind" * args.query_blind
    )
    print(f"# bench/eval_web.py --scale {args.scale}{variants}\n")
    print(
        f"web: {len(web.pages)} URLs on {len({url.split('/')[2] for url in web.pages})} hosts, "
        f"{sum(map(len, web.pages.values())) / 1e6:.1f} MB; {len(truth.must_keep())} must-keep, "
        f"{len(truth.aliases())} same-site aliases, {len(truth.replicas)} replica boundaries\n"
    )
    scores: dict[str, list[Score]] = {}
    with serve(web.test_web()) as server:
        for order in args.orders.split(","):
            plain = crawl(server, web, workdir, UNFILTERED, order, args.seed)
            variants = [FILTER] + ([] if args.no_peer else [PEER])
            records = [
                crawl(
                    server,
                    web,
                    workdir,
                    variant,
                    order,
                    args.seed,
                    pause_every=args.pause_every,
                    spider_arguments={"errback": "no"} if args.no_errback else None,
                )
                for variant in variants
            ]
            scores[order] = [score(truth, web.served(), plain, record) for record in records]
            _table(
                f"{order} ({len(plain.fetched())} pages fetched without the filter)",
                scores[order],
                args.verbose,
            )
            if args.breakdown:
                print("\n".join(breakdown_lines(truth, records[0])) + "\n")
                (workdir / f"extra-{order}.json").write_text(
                    json.dumps([asdict(fetch) for fetch in extra_fetches(truth, records[0])])
                )
    _table(
        "worst order (each column's worst figure)",
        [
            _worst([row for rows in scores.values() for row in rows if row.variant == variant])
            for variant in (FILTER, PEER)
            if not (args.no_peer and variant == PEER)
        ],
        False,
    )
    savings = [row.saved for rows in scores.values() for row in rows if row.variant == FILTER]
    print(f"spread of savings across orders: {100 * (max(savings) - min(savings)):.0f} points")
    return 0


def _table(title: str, rows: list[Score], verbose: bool) -> None:
    print(f"## {title}\n")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + " --- |" * len(HEADER))
    for row in rows:
        print("| " + " | ".join(_cells(row)) + " |")
    print()
    for row in rows:
        if verbose or row.variant == FILTER:
            for key in row.lost[: None if verbose else 10]:
                print(f"  {row.variant} lost: {key}")
            for key in row.newer_lost:
                print(f"  {row.variant} newer text lost: {key}")
            for rule in row.wrong_rules:
                print(f"  {row.variant} wrong rule: {rule}")
            for rule in row.wrong_rules_gone:
                print(f"  {row.variant} wrong rule gone by the end: {rule}")
            for boundary in row.boundaries_missed if row.variant == FILTER else ():
                print(f"  {row.variant} boundary not found: {boundary}")
            if row.alias_kinds:
                kinds = ", ".join(
                    f"{kind} {total - fetched} of {total}"
                    for kind, (fetched, total) in row.alias_kinds.items()
                )
                print(f"  {row.variant} aliases not fetched, by kind: {kinds}")
                avoidable = row.aliases - row.aliases_first
                avoided = row.aliases - row.aliases_fetched
                print(
                    f"  {row.variant} aliases fetched as the first URL of their content:"
                    f" {row.aliases_first}; avoided of the others: {avoided} of {avoidable}"
                )
                print(f"  {row.variant} trap URLs not fetched: {len(row.traps_missed)}")
    print()


def _cells(row: Score) -> list[str]:
    filtered = row.variant == FILTER
    return [
        row.variant,
        f"{row.fetches} of {row.unfiltered_fetches}",
        f"{100 * row.saved:.0f} %",
        f"{len(row.lost)} ({row.must_keep_lost})",
        f"{row.rules_right} of {row.rules}" if filtered else "-",
        str(row.origins_pruned) if filtered else "-",
        f"{row.boundaries_found} of {row.boundaries}" if filtered else "-",
        _ratio(row.near_precision, row.page_drops),
        _ratio(row.near_recall, row.near_pairs),
        _ratio(row.aliases_avoided, row.aliases),
        "-" if row.trap_rules is None else str(row.trap_rules),
    ]


def _ratio(value: float | None, out_of: int) -> str:
    return "-" if value is None else f"{value:.3f} (n={out_of})"


def _worst(rows: list[Score]) -> Score:
    """Each column's worst figure over the orders (a row no single crawl had): counts from the
    crawl with the worst ratio of that column."""
    saved = min(rows, key=lambda row: row.saved)
    rules = min(rows, key=lambda row: row.rules_right / row.rules if row.rules else 1.0)
    drops = min(rows, key=lambda row: _or_one(row.near_precision))
    pairs = min(rows, key=lambda row: _or_one(row.near_recall))
    aliases = min(rows, key=lambda row: _or_one(row.aliases_avoided))
    return replace(
        saved,
        order="worst",
        lost=max((row.lost for row in rows), key=len),
        must_keep_lost=max(row.must_keep_lost for row in rows),
        rules=rules.rules,
        rules_right=rules.rules_right,
        origins_pruned=max(row.origins_pruned for row in rows),
        boundaries_found=min(row.boundaries_found for row in rows),
        page_drops=drops.page_drops,
        page_drops_right=drops.page_drops_right,
        near_pairs=pairs.near_pairs,
        near_pairs_dropped=pairs.near_pairs_dropped,
        aliases=aliases.aliases,
        aliases_fetched=aliases.aliases_fetched,
        trap_rules=max(
            (row.trap_rules for row in rows if row.trap_rules is not None), default=None
        ),
        wrong_rules=[],
        wrong_rules_gone=[],
        boundaries_missed=[],
        alias_kinds={},
        traps_missed=[],
    )


def _or_one(ratio: float | None) -> float:
    return 1.0 if ratio is None else ratio


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", choices=(*LAYOUTS, *_SIDE_BY_SIDE), default="full")
    parser.add_argument("--orders", default=",".join(ORDERS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-peer", action="store_true", help="skip the datasketch peer's crawls")
    parser.add_argument(
        "--workdir",
        help="where the crawls' project directories go, new or empty (default: a temporary one)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="where the filter's unsaved fetches went (testweb/evalweb/breakdown.py)",
    )
    parser.add_argument(
        "--pause-every",
        type=int,
        default=0,
        metavar="N",
        help="pause the filtered (and peer) crawls with a JOBDIR every N requests and resume them",
    )
    parser.add_argument(
        "--redirects",
        action="store_true",
        help="slashless directory links, a www alias host and moved pages, answered 301",
    )
    parser.add_argument(
        "--query-blind",
        action="store_true",
        help="servers answer a URL with a query they have no page for with its path's page",
    )
    parser.add_argument(
        "--pretty",
        action="store_true",
        help='the chain\'s whole copy served under "pretty" URLs (intro for intro.html)',
    )
    parser.add_argument(
        "--pretty-section",
        action="store_true",
        help="the largest section of the chain's origin served so, below a top naming .html",
    )
    parser.add_argument(
        "--no-errback", action="store_true", help="the spider's requests carry no errback"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="every lost content, for every variant"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
