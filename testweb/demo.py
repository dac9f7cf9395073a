"""The main job (``bash scripts/run``): the filter over a labelled web of real text, and why.

The demo is a list of sections, ``SECTIONS``, each named ``"module:function"`` and called with a
``DemoContext`` (scratch directory, seed, corpus size, configuration). Sections run in order; a
section that fails is reported and the others still run, and the exit status is then 1. A new
section (a Scrapy crawl, a Kafka stream) is one module with one function and one more name here.
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dedup_filter import Config, Decision, DedupFilter
from dedup_filter.errors import ConfigError
from dedup_filter.features.fingerprint import Fingerprint, Fingerprinter
from dedup_filter.features.simhash import agreement

from .labelled import LabelledPage, labelled_corpus
from .scoring import CROSS_SITE, OVERALL, SAME_SITE, Score, Tally, score

SECTIONS: tuple[str, ...] = (
    "testweb.demo:corpus_section",
    "testweb.demo_scrapy:scrapy_section",
    "testweb.demo_stream:stream_section",
)
BATCH_SIZE = 64
EXAMPLES = 3


@dataclass(frozen=True, slots=True)
class DemoContext:
    """What every section gets: its own place to write, and the run's parameters."""

    workdir: Path  # scratch directory of the whole run, deleted at the end
    seed: int
    originals: int
    config: Config


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testweb.demo", description=__doc__)
    parser.add_argument("--originals", type=int, default=200, help="original pages in the corpus")
    parser.add_argument("--seed", type=int, default=0, help="seed of the corpus and its variants")
    parser.add_argument("--config", type=Path, help="configuration TOML (default: the defaults)")
    args = parser.parse_args(argv)
    try:
        config = Config.load(args.config) if args.config else Config.default()
    except (ConfigError, OSError) as error:
        print(f"configuration error: {error}")
        return 2
    failed = []
    with tempfile.TemporaryDirectory(prefix="dedup-demo-") as scratch:
        context = DemoContext(Path(scratch), args.seed, args.originals, config)
        for name in SECTIONS:
            if not _run_section(name, context):
                failed.append(name)
    if failed:
        print(f"\nsections that failed: {', '.join(failed)}")
    return 1 if failed else 0


def _run_section(name: str, context: DemoContext) -> bool:
    module_name, _, function_name = name.partition(":")
    started = time.perf_counter()
    try:
        module = importlib.import_module(module_name)
        section: Callable[[DemoContext], None] = getattr(module, function_name)
        section(context)
    except Exception:  # a failing section must not hide the others: report it and go on
        print(f"\n!! section {name} failed:\n{traceback.format_exc()}")
        return False
    print(f"\n(section {name} took {time.perf_counter() - started:.1f} s)")
    return True


def corpus_section(context: DemoContext) -> None:
    """Originals, their near-duplicates and hard negatives through ``check_pages``; scored."""
    _heading(f"1. Duplicate filter over a labelled corpus of real text (seed {context.seed})")
    started = time.perf_counter()
    pages = labelled_corpus(seed=context.seed, originals=context.originals)
    print(f"corpus built in {time.perf_counter() - started:.1f} s: {_corpus_summary(pages)}")
    decisions, elapsed = filter_pages(pages, context.workdir / "corpus-index", context.config)
    print(
        f"filtered {len(pages)} pages in {elapsed:.2f} s ({len(pages) / elapsed:,.0f} pages/s, "
        f"batches of {BATCH_SIZE} pages, one LMDB write transaction each)\n"
    )
    print_reasons(decisions)
    print_examples(pages, decisions)
    result = score(pages, decisions)
    print_score(result)
    print_mistakes(result, pages, context.config)


def filter_pages(
    pages: Sequence[LabelledPage], index_dir: Path, config: Config
) -> tuple[list[Decision], float]:
    """Decisions for ``pages`` in order, from a fresh index, and the seconds check_pages took."""
    decisions: list[Decision] = []
    with DedupFilter.open(index_dir, config) as dedup:
        started = time.perf_counter()
        for start in range(0, len(pages), BATCH_SIZE):
            batch = pages[start : start + BATCH_SIZE]
            decisions += dedup.check_pages([(page.url, page.body, None) for page in batch])
        elapsed = time.perf_counter() - started
    return decisions, elapsed


