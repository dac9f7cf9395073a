"""Audits: a faithful rule tested again on the pages its sides gain after it was made.

A rule is confirmed on samples drawn from the documents both sides held or listed when its pair
was made, and a copier chooses those: the pages its index page lists, copied faithfully, with
other text under the names they link. A red team's copier of GTK's GSK reference (53 faithful
pages, 191 others) met first had every page of its victim pruned for its own, under every
sample key (sixty-eighth session). So a rule whose every sample matched is audited on what comes
after (a rule accepted with mismatches, a stale copy, expects edited pages):

* a page either side gains is compared with the other side's page at its path, where that side
  holds one: other text (the other page holds less than ``matching.OTHER_TEXT_SHARE`` of
  the smaller page's shingles, as a URL rule's counterexample: a next page, another item) tells
  against the rule; a copy's banner and footer, a version string, an edited paragraph do not;
* a document the rule's kept side gains (a side whose URLs are fetched, the other's pruned) is
  drawn for an audit at one in ``mirror.audit_first``, one in twice as many after each audit, in
  an order the index's secret key sets (``MirrorStore.sample_key``): about
  log2(n / ``audit_first``) + 1 audits for n documents gained, ``_BUDGET`` at most. Its
  counterpart on the pruned side is probed (``AUDIT_PROBE``) and compared when it comes.

A document whose text does not bear out its title (``Fingerprint.title_apart``: a copier's page
of other text kept the title of the page it stands in for, on both helpers' webs) is drawn
whatever the order says, ``_TITLE_DRAWS`` at most a rule, and so is such a document the kept side
held before the rule was made (``audit_held``): a copier crawled whole before its victim gains
nothing after its rule, so nothing else would ever test it.

Where both sides are pruned (crawled side by side), the documents one side held before the rule
stand for the other's pages at their names, and a copier's other text among them would be taken
for its victim's pages before anything compared them: when the rule is made, a few of them have
their counterparts probed (``_audit_standing_in``).

A counterpart of other text revokes the rule (``code_checks.revoke``: the pair is kept rejected,
not as a pair of editions) and has the pruned side's counterparts of the kept side's documents
fetched back: the pages the rule dropped, or never met because the pages linking them were its
own. Cost: the audits' probes, each a page the rule would have pruned.
"""

from __future__ import annotations

import itertools

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.matching import editions, other_text
from dedup_filter.mirrors.code_checks import CodeCheck, revoke
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import IndexPages, Placement
from dedup_filter.mirrors.records import Rejection, Rule
from dedup_filter.mirrors.rules import rules_holding
from dedup_filter.mirrors.soft404 import answer_of, is_answer
from dedup_filter.mirrors.store import AUDIT_PROBE, MirrorStore, directory_name, relative_hash

_BUDGET = 8  # audit probes a rule asks, at most
_TITLE_DRAWS = 4  # ... of them for documents drawn for a title their text does not bear out
_BESIDE_DRAWS = 4  # ... for the documents a side held before a rule that prunes both sides
_HELD_READ = 1024  # entries of a kept side read for such documents when its rule is made


def audit(
    store: MirrorStore,
    places: list[Placement],
    arrival: Fingerprint,
    index_pages: IndexPages,
    config: Config,
    now: float,
) -> CodeCheck:
    """Audit the faithful rules over the page that arrived (``places``): revoked where its
    counterpart holds other text, or its counterpart probed."""
    check = CodeCheck()
    if not store.has_rules():
        return check
    for rule, place, on_mirror in rules_holding(store, places):
        relative = place.relative
        if rule.mode != "content" or not rule.faithful or not relative:
            continue
        if index_pages.names_listing(relative):
            continue
        counterpart = _counterpart(store, rule, relative, on_mirror)
        if counterpart is None:
            first = config.mirror.audit_first
            if _drawn(store, rule, relative, on_mirror, first, arrival.title_apart):
                _probe_counterpart(store, rule, relative, on_mirror, check)
        elif _other_text(arrival, counterpart, config) and not _answers_absence(
            store, rule, (arrival, counterpart), on_mirror, config
        ):
            # told apart by no path of editions: not remembered as a pair of editions, whose
            # pages ``pruning._beside_edition`` drops for each other's (a copier's other text
            # then dropped the victim's pages it stood beside: a red team, 152 of 191 lost)
            revoke(store, rule, config, now, check, why=Rejection.REVOKED_BY_AUDIT)
            return check
    return check


def _counterpart(
    store: MirrorStore, rule: Rule, relative: str, on_mirror: bool
) -> PageRecord | None:
    """The page the other side holds at ``relative``: not where two files collided there, nor
    where that side served one file under two names that differ only in case, or either side's
    index page lists the name beside such a twin: which of the two files it holds, nothing
    tells (a mirror on a server that folds case, whose host's URL ``case`` rule keeps the crawl
    from ever fetching the second name, revoked its rule so)."""
    other, here = (rule.origin, rule.mirror) if on_mirror else (rule.mirror, rule.origin)
    entry = store.entry_by_hash(other.lower(), relative_hash(relative))
    if entry is None or store.other_file(other, entry, None) or store.case_twin(here + relative):
        return None
    return store.view.page(entry.representative)


def _other_text(page: Fingerprint, counterpart: PageRecord, config: Config) -> bool:
    """Whether two pages at one path hold other text (``matching.other_text``); editions of one
    document (``code_checks``) tell nothing here."""
    return not editions(page, counterpart, config) and other_text(page, counterpart, config)


