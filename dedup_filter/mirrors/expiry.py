"""Every candidate settles: one open too long has its probes handed out again, then is closed.

A sample is settled by a probe or by the crawl's own fetch, whichever comes first (every page
that arrives advances the candidates above it). A probe can still be lost: a crawler that
filtered the request, a restart that dropped its queue, a failure never reported. A candidate
open for ``max_age_s`` is first advanced (its pending samples compared with what the index now
holds), then its outstanding probes are handed out again, once; one still open after twice that
age is closed as *expired*, its probes withdrawn, and says so in ``dedup-filter mirrors`` and in
its decision. Invariant: each candidate is re-issued at most once and expires at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dedup_filter.mirrors.candidates import CandidateUpdate
from dedup_filter.mirrors.probes import forget_samples, sample_urls
from dedup_filter.mirrors.records import EXPIRED, OPEN, PENDING, Candidate
from dedup_filter.mirrors.store import SAMPLE_PROBE, pair_reference


@dataclass(frozen=True, slots=True)
class Settled:
    """What happened to one candidate open too long."""

    candidate: Candidate
    expired: bool
    probes: tuple[str, ...] = ()


def settle_open(update: CandidateUpdate, max_age_s: float) -> list[Settled]:
    """Advance, re-issue or expire the candidates open ``max_age_s`` or longer."""
    store, settled = update.store, []
    for found in store.candidates_under(""):
        if found.state != OPEN or update.now - found.created_at < max_age_s:
            continue
        update.advance(found)
        candidate = store.candidate(pair_reference(found.mirror, found.origin))
        if candidate is None or candidate.state != OPEN:
            continue  # settled by what the index holds now
        if not candidate.reissued:
            probes = _outstanding(update, candidate)
            store.put_candidate(replace(candidate, reissued=True))
            update.probes.extend(probes)
            settled.append(Settled(candidate, expired=False, probes=probes))
        elif update.now - candidate.created_at >= 2 * max_age_s:
            forget_samples(store, candidate)
            expired = replace(candidate, state=EXPIRED)
            store.put_candidate(expired)
            update.resume_waiting(expired)
            settled.append(Settled(expired, expired=True))
    return settled


def _outstanding(update: CandidateUpdate, candidate: Candidate) -> tuple[str, ...]:
    """The URLs of the candidate's pending samples whose probes are still outstanding."""
    reference = pair_reference(candidate.mirror, candidate.origin)
    urls = []
    for sample in candidate.samples:
        if sample.outcome != PENDING:
            continue
        for url in sample_urls(update.store, candidate, sample.relative):
            if (SAMPLE_PROBE, reference) in update.store.probes_for(url):
                urls.append(url)
    return tuple(urls)
