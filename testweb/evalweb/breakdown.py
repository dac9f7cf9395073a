"""Where the avoidable fetches a crawl did not save went: each fetch beyond the first fetch of its
content, grouped by the replica (hazard) it lies in, by host, by what the filter said of the URL
before the fetch and of the page after it, and by whether a rule covered it by the crawl's end.

Read from the same records as the scorer (request log, decision log, listed rules), never from the
filter's internals: a diagnosis beside the figures, not a figure.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .crawls import CrawlRecord
from .truth import GroundTruth

_PAGE_REASONS = {
    "unique",
    "changed",
    "unchanged",
    "empty",
    "mirror_candidate",
    "mirror_origin",
    "look_alike_index",
    "exact_duplicate",
    "near_duplicate",
}


@dataclass(frozen=True, slots=True)
class ExtraFetch:
    """One fetch that a perfect filter would have saved."""

    url: str
    status: int
    place: str  # the replica copy it lies in ("kind copy"), else its URL kind
    host: str
    url_reason: str  # the last verdict on the URL logged before its fetch ("-": none)
    page_reason: str  # the verdict on the fetched page ("-": none)
    ruled: bool  # under a listed mirror rule's mirror directory at the crawl's end


def extra_fetches(truth: GroundTruth, record: CrawlRecord) -> list[ExtraFetch]:
    """Every GET beyond the first of its content (404s and probes included), in request order."""
    url_verdicts: dict[str, list[tuple[float, str]]] = {}  # in the log's (time) order
    page_reasons: dict[str, str] = {}
    for decision in record.decisions:
        if decision["reason"] in _PAGE_REASONS:
            page_reasons[decision["url"]] = decision["reason"]
        else:
            when = datetime.fromisoformat(decision["time"]).timestamp()
            url_verdicts.setdefault(decision["url"], []).append((when, decision["reason"]))
    mirrors = [rule["mirror"] for rule in record.rules if rule["kind"] == "mirror"]
    seen: set[str] = set()
    extra = []
    for entry in record.requests:
        if entry.method != "GET":
            continue
        content = truth.contents.get(entry.url) if entry.status == 200 else None
        if content is not None and content not in seen:
            seen.add(content)
            continue
        extra.append(
            ExtraFetch(
                entry.url,
                entry.status,
                _place(truth, entry.url),
                entry.url.split("/")[2],
                _verdict_before(url_verdicts.get(entry.url, []), entry.time),
                page_reasons.get(entry.url, "-"),
                any(entry.url.startswith(mirror) for mirror in mirrors),
            )
        )
    return extra


def _verdict_before(verdicts: list[tuple[float, str]], fetched_at: float) -> str:
    """The last verdict on a URL logged before its fetch was answered ("-": none)."""
    before = bisect_right(verdicts, (fetched_at, "\uffff"))
    return verdicts[before - 1][1] if before else "-"


def _place(truth: GroundTruth, url: str) -> str:
    copies = [replica for replica in truth.replicas if url.startswith(replica.copy)]
    if copies:
        nearest = max(copies, key=lambda replica: len(replica.copy))
        return f"{nearest.kind} {nearest.copy}"
    return truth.kinds.get(url, "unknown")


def breakdown_lines(truth: GroundTruth, record: CrawlRecord, top: int = 12) -> list[str]:
    """The extra fetches counted four ways, most first."""
    extra = extra_fetches(truth, record)
    again = len(record.fetched_again())
    lines = [
        f"{len(extra)} fetches beyond the first of their content, {again} of a URL fetched before"
    ]
    ways: dict[str, Any] = {
        "by replica / kind": lambda fetch: fetch.place,
        "by host": lambda fetch: fetch.host,
        "by verdict before the fetch, ruled at the end": lambda fetch: (
            f"{fetch.url_reason} ({'ruled' if fetch.ruled else 'no rule'})"
        ),
        "by verdict on the page": lambda fetch: f"{fetch.page_reason} (status {fetch.status})",
    }
    for title, key in ways.items():
        counts = Counter(key(fetch) for fetch in extra)
        lines.append(f"  {title}:")
        lines += [f"    {count:5d}  {name}" for name, count in counts.most_common(top)]
    return lines
