"""Editions of one guide are no mirrors: the same prose over other code.

An installation guide for another package format, or a tutorial in another language, copies most
of its pages unchanged and differs only inside the code blocks of a few (on one evaluation web, 7
pages of 83, all among the 16 with code blocks). Coordinate sampling over all pages sees matches
and would confirm, and the rule would then drop the pages whose code differs, a content lost. A
copy does not rewrite code alone: a stale copy's edits are prose. So, when
``text.code_blocks_apart`` is on:

* a pair whose pages both have code blocks with other words (the 4-byte ``PageRecord.code``) is
  an ``EDITION`` outcome, and one rejects the candidate (``sequential.py``): sampled, or fetched
  on both sides by the crawl anyway (free evidence);
* samples are drawn first from the documents known to have code blocks, up to
  ``mirror.code_samples`` of the lambda (where editions differ): no fetch more, and an edition
  whose coded pages are known is rejected before any rule drops what cannot come back. Holding
  the verdict until more coded pages were checked (drawn as they arrived, beyond lambda) was
  tried and dropped: the rules of the evaluation web came 200-500 decisions later, and the mirror
  pages crawled meanwhile cost 3-4 points of savings; a rule made before any coded page is
  known is checked afterwards instead (``code_checks.py``).

Invariant: samples stay chosen by what the index holds, in hash order within each kind.
"""

from __future__ import annotations

from dataclasses import replace

from dedup_filter.index.page_records import PageRecord
from dedup_filter.matching import codes_apart
from dedup_filter.mirrors.directories import Placement, placements
from dedup_filter.mirrors.records import EDITION, MISSING, Candidate, DirEntry, Rule, Sample
from dedup_filter.mirrors.rules import MAX_CHAIN, rule_over
from dedup_filter.mirrors.store import MirrorStore, relative_hash
from dedup_filter.urls import file_name_of

# rules lie within ``mirror.max_depth`` levels below their host (12 by default), fewer than this
ANY_DEPTH = 64


def code_hash(
    store: MirrorStore, directory: str, rel_hash: int, relative: str | None = None
) -> int:
    """The code hash of the page a directory holds at a relative path (0: none, or unknown)."""
    return held_code(store, directory, rel_hash, relative) or 0


def held_code(
    store: MirrorStore, directory: str, rel_hash: int, relative: str | None = None
) -> int | None:
    """The code hash of the page a directory holds at a relative path; None when it holds none,
    0 when it may be another file's (``MirrorStore.other_file``: ``relative`` names the file)."""
    entry = store.entry_by_hash(directory.lower(), rel_hash)
    if entry is None:
        return None
    if store.other_file(directory, entry, relative):
        return 0
    return own_code(entry, store.view.page(entry.representative))


def own_code(entry: DirEntry, record: PageRecord | None) -> int:
    """The code hash of ``entry``'s page, read from its representative's ``record``: 0 (not
    known) when that is another document's, the page having been dropped as a duplicate of
    it. Two pages whose words are the same are exact duplicates, their code blocks may differ
    in what is no word: Boost's reference holds an ``operator!=`` page beside an ``operator==``
    one, and on the tenth holdout web (breadth first) a copy's ``operator!=``, dropped for its
    ``operator==``, was compared by the other's code and its rule revoked as an edition's."""
    if record is None or file_name_of(record.url) != file_name_of(entry.relative):
        return 0
    return record.code


def standing_code_hash(
    store: MirrorStore,
    directory: str,
    rel_hash: int,
    beside: Rule | None = None,
    relative: str | None = None,
) -> int:
    """The code hash of the page standing for a directory's page at a relative path (0: none,
    or unknown): ``standing_code``."""
    return standing_code(store, directory, rel_hash, beside, relative) or 0


def standing_code(
    store: MirrorStore,
    directory: str,
    rel_hash: int,
    beside: Rule | None = None,
    relative: str | None = None,
) -> int | None:
    """The code hash of the page standing for a directory's page at a relative path: its own
    when the directory holds the path, else that of the page a rule keeps for it (``kept_for``),
    and so on along a chain of rules, never through ``beside`` (the rule whose sides are being
    compared). An edition paired with a copy whose pages a rule drops is compared with the
    pages kept for them. None when no page along the chain is held (yet)."""
    for _ in range(MAX_CHAIN):
        held = held_code(store, directory, rel_hash, relative)
        if held is not None:
            return held
        kept = kept_for(store, directory, beside)
        if kept is None:
            return None
        directory = kept
    return None


