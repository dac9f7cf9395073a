"""Coordinate sampling (Zhang, Jia & Li), made online: is a candidate directory pair a mirror?

Samples are relative paths of documents (not index pages), added as pages arrive, chosen by what
the index holds when they are added, so every process that commits the same pages in the same
order picks the same ones:

* ``content`` mode: documents either directory is known to hold: fetched under the origin or
  under the mirror, or linked from an index page that arrives under either (a listing names its
  directory's documents before the crawl fetches them), in an order of their relative paths
  that the index's own secret keys (``MirrorStore.sample_key``), so no copier knows which are drawn.
  Not cheapest first: the pages both sides fetched first are those every page links (a theme's
  search, copyright and license pages), alike on unrelated sites; pages below the token floor
  never count either way, nor do pages under a rule the candidate contains. A sample's origin
  page is probed first when the crawl has not fetched it (a mirror is often crawled before or
  beside its origin, and the origin's pages are fetched anyway), its mirror page once the
  origin's counts, for as many samples at a time as matches are still needed. A 404 of the
  origin's page of a sample the mirror holds is a mismatch. The two pages match when they are
  exact duplicates, are represented by the same indexed page, or resemble as much as a
  near-duplicate drop needs by their sketches alone (a copy's banner and footer part short pages
  under the page rules); each side is the page standing for it, or itself when it is the page
  the call checks (a near-duplicate's best match may be a third page), so a sample drawn after
  both pages arrived is judged as one drawn before. A page the mirror lacks (a failed probe)
  could not be checked and is replaced by another sample; after ``max_unchecked`` unchecked
  samples, only pairs the crawl fetches on both sides anyway are added (no more probes), so a
  directory with other file names costs a bounded number of fetches.
* ``url`` mode: documents fetched under the origin, in that order. The relative path matches when
  the mirror demonstrably has it (a fetched page or a link to it); it mismatches when the
  mirror's listing of that directory was fetched without it.

The verdict (``sequential.py``) is Zhang's on ``samples`` checked pairs, taken as soon as it is
certain, and sequential beyond: while the evidence is ambiguous more samples are drawn, up to
``max_samples``. A pair of pages with code blocks apart is an edition, which rejects; coded
documents are drawn first (``editions.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.features.hashing import hash64
from dedup_filter.matching import Sketched, below_token_floor, other_text, resembles
from dedup_filter.mirrors.directories import IndexPages, own_placement, placements
from dedup_filter.mirrors.editions import (
    code_first,
    coded,
    coded_apart,
    coded_quota,
    edition_seen,
)
from dedup_filter.mirrors.probes import asked_for, known_absent
from dedup_filter.mirrors.records import (
    EDITION,
    MATCH,
    MISMATCH,
    MISSING,
    OTHER_TEXT,
    PENDING,
    Candidate,
    DirEntry,
    Rule,
    Sample,
)
from dedup_filter.mirrors.rules import MAX_CHAIN, rule_over
from dedup_filter.mirrors.sequential import SequentialJudge, Verdict
from dedup_filter.mirrors.soft404 import AbsentAnswer, answer_of, is_answer
from dedup_filter.mirrors.store import MirrorStore, relative_hash
from dedup_filter.mirrors.systematic import discount_shared, discountable

# documents considered from each side (and from a listing) when samples are added: bounds the
# work of a call on a candidate over a large directory
_POOL_SIDE = 64


@dataclass(frozen=True, slots=True)
class Arrival:
    """The page the current call checks, and its links when it is an index page (a listing of
    its directory, whose documents the candidates above it may sample); ``url`` is where it is
    placed (its URL without session parameters)."""

    fingerprint: Fingerprint
    links: Iterable[str] = ()
    url: str = ""

    @property
    def placed_url(self) -> str:
        return self.url or self.fingerprint.url


class CoordinateSampler:
    """Chooses, compares and judges the samples of candidate pairs under one configuration."""

    def __init__(self, config: Config) -> None:
        self.config = config.mirror
        self._page_rules = config  # what makes two pages duplicates
        self._index_pages = IndexPages(self.config.index_names, self.config.index_extensions)
        self.judge = SequentialJudge(self.config)
        self._content = self.config.mode == "content"
        # pairs of pages with code blocks apart are editions, not copies (editions.py)
        self._editions = self._content and config.text.code_blocks_apart

    def advance(
        self,
        store: MirrorStore,
        candidate: Candidate,
        arrived: str | None = None,
        arrival: Arrival | None = None,
    ) -> tuple[Candidate, list[str]]:
        """Add the samples the two directories now allow, compare what can be compared.

        Args:
            arrived: the relative path (under either directory) of the page that just arrived.
            arrival: the page that just arrived, if any.

        Returns:
            The updated candidate, and the URLs that must be fetched (content mode).
        """
        if self._editions:
            candidate = edition_seen(store, candidate, arrived)
        candidate = self._fill(store, candidate, arrived, arrival)
        candidate = self._compare_pending(store, candidate, arrival)
        refilled = self._fill(store, candidate, arrived, arrival)  # what was compared may call
        if refilled is not candidate:  # for more samples (ambiguous evidence)
            candidate = self._compare_pending(store, refilled, arrival)
        return candidate, self._probes(store, candidate) if self._content else []

    def _compare_pending(
        self, store: MirrorStore, candidate: Candidate, arrival: Arrival | None
    ) -> Candidate:
        for sample in candidate.samples:
            if sample.outcome == PENDING:
                outcome = self._compare(store, candidate, sample, arrival)
                if outcome != PENDING:
                    candidate = candidate.with_outcome(sample.relative_hash, outcome)
        if self._content:
            candidate = self._soft_404s_unchecked(store, candidate)
            candidate = discount_shared(store, candidate, self._page_rules)
        return candidate

    def _probes(self, store: MirrorStore, candidate: Candidate) -> list[str]:
        """The pages to fetch for the pending samples. The origin's page first, alone: the crawl
        fetches it anyway, and a sample whose origin page is missing or too small never counts,
        so its mirror page would be a wasted fetch. Then mirror pages, only as many at a time as
        matches are still needed (every sample while a small origin is judged): the verdict is
        taken as soon as it is certain, and a mirror page probed beyond it is a wasted fetch."""
        needed = self.judge.matches_needed(candidate)
        origin_pages, mirror_pages = [], []
        for sample in candidate.samples:
            if sample.outcome != PENDING:
                continue
            if store.entry_by_hash(candidate.origin.lower(), sample.relative_hash) is None:
                origin_pages.append(store.on_origin(candidate, sample.relative))
                continue
            url = store.on_mirror(candidate, sample.relative)
            if asked_for(store, url, candidate):
                needed -= 1  # in flight: it counts towards the matches still needed
            else:
                mirror_pages.append(url)
        return origin_pages + mirror_pages[: max(needed, 0)]

    def verdict(self, store: MirrorStore, candidate: Candidate) -> Verdict:
        """The judge's verdict on the candidate's samples; for parents with nothing to sample but
        children that rules pair already, their children's (``_on_children``)."""
        soft = self._content and discountable(store, candidate)
        verdict = self.judge.verdict(candidate, soft)
        if verdict is Verdict.UNDECIDED and self._on_children(store, candidate):
            return Verdict.CONFIRMED
        return verdict

    def _on_children(self, store: MirrorStore, candidate: Candidate) -> bool:
        """Whether parents tried above rules replicate as far as anything shows: no sample was
        drawn, since the parents hold nothing but children that rules pair already
        (``_ruled_below``), at least two, each standing for the same directory as its namesake
        on the other side (through a chain of rules: a renamed copy inside the origin), each rule
        ``_plain``, and both parents' index pages held. The parents' pages are then all their
        children's: their rule prunes nothing those rules do not, but a child met later. A banner
        copy of a host whose root holds only its manuals' directories, crawled a manual at a
        time (the eighth holdout web, depth first), had every manual ruled and its host pair open
        with nothing to draw until the crawl's end: the boundary was never found."""
        if candidate.level == 0 or candidate.samples:
            return False
        ruled = _ruled_below(store, candidate)
        sides = (candidate.mirror, candidate.origin)
        if len(ruled) < 2 or any(store.entry(side.lower(), "") is None for side in sides):
            return False
        depth = self.config.max_depth
        for relative in ruled:
            mirror_end, mirror_rules = _stands_for(store, candidate.mirror + relative, depth)
            origin_end, origin_rules = _stands_for(store, candidate.origin + relative, depth)
            if mirror_end != origin_end or not all(map(_plain, mirror_rules + origin_rules)):
                return False
        return True

    def coded_matches(self, store: MirrorStore, candidate: Candidate) -> int:
        """How many of the candidate's matched samples have code blocks (0 without editions)."""
        if not self._editions:
            return 0
        matched = (sample for sample in candidate.samples if sample.outcome == MATCH)
        return sum(1 for sample in matched if coded(store, candidate, sample.relative_hash))

    def listing_closed(self, directories: Sequence[str], links: Iterable[str]) -> bool:
        """Whether an index page of a pair with these links lists a small closed world: under
        either directory, documents only (no subdirectory, nothing deeper), at least one and
        fewer than the samples wanted. A page naming none lists nothing: a generated manual's
        main page whose menus are scripts (Doxygen's) says nothing of its directory's size, and
        judged on what the crawl fetched first, two unrelated projects were ruled copies on a
        page every such manual holds alike (docs/mirrors.md, point 84)."""
        documents = 0
        for link in links:
            side = next((d for d in directories if link.lower().startswith(d.lower())), None)
            if side is None:
                continue
            relative = link[len(side) :]
            if "?" in relative or ("/" not in relative and self._index_pages.names_index(relative)):
                continue  # the listing itself, or one of its sort orders
            if "/" in relative:
                return False
            documents += self._index_pages.names_document(relative)
        return 0 < documents < self.config.samples

    def _fill(
        self, store: MirrorStore, candidate: Candidate, arrived: str | None, arrival: Arrival | None
    ) -> Candidate:
        active = sum(1 for sample in candidate.samples if sample.outcome != MISSING)
        wanted = self.judge.samples_wanted(candidate) - active
        if wanted <= 0:
            return candidate
        quota = coded_quota(store, candidate, self.config.code_samples) if self._editions else 0
        taken = {sample.relative_hash for sample in candidate.samples}
        ruled = _ruled_below(store, candidate)
        if candidate.count(MISSING) < self.config.max_unchecked:
            links = arrival.links if arrival is not None else ()
            key = store.sample_key()
            known = self._known(store, candidate, taken, links, ruled, key)
            order = _keyed_order(key)
            added = [Sample(known[rel_hash], rel_hash) for rel_hash in sorted(known, key=order)]
        else:  # out of probes: only pairs the crawl fetched on both sides anyway
            added = self._fetched_pair(store, candidate, taken, arrived)
        added = [sample for sample in added if not sample.relative.lower().startswith(ruled)]
        if quota > 0:  # editions differ where the code is (editions.py)
            added = code_first(store, candidate, added, quota)
        added = added[:wanted]
        return replace(candidate, samples=candidate.samples + tuple(added)) if added else candidate

    def _known(
        self,
        store: MirrorStore,
        candidate: Candidate,
        taken: set[int],
        links: Iterable[str],
        ruled: tuple[str, ...],
        key: int,
    ) -> dict[int, str]:
        """Documents (not index pages) one side is known to hold, not sampled yet and not under
        the ``ruled`` relative paths: the first few that each side fetched (content mode: either
        side; URL mode: the origin) in hash order from a point the index's secret ``key``
        chooses, and the first few in the order it keys that the arriving listing names;
        relative-path hash -> relative path."""
        known: dict[int, str] = {}
        sides = (candidate.origin, candidate.mirror) if self._content else (candidate.origin,)
        for side in sides:
            documents = (
                (rel_hash, entry.relative)
                for rel_hash, entry in store.subtree(side.lower(), key)
                if rel_hash not in taken
                and not entry.relative.lower().startswith(ruled)
                and not self._index_pages.names_listing(entry.relative)
                and not (self._content and self._too_small(store, entry))
            )
            for rel_hash, relative in itertools.islice(documents, _POOL_SIDE):
                known.setdefault(rel_hash, relative)
        if self._content:
            for rel_hash, relative in self._listed(candidate, links, _keyed_order(key)):
                if rel_hash not in taken:
                    known.setdefault(rel_hash, relative)
        return known

    def _listed(
        self, candidate: Candidate, links: Iterable[str], order: Callable[[int], int]
    ) -> list[tuple[int, str]]:
        """The documents under either directory that a listing links, the first few in
        ``order`` (of their relative paths' hashes)."""
        relatives: dict[int, str] = {}
        for side in (candidate.origin, candidate.mirror):
            prefix = side.lower()
            for link in links:
                if not link.lower().startswith(prefix):
                    continue
                relative = link[len(side) :]
                if self._index_pages.names_document(relative):
                    relatives.setdefault(relative_hash(relative), relative)
        return sorted(relatives.items(), key=lambda item: order(item[0]))[:_POOL_SIDE]

    def _fetched_pair(
        self, store: MirrorStore, candidate: Candidate, taken: set[int], arrived: str | None
    ) -> list[Sample]:
        if arrived is None or self._index_pages.names_listing(arrived):
            return []
        rel_hash = relative_hash(arrived)
        if rel_hash in taken or store.entry_by_hash(candidate.mirror.lower(), rel_hash) is None:
            return []
        original = store.entry_by_hash(candidate.origin.lower(), rel_hash)
        return [] if original is None else [Sample(original.relative, rel_hash)]

    def _compare(
        self, store: MirrorStore, candidate: Candidate, sample: Sample, arrival: Arrival | None
    ) -> int:
        original = store.entry_by_hash(candidate.origin.lower(), sample.relative_hash)
        copy = store.entry_by_hash(candidate.mirror.lower(), sample.relative_hash)
        if self._content:
            if original is not None and self._too_small(store, original):
                return MISSING  # whatever the mirror holds: no probe of it
            if original is None or copy is None:
                return known_absent(
                    store, candidate, sample, original is not None, copy is not None
                )
            if copy.same_content(original):
                return MATCH
            if self._too_small(store, copy) and self._too_small(store, original, 2):
                return MISSING  # a page below the floor, and its counterpart little above it
            if self._other_files(store, candidate, copy, original):
                return MISSING  # two files under the path: it cannot be checked
            if self._editions and coded_apart(store, candidate, sample):
                return EDITION
            if self._resemble(store, candidate, sample, arrival, (copy, original)):
                return MATCH
            return self._unlike(store, candidate, copy)
        if original is None:
            return MISSING
        url = candidate.mirror + sample.relative
        if copy is not None or store.has_link(url):
            return MATCH
        return MISMATCH if _listing_fetched(store, url) else PENDING

    @staticmethod
    def _other_files(
        store: MirrorStore, candidate: Candidate, copy: DirEntry, original: DirEntry
    ) -> bool:
        """Whether a sample's two entries may be of two files: each side's name, spelled as the
        other side names its files, is not the other's (a name whose case is only guessed is
        not compared), or two files collided at either, or a side that folds case may serve a
        case twin's file there (``MirrorStore.other_file``: a red team's mirror of GDK's
        reference was rejected as an edition so)."""
        to_mirror = to_origin = None
        if not candidate.mirror_names_guessed:
            to_mirror = store.named_at(candidate, original.relative).mirror_spelling(
                original.relative
            )
        if not candidate.origin_names_guessed:
            to_origin = store.named_at(candidate, copy.relative).origin_spelling(copy.relative)
        return store.other_file(candidate.mirror, copy, to_mirror) or store.other_file(
            candidate.origin, original, to_origin
        )

    def _unlike(self, store: MirrorStore, candidate: Candidate, copy: DirEntry) -> int:
        """A mirror's page unlike the origin's: a mismatch, unless it is the mirror's answer for
        a page it lacks (a soft 404: a partial copy serving a "not found" page with a 200), which
        says the mirror lacks the page, as a 404 would (could not be checked). While that answer
        is not known the sample is a mismatch, judged again when it comes
        (``_soft_404s_unchecked``); meanwhile it holds the candidate's confirmation back
        (``awaits_absent_answer``). The twelfth holdout web's copy of a copy, crawled first, was
        otherwise never pruned for its origin, nor its origin for it."""
        answer = answer_of(store.view, candidate.mirror)
        return MISSING if self._soft_404(store, copy, answer) else MISMATCH

    def _soft_404(self, store: MirrorStore, copy: DirEntry, answer: AbsentAnswer | None) -> bool:
        """Whether the mirror's page is its ``answer`` for a page it lacks."""
        if answer is None or answer.page is None:  # no page read when nothing can match
            return False
        record = store.view.page(copy.representative)
        return record is not None and is_answer(record, answer, self._page_rules)

    def _soft_404s_unchecked(self, store: MirrorStore, candidate: Candidate) -> Candidate:
        """The mismatches judged before the mirror's answer for a page it lacks was known, judged
        again: those that are that answer could not be checked."""
        if candidate.count(MISMATCH) == 0:
            return candidate
        answer = answer_of(store.view, candidate.mirror)
        if answer is None or answer.page is None:
            return candidate
        mirror = candidate.mirror.lower()
        for sample in candidate.samples:
            if sample.outcome != MISMATCH:
                continue
            copy = store.entry_by_hash(mirror, sample.relative_hash)
            if copy is not None and self._soft_404(store, copy, answer):
                candidate = candidate.with_outcome(sample.relative_hash, MISSING)
        return candidate

    def other_text(self, store: MirrorStore, candidate: Candidate) -> Candidate:
        """The candidate with each mismatch whose pages hold other text
        (``matching.other_text``) marked ``OTHER_TEXT``, which rejects it: a copy's page differs
        from its origin's by an edit, a banner, a version string, while a page of other text
        under the same name is another document, which a rule would drop unseen. Unrelated
        manuals side by side in an archive share file names (``Copying.html``), and a pair whose
        shared pages are most of its samples was confirmed as a stale copy on a mismatch of other
        text: the pages of other text were lost (our own reproduction, 12 of 16 names shared:
        1-4 lost in 17 of 18 crawls). Asked only of a pair about to be confirmed, once no
        mismatch may still be the mirror's answer for a page it lacks (a soft 404 is other
        text too: ``awaits_absent_answer``)."""
        if not self._content:
            return candidate
        for sample in candidate.samples:
            if sample.outcome != MISMATCH:
                continue
            mirror, origin = (
                store.page_at(side, sample.relative_hash)
                for side in (candidate.mirror, candidate.origin)
            )
            if (
                mirror is not None
                and origin is not None
                and other_text(mirror, origin, self._page_rules)
            ):
                candidate = candidate.with_outcome(sample.relative_hash, OTHER_TEXT)
        return candidate

    def awaits_absent_answer(self, store: MirrorStore, candidate: Candidate) -> bool:
        """Whether a mismatch may yet be the mirror's answer for a page it lacks, not known yet
        (``_unlike``)."""
        if not self._content or candidate.count(MISMATCH) == 0:
            return False
        if answer_of(store.view, candidate.mirror) is not None:
            return False
        mirror, origin = candidate.mirror.lower(), candidate.origin.lower()
        return any(  # pages on both sides, compared unlike
            sample.outcome == MISMATCH
            and store.entry_by_hash(mirror, sample.relative_hash) is not None
            and store.entry_by_hash(origin, sample.relative_hash) is not None
            for sample in candidate.samples
        )

    def _too_small(self, store: MirrorStore, entry: DirEntry, floors: int = 1) -> bool:
        """Whether a page is too small to tell two directories apart (below the token floor:
        a search form, a redirect stub, a theme's empty page are alike on unrelated sites), or
        no longer indexed; with ``floors``, below that many times the floor. A mirror's page
        below the floor tells nothing either where its counterpart is little above it: on the
        eleventh holdout web (random order) a banner copy's host pair was rejected on help pages
        of 5-22 words, each 14 words longer under the banner, and the host was never ruled (248
        fetches). Where the counterpart is longer it is a mismatch (a stub for a page)."""
        record = store.view.page(entry.representative)
        return record is None or below_token_floor(record, self._page_rules, floors)

    def _resemble(
        self,
        store: MirrorStore,
        candidate: Candidate,
        sample: Sample,
        arrival: Arrival | None,
        entries: tuple[DirEntry, DirEntry],
    ) -> bool:
        """Whether the sample's two pages resemble as much as a near-duplicate drop needs, by
        their sketches alone (``matching.resembles``): the page rules' simhash and super-shingle
        conditions, made to find a page's match among many, part a page from its copy plus a few
        added lines (a banner and a footer). Each side is the page standing for it; the page that
        just arrived stands for itself (its own best match may be a third page). The same
        whether the sample was drawn before or after both pages arrived."""
        pages: list[Sketched | None] = [store.view.page(entry.representative) for entry in entries]
        if arrival is not None:
            url = arrival.placed_url.lower()
            for position, side in enumerate((candidate.mirror, candidate.origin)):
                if url == (side + sample.relative).lower():
                    pages[position] = arrival.fingerprint
        first, second = pages
        return (
            first is not None and second is not None and resembles(first, second, self._page_rules)
        )


