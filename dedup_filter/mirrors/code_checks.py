"""A rule stays answerable to code: an edition found after the rule is made revokes it.

Samples are drawn first from pages with code blocks when the index knows some (``editions.py``),
but a pair is often confirmed from probes before the crawl has fetched the origin's pages, so
before any page with code blocks is known (on one evaluation web, a guide's rpm edition was
confirmed from its first four samples, all identical prose). So once a rule is made, an origin
page with code blocks that arrives has its mirror page compared: at once when the index holds
it, else asked for as a probe (``CODE_PROBE``) and compared when it arrives; a mirror page with
code blocks has its origin page asked for the same way where no page of the origin's, or
standing for it, is held (under a rule that prunes its origin, whose mirror is crawled whole, or
whose origin's pages other rules drop). At most
``mirror.code_samples`` mirror pages a rule (``mirror.code_samples_siblings`` for a rule whose
sides are sibling directories: ``CodeBudget``), counting the coded samples that confirmed it and not
the probes that failed (a true mirror with code everywhere would otherwise be fetched whole)
until most of them fail (``ProbeTally.mostly_absent``: a partial copy of a coded manual, or a
copy whose files were renamed, would otherwise cost a 404 for each coded page of the other). A
mirror page whose code blocks differ from its origin page's revokes the rule: the pair is kept as
a rejected candidate (never paired again), nothing more is dropped, what it deferred is fetched,
and the counterparts of either side's coded pages that the other side lacks are fetched back
(``_fetch_back``). Both code hashes are the 4 bytes a page record keeps (``PageRecord.code``).

Rules chain: a rule may lie inside the origin of a rule that drops its origin's pages for its
copy's (an edition paired with its guide inside a host whose pages a host rule drops). Its
origin's pages then never arrive, so a page kept for them stands for them: an origin page's
code is that of the page standing for it (``editions.standing_code_hash``), and a coded page
that arrives has the copies compared that rules along a chain drop for it (``_copies``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from dedup_filter.config import Config, MirrorConfig
from dedup_filter.index.page_records import PageRecord
from dedup_filter.matching import codes_apart, other_text
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import (
    Placement,
    placements,
    side_by_side,
)
from dedup_filter.mirrors.editions import (
    ANY_DEPTH,
    code_hash,
    held_code,
    own_code,
    standing_code,
    standing_code_hash,
)
from dedup_filter.mirrors.records import REJECTED, Candidate, DirEntry, Rejection, Rule
from dedup_filter.mirrors.rules import MAX_CHAIN, point_back, rule_over
from dedup_filter.mirrors.store import CODE_PROBE, MirrorStore, directory_name, relative_hash


@dataclass(frozen=True, slots=True)
class CodeBudget:
    """How many coded pairs a rule compares (``mirror.code_samples``), more where its sides are
    sibling directories (``mirror.code_samples_siblings``): a project keeps its editions and
    versions side by side, and one that differs on a few coded pages escapes a few checks. A
    renamed copy elsewhere on the host (an archive) keeps the plain budget."""

    samples: int
    siblings: int

    @classmethod
    def configured(cls, config: MirrorConfig) -> CodeBudget:
        """The budget ``mirror.code_samples`` and ``mirror.code_samples_siblings`` set."""
        return cls(config.code_samples, config.code_samples_siblings)

    def of(self, rule: Rule) -> int:
        if self.samples and side_by_side(rule.mirror, rule.origin):
            return max(self.samples, self.siblings)
        return self.samples

    def spent(self, rule: Rule) -> bool:
        """Whether ``rule``, standing, compared as many coded pages of its sides as it compares
        before it drops its own coded pages unseen, and found none apart (that revokes it); never
        with the comparisons off. Its pair's coded pages then stand for each other beside a copy
        of the pair held first as its own do (``pruning.UrlPruner._copy_held_before``). Probes
        still in flight do not hold it back: an answer that revokes the pair fetches back, on
        its own sides, the counterparts of the coded pages held for them on the copy
        (``_fetch_back``), so a twin dropped meanwhile costs no content; waiting for every answer
        kept a copy's edition pages coming while the probes streamed (holdout23, random order:
        46 more fetched, a trial reverted)."""
        return rule.code_probes >= self.of(rule) > 0


@dataclass(slots=True)
class CodeCheck:
    """What a page with code blocks did to the rules: probes asked, rules revoked (mirrors)."""

    probes: list[str] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    fetch_back: list[str] = field(default_factory=list)  # what revoked rules dropped, maybe


def check_code(
    store: MirrorStore,
    places: list[Placement],
    code: int,
    config: Config,
    now: float,
    representative: int | None = None,
) -> CodeCheck:
    """Compare a page with code blocks (``code``: its code hash) with its counterpart across
    the rules it lies under, as mirror or as origin, and with the copies of it that rules
    along a chain drop for it. A counterpart held as the very page the arriving one is held as
    (``representative``: the page it was dropped for as an exact duplicate) holds the same
    words: their code blocks differ only in markup, never as editions' (Debian's copy of
    Apache's manual marks its examples up otherwise; on the fourth helper's web a page dropped
    for it revoked the manual's rule between two hosts, and 443 pages were fetched back)."""
    check = CodeCheck()
    if not code or not store.has_rules():  # no rule stands or was revoked: none to check against
        return check
    budget = CodeBudget.configured(config.mirror)
    check.fetch_back.extend(_revoked_counterparts(store, places))
    for sides, relative in _told_apart(store, places, code):
        _compare_related(store, sides, relative, config, now, check, budget)
    found = rule_over(store, places)
    if found is not None:  # a mirror page: a probe, held before the rule came, or crawled
        rule, place = found
        rel_hash = relative_hash(place.relative)
        standing = held_code(store, rule.origin, rel_hash, place.relative)
        if standing is None and not rule.prunes_origin:
            standing = standing_code(store, rule.origin, rel_hash, rule, place.relative)
        if standing is None:
            # the origin page of a mirror page with code blocks is asked for, to be compared:
            # the mirror held first is crawled whole and its origin's pages are pruned, or no
            # page stands for it (its pages dropped through other rules never arrive)
            _ask(store, rule, store.on_origin(rule, place.relative), budget, check)
        elif codes_apart(standing, code) and not _held_as(
            store, rule.origin, rel_hash, representative
        ):
            revoke(store, rule, config, now, check, relative=place.relative)
        if not rule.prunes_origin or check.revoked:
            return check
        # kept for its origin's page, it stands for that page before the origin's copies
        places = placements(rule.origin + place.relative, ANY_DEPTH)
    for rule, relative in _copies(store, places):
        _check_mirror_page(store, rule, relative, code, representative, budget, config, now, check)
    return check


