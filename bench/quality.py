"""Precision and recall of the drop decisions on the labelled real-text corpus, with the errors.

    python bench/quality.py [--originals N] [--seed S] [--config FILE] [--no-peers]

The corpus (testweb.labelled) holds pydoc pages of the standard library in the templates of
several sites, their near-duplicates made with the differences Henzinger's raters accepted, and
hard negatives (same template around another main item; database records differing in 10-30
consecutive words). Every page goes through ``DedupFilter.check_page`` in crawl order on a fresh
index. For comparison the same pages are judged by Algorithm B alone, C alone and the combined
rule everywhere (on the filter's own features, without site awareness), and by the peers a user
would pick instead (datasketch MinHash + MinHashLSH, the ``simhash`` package).

Then the filter's near-duplicate drops scored by exact resemblance (right when Jaccard >= 0.8 of
8-token shingles with the page they name, as issue 11 measures): on the labelled corpus, and on
``testweb.editions`` (language editions of guides and one-per-function reference pages, distinct
pages simhash takes for copies, plus a mirror's copies of half of them with a dynamic field
changed), one web per seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence

from resemblance import RIGHT, ResemblanceTally, pooled, resemblance_tally

from dedup_filter import Config, Decision, DedupFilter
from dedup_filter.features.fingerprint import Fingerprint, Fingerprinter
from dedup_filter.features.simhash import agreement
from dedup_filter.urls import normalize_url
from testweb.editions import editions_web
from testweb.labelled import LabelledPage, labelled_corpus
from testweb.scoring import CROSS_SITE, OVERALL, SAME_SITE, Score, Tally, score

Rule = Callable[[Fingerprint, Fingerprint], bool]
_FILTER = "dedup-filter (site-aware combined rule)"
_EVIDENCE_KEYS = ("rule", "site_relation", "b_shared", "c_agree_bits", "tokens", "truncated")


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    config = Config.load(args.config) if args.config else Config.default()
    seeds = range(args.seed, args.seed + args.seeds)
    print(
        f"# bench/quality.py --originals {args.originals} --seed {args.seed} --seeds {args.seeds}\n"
    )
    rows: dict[str, list[Score]] = {}
    resemblance: dict[str, list[ResemblanceTally]] = {"labelled corpus": [], "editions web": []}
    for seed in seeds:
        pages = labelled_corpus(seed, args.originals)
        _print_corpus(seed, pages)
        for name, result in _rows(pages, config, with_peers=not args.no_peers):
            rows.setdefault(name, []).append(result)
        decisions = [outcome.decision for outcome in rows[_FILTER][-1].outcomes]
        resemblance["labelled corpus"].append(resemblance_tally(pages, decisions))
        editions = editions_web(seed=seed)
        resemblance["editions web"].append(
            resemblance_tally(editions, _filter_decisions(editions, config))
        )
    filter_scores = rows[_FILTER]
    setting = args.config or "embedded defaults"
    print(f"\n## {_FILTER} ({setting}): counts pooled over seeds {_span(seeds)}\n")
    _print_relations(filter_scores)
    _print_kinds(filter_scores)
    print(f"## Other rules and peers on the same pages (pooled over seeds {_span(seeds)})\n")
    _print_comparison(rows)
    _print_resemblance(resemblance, seeds)
    for seed, result in zip(seeds, filter_scores, strict=True):
        _print_errors(seed, result)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--originals", type=int, default=200, help="originals (capped by the pool)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the (first) labelled corpus")
    parser.add_argument(
        "--seeds", type=int, default=1, help="corpora with consecutive seeds, pooled"
    )
    parser.add_argument("--config", help="TOML configuration (default: the embedded defaults)")
    parser.add_argument("--no-peers", action="store_true", help="skip datasketch and simhash")
    return parser.parse_args(argv)


def _filter_decisions(pages: list[LabelledPage], config: Config) -> list[Decision]:
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory, config) as dedup:
        return [dedup.check_page(page.url, page.body) for page in pages]


def _print_corpus(seed: int, pages: list[LabelledPage]) -> None:
    kinds: dict[str, int] = {}
    for page in pages:
        kinds[page.kind] = kinds.get(page.kind, 0) + 1
    duplicates = sum(page.duplicate_of is not None for page in pages)
    same_site = sum(page.duplicate_of is not None and page.same_site for page in pages)
    print(
        f"- seed {seed}: {len(pages)} pages, {duplicates} labelled duplicates "
        f"({same_site} same-site, {duplicates - same_site} cross-site); "
        + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    )


def _print_relations(results: list[Score]) -> None:
    print("| pairs | labelled duplicates | drops | correct drops | precision | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in (OVERALL, SAME_SITE, CROSS_SITE):
        tally = _pooled(result.by_relation[name] for result in results)
        print(
            f"| {name} | {tally.expected} | {tally.dropped} | {tally.correct} "
            f"| {_ratio(tally.precision)} | {_ratio(tally.recall)} |"
        )
    print()


def _print_kinds(results: list[Score]) -> None:
    print("| kind | pages | labelled duplicates | dropped | correct drops | recall |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind in sorted({kind for result in results for kind in result.by_kind}):
        tally = _pooled(result.by_kind[kind] for result in results if kind in result.by_kind)
        print(
            f"| {kind} | {tally.pages} | {tally.expected} | {tally.dropped} | {tally.correct} "
            f"| {_ratio(tally.recall)} |"
        )
    print()


def _rows(
    pages: list[LabelledPage], config: Config, *, with_peers: bool
) -> list[tuple[str, Score]]:
    """The filter, the rules without site awareness, and (optionally) the peers on ``pages``."""
    fingerprinter = Fingerprinter(config)
    prints = [fingerprinter.fingerprint(normalize_url(page.url), page.body) for page in pages]
    same_site_bits = config.simhash.scaled(config.simhash.same_site_threshold)
    cross_site_bits = config.simhash.scaled(config.simhash.cross_site_threshold)
    shared, features = config.minhash.min_shared_features, config.minhash.features
    b_similar = _b_similar(shared)
    rules: list[tuple[str, Rule]] = [
        (f"Algorithm B alone (>= {shared} of {features} super-shingles)", b_similar),
        (f"Algorithm C alone (>= {cross_site_bits} bits)", _c_similar(cross_site_bits)),
        (
            f"combined rule everywhere (B and >= {same_site_bits} bits)",
            lambda new, old: b_similar(new, old) and _c_similar(same_site_bits)(new, old),
        ),
    ]
    rows = [(_FILTER, score(pages, _filter_decisions(pages, config)))]
    rows += [(name, score(pages, _judge(prints, rule))) for name, rule in rules]
    return rows + (_peer_rows(pages) if with_peers else [])


def _print_comparison(rows: dict[str, list[Score]]) -> None:
    header = "| rule | precision | recall | same-site precision | same-site recall "
    print(header + "| cross-site precision | cross-site recall |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, results in rows.items():
        cells = []
        for group in (OVERALL, SAME_SITE, CROSS_SITE):
            tally = _pooled(result.by_relation[group] for result in results)
            cells += [_ratio(tally.precision), _ratio(tally.recall)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()


def _print_resemblance(tallies: dict[str, list[ResemblanceTally]], seeds: range) -> None:
    print(
        f"## {_FILTER}: near-duplicate drops by exact resemblance (Jaccard >= {RIGHT} of 8-token"
        f" shingles with the page named), pooled over seeds {_span(seeds)}\n"
    )
    print(
        "| web | near-duplicate drops | right | precision | copies resembling their original "
        "| dropped | recall | distinct pages dropped |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, per_seed in tallies.items():
        tally = pooled(per_seed)
        print(
            f"| {name} | {tally.near_drops} | {tally.right} | {_ratio(tally.precision)} "
            f"| {tally.resembling} | {tally.resembling_dropped} | {_ratio(tally.recall)} "
            f"| {tally.distinct_dropped} |"
        )
    print()


def _pooled(tallies: Iterable[Tally]) -> Tally:
    pooled = Tally()
    for tally in tallies:
        pooled.pages += tally.pages
        pooled.expected += tally.expected
        pooled.dropped += tally.dropped
        pooled.correct += tally.correct
    return pooled


def _peer_rows(pages: list[LabelledPage]) -> list[tuple[str, Score]]:
    from peers import DatasketchPipeline, SimhashPipeline

    rows = []
    for pipeline, label in (
        (DatasketchPipeline(threshold=0.9), "datasketch MinHashLSH, threshold 0.9"),
        (DatasketchPipeline(threshold=0.8), "datasketch MinHashLSH, threshold 0.8"),
        (SimhashPipeline(), "simhash package, 64 bits, k = 3"),
    ):
        verdicts = [pipeline.check(normalize_url(page.url), page.body) for page in pages]
        decisions = [
            Decision(v.url, "drop" if v.duplicate_of else "keep", "peer", v.duplicate_of)
            for v in verdicts
        ]
        rows.append((label, score(pages, decisions)))
    return rows


def _judge(prints: list[Fingerprint], rule: Rule) -> list[Decision]:
    """First copy kept; later pages dropped as exact copies or when ``rule`` matches a kept page."""
    kept: list[Fingerprint] = []
    exact: dict[int, str] = {}
    decisions = []
    for new in prints:
        if new.exact in exact:
            decisions.append(Decision(new.url, "drop", "exact_duplicate", exact[new.exact]))
            continue
        match = next((old for old in kept if rule(new, old)), None) if new.has_features else None
        if match is not None:
            decisions.append(Decision(new.url, "drop", "near_duplicate", match.url))
            continue
        decisions.append(Decision(new.url, "keep", "unique"))
        exact[new.exact] = new.url
        if new.has_features:
            kept.append(new)
    return decisions


def _b_similar(min_shared: int) -> Rule:
    return lambda new, old: len(set(new.features) & set(old.features)) >= min_shared


def _c_similar(min_bits: int) -> Rule:
    return lambda new, old: agreement(new.simhash, old.simhash) >= min_bits


def _print_errors(seed: int, result: Score) -> None:
    errors = [outcome for outcome in result.outcomes if outcome.false_drop or outcome.missed]
    print(f"## Errors of dedup-filter, seed {seed} ({len(errors)})\n")
    for outcome in errors:
        page, decision = outcome.page, outcome.decision
        label = "false drop" if outcome.false_drop else "missed"
        evidence = {
            key: decision.evidence[key] for key in _EVIDENCE_KEYS if key in decision.evidence
        }
        print(
            f"- {label}: {page.kind} {page.url} (labelled duplicate of {page.duplicate_of}); "
            f"decision {decision.action}/{decision.reason} of {decision.duplicate_of}; {evidence}"
        )
    print()


def _span(seeds: range) -> str:
    return f"{seeds.start}-{seeds.stop - 1}" if len(seeds) > 1 else str(seeds.start)


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    sys.exit(main())