def coded_namesake(
    store: MirrorStore, places: list[Placement], code: int, max_depth: int
) -> str | None:
    """The same-named page of the edition whose code a page shares, where the page's directory
    was paired with another edition and revoked for it: on a side of a pair revoked with that
    edition, its page (or the one standing for it) of the same code; under a rule's mirror, its
    counterpart on the rule's origin. A partial copy of a guide revoked against the guide's rpm
    edition may hold no page that duplicates one of the guide's (its copy of the guide's page
    met a host mirror's, with a banner): its code names the guide all the same. A page without
    code blocks names nothing."""
    if not code:
        return None
    own = places[-1]
    rel_hash = relative_hash(own.relative)
    for edition in store.revoked_partners(own.directory):
        for other in store.revoked_partners(edition):
            same_code = standing_code_hash(store, other, rel_hash, relative=own.relative) == code
            if other.lower() == own.directory_key or not same_code:
                continue
            url = other + own.relative
            found = rule_over(store, placements(url, max_depth))
            return url if found is None else found[0].origin + found[1].relative
    return None


def kept_for(store: MirrorStore, directory: str, beside: Rule | None = None) -> str | None:
    """The directory whose pages a rule keeps for ``directory``'s (other than ``beside``): its
    origin's counterpart under a rule over it, or its mirror's under a rule that prunes its
    origin."""
    places = placements(directory, ANY_DEPTH)
    found = rule_over(store, places)
    if found is not None and found[0] != beside:
        rule, place = found
        return rule.origin + place.relative
    for place in places:
        for mirror in store.mirrors_of_origin(place.directory):
            rule = store.rule(mirror)
            if rule is None or rule == beside or rule.origin.lower() != place.directory_key:
                continue
            if rule.prunes_origin:
                return rule.mirror + place.relative
    return None


def coded_apart(store: MirrorStore, candidate: Candidate, sample: Sample) -> bool:
    """Whether both sides hold the sample's path with code blocks, or pages standing for theirs
    do, and other words in them."""
    rel_hash, relative = sample.relative_hash, sample.relative
    origin = standing_code_hash(store, candidate.origin, rel_hash, relative=relative)
    if not origin:  # the mirror's page, maybe a chain of rules away, is not read for nothing
        return False
    mirror = standing_code_hash(store, candidate.mirror, rel_hash, relative=relative)
    return codes_apart(origin, mirror)


def coded(store: MirrorStore, candidate: Candidate, rel_hash: int) -> bool:
    """Whether either side's page at the path has code blocks."""
    return any(code_hash(store, side, rel_hash) for side in (candidate.origin, candidate.mirror))


def code_first(
    store: MirrorStore, candidate: Candidate, drawn: list[Sample], quota: int
) -> list[Sample]:
    """The drawn samples (in hash order) with up to ``quota`` coded ones moved to the front."""
    first: list[Sample] = []
    for sample in drawn:
        if len(first) >= quota:
            break
        if coded(store, candidate, sample.relative_hash):
            first.append(sample)
    chosen = {sample.relative_hash for sample in first}
    return first + [sample for sample in drawn if sample.relative_hash not in chosen]


def coded_quota(store: MirrorStore, candidate: Candidate, code_samples: int) -> int:
    """How many more coded samples the candidate may draw."""
    active = (sample for sample in candidate.samples if sample.outcome != MISSING)
    return code_samples - sum(1 for s in active if coded(store, candidate, s.relative_hash))


def edition_seen(store: MirrorStore, candidate: Candidate, arrived: str | None) -> Candidate:
    """The candidate with the path that just arrived under one side added as an ``EDITION``
    sample (or its sample turned into one) when both sides hold it with code blocks apart."""
    if arrived is None:
        return candidate
    rel_hash = relative_hash(arrived)
    if not coded_apart(store, candidate, Sample(arrived, rel_hash)):
        return candidate
    if any(sample.relative_hash == rel_hash for sample in candidate.samples):
        return candidate.with_outcome(rel_hash, EDITION)
    return replace(candidate, samples=(*candidate.samples, Sample(arrived, rel_hash, EDITION)))
