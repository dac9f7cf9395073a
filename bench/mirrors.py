"""Mirrored directories on the multi-host test web, detected online through the core API.

Each run crawls ``testweb.site.build_web(seed, scale)`` in memory (``testweb.online.crawl``):
check_url before every request, probes first, links followed from kept pages only; then scores
the mirror rules against the web's ground truth:

    precision          correct rules / rules (a rule is correct when it lies inside a true
                       replicated pair with the same relative paths below it)
    recall             true mirrors with at least one correct rule / true mirrors
    boundary           true mirrors whose rule is exactly their replica boundary / true mirrors
    never fetched      mirrored pages never requested / mirrored pages
    originals lost     originals the unfiltered crawl fetches that this one drops or never fetches
    of which copy first   ... dropped as exact or near-duplicates of a copy the crawl met first
                       (page-level dedup keeps the first copy seen; not the mirror detector)
    probes / rule      probe requests (failed ones included) per rule; "crawled anyway": those of
                       pages the unfiltered crawl fetches outside the mirrors (an origin's page, a
                       trap's page), which the crawl is served later instead of fetching again
    by kind (-v)       mirrored pages never fetched, per kind of mirror
    --phases           the mirrored pages a crawl fetched, by the phase of detection they were
                       fetched in (bench/mirror_phases.py), per web and order (content mode)

Usage:
    python bench/mirrors.py [--scale small|demo] [--seeds 0,1,2] [--mode content|url|both]
                            [--order breadth_first|host_round_robin|both] [--samples 4]
    python bench/mirrors.py --web patterns          # documentation patterns (testweb.doc_patterns)
    python bench/mirrors.py --web patterns --phases # where the fetched mirrored pages go
    python bench/mirrors.py --cost --scale demo     # ms and bytes a page, mirrors off and on
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from mirror_phases import PhaseRecorder, describe

from dedup_filter import Config, DedupFilter
from testweb.doc_patterns import PATTERNS, pattern_web
from testweb.doc_traps import theme_trap_web
from testweb.online import ORDERS, CrawlLog, crawl
from testweb.site import MirrorTruth, TestWeb, build_web


@dataclass(frozen=True, slots=True)
class RunScore:
    """The figures of one crawl."""

    rules: int
    correct_rules: int
    mirrors: int
    mirrors_found: int
    boundaries_exact: int
    mirrored_pages: int
    mirrored_never_fetched: int
    originals_lost: int
    originals_copy_first: int
    originals_pruned_by_rules: int
    probes: int
    failed_probes: int
    probes_crawled_anyway: int
    requests: int
    requests_unfiltered: int
    seconds: float
    by_kind: tuple[tuple[str, int, int], ...] = ()  # (kind, never fetched, mirrored pages)


def correct_rule(rule: dict[str, Any], truths: list[MirrorTruth]) -> bool:
    """Whether a rule lies inside a true replicated pair, mapping relative paths unchanged."""
    mirror, origin = rule["mirror"].lower(), rule["origin"].lower()
    return any(
        mirror.startswith(truth.d2.lower()) and origin == truth.d1.lower() + mirror[len(truth.d2) :]
        for truth in truths
    )


def score(
    web: TestWeb, log: CrawlLog, unfiltered: CrawlLog, rules: list[dict[str, Any]], seconds: float
) -> RunScore:
    fetched = log.fetched_set
    pruned = set(log.pruned)
    reachable_originals = web.originals & unfiltered.fetched_set
    lost = {
        url
        for url in reachable_originals
        if url not in fetched or (url in log.decisions and log.decisions[url].dropped)
    }
    page_level = {
        url
        for url in lost
        if url in log.decisions
        and log.decisions[url].reason in ("exact_duplicate", "near_duplicate")
    }
    good = [rule for rule in rules if correct_rule(rule, web.mirrors)]
    found = [truth for truth in web.mirrors if any(correct_rule(rule, [truth]) for rule in good)]
    exact = [
        truth
        for truth in web.mirrors
        if any((rule["mirror"], rule["origin"]) == truth.boundary for rule in rules)
    ]
    return RunScore(
        rules=len(rules),
        correct_rules=len(good),
        mirrors=len(web.mirrors),
        mirrors_found=len(found),
        boundaries_exact=len(exact),
        mirrored_pages=len(web.mirrored_urls),
        mirrored_never_fetched=len(web.mirrored_urls - fetched),
        originals_lost=len(lost),
        originals_copy_first=len(page_level),
        originals_pruned_by_rules=len(reachable_originals & pruned),
        probes=len(log.probes),
        failed_probes=len(log.failed_probes),
        probes_crawled_anyway=len(
            [url for url in log.probes if url in unfiltered.fetched_set - web.mirrored_urls]
        ),
        requests=len(log.fetched),
        requests_unfiltered=len(unfiltered.fetched),
        seconds=seconds,
        by_kind=tuple(
            (truth.kind, len(truth.mirrored_urls - fetched), len(truth.mirrored_urls))
            for truth in web.mirrors
        ),
    )


def run_once(
    web: TestWeb, unfiltered: CrawlLog, config: Config, order: str
) -> tuple[RunScore, list[dict[str, Any]], CrawlLog]:
    """One filtered crawl on a fresh index: its score, its rules and its log."""
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        started = time.perf_counter()
        log = crawl(web, dedup, order)
        seconds = time.perf_counter() - started
        rules = dedup.mirror_rules()
    return score(web, log, unfiltered, rules, seconds), rules, log


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f}" if whole else "n/a"


def _row(mode: str, order: str, scores: list[RunScore]) -> str:
    total = {
        name: sum(getattr(item, name) for item in scores)
        for name in RunScore.__dataclass_fields__
        if name != "by_kind"
    }
    return " | ".join(
        [
            mode,
            order,
            str(len(scores)),
            str(total["rules"]),
            _ratio(total["correct_rules"], total["rules"]),
            _ratio(total["mirrors_found"], total["mirrors"]),
            _ratio(total["boundaries_exact"], total["mirrors"]),
            _ratio(total["mirrored_never_fetched"], total["mirrored_pages"]),
            f"{total['originals_lost']} ({total['originals_copy_first']} copy first)",
            str(total["originals_pruned_by_rules"]),
            f"{total['probes'] / max(total['rules'], 1):.1f} ({total['failed_probes']} failed,"
            f" {total['probes_crawled_anyway'] / max(total['rules'], 1):.1f} crawled anyway)",
            f"{total['requests']} / {total['requests_unfiltered']}",
            f"{total['seconds']:.1f}",
        ]
    )


HEADER = (
    "mode | order | seeds | rules | precision | recall | boundary | mirrored never fetched"
    " | originals lost | originals pruned | probes / rule | requests / unfiltered | seconds"
)


def cost(web: TestWeb) -> None:
    """check_page time and disk bytes a page, mirror detection off and on (one page a batch)."""
    pages = list(web.pages.items())
    for enabled in (False, True, False, True):  # the first two warm the parser and the page cache
        config = Config.default().with_overrides({"mirror.enabled": enabled})
        with (
            tempfile.TemporaryDirectory() as directory,
            DedupFilter.open(directory, config) as dedup,
        ):
            started = time.perf_counter()
            for url, body in pages:
                dedup.check_page(url, body)
            per_page_ms = 1000 * (time.perf_counter() - started) / len(pages)
            disk = dedup.index.disk_bytes() / len(pages)
        print(
            f"mirror.enabled={enabled}: {per_page_ms:.2f} ms a page, {disk:.0f} disk bytes a page"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--web",
        default="testweb",
        choices=("testweb", "patterns"),
        help="the multi-host test web, or the documentation-pattern webs and the theme trap",
    )
    parser.add_argument("--scale", default="small", choices=("small", "demo"))
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated web seeds")
    parser.add_argument("--mode", default="both", choices=("content", "url", "both"))
    parser.add_argument("--order", default="both", choices=(*ORDERS, "both"))
    parser.add_argument("--samples", type=int, default=4, help="mirror.samples (lambda)")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="print every rule and the figures by kind"
    )
    parser.add_argument("--cost", action="store_true", help="measure the cost per page instead")
    parser.add_argument(
        "--phases", action="store_true", help="where the fetched mirrored pages go, instead"
    )
    args = parser.parse_args(argv)
    if args.cost:
        cost(build_web(int(args.seeds.split(",")[0]), args.scale))
        return 0
    if args.phases:
        phases(_webs(args), ORDERS if args.order == "both" else (args.order,), args.samples)
        return 0
    modes = ("content", "url") if args.mode == "both" else (args.mode,)
    orders = ORDERS if args.order == "both" else (args.order,)
    webs = _webs(args)
    unfiltered = [crawl(web, None) for web in webs]
    print(f"mirror.samples {args.samples}")
    print(HEADER)
    print(" | ".join("---" for _ in HEADER.split(" | ")))
    for mode in modes:
        config = Config.default().with_overrides(
            {"mirror.mode": mode, "mirror.samples": args.samples}
        )
        for order in orders:
            scores = []
            for web, baseline in zip(webs, unfiltered, strict=True):
                result, rules, _ = run_once(web, baseline, config, order)
                scores.append(result)
                if args.verbose:
                    for rule in rules:
                        verdict = "ok " if correct_rule(rule, web.mirrors) else "BAD"
                        print(
                            f"  {verdict} {rule['mirror']} -> {rule['origin']} ({rule['boundary']},"
                            f" {rule['matches']}/{rule['samples']})",
                            file=sys.stderr,
                        )
            print(_row(mode, order, scores))
            if args.verbose:
                print(f"  never fetched by kind: {_by_kind(scores)}", file=sys.stderr)
    return 0


def phases(webs: list[TestWeb], orders: tuple[str, ...], samples: int) -> None:
    """The mirrored pages each content-mode crawl fetched, by phase of detection."""
    print()
    config = Config.default().with_overrides({"mirror.samples": samples})
    for order in orders:
        for web in webs:
            with (
                tempfile.TemporaryDirectory() as directory,
                DedupFilter.open(directory, config) as dedup,
            ):
                recorder = PhaseRecorder(dedup, web)
                log = crawl(web, recorder, order)  # type: ignore[arg-type]  # a DedupFilter proxy
                counts = recorder.counts(dedup.mirror_rules(), set(log.probes))
            if web.mirrors:
                print(f"{order}, {web.scale} (seed {web.seed}):\n{describe(counts, web)}")


def _webs(args: argparse.Namespace) -> list[TestWeb]:
    """The webs to crawl (and say which)."""
    if args.web == "patterns":
        print(f"documentation patterns {', '.join(PATTERNS)} and the same-theme traps", end=", ")
        traps = [theme_trap_web(), theme_trap_web(theme_at_root=True)]
        return [*(pattern_web(name) for name in PATTERNS), *traps]
    print(f"scale {args.scale}, seeds {args.seeds}", end=", ")
    return [build_web(int(seed), args.scale) for seed in args.seeds.split(",")]


def _by_kind(scores: list[RunScore]) -> str:
    kinds: dict[str, list[int]] = {}
    for item in scores:
        for kind, never, pages in item.by_kind:
            counts = kinds.setdefault(kind, [0, 0])
            counts[0] += never
            counts[1] += pages
    return ", ".join(f"{kind} {_ratio(never, pages)}" for kind, (never, pages) in kinds.items())


if __name__ == "__main__":
    sys.exit(main())