def _held_as(store: MirrorStore, directory: str, rel_hash: int, representative: int | None) -> bool:
    """Whether ``directory`` holds its page at ``rel_hash`` as the page ``representative``."""
    entry = store.entry_by_hash(directory.lower(), rel_hash)
    return entry is not None and entry.representative == representative


def _copies(store: MirrorStore, places: list[Placement]) -> Iterator[tuple[Rule, str]]:
    """The rules whose mirror holds a copy of the page these places describe, with the copy's
    path under the mirror: rules whose origin holds the page, then rules whose origin holds such
    a copy (a renamed copy within a mirror), up to ``MAX_CHAIN`` rules along a chain."""
    seen: set[str] = set()
    frontier = [places]
    for _ in range(MAX_CHAIN):
        reached = []
        for place in (place for places_of in frontier for place in places_of):
            for mirror in store.mirrors_of_origin(place.directory):
                rule = store.rule(mirror)
                if rule is None or rule.origin.lower() != place.directory_key or mirror in seen:
                    continue
                seen.add(mirror)
                yield rule, place.relative
                reached.append(placements(rule.mirror + place.relative, ANY_DEPTH))
        frontier = reached


def check_held_code(
    store: MirrorStore, rule: Rule, config: Config, now: float, scanned: int = 1024
) -> CodeCheck:
    """A rule just made, against the pages with code blocks either side held before it came
    (over the first ``scanned`` entries of each side, in hash order): compared at once where the
    other side holds the path, else the other side's page probed, within the rule's budget. A
    side crawled before the rule brings none of its coded pages afterwards, so ``check_code``
    would never see them: an edition held first was confirmed from its prose pages, and its
    rule then dropped the other edition's pages whose code differs. A page standing for the
    origin's (kept for it by another rule) that differs has the origin's own page asked for
    first, while the budget lasts: that other rule may be a wrong edition pairing, and a rule
    revoked as it is made is never made again (on the holdout web a library's copy of the guide
    was revoked against the rpm page standing for the guide's, and never paired again)."""
    check = CodeCheck()
    budget = CodeBudget.configured(config.mirror)
    sides = ((rule.origin, rule.mirror, rule.on_mirror), (rule.mirror, rule.origin, rule.on_origin))
    for side, other, other_url in sides:
        for rel_hash, entry, record in _coded_entries(store, side, scanned):
            own = held_code(store, other, rel_hash, entry.relative)
            # the origin's page may be one a rule over it drops: the page kept for it counts
            standing = own is None and other == rule.origin
            counterpart = (
                standing_code_hash(store, other, rel_hash, rule, entry.relative)
                if standing
                else own or 0
            )
            if counterpart and not codes_apart(record.code, counterpart):
                continue
            # not held, or a page standing for the origin's differs: the origin's own page
            # decides if it can be asked for (within the rule's budget as counted now)
            current = None if counterpart and not standing else store.rule(rule.mirror)
            url = other_url(entry.relative)
            if current is not None and _ask(store, current, url, budget, check):
                continue
            if counterpart:
                revoke(store, rule, config, now, check, pruned=False, relative=entry.relative)
                return check
    return check


