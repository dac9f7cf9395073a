"""Probes: pages the mirror detector asks the crawl to fetch, and what their arrival settles.

A probe is asked for one reason, recorded with it (``probes`` table): a sample of a candidate
pair whose page on one side the crawl has not fetched (``SAMPLE_PROBE``, naming the pair), or the
index page of a mirror's parent directory that the replica boundary search needs
(``PARENT_PROBE``, naming the rule), or the index page of a directory whose documents duplicate
another directory's (``INDEX_PROBE``: the pair is opened once both are held). Invariant: a probe
stays outstanding until its page arrives or is reported failed, so ``pending_probes`` can
re-issue it after a restart; a URL is handed to the crawler only while no probe of it is
outstanding, and never twice in one decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import own_placement, placements
from dedup_filter.mirrors.records import (
    MATCH,
    MISMATCH,
    MISSING,
    OPEN,
    PENDING,
    Candidate,
    Rule,
    Sample,
)
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.store import (
    CODE_PROBE,
    COUNTERPART_PROBE,
    INDEX_PROBE,
    PARENT_PROBE,
    SAMPLE_PROBE,
    MirrorStore,
    directory_name,
    pair_reference,
)

# statuses that say a page does not exist (rather than that it could not be fetched just now)
_ABSENT = frozenset({404, 410})
# probes whose reference names a rule by its mirror, and whose answers the rule tallies
_TALLIED = frozenset((COUNTERPART_PROBE, CODE_PROBE))


def ask_sample(store: MirrorStore, url: str, candidate: Candidate) -> bool:
    """Record a sample probe of ``url`` for ``candidate``; whether the crawler must be asked (no
    probe of ``url`` was outstanding for any reason: a URL in flight is not asked twice)."""
    reference = pair_reference(candidate.mirror, candidate.origin)
    asked = store.probes_for(url)
    if (SAMPLE_PROBE, reference) not in asked:
        store.add_probe(url, SAMPLE_PROBE, reference)
    return not asked


def asked_for(store: MirrorStore, url: str, candidate: Candidate) -> bool:
    """Whether a sample probe of ``url`` is outstanding for ``candidate``."""
    return (SAMPLE_PROBE, pair_reference(candidate.mirror, candidate.origin)) in store.probes_for(
        url
    )


def ask_parent(store: MirrorStore, url: str, rule: Rule) -> bool:
    """Record a probe of the mirror's parent index page for ``rule``, unless ``url`` is already
    being fetched for any reason; whether it was asked now."""
    if store.probes_for(url):
        return False
    store.add_probe(url, PARENT_PROBE, directory_name(rule.mirror))
    return True


def ask_index(store: MirrorStore, url: str) -> bool:
    """Record a probe of a directory's index page that a pair found from documents waits for,
    unless ``url`` is already being fetched for any reason; whether it was asked now."""
    if store.probes_for(url):
        return False
    store.add_probe(url, INDEX_PROBE, b"")
    return True


def ask_counterpart(store: MirrorStore, url: str, rule: bytes) -> None:
    """Record a probe of ``url``, the counterpart of URLs deferred under the rule named ``rule``
    (none for a pair's document), counted asked where its answer will be ``tally``'d."""
    store.add_probe(url, COUNTERPART_PROBE, rule)
    deferrals = Deferrals(store.view)
    deferrals.count_section_probe(url, "asked")
    if rule:
        deferrals.count_probe(rule, COUNTERPART_PROBE, "asked")


def answer(store: MirrorStore, url: str, outstanding: list[tuple[int, bytes]]) -> list[Rule]:
    """Forget the ``outstanding`` probes of ``url`` (it arrived); the rules whose parent index
    page it is (their boundary search goes on)."""
    children = []
    for kind, reference in outstanding:
        store.delete_probe(url, kind, reference)
        child = (
            store.rule(reference.decode("utf-8", "surrogatepass")) if kind == PARENT_PROBE else None
        )
        if child is not None:
            children.append(child)
    return children


def tally(store: MirrorStore, url: str, outstanding: list[tuple[int, bytes]], status: int) -> None:
    """Count ``url``, probed for a rule (as the counterpart of its deferred URLs, or for its
    code), that came as a page (a 2xx ``status``), was absent (a 404 or 410) or failed
    otherwise (which says nothing of the side probed): the rule's ``ProbeTally`` of that kind,
    and a counterpart's directory's (``Deferrals.section_tally``)."""
    outcome = "answered" if 200 <= status < 300 else "absent" if status in _ABSENT else "failed"
    deferrals = Deferrals(store.view)
    for kind, reference in outstanding:
        if kind in _TALLIED and reference:
            deferrals.count_probe(reference, kind, outcome)
    if any(kind == COUNTERPART_PROBE for kind, _ in outstanding):
        deferrals.count_section_probe(url, outcome)


def withdraw_failed(
    store: MirrorStore, url: str, kind: int, reference: bytes, status: int | None
) -> Candidate | None:
    """Forget one outstanding probe of ``url``, which could not be fetched (``status``).

    Returns:
        The open candidate that asked for it, with that sample settled: missing ("could not be
        checked") when the mirror lacks the page (a partial mirror) or the fetch failed, a
        mismatch when the origin lacks a page the mirror holds (a rule would prune a page that
        has no counterpart: a directory with documents of its own); None for a parent probe or a
        candidate settled meanwhile.
    """
    store.delete_probe(url, kind, reference)
    candidate = store.candidate(reference) if kind == SAMPLE_PROBE else None
    if candidate is None or candidate.state != OPEN:
        return None
    for sample in candidate.samples:
        if sample.outcome != PENDING:
            continue
        if url.lower() not in (
            side.lower() for side in sample_urls(store, candidate, sample.relative)
        ):
            continue
        held = store.entry_by_hash(candidate.mirror.lower(), sample.relative_hash) is not None
        outcome = _failed(store, candidate, sample, url, status, held)
        candidate = candidate.with_outcome(sample.relative_hash, outcome)
    return candidate


def known_absent(
    store: MirrorStore, candidate: Candidate, sample: Sample, origin_held: bool, mirror_held: bool
) -> int:
    """A sample one of whose pages the index lacks and knows failed (a probe or a fetch of it
    failed before the sample was drawn: the candidate's own probe would not be answered again,
    a crawler fetches a probe once) is settled as that probe's failure would settle it; else
    ``PENDING``."""
    deferrals = Deferrals(store.view)
    # the origin's page is asked for first
    for url, held in zip(
        sample_urls(store, candidate, sample.relative), (origin_held, mirror_held), strict=True
    ):
        status = None if held else deferrals.absent(url)
        if status is not None:
            return _failed(store, candidate, sample, url, status, mirror_held)
    return PENDING


def _failed(
    store: MirrorStore,
    candidate: Candidate,
    sample: Sample,
    url: str,
    status: int | None,
    mirror_held: bool,
) -> int:
    """The outcome of a sample whose page ``url`` could not be fetched (``status``): a mismatch
    where the origin lacks a page the mirror holds, else could not be checked."""
    origin_url = store.on_origin(candidate, sample.relative).lower()
    lacking = url.lower() == origin_url and status in _ABSENT and mirror_held
    return MISMATCH if lacking else MISSING


def partial_origin(store: MirrorStore, candidate: Candidate) -> bool:
    """Whether ``candidate``'s origin holds a part of its mirror's pages, as a partial copy of it
    would, rather than other pages: some sample matched, some sampled page the mirror holds is
    known absent from the origin (a 404 or a 410, settled a mismatch, or missing while the
    mirror's page was not held yet), and every other mismatch is such a page too."""
    return candidate.count(MATCH) > 0 and _refuted(store, candidate).only_absences


def partial_origin_pending(store: MirrorStore, candidate: Candidate) -> bool:
    """Whether ``candidate`` may yet show ``partial_origin``: refuted so far only by pages its
    origin lacks, no sample matched, some still pending, and no page of the origin's known
    absent from the mirror (two directories that each hold documents of their own are no
    partial copy of one another). A copier's copy of 70 % of a directory, filed at its host's
    root and taken for the origin, lacked three of four samples on the tenth holdout web: two
    404s rejected the pair before its one match came, and it was never turned (the copier's 288
    pages and 200 of its victim's fetched, round robin)."""
    if candidate.count(MATCH) or not any(s.outcome == PENDING for s in candidate.samples):
        return False
    if _origin_void(store, candidate):
        return False
    refuted = _refuted(store, candidate)
    return refuted.only_absences and not refuted.mirror_lacks


def _origin_void(store: MirrorStore, candidate: Candidate) -> bool:
    """Whether nothing of ``candidate``'s origin is held, not even its index page: a place a
    host's rule maps a renamed section onto, where nothing exists, is no partial copy waiting to
    be turned (python-guides copied with extra pages and its sections renamed: twelve samples
    drawn, every origin page a 404, before the pair was let go)."""
    origin = candidate.origin.lower()
    if store.entry(origin, "") is not None:
        return False
    return all(store.entry_by_hash(origin, s.relative_hash) is None for s in candidate.samples)


@dataclass(frozen=True, slots=True)
class _Refuted:
    only_absences: bool  # some sample refuted, every mismatch a page the origin is known to lack
    mirror_lacks: bool  # some sample missing for a page the origin holds and the mirror lacks


def _refuted(store: MirrorStore, candidate: Candidate) -> _Refuted:
    origin, mirror = candidate.origin.lower(), candidate.mirror.lower()
    deferrals = Deferrals(store.view)
    refuted = [sample for sample in candidate.samples if sample.outcome in (MISMATCH, MISSING)]
    held = {
        sample.relative_hash: (
            store.entry_by_hash(origin, sample.relative_hash) is not None,
            store.entry_by_hash(mirror, sample.relative_hash) is not None,
        )
        for sample in refuted
    }
    lacking = [
        sample
        for sample in refuted
        if held[sample.relative_hash] == (False, True)
        and deferrals.absent(store.on_origin(candidate, sample.relative)) in _ABSENT
    ]
    mismatches = sum(1 for sample in refuted if sample.outcome == MISMATCH)
    lacking_mismatches = sum(1 for sample in lacking if sample.outcome == MISMATCH)
    mirror_lacks = any(held[sample.relative_hash] == (True, False) for sample in refuted)
    return _Refuted(bool(lacking) and lacking_mismatches == mismatches, mirror_lacks)


def forget_samples(store: MirrorStore, candidate: Candidate) -> None:
    """Withdraw the probes still asked for ``candidate`` (it was settled or absorbed). A probe
    handed out may be in flight: its page, when it comes, is a probe's answer that the spider
    never parsed, though no probe is outstanding then (``Deferrals.mark_probed`` now). On the
    tenth holdout web (random order) a copier's page so answered counted as crawled: a victim's
    page dropped for it named no page to crawl instead, and a page linked only from the two
    was never requested."""
    reference = pair_reference(candidate.mirror, candidate.origin)
    deferrals = Deferrals(store.view)
    for sample in candidate.samples:
        if sample.outcome != PENDING:
            continue
        for url in sample_urls(store, candidate, sample.relative):
            asked = store.probes_for(url)
            if (SAMPLE_PROBE, reference) not in asked:
                continue
            store.delete_probe(url, SAMPLE_PROBE, reference)
            if len(asked) == 1:
                deferrals.mark_probed(url)


def sample_urls(store: MirrorStore, candidate: Candidate, relative: str) -> tuple[str, str]:
    """A sample's page under the origin and under the mirror, each as its side spells its names,
    as ``sampling`` asks for them (probes and absences are keyed lower-cased). Spelled as the
    origin on both sides, a failed probe of a ``.htm`` copy's page settled no sample, and the
    open sample asked for it again at once: a crawl that reports each failure looped for
    ever."""
    return store.on_origin(candidate, relative), store.on_mirror(candidate, relative)


def fetchable(store: MirrorStore, sessions: SessionParameters, url: str) -> str:
    """``url`` as the crawler must ask for it: with the session parameters of the nearest
    directory above it whose index page was kept under a URL carrying them, or else those its
    host writes into its links (a copy served only under its session ids answers the bare URL
    404). Probes are recorded, and answered, without them (every page is placed without its
    session parameters)."""
    if filed := sessions.filed(url):
        return f"{url}{'&' if '?' in url else '?'}{filed}"
    for place in reversed(placements(url, max_depth=1 << 16)):
        entry = store.entry(place.directory_key, "")
        record = store.view.page(entry.representative) if entry is not None else None
        if record is None:
            continue
        carried = sessions.carried(record.url)
        own = own_placement(sessions.strip(record.url), max_depth=1 << 16)
        if carried and own is not None and own.directory_key == place.directory_key:
            return f"{url}{'&' if '?' in url else '?'}{carried}"
    return url
