"""A crawl's decision log replayed through a fresh filter: the rules another version of the code
makes from the same crawl, with the timing taken out.

    PYTHONPATH=. python bench/log_replay.py WORKDIR/filter-ORDER/decisions.jsonl [--scale holdout]

A crawl of the evaluation web (``bench/eval_web.py``) writes every decision to its log, in the
order the crawl asked. Here each logged URL check is asked again (``check_url``), each logged
page is checked again with the web's body for it (``check_page``, then ``probe_served``: the
crawl served it), and each logged failure is reported again (``probe_failed``; a page the crawl
failed to fetch, as the stand-ins logged for it name it: ``fetch_failed``); a probe the new
code asks for that the log never fetched is answered at once (bounded: probes of probes three
deep). The rules it ends with, and the rules it revoked on the way, are printed, and how its URL
checks differ from the logged ones (a URL the crawl fetched that the replay would drop). A replay is
not the crawl (its probes come back at once, its URL checks come when the old code made them),
but the same log replayed through two versions of the code shows what a change does to the
rules that crawl made: a breadth-first holdout crawl's two wrong rules were made by the code
before the chains of code checks and revoked by the code after (docs/mirrors.md, point 14).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dedup_filter import DedupFilter
from dedup_filter.decision import PAGE_REASONS, Decision, Reason
from testweb.evalweb.builder import build_eval_web

_PROBE_DEPTH = 3


class Replay:
    """One fresh filter fed a crawl's log."""

    def __init__(self, dedup: DedupFilter, pages: Mapping[str, bytes], fetched: set[str]) -> None:
        self.dedup = dedup
        self.pages = pages
        self.fetched = fetched  # pages the log fetched: its probes are not fetched twice
        self.failed: set[str] = set()  # pages the crawl failed to fetch, reported
        self.revoked: list[tuple[str, list[str]]] = []
        self.changed: Counter[tuple[str, str]] = Counter()  # (logged, replayed) actions

    def entry(self, logged: dict[str, Any]) -> None:
        url, reason = logged["url"], logged["reason"]
        failed = logged["evidence"].get("missing_on_kept_side")
        if failed is not None and failed not in self.failed:
            # a stand-in is logged for a page the crawl failed to fetch: reported once
            self.failed.add(failed)
            self.dedup.fetch_failed(failed, 404)
        if reason == Reason.PROBE_FAILED.value:
            self._answer([self.dedup.probe_failed(url, 404)])
        elif _is_page(logged):
            self._answer(self._fetch(url))
        else:
            decision = self.dedup.check_url(url)
            if decision.action != logged["action"]:
                self.changed[(logged["action"], decision.action)] += 1
            self._answer([decision])

    def _fetch(self, url: str) -> list[Decision]:
        body = self.pages.get(url)
        if body is None:
            return [self.dedup.probe_failed(url, 404)]
        decision = self.dedup.check_page(url, body)
        self.dedup.probe_served(url)
        return [decision]

    def _answer(self, decisions: Iterable[Decision], depth: int = 0) -> None:
        for decision in decisions:
            if revoked := decision.evidence.get("mirrors_revoked"):
                self.revoked.append((decision.url, revoked))
            for probe in decision.probes:
                if probe not in self.fetched and depth < _PROBE_DEPTH:
                    self.fetched.add(probe)
                    self._answer(self._fetch(probe), depth + 1)


def _is_page(logged: dict[str, Any]) -> bool:
    return logged["reason"] in PAGE_REASONS or "encoding" in logged["evidence"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="a crawl's decisions.jsonl")
    parser.add_argument("--scale", default="full", help="the evaluation web the crawl ran on")
    parser.add_argument("--seed", type=int, default=0, help="the web's seed")
    args = parser.parse_args(argv)
    logged = [json.loads(line) for line in args.log.read_text().splitlines() if line]
    pages = build_eval_web(args.scale, args.seed).served()  # a soft-404 host's answers too
    fetched = {entry["url"] for entry in logged if _is_page(entry)}
    with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory) as dedup:
        replay = Replay(dedup, pages, fetched)
        for entry in logged:
            replay.entry(entry)
        for rule in dedup.mirror_rules():
            sides = f"{rule['mirror']} -> {rule['origin']}"
            evidence = f"held first: {rule['held_first']}, pruned: {rule['pruned']}"
            print(f"rule {sides} {rule['matches']}/{rule['samples']} {evidence}")
        for url, revoked in replay.revoked:
            print(f"revoked {revoked} at {url}")
        for (was, now), count in sorted(replay.changed.items()):
            print(f"URL checks logged {was}, replayed {now}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