def _check_mirror_page(
    store: MirrorStore,
    rule: Rule,
    relative: str,
    code: int,
    representative: int | None,
    budget: CodeBudget,
    config: Config,
    now: float,
    check: CodeCheck,
) -> None:
    """The mirror page of an origin page with code blocks (held as ``representative``):
    compared when held, or where a page with code blocks stands for it (a copy held first of
    the host holding the mirror side, whose pages are that side's: ``editions.kept_for``),
    counted against the rule's budget as a probe's answer would be; else probed. On the
    twenty-third holdout web (random order) a guide's edition pair lay inside a host that a
    partner's copy, held first, stood for: the pair's code was compared by probing the host's
    edition pages (37 fetches) that the partner had fetched or fetched later."""
    rel_hash = relative_hash(relative)
    held = store.entry_by_hash(rule.mirror.lower(), rel_hash) is not None
    mirror_code = standing_code_hash(store, rule.mirror, rel_hash, rule, relative)
    if not held and not mirror_code:
        _ask(store, rule, store.on_mirror(rule, relative), budget, check)
    elif codes_apart(mirror_code, code) and not _held_as(
        store, rule.mirror, rel_hash, representative
    ):
        revoke(store, rule, config, now, check, relative=relative)
    elif not held:
        _count(store, rule)


def _ask(store: MirrorStore, rule: Rule, url: str, budget: CodeBudget, check: CodeCheck) -> bool:
    """Probe ``url``, one side's page of ``rule``, for its code, within the rule's budget,
    unless it is known absent (a partial mirror lacks it); whether it is asked for (now, or
    already)."""
    if store.probes_for(url):
        return True
    deferrals = Deferrals(store.view)
    if rule.code_probes >= budget.of(rule) or deferrals.absent(url) is not None:
        return False
    if deferrals.tally(directory_name(rule.mirror), CODE_PROBE).mostly_absent:
        return False  # the probes that failed left their place in the budget: not forever
    _probe(store, rule, url, check, counted=True)
    return True


def _probe(
    store: MirrorStore, rule: Rule, url: str, check: CodeCheck, counted: bool = False
) -> None:
    """Ask for ``url``, a page of ``rule``'s sides, to compare its code (``counted`` against the
    rule's budget)."""
    store.add_probe(url, CODE_PROBE, directory_name(rule.mirror))
    check.probes.append(url)
    if counted:
        _count(store, rule)


def _count(store: MirrorStore, rule: Rule) -> None:
    """One more coded page of ``rule``'s sides compared, or asked for, against its budget."""
    store.put_rule(replace(rule, code_probes=rule.code_probes + 1))


def code_probe_failed(store: MirrorStore, reference: bytes) -> None:
    """A mirror page probed for its code could not be fetched (a partial mirror lacks it): it
    compared nothing, so it leaves its place in the rule's budget to another."""
    rule = store.rule(reference.decode("utf-8", "surrogatepass"))
    if rule is not None and rule.code_probes > 0:
        store.put_rule(replace(rule, code_probes=rule.code_probes - 1))


def revoke(
    store: MirrorStore,
    rule: Rule,
    config: Config,
    now: float,
    check: CodeCheck,
    pruned: bool = True,
    relative: str = "",
    why: Rejection = Rejection.REVOKED_ON_CODE,
) -> None:
    """Delete ``rule``, keep its pair as rejected (for ``why``) and move back the origins it
    moved. Where it ``pruned`` already (not one revoked as it is made), what it dropped is
    fetched back: a pair told apart by the code of editions at ``relative`` (``_editions_at``)
    is remembered as one (``pruning._beside_edition`` drops a page of one for the other's page
    without code blocks) and has the counterparts of its kept side's pages with code blocks
    fetched (``_fetch_back``); a pair told apart otherwise (by other text, or by an audit) is
    no copy, and has the counterparts of all its kept side's documents fetched
    (``_documents_back``). The path is compared under the rules that share a side with the
    pair (``_compare_related``)."""
    if pruned and relative and _editions_at(store, rule, relative, config):
        check.fetch_back.extend(_fetch_back(store, rule))
        store.put_revoked(rule)
    elif pruned:
        check.fetch_back = list(dict.fromkeys([*check.fetch_back, *_documents_back(store, rule)]))
    store.delete_rule(rule)
    rejected = Candidate(
        rule.mirror,
        rule.origin,
        rule.mirror_index,
        rule.origin_index,
        now,
        state=REJECTED,
        level=rule.level,
        rejected_for=why,
        **rule.sides_naming,
    )
    store.put_candidate(rejected)
    point_back(store, rule)
    check.revoked.append(rule.mirror)
    if relative:
        _compare_related(store, (rule.mirror, rule.origin), relative, config, now, check)