def _ruled_below(store: MirrorStore, candidate: Candidate) -> tuple[str, ...]:
    """The relative paths (lower-cased) of the rules below the candidate's mirror side, and of
    those below its origin side that pair it with another place of the mirror side: their pages
    are no sample of it, since they tell only what those rules already say, not whether the rest
    of the directory replicates (two replicated sections of a directory with documents of its
    own are no evidence that the directory is a mirror). The origin side's: a pair turned round
    (``CandidateUpdate._turns_over``, ``_turn_partial_origin``) has the rule that made it below
    its origin. On the fifth holdout web (depth first) a university's ``debian/apache-en/``,
    ruled a copy of the project's ``apache-en-rpm/``, made ``debian/`` and the project's host
    root a pair; turned round, it was confirmed on three samples drawn from ``apache-en/`` (six
    missing), and the whole host ruled a copy of ``debian/``. A rule pairing the same place of
    both sides is left in: a mirror host's sections ruled either way round are what a host pair
    is sampled on when they came first (round robin, random order)."""
    mirror, origin = candidate.mirror.lower(), candidate.origin.lower()
    paths = {rule.mirror.lower()[len(mirror) :]: None for rule in store.rules_under(mirror)}
    for rule in store.rules_under(origin):
        relative = rule.mirror.lower()[len(origin) :]
        if rule.origin.lower().startswith(mirror) and rule.origin.lower() != mirror + relative:
            paths[relative] = None
    paths.pop("", None)
    return tuple(paths)


