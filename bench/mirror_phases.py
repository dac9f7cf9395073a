"""Where the fetched pages of a mirror go: the phase of detection each one was fetched in.

A mirrored page fetched by a filtered crawl is one of:

    before pair     no candidate or rule held its directory yet (the crawl entered the copy
                    before the index page that pairs it was met)
    sampling        an open candidate held it (a probe, or a page the crawl fetched meanwhile)
    below boundary  a rule inside the same mirror existed, not over this page (the boundary climb
                    had not reached it yet)
    under a rule    a rule held it already (a probe the crawler held when the rule came)
    never covered   no rule of the finished crawl covers it (the boundary was never reached)

``PhaseRecorder`` wraps a ``DedupFilter`` for ``testweb.online.crawl`` and looks at the mirror
tables just before each page is checked; ``bench/mirrors.py --phases`` prints the counts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from dedup_filter import Decision, DedupFilter
from dedup_filter.mirrors.records import OPEN
from dedup_filter.mirrors.store import MirrorStore
from testweb.site import MirrorTruth, TestWeb


class PhaseRecorder:
    """A ``DedupFilter`` that notes the phase of every mirrored page it is asked to check."""

    def __init__(self, dedup: DedupFilter, web: TestWeb) -> None:
        self.dedup = dedup
        self.web = web
        self.phases: dict[str, str] = {}  # mirrored URL -> phase when it was first checked

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dedup, name)

    def check_page(self, url: str, body: bytes, headers: Any = None) -> Decision:
        truth = next((truth for truth in self.web.mirrors if url in truth.mirrored_urls), None)
        if truth is not None and url not in self.phases:
            self.phases[url] = self._phase(url, truth)
        return self.dedup.check_page(url, body, headers)

    def _phase(self, url: str, truth: MirrorTruth) -> str:
        with self.dedup.index.read() as view:
            store = MirrorStore(view)
            rules = [rule.mirror.lower() for rule in store.rules_under(truth.d2)]
            sampled = [
                candidate.mirror.lower()
                for candidate in store.candidates_under(truth.d2)
                if candidate.state == OPEN
            ]
        url = url.lower()
        if any(url.startswith(mirror) for mirror in rules):
            return "under a rule"
        if any(url.startswith(mirror) for mirror in sampled):
            return "sampling"
        return "below boundary" if rules else "before pair"

    def counts(self, rules: list[dict[str, Any]], probes: set[str]) -> dict[str, Counter[str]]:
        """Kind of mirror -> phase (``never covered`` when no final rule covers the page) ->
        fetched pages, probes marked ``(probe)``."""
        covering = [rule["mirror"].lower() for rule in rules]
        counts: dict[str, Counter[str]] = {}
        for url, phase in self.phases.items():
            truth = next(truth for truth in self.web.mirrors if url in truth.mirrored_urls)
            if not any(url.lower().startswith(mirror) for mirror in covering):
                phase = "never covered"
            label = f"{phase} (probe)" if url in probes else phase
            counts.setdefault(truth.kind, Counter())[label] += 1
        return counts


def describe(counts: dict[str, Counter[str]], web: TestWeb) -> str:
    """One line a kind of mirror: its mirrored pages fetched, by phase."""
    sizes: Counter[str] = Counter()
    for truth in web.mirrors:
        sizes[truth.kind] += len(truth.mirrored_urls)
    lines = []
    for kind in sorted(sizes):
        found = counts.get(kind, Counter())
        parts = ", ".join(f"{label} {found[label]}" for label in sorted(found))
        lines.append(f"{kind}: {sum(found.values())} of {sizes[kind]} fetched ({parts or 'none'})")
    return "\n".join(lines)