def _editions_at(store: MirrorStore, rule: Rule, relative: str, config: Config) -> bool:
    """Whether the pages at ``relative`` whose code told ``rule``'s sides apart are editions of
    one document: the same prose around other code, not other text (``matching.other_text``),
    or too little known to tell (a side's page held only through another rule). Unrelated
    manuals side by side in an archive share names (GNU manuals' ``Concept-Index.html``); a
    pair of them confirmed on the pages they share word for word was taken for editions, and
    each one's pages were then dropped for the other's pages at their names (an independent
    web built by a helper, sixty-ninth session: content lost in 4 of 9 crawls of a 79-page
    reproduction)."""
    rel_hash = relative_hash(relative)
    mirror, origin = (store.page_at(side, rel_hash) for side in (rule.mirror, rule.origin))
    return mirror is None or origin is None or not other_text(mirror, origin, config)


def _documents_back(store: MirrorStore, rule: Rule, scanned: int = 1024) -> list[str]:
    """The pruned side's counterparts of the kept side's documents (over its first ``scanned``
    entries, in hash order), where it holds no page."""
    fetched = []
    sides = (
        (rule.origin, rule.mirror, rule.prunes_mirror),
        (rule.mirror, rule.origin, rule.prunes_origin),
    )
    for kept, pruned, is_pruned in sides:
        if is_pruned:
            fetched += store.lacking(pruned, itertools.islice(store.subtree(kept.lower()), scanned))
    return fetched


# rules that share a side with a revoked one compared at its path, at most (a popular origin may
# have many mirrors: a revocation costs at most this many probes)
_RELATED_RULES = 16
# probes beyond its budget a rule spends on the paths found later to tell a revoked pair apart
_RELATED_EXTRA = 4


def _compare_related(
    store: MirrorStore,
    sides: tuple[str, str],
    relative: str,
    config: Config,
    now: float,
    check: CodeCheck,
    budget: CodeBudget | None = None,
) -> None:
    """The path whose code told the ``sides`` of a revoked pair apart, compared under every rule
    that has either side as its own: a copy of one edition paired across hosts with the other
    edition (a library's copy of a guide, a host mirror's guide) differs on that page too, and
    its own samples may never draw it. Compared at once where both sides hold the path, else the
    page a side lacks is probed: one probe a rule outside its budget for the path that revoked
    the pair; for a path found later (``_told_apart``, with the rules' ``budget``), within the
    budget and ``_RELATED_EXTRA`` probes more (a right rule would otherwise have its copy's page
    fetched at every such path). The probe's answer is compared when it arrives
    (``check_code``)."""
    rel_hash = relative_hash(relative)
    related = []
    for side in sides:
        related += store.rules_with_origin_at(side)
        ruled = store.rule(side)
        related += [ruled] if ruled is not None else []
    for other in related[:_RELATED_RULES]:
        if store.rule(other.mirror) != other:  # revoked meanwhile (along this cascade)
            continue
        mirror_held = store.entry_by_hash(other.mirror.lower(), rel_hash) is not None
        origin_code = standing_code_hash(store, other.origin, rel_hash, other, relative)
        origin_held = bool(origin_code) or store.entry_by_hash(other.origin.lower(), rel_hash)
        if mirror_held and origin_held:
            if codes_apart(code_hash(store, other.mirror, rel_hash, relative), origin_code):
                revoke(store, other, config, now, check, relative=relative)
            continue
        url = (other.origin if mirror_held else other.mirror) + relative
        if store.probes_for(url):
            continue
        if budget is None:
            _probe(store, other, url, check)
        elif other.code_probes < budget.of(other) + _RELATED_EXTRA:
            _probe(store, other, url, check, counted=True)