def _corpus_summary(pages: Sequence[LabelledPage]) -> str:
    kinds = Counter(page.kind for page in pages)
    duplicates = sum(page.duplicate_of is not None for page in pages)
    negatives = len(pages) - duplicates - kinds["original"]
    return (
        f"{len(pages)} pages: {kinds['original']} originals, {duplicates} labelled duplicates, "
        f"{negatives} hard negatives"
    )


def print_reasons(decisions: Sequence[Decision]) -> None:
    counts = Counter((decision.action, decision.reason) for decision in decisions)
    print("decisions by reason")
    for (action, reason), count in sorted(counts.items()):
        print(f"  {action:<4} {reason:<16} {count:>6}")
    print()


def print_examples(pages: Sequence[LabelledPage], decisions: Sequence[Decision]) -> None:
    """The first drop of each (reason, rule, site relation), with its evidence and its label."""
    print("example drops (first of each kind of evidence)")
    shown: set[tuple[str, str, str]] = set()
    for page, decision in zip(pages, decisions, strict=True):
        evidence = decision.evidence
        key = (decision.reason, evidence.get("rule", ""), evidence.get("site_relation", ""))
        if decision.dropped and key not in shown:
            shown.add(key)
            print(f"  {decision.url}\n    {decision.reason} of {decision.duplicate_of}")
            print(f"    evidence: {_evidence(decision)}; label: {page.kind}")
    print()


def _evidence(decision: Decision) -> str:
    evidence = decision.evidence
    parts = [f"rule {evidence.get('rule')}", str(evidence.get("site_relation"))]
    if "b_shared" in evidence:
        parts.append(f"B {evidence['b_shared']} features shared ({evidence['b_similarity']:.2f})")
    if "c_agree_bits" in evidence:
        parts.append(f"C {evidence['c_agree_bits']} bits agree ({evidence['c_similarity']:.3f})")
    return ", ".join(parts)


def print_score(result: Score) -> None:
    print("precision and recall of the drops against the labels")
    columns = ("expected", "dropped", "correct", "precision", "recall")
    print(f"  {'':<18} " + " ".join(f"{column:>9}" for column in columns))
    for name in (OVERALL, SAME_SITE, CROSS_SITE):
        print(f"  {name:<18} {_row(result.by_relation[name])}")
    print("  by kind of page")
    for kind, tally in sorted(result.by_kind.items()):
        print(f"    {kind:<16} {_row(tally)}")
    print()


def _row(tally: Tally) -> str:
    precision, recall = _ratio(tally.precision), _ratio(tally.recall)
    cells = (tally.expected, tally.dropped, tally.correct, precision, recall)
    return " ".join(f"{cell:>9}" for cell in cells)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_mistakes(result: Score, pages: Sequence[LabelledPage], config: Config) -> None:
    """Some false drops with their evidence, some misses with their similarity to the original."""
    false_drops = [outcome for outcome in result.outcomes if outcome.false_drop]
    misses = [outcome for outcome in result.outcomes if outcome.missed]
    print(f"false drops: {len(false_drops)}; missed duplicates: {len(misses)}")
    for outcome in false_drops[:EXAMPLES]:
        decision = outcome.decision
        print(f"  false drop ({outcome.page.kind}): {decision.url}\n    of {decision.duplicate_of}")
        print(f"    evidence: {_evidence(decision)}")
    bodies = {page.url: page.body for page in pages}
    fingerprinter = Fingerprinter(config)
    for outcome in misses[:EXAMPLES]:
        page, original = outcome.page, outcome.page.duplicate_of or ""
        print(f"  missed ({page.kind}): {page.url} kept as {outcome.decision.reason}")
        copy = fingerprinter.fingerprint(page.url, page.body)
        first = fingerprinter.fingerprint(original, bodies.get(original, b""))
        print(f"    a copy of {original}: {_similarity(first, copy, config)}")


def _similarity(first: Fingerprint, second: Fingerprint, config: Config) -> str:
    tokens = f"{first.token_count} and {second.token_count} tokens"
    if first.truncated or second.truncated:
        tokens += " (cut at text.max_depth)"
    if not (first.has_features and second.has_features):
        return f"{tokens}, below the token floor"
    shared = len(set(first.features) & set(second.features))
    agree = agreement(first.simhash, second.simhash)
    b_similarity = f"B {shared}/{config.minhash.features} features"
    return f"{tokens}, {b_similarity}, C {agree}/{config.simhash.bits} bits"


def _heading(title: str) -> None:
    print(f"{title}\n{'=' * len(title)}")


if __name__ == "__main__":
    raise SystemExit(main())