def _answers_absence(
    store: MirrorStore,
    rule: Rule,
    pages: tuple[Fingerprint, PageRecord],
    on_mirror: bool,
    config: Config,
) -> bool:
    """Whether either page is its side's known answer for a page it lacks (a soft 404): an
    absence, which ``origin_lacks`` and the deferrals weigh, not other text."""
    sides = (rule.mirror, rule.origin) if on_mirror else (rule.origin, rule.mirror)
    return any(
        is_answer(page, answer_of(store.view, side), config)
        for page, side in zip(pages, sides, strict=True)
    )


def audit_held(
    store: MirrorStore, rule: Rule, index_pages: IndexPages, config: Config
) -> CodeCheck:
    """A faithful rule just made, audited on the documents its kept side held before it whose
    text does not bear out their title (over its first ``_HELD_READ`` entries): each one's
    counterpart on the pruned side probed, where that side does not hold it."""
    check = CodeCheck()
    if rule.mode != "content" or not rule.faithful or not config.mirror.audit_first:
        return check
    for kept, on_mirror in ((rule.mirror, True), (rule.origin, False)):
        if not _kept_beside_pruned(rule, on_mirror):
            continue
        if _pruned_beside(rule, on_mirror):
            _audit_standing_in(store, rule, index_pages, on_mirror, check)
        if _asked(store, rule) >= _TITLE_DRAWS:
            continue
        for _, entry in itertools.islice(store.subtree(kept.lower()), _HELD_READ):
            relative = entry.relative
            if not relative or index_pages.names_listing(relative):
                continue
            record = store.view.page(entry.representative)
            if record is None or not record.title_apart:
                continue
            if _counterpart(store, rule, relative, on_mirror) is not None:
                continue  # compared when either page came
            if _asked(store, rule) >= _TITLE_DRAWS:
                return check
            _probe_counterpart(store, rule, relative, on_mirror, check)
    return check


def _pruned_beside(rule: Rule, on_mirror: bool) -> bool:
    """Whether the side, held first, is pruned too where the other holds a page the crawl
    fetched (crawled side by side: ``Rule.prunes_mirror_beside``, ``prunes_origin_beside``)."""
    return rule.prunes_mirror_beside if on_mirror else rule.prunes_origin_beside


def _audit_standing_in(
    store: MirrorStore, rule: Rule, index_pages: IndexPages, kept_on_mirror: bool, check: CodeCheck
) -> None:
    """Audit a rule whose side held first is pruned beside the other on the documents the other
    side held before the rule, which stand for that side's pages at their names: up to
    ``_BESIDE_DRAWS`` of them whose counterpart the side held first lacks, in the index's secret
    order, have that counterpart probed. A copier crawled beside its victim, faithful where the
    samples looked, held its other text at names whose victim pages were then dropped for it,
    before any audit compared a pair: on the fifth helper's web (depth first) a victim's page
    and the copier's own page at another name were lost so, no third host holding them."""
    other, on_mirror = (rule.origin, False) if kept_on_mirror else (rule.mirror, True)
    first = _asked(store, rule)
    entries = itertools.islice(store.subtree(other.lower(), store.sample_key()), _HELD_READ)
    for _, entry in entries:
        asked = _asked(store, rule)
        if asked - first >= _BESIDE_DRAWS or asked >= _BUDGET:
            return
        relative = entry.relative
        if not relative or index_pages.names_listing(relative):
            continue
        if _counterpart(store, rule, relative, on_mirror) is None:  # else compared when it came
            _probe_counterpart(store, rule, relative, on_mirror, check)


def _kept_beside_pruned(rule: Rule, on_mirror: bool) -> bool:
    """Whether the side (the mirror, or the origin) is kept while the other is pruned."""
    if on_mirror:
        return not rule.prunes_mirror and rule.prunes_origin
    return not rule.prunes_origin and rule.prunes_mirror


def _asked(store: MirrorStore, rule: Rule) -> int:
    return Deferrals(store.view).tally(directory_name(rule.mirror), AUDIT_PROBE).asked


def _drawn(
    store: MirrorStore, rule: Rule, relative: str, on_mirror: bool, first: int, title_apart: bool
) -> bool:
    """Whether a document the side gained is audited: the side is kept and the other pruned,
    the secret order draws it (or its text does not bear out its title), and the rule has
    probes left."""
    if not (first and _kept_beside_pruned(rule, on_mirror)):
        return False
    asked = _asked(store, rule)
    if title_apart and asked < _TITLE_DRAWS:
        return True
    every = first << asked  # each audit passed, half as many drawn
    drawn = hash64(f"{rule.mirror.lower()}\n{relative.lower()}", store.sample_key()) % every == 0
    return drawn and asked < _BUDGET


def _probe_counterpart(
    store: MirrorStore, rule: Rule, relative: str, on_mirror: bool, check: CodeCheck
) -> None:
    """Audit the page a side holds at ``relative``: its counterpart on the other side probed,
    unless a probe is out for it or it is known absent."""
    url = store.on_origin(rule, relative) if on_mirror else store.on_mirror(rule, relative)
    if not store.probes_for(url) and Deferrals(store.view).absent(url) is None:
        _ask(store, rule, url, check)


def _ask(store: MirrorStore, rule: Rule, url: str, check: CodeCheck) -> None:
    reference = directory_name(rule.mirror)
    store.add_probe(url, AUDIT_PROBE, reference)
    Deferrals(store.view).count_probe(reference, AUDIT_PROBE, "asked")
    check.probes.append(url)