def _told_apart(
    store: MirrorStore, places: list[Placement], code: int
) -> Iterator[tuple[tuple[str, str], str]]:
    """The pairs revoked for their code that this page stands on one side of, whose other side
    has a page of other code at its path (its own, or one standing for it), with the path:
    another page that tells two editions apart, found after the one that revoked them. A
    partial copy of one edition paired with the other may lack the page that revoked the pair:
    on the second holdout web (seed 4) a library's copy of the guide stayed paired with the rpm
    edition to the end, having no copy of the one page compared under its rule, while three
    other pages of its own told the two editions apart (in one crawl they arrived on a host
    mirror of the guide, held first)."""
    for place, side, other in _revoked_beside(store, places):
        other_code = standing_code_hash(
            store, other, relative_hash(place.relative), relative=place.relative
        )
        if other_code and codes_apart(code, other_code):
            yield (side, other), place.relative


def _revoked_counterparts(store: MirrorStore, places: list[Placement]) -> Iterator[str]:
    """The counterparts of a page with code blocks across the pairs revoked for their code that
    hold it on either side, where the other side holds no page: pages the revoked rule dropped
    or hid, which nothing requests once their kept side's page arrives after the revocation.
    On the second holdout web an rpm page revoked with its edition's rule was never requested:
    the one page linking it was dropped under that rule, and the guide's page at its path
    arrived on the library's copy after the revocation."""
    for place, _, other in _revoked_beside(store, places):
        if store.entry_by_hash(other.lower(), relative_hash(place.relative)) is None:
            yield other + place.relative


def _revoked_beside(
    store: MirrorStore, places: list[Placement]
) -> Iterator[tuple[Placement, str, str]]:
    """Each place of a page, a side of a pair revoked for its code that the page stands on, and
    that pair's other side. The page may arrive on a side paired with the revoked pair's (a
    library's copy of the guide held first, whose pages the guide's are dropped for; a host
    mirror held first): it stands for that side's page, which never arrives."""
    if not store.has_revoked():  # most crawls: no need to read the rules over every place
        return
    paired: list[tuple[str, str]] = []  # (directory, its other side) of the rules above so far
    for place in places:  # host root first: a place's ancestors come before it
        paired += [(place.directory, other) for other in _other_sides(store, place.directory)]
        below = (other + place.directory[len(above) :] for above, other in paired)
        for side in (place.directory, *below):
            for other in store.revoked_partners(side):
                yield place, side, other


def _paired_sides(store: MirrorStore, directory: str) -> Iterator[str]:
    """The directories that the rules at ``directory`` or above it pair with it (a host rule
    pairs each directory of one host with the same path on the other): the pages of either may
    be dropped for the other's."""
    for place in placements(directory, ANY_DEPTH):
        yield from (other + place.relative for other in _other_sides(store, place.directory))


def _other_sides(store: MirrorStore, directory: str) -> list[str]:
    """The other sides of the rules with ``directory`` itself as a side."""
    rule = store.rule(directory)
    mirrors = [other.mirror for other in store.rules_with_origin_at(directory)]
    return mirrors if rule is None else [rule.origin, *mirrors]


def _fetch_back(store: MirrorStore, rule: Rule, scanned: int = 1024) -> Iterator[str]:
    """The counterparts, on either side of ``rule``, of the pages with code blocks the other
    side holds (over the first ``scanned`` entries of each, in hash order), where that side
    holds no page. An edition differs there. On its pruned side the rule dropped those URLs
    before their fetch, or never met them (the pages that link them were its own, pruned): on
    the second holdout web, 4 pages of a guide's edition existed nowhere else and were never
    requested. On its kept side, the pages that link them may have been dropped through another
    rule for the pruned side's copies (a host mirror's edition): one such page was lost. The
    coded pages held for a side may lie on a side another rule pairs it with (a host mirror held
    first, whose edition's pages its origin's are dropped for): those count as its own (a
    second holdout crawl lost an English page so, every page linking it dropped for the rpm
    edition's, its rpm twin held only on the partner's host)."""
    for side, other in ((rule.mirror, rule.origin), (rule.origin, rule.mirror)):
        standing = (held for held in _paired_sides(store, side) if held.lower() != other.lower())
        for held in (side, *standing):
            coded = _coded_entries(store, held, scanned)
            yield from store.lacking(other, ((rel_hash, entry) for rel_hash, entry, _ in coded))


def _coded_entries(
    store: MirrorStore, directory: str, scanned: int
) -> Iterator[tuple[int, DirEntry, PageRecord]]:
    """The entries of ``directory`` whose page has code blocks, with the page's record, over
    its first ``scanned`` entries (in hash order)."""
    for rel_hash, entry in itertools.islice(store.subtree(directory.lower()), scanned):
        record = store.view.page(entry.representative)
        if record is not None and own_code(entry, record):
            yield rel_hash, entry, record
