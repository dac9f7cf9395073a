"""Coordinate sampling (Zhang, Jia & Li), made online: is a candidate directory pair a mirror?

Samples are relative paths of pages already fetched under the origin directory, taken in the hash
order of their relative paths (so every process that sees the same index picks the same ones) and
added as the origin's pages arrive. Each is compared with the page at the same relative path under
the candidate mirror:

* ``content`` mode: the mirror's page (fetched by the crawl, or as a probe) must be an exact
  duplicate of the origin's page or be represented by the same indexed page (a near-duplicate).
  A page the mirror lacks (a failed probe) could not be checked and is replaced by another sample.
* ``url`` mode: the relative path matches when the mirror demonstrably has it (a fetched page or a
  link to it); it mismatches when the mirror's listing of that directory was fetched without it.

The verdict is taken on exactly ``samples`` checked pairs: confirmed when at least
``ceil(min_resemblance * samples)`` (and ``min_matched``) match, rejected as soon as that became
impossible or more than ``max_unchecked`` samples could not be checked.
"""

from __future__ import annotations

import math
from dataclasses import replace
from enum import Enum

from .config import MirrorConfig
from .directories import own_placement
from .mirror_store import (
    MATCH,
    MISMATCH,
    MISSING,
    PENDING,
    Candidate,
    MirrorStore,
    Sample,
    relative_hash,
)

_OWN_INDEX = relative_hash("")  # a directory's own index page is not a sample of it


class Verdict(Enum):
    UNDECIDED = "undecided"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class CoordinateSampler:
    """Chooses, compares and judges the samples of candidate pairs under one configuration."""

    def __init__(self, config: MirrorConfig) -> None:
        self.config = config
        share = math.ceil(config.min_resemblance * config.samples - 1e-9)
        self.required_matches = max(config.min_matched, share)

    def advance(self, store: MirrorStore, candidate: Candidate) -> tuple[Candidate, list[str]]:
        """Add samples the origin now allows, compare what can be compared.

        Returns:
            The updated candidate, and the mirror URLs that must be fetched (content mode).
        """
        candidate = self._fill(store, candidate)
        probes: list[str] = []
        for sample in candidate.samples:
            if sample.outcome != PENDING:
                continue
            outcome = self._compare(store, candidate, sample)
            if outcome == PENDING and self.config.mode == "content":
                probes.append(candidate.mirror + sample.relative)
            elif outcome != PENDING:
                candidate = candidate.with_outcome(sample.relative_hash, outcome)
        return candidate, probes

    def verdict(self, candidate: Candidate) -> Verdict:
        matches, mismatches = candidate.count(MATCH), candidate.count(MISMATCH)
        wanted = self.config.samples
        if wanted == 0:  # the configuration asks to trust the index pages alone
            return Verdict.CONFIRMED
        if candidate.count(MISSING) > self.config.max_unchecked:
            return Verdict.REJECTED
        if matches + (wanted - matches - mismatches) < self.required_matches:
            return Verdict.REJECTED
        if matches + mismatches >= wanted:
            return Verdict.CONFIRMED
        return Verdict.UNDECIDED

    def _fill(self, store: MirrorStore, candidate: Candidate) -> Candidate:
        active = sum(1 for sample in candidate.samples if sample.outcome != MISSING)
        wanted = self.config.samples - active
        if wanted <= 0 or candidate.count(MISSING) > self.config.max_unchecked:
            return candidate
        taken = {sample.relative_hash for sample in candidate.samples}
        added: list[Sample] = []
        for rel_hash, entry in store.subtree(candidate.origin.lower()):
            if rel_hash in taken or rel_hash == _OWN_INDEX:
                continue
            added.append(Sample(entry.relative, rel_hash))
            if len(added) == wanted:
                break
        return replace(candidate, samples=candidate.samples + tuple(added)) if added else candidate

    def _compare(self, store: MirrorStore, candidate: Candidate, sample: Sample) -> int:
        original = store.entry_by_hash(candidate.origin.lower(), sample.relative_hash)
        if original is None:
            return MISSING
        copy = store.entry_by_hash(candidate.mirror.lower(), sample.relative_hash)
        if self.config.mode == "content":
            if copy is None:
                return PENDING
            return MATCH if copy.same_content(original) else MISMATCH
        url = candidate.mirror + sample.relative
        if copy is not None or store.has_link(url):
            return MATCH
        return MISMATCH if _listing_fetched(store, url) else PENDING


def _listing_fetched(store: MirrorStore, url: str) -> bool:
    """Whether the index page of ``url``'s directory was fetched (and its links recorded)."""
    place = own_placement(url, max_depth=1 << 16)
    return place is not None and store.entry(place.directory_key, "") is not None
