"""Every decision of the filter over a test web's pages in a fixed order, offline: one line each,
to diff between two versions of the code (a change of the index layout must not change one).

    PYTHONPATH=. python bench/decision_replay.py [--web demo|eval|holdout2...] [--seed S]

No crawl, so no timing: the pages come in a shuffled order of their URLs (``--seed``); each URL
is checked with ``check_url`` and, unless dropped, its page with ``check_page``; the probes a
decision asks for are answered at once, before the next page (from the web, or ``probe_failed``
with 404 for a URL it does not hold). ``--web eval`` builds the evaluation web
(docs/evaluation.md: Debian documentation packages, fetched once into a cache); ``--web`` one of
its other scales (``holdout``, ``holdout2``...) builds that one.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Iterator, Sequence

from dedup_filter import Config, DedupFilter
from testweb.evalweb.builder import LAYOUTS, build_eval_web
from testweb.site import build_web


def web_pages(web: str) -> dict[str, bytes]:
    if web == "demo":
        return build_web(0, "demo").pages
    return build_eval_web("full" if web == "eval" else web).pages


def decisions(pages: dict[str, bytes], seed: int) -> Iterator[str]:
    queue = sorted(pages)
    random.Random(seed).shuffle(queue)
    with (
        tempfile.TemporaryDirectory() as directory,
        DedupFilter.open(directory, Config.default()) as dedup,
    ):
        yield from _replay(dedup, pages, queue)


def _replay(dedup: DedupFilter, pages: dict[str, bytes], queue: list[str]) -> Iterator[str]:
    done: set[str] = set()
    while queue:
        url = queue.pop(0)
        if url in done:
            continue
        done.add(url)
        before = dedup.check_url(url)
        yield f"url {url} {before.action} {before.reason}"
        if before.action == "drop":
            continue
        if url in pages:
            decision = dedup.check_page(url, pages[url])
        else:
            decision = dedup.probe_failed(url, 404)
        probes = sorted(decision.probes)
        yield f"page {url} {decision.action} {decision.reason} {decision.duplicate_of} {probes}"
        done.difference_update(probes)  # a probe is fetched again when asked for again
        queue[:0] = probes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", choices=("demo", "eval", *LAYOUTS), default="demo")
    parser.add_argument("--seed", type=int, default=1, help="seed of the page order")
    args = parser.parse_args(argv)
    for line in decisions(web_pages(args.web), args.seed):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
