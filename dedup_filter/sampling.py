"""Coordinate sampling (Zhang, Jia & Li), made online: is a candidate directory pair a mirror?

Samples are relative paths of pages (not index pages) already fetched under the origin directory,
taken in the hash order of their relative paths (so every process that sees the same index picks
the same ones) and added as the origin's pages arrive. Each is compared with the page at the same
relative path under the candidate mirror:

* ``content`` mode: the mirror's page (fetched by the crawl, or as a probe) must be an exact
  duplicate of the origin's page or be represented by the same indexed page (a near-duplicate);
  compared in the call that checks one of the two, that page is also judged directly against the
  page standing for the other side, since a near-duplicate's best match may be a third page.
  A page the mirror lacks (a failed probe) could not be checked and is replaced by another sample;
  after ``max_unchecked`` failed probes, only pairs the crawl fetches on both sides anyway are
  added (no more probes), so a directory with other file names costs a bounded number of fetches.
* ``url`` mode: the relative path matches when the mirror demonstrably has it (a fetched page or a
  link to it); it mismatches when the mirror's listing of that directory was fetched without it.

The verdict is taken on exactly ``samples`` checked pairs: confirmed when at least
``ceil(min_resemblance * samples)`` (and ``min_matched``) match, rejected as soon as that became
impossible.
"""

from __future__ import annotations

import math
from dataclasses import replace
from enum import Enum

from .config import Config
from .directories import IndexPages, own_placement
from .fingerprint import Fingerprint
from .matching import duplicates
from .mirror_records import MATCH, MISMATCH, MISSING, PENDING, Candidate, DirEntry, Sample
from .mirror_store import MirrorStore, relative_hash


class Verdict(Enum):
    UNDECIDED = "undecided"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class CoordinateSampler:
    """Chooses, compares and judges the samples of candidate pairs under one configuration."""

    def __init__(self, config: Config) -> None:
        self.config = config.mirror
        self._page_rules = config  # what makes two pages duplicates
        self._index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        share = math.ceil(self.config.min_resemblance * self.config.samples - 1e-9)
        self.required_matches = max(self.config.min_matched, share)

    def advance(
        self,
        store: MirrorStore,
        candidate: Candidate,
        arrived: str | None = None,
        page: Fingerprint | None = None,
    ) -> tuple[Candidate, list[str]]:
        """Add the samples the origin now allows, compare what can be compared.

        Args:
            arrived: the relative path (under either directory) of the page that just arrived.
            page: the page that just arrived, if any.

        Returns:
            The updated candidate, and the mirror URLs that must be fetched (content mode).
        """
        candidate = self._fill(store, candidate, arrived)
        probes: list[str] = []
        for sample in candidate.samples:
            if sample.outcome != PENDING:
                continue
            outcome = self._compare(store, candidate, sample, page)
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
        if matches + (wanted - matches - mismatches) < self.required_matches:
            return Verdict.REJECTED
        if matches + mismatches >= wanted:
            return Verdict.CONFIRMED
        return Verdict.UNDECIDED

    def _fill(self, store: MirrorStore, candidate: Candidate, arrived: str | None) -> Candidate:
        active = sum(1 for sample in candidate.samples if sample.outcome != MISSING)
        wanted = self.config.samples - active
        if wanted <= 0:
            return candidate
        taken = {sample.relative_hash for sample in candidate.samples}
        if candidate.count(MISSING) < self.config.max_unchecked:
            added = self._hash_ordered(store, candidate, taken, wanted)
        else:  # out of probes: only pairs the crawl fetched on both sides anyway
            added = self._fetched_pair(store, candidate, taken, arrived)
        return replace(candidate, samples=candidate.samples + tuple(added)) if added else candidate

    def _hash_ordered(
        self, store: MirrorStore, candidate: Candidate, taken: set[int], wanted: int
    ) -> list[Sample]:
        added: list[Sample] = []
        for rel_hash, entry in store.subtree(candidate.origin.lower()):
            # index pages stand for directories, not content: a server-generated listing names its
            # host, so the listings of a true mirror differ while its documents replicate
            if rel_hash in taken or self._index_pages.names_index(entry.relative):
                continue
            added.append(Sample(entry.relative, rel_hash))
            if len(added) == wanted:
                break
        return added

    def _fetched_pair(
        self, store: MirrorStore, candidate: Candidate, taken: set[int], arrived: str | None
    ) -> list[Sample]:
        if arrived is None or self._index_pages.names_index(arrived):
            return []
        rel_hash = relative_hash(arrived.lower())
        if rel_hash in taken or store.entry_by_hash(candidate.mirror.lower(), rel_hash) is None:
            return []
        original = store.entry_by_hash(candidate.origin.lower(), rel_hash)
        return [] if original is None else [Sample(original.relative, rel_hash)]

    def _compare(
        self, store: MirrorStore, candidate: Candidate, sample: Sample, page: Fingerprint | None
    ) -> int:
        original = store.entry_by_hash(candidate.origin.lower(), sample.relative_hash)
        if original is None:
            return MISSING
        copy = store.entry_by_hash(candidate.mirror.lower(), sample.relative_hash)
        if self.config.mode == "content":
            if copy is None:
                return PENDING
            same = copy.same_content(original) or self._arrived_duplicate(
                store, candidate, sample, page, (copy, original)
            )
            return MATCH if same else MISMATCH
        url = candidate.mirror + sample.relative
        if copy is not None or store.has_link(url):
            return MATCH
        return MISMATCH if _listing_fetched(store, url) else PENDING

    def _arrived_duplicate(
        self,
        store: MirrorStore,
        candidate: Candidate,
        sample: Sample,
        page: Fingerprint | None,
        entries: tuple[DirEntry, DirEntry],
    ) -> bool:
        """Whether the page that just arrived on one side of the sample duplicates the page that
        stands for the other side, although its own best match was another page (a near-duplicate
        of both, closer to a third)."""
        if page is None:
            return False
        url = page.url.lower()
        sides = (candidate.mirror + sample.relative, candidate.origin + sample.relative)
        if url not in (side.lower() for side in sides):
            return False
        other = entries[1] if url == sides[0].lower() else entries[0]
        record = store.view.page(other.representative)
        return record is not None and duplicates(page, record, self._page_rules) is not None


def _listing_fetched(store: MirrorStore, url: str) -> bool:
    """Whether the index page of ``url``'s directory was fetched (and its links recorded)."""
    place = own_placement(url, max_depth=1 << 16)
    return place is not None and store.entry(place.directory_key, "") is not None