def _stands_for(store: MirrorStore, directory: str, max_depth: int) -> tuple[str, list[Rule]]:
    """The directory whose pages stand for ``directory``'s (lower-cased), through the rules over
    it (a chain of at most ``MAX_CHAIN``), and those rules."""
    passed: list[Rule] = []
    for _ in range(MAX_CHAIN):
        over = rule_over(store, placements(directory, max_depth))
        if over is None:
            break
        rule, place = over
        passed.append(rule)
        directory = store.on_origin(rule, place.relative)
    return directory.lower(), passed


def _plain(rule: Rule) -> bool:
    """A rule whose pages stand for its origin's whichever way: every sample matched, no older
    release, neither side shown to lack the other's pages."""
    return (
        rule.faithful
        and not rule.mirror_older
        and not (rule.origin_lacks or rule.origin_partial or rule.turned_by_absence)
    )


def _listing_fetched(store: MirrorStore, url: str) -> bool:
    """Whether the index page of ``url``'s directory was fetched (and its links recorded)."""
    place = own_placement(url, max_depth=1 << 16)
    return place is not None and store.entry(place.directory_key, "") is not None


def _keyed_order(key: int) -> Callable[[int], int]:
    """A sort key for relative-path hashes that only the index knows (``MirrorStore.sample_key``):
    in plain hash order a copier could compute which of a directory's documents are drawn, copy
    those faithfully, fill the rest with its own text and pass every sample (red-team finding,
    sixty-seventh session). Key 0, which no index is given, is the plain hash order."""
    if not key:
        return lambda rel_hash: rel_hash
    return lambda rel_hash: hash64(rel_hash.to_bytes(8, "big"), key)
