"""Which indexed page, if any, a new page duplicates: exact, then Henzinger's site-aware rule.

Same site: the combined algorithm (B-similar, then C-similarity >= the same-site threshold), since
boilerplate makes either algorithm alone imprecise there, between pages of the same title words
(``text.same_site_titles``: generated documentation shares whole blocks between items).
Different sites: C-similarity >= the cross-site threshold found through the simhash bands, or the
combined rule, unless the pages are titled apart under other names (``text.cross_site_titles``).
Either rule only proposes: a near-duplicate drop also needs the Jaccard resemblance estimated from
the two b-bit min-hash sketches to reach ``minhash.min_resemblance`` (``short_page_resemblance``
when the shorter page has fewer than ``short_page_tokens`` tokens). Simhash over term frequencies
cannot tell one guide's C and Java editions (same prose, other code) or one template's reference
pages for two functions from copies; shingles can, unless the code is a small part of the page
(a guide whose commands were rewritten for another package manager: 0.89-0.97 of its shingles
shared), so two pages whose code blocks (``<pre>``) both hold words, other words, are never
near-duplicates. And the page must stand out as its match's copy among the other documents it
resembles (``_rival``): pages of one template resemble each other about equally.
A page never matches its own record (same page id), which makes re-processing idempotent.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from typing import Any

from dedup_filter.config import Config
from dedup_filter.decision import Reason
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.features.minhash import sketch_deviation, sketch_resemblance
from dedup_filter.features.simhash import agreement
from dedup_filter.index.lmdb_index import IndexView, PageRecord, band_postings
from dedup_filter.index.page_records import kept_feature
from dedup_filter.languages import language_editions
from dedup_filter.urls import document_stem_of, site_of

Sketched = Fingerprint | PageRecord  # whatever carries a b-bit sketch and a token count

# most-shared candidates verified per page: bounds the work on template-heavy sites
_MAX_CANDIDATES = 256
# a copy adds its text to a page in at most this many places (a banner, a footer)
_ADDED_PLACES = 2
# how far a sketch's estimate may fall below the resemblance a copy's added text leaves
_ADDED_DEVIATIONS = 2.0
# and never below this: pages of one template share their navigation's shingles
_ADDED_FLOOR = 0.3
# how many times closer (in Jaccard distance) a copy is to its original than to another document
_STANDING_OUT = 2.0
# candidates close in simhash a match is compared with, at most (bounds the work a drop)
_RIVALS = 32


@dataclass(frozen=True, slots=True)
class Match:
    """An indexed page that the new page duplicates, with the evidence."""

    original: PageRecord
    reason: Reason
    evidence: dict[str, Any]


def find_exact(view: IndexView, fingerprint: Fingerprint, own_id: int | None) -> Match | None:
    for page_id in view.postings("exact", fingerprint.exact.to_bytes(8, "big")):
        original = view.page(page_id) if page_id != own_id else None
        if original is not None and original.exact == fingerprint.exact:  # postings keep 40 bits
            return _exact(fingerprint, original)
    return None


def find_near(
    view: IndexView, fingerprint: Fingerprint, own_id: int | None, config: Config
) -> Match | LookAlikes | None:
    """The indexed page this one near-duplicates best (most agreeing simhash bits), if any; or
    the ``LookAlikes`` that make it none's copy."""
    if not fingerprint.has_features:
        return None
    shared = _candidates(view, fingerprint, config)
    shared.pop(own_id, None)  # type: ignore[arg-type]
    matches: list[Match] = []
    close: list[int] = []  # candidates a match must stand out from (``_rival``)
    floor = config.simhash.scaled(config.simhash.same_site_threshold)
    most_shared = heapq.nsmallest(
        _MAX_CANDIDATES, shared.items(), key=lambda item: (-item[1][0] - item[1][1], item[0])
    )
    for page_id, (features, _) in most_shared:
        simhash = view.page_simhash(page_id)
        if not simhash:
            continue
        c_agree = agreement(fingerprint.simhash, simhash)
        if c_agree >= floor and len(close) < _RIVALS:
            close.append(page_id)
        if not any(_simhash_rules(c_agree, features, config)):
            # no rule of ``_judge`` can hold (the postings count at least the shared
            # super-shingles): the record is not decoded; most candidates of a large index end here
            continue
        original = view.page(page_id)
        if original is None:
            continue
        match = _judge(fingerprint, original, _shared_features(fingerprint, original), config)
        if match is not None:
            matches.append(match)
    if not matches:
        return None
    best = max(matches, key=_rank)
    return _rival(view, fingerprint, best, close, config) or best


def _rank(match: Match) -> tuple[int, int, int]:
    return (match.evidence["c_agree_bits"], match.evidence["b_shared"], -match.original.page_id)


@dataclass(frozen=True, slots=True)
class LookAlikes:
    """Indexed pages of two documents that a page resembles about as much: what the three share
    is a template (a navigation that lists every page of a section, titles alike but for a
    number), not a copy."""

    evidence: dict[str, Any]


def _rival(
    view: IndexView, fingerprint: Fingerprint, best: Match, close: list[int], config: Config
) -> LookAlikes | None:
    """The ``LookAlikes`` of a page and its best match, when another indexed document (not a
    copy of the best) is nearly as close to the page: a copy is ``_STANDING_OUT`` times closer,
    in Jaccard distance, to its original than to any other document. Tornado's release notes
    (one short page a release under a sidebar listing every release, titled alike but for the
    number) resemble each other at 0.75-0.81: one was dropped for another, both estimated at
    0.86 with three more releases, on the twenty-second holdout web."""
    distance = 1.0 - best.evidence["resemblance"]
    for page_id in close:
        if page_id == best.original.page_id:
            continue
        rival = view.page(page_id)
        if rival is None or resembles(best.original, rival, config):
            continue
        resembling = resemblance(fingerprint, rival, config)
        if distance * _STANDING_OUT > 1.0 - resembling:
            evidence = {
                "pages": [best.original.url, rival.url],
                "resemblances": [best.evidence["resemblance"], round(resembling, 4)],
                "between_them": round(resemblance(best.original, rival, config), 4),
            }
            return LookAlikes(evidence)
    return None


def duplicates(fingerprint: Fingerprint, original: PageRecord, config: Config) -> Match | None:
    """Whether a page duplicates one given indexed page, by the rules of ``find_exact`` and
    ``find_near`` (exact first), without searching the index.

    The caller excludes the page's own record (a page never duplicates itself). Unlike the search,
    the cross-site rule is applied even when the two fingerprints share no simhash band.
    """
    if original.exact == fingerprint.exact:
        return _exact(fingerprint, original)
    if not (fingerprint.has_features and original.simhash):
        return None
    return _judge(fingerprint, original, _shared_features(fingerprint, original), config)


def _shared_features(fingerprint: Fingerprint, original: PageRecord) -> int:
    """Super-shingles the two pages share."""
    return len(_shared_groups(fingerprint, original))


def _shared_groups(first: Sketched, second: Sketched) -> list[int]:
    """The min-hash groups whose super-shingles two pages share, compared on the bits a record
    keeps (``kept_feature``); a super-shingle hashes its group's number, so only a group's own
    can equal it."""
    return [
        group
        for group, (one, other) in enumerate(zip(first.features, second.features, strict=False))
        if kept_feature(one) == kept_feature(other)
    ]


def _exact(fingerprint: Fingerprint, original: PageRecord) -> Match:
    evidence = {"rule": "exact", "site_relation": _relation(fingerprint.url, original.url)}
    return Match(original, Reason.EXACT_DUPLICATE, evidence)


def _candidates(view: IndexView, fingerprint: Fingerprint, config: Config) -> dict[int, list[int]]:
    """page id -> [super-shingles, simhash bands] it shares with the page as the postings tell
    (their shortened keys may count a few more than the records share)."""
    shared: dict[int, list[int]] = {}
    feature_counts = Counter(
        page_id
        for feature in fingerprint.features
        for page_id in view.postings("features", feature.to_bytes(8, "big"))
    )
    for page_id, count in feature_counts.items():
        shared[page_id] = [count, 0]
    for key in band_postings(fingerprint.simhash, config.simhash.bands):
        for page_id in view.postings("bands", key):
            shared.setdefault(page_id, [0, 0])[1] += 1
    return shared


def _judge(
    fingerprint: Fingerprint, original: PageRecord, b_shared: int, config: Config
) -> Match | None:
    simhash_config = config.simhash
    c_agree = agreement(fingerprint.simhash, original.simhash)
    combined, cross_site_close = _simhash_rules(c_agree, b_shared, config)
    if not (combined or cross_site_close):
        return None  # no rule can hold, whatever the sites (comparing sites costs the most)
    if editions(fingerprint, original, config):
        return None
    relation = _relation(fingerprint.url, original.url)
    if relation == "same_site" and (not combined or _titled_apart(fingerprint, original, config)):
        return None
    if relation == "cross_site" and _other_document(fingerprint, original, config):
        return None
    proposed = b_shared >= config.minhash.min_shared_features
    estimated = resemblance(fingerprint, original, config, proposed=proposed)
    if estimated < _drop_bar(fingerprint, original, combined, config):
        return None
    evidence = {
        "rule": "combined" if combined else "cross_site_simhash",
        "site_relation": relation,
        "b_shared": b_shared,
        "b_similarity": round(b_shared / config.minhash.features, 4),
        "c_agree_bits": c_agree,
        "c_similarity": round(c_agree / simhash_config.bits, 4),
        "resemblance": round(estimated, 4),
    }
    return Match(original, Reason.NEAR_DUPLICATE, evidence)


# of the smaller page's shingles the other page at its path holds, below which the two hold other
# text: other documents under one name, not a copy's page, an edited one or an edition's
OTHER_TEXT_SHARE = 0.5


def other_text(first: Sketched, second: Sketched, config: Config) -> bool:
    """Whether two pages under one name hold other text (``OTHER_TEXT_SHARE``), whatever their
    code: a copy's banner and footer, a version string, an edited paragraph keep far more. Pages
    below the token floor, or without sketches, tell nothing."""
    if first.exact == second.exact or not (first.sketch and second.sketch):
        return False
    if below_token_floor(first, config) or below_token_floor(second, config):
        return False
    return shared_share(first, second, config) < OTHER_TEXT_SHARE


def shared_share(first: Sketched, second: Sketched, config: Config) -> float:
    """The share of the smaller page's shingles that the other page holds, estimated from the
    sketches' Jaccard resemblance J and the shingle counts: |A & B| = J (|A| + |B|) / (1 + J)."""
    jaccard = resemblance(first, second, config)
    minhash = config.minhash
    sizes = [max(page.token_count - minhash.shingle_width + 1, 1) for page in (first, second)]
    return min(1.0, jaccard * sum(sizes) / (1 + jaccard) / min(sizes))


def missed_same_site_copy(first: PageRecord, second: PageRecord, config: Config) -> bool:
    """Whether two kept pages of one site are near copies that the combined rule passed over for
    sharing fewer super-shingles than it needs: Broder's six features of 14 values miss a pair at
    a resemblance of 0.89 (a 3-word line inside an 86-token page) two times in three. Every other
    test of a same-site drop holds (simhash at the same-site threshold, titles and code alike), at
    the resemblance a pair the simhash alone proposes needs. Evidence for a URL rule, never a
    drop: both pages were fetched and are kept."""
    if below_token_floor(first, config) or below_token_floor(second, config):
        return False
    simhash_config = config.simhash
    c_agree = agreement(first.simhash, second.simhash)
    if c_agree < simhash_config.scaled(simhash_config.same_site_threshold):
        return False
    if editions(first, second, config) or _titled_apart(first, second, config):
        return False
    return resemblance(first, second, config) >= _drop_bar(first, second, False, config)


def _drop_bar(first: Sketched, second: Sketched, combined: bool, config: Config) -> float:
    """The resemblance a near-duplicate drop needs: the pair's lengths' bar, never below
    ``drop_resemblance``, and ``unshared_resemblance`` where the super-shingles disagree (a pair
    proposed by the simhash alone)."""
    minhash = config.minhash
    required = max(_required_resemblance(first, second, config), minhash.drop_resemblance)
    return required if combined else max(required, minhash.unshared_resemblance)


def editions(first: Sketched, second: Sketched, config: Config) -> bool:
    """Whether two pages are editions of one document, not copies: the same prose over other
    code, whatever the shingles say, or a translation, which shares the source's untranslated
    paragraphs, not its text."""
    text = config.text
    return (text.code_blocks_apart and codes_apart(first.code, second.code)) or (
        text.language_editions_apart and language_editions(first.url, second.url)
    )


def _simhash_rules(c_agree: int, b_shared: int, config: Config) -> tuple[bool, bool]:
    """Whether the combined rule (B-similar and ``c_agree`` bits at the same-site threshold) and
    the cross-site rule (``c_agree`` at its threshold) can hold for a pair."""
    simhash_config = config.simhash
    b_similar = b_shared >= config.minhash.min_shared_features
    combined = b_similar and c_agree >= simhash_config.scaled(simhash_config.same_site_threshold)
    return combined, c_agree >= simhash_config.scaled(simhash_config.cross_site_threshold)


def below_token_floor(record: PageRecord, config: Config, floors: int = 1) -> bool:
    """Whether a page is below the token floor (``text.min_tokens``), where only an exact match
    tells two pages apart or alike: its few shingles say nothing either way; with ``floors``,
    below that many times the floor."""
    return record.token_count < floors * config.text.min_tokens


def resembles(first: Sketched, second: Sketched, config: Config) -> bool:
    """Whether two pages' sketches resemble as much as a near-duplicate drop needs: the same
    content, even where the super-shingles and simhash bands that propose pairs missed it."""
    return resemblance(first, second, config) >= _required_resemblance(first, second, config)


def resemblance(
    fingerprint: Sketched, original: Sketched, config: Config, proposed: bool = False
) -> float:
    """Jaccard resemblance estimated from the sketches (0 when either page has none); with
    ``proposed`` (the pair shares the super-shingles the combined rule needs), without the
    values of the groups that proposed it (``_proposing_groups``)."""
    if not (fingerprint.sketch and len(fingerprint.sketch) == len(original.sketch)):
        return 0.0
    minhash = config.minhash
    return sketch_resemblance(
        fingerprint.sketch,
        original.sketch,
        minhash.sketch_bits,
        minhash.num_perm,
        _proposing_groups(fingerprint, original, config) if proposed else (),
    )


def _proposing_groups(first: Sketched, second: Sketched, config: Config) -> tuple[range, ...]:
    """The positions of the first ``min_shared_features`` min-hash groups whose super-shingles
    two pages share: the groups that made the pair a candidate of the combined rule.

    A super-shingle is shared when all 14 values of its group agree, and the sketch keeps the
    low bits of the same values: counted, the 28 values of two groups agree because the pair was
    chosen for them, and pages at a Jaccard resemblance of 0.75-0.8 that shared two groups by
    chance were estimated at 0.86-0.92. A red team's run over 605,036 pages of the Debian
    documentation packages (sixty-seventh session) found 111 of 21,080 near-duplicate drops
    below 0.8, most of them so (Python 3.9 against 3.11, one template's pages for two methods).
    Over 4,776 aligned pages of three Python, four LLVM and three installation-guide releases,
    of the pairs sharing two groups or more, 9 below 0.8 and 1,657 at 0.8 or more reached 0.85
    counted whole; without the two proposing groups, 2 and 1,575. A group shared beyond them
    is evidence like any value."""
    minhash = config.minhash
    size = minhash.num_perm // minhash.features
    proposing = _shared_groups(first, second)[: minhash.min_shared_features]
    return tuple(range(group * size, (group + 1) * size) for group in proposing)


def resembles_beside_added(first: Sketched, second: Sketched, added: float, config: Config) -> bool:
    """Whether two pages' sketches resemble as much as a page and the same page with ``added``
    tokens put in at most ``_ADDED_PLACES`` places (a copy's banner and footer) would, give or
    take the sketch's error: text one side adds to every page lowers the resemblance of a short
    page and its copy although each holds the other.

    With s shingles on the shorter page and g places, the longer holds s + |added| shingles and
    lacks the g (w - 1) shingles of the shorter that span a place, so the expected resemblance
    is (s - g (w - 1)) / (s + |added| + g (w - 1)); the estimate may fall
    ``_ADDED_DEVIATIONS`` standard deviations below it, never below ``_ADDED_FLOOR``. On the
    second holdout web an 18-token banner after each page's title left pages of 35-96 tokens at
    0.41-0.71 estimated resemblance, which the expectation explains and no fixed bar does."""
    width = config.minhash.shingle_width
    shorter = max(min(first.token_count, second.token_count) - width + 1, 1)
    spanning = _ADDED_PLACES * (width - 1)
    expected = max(shorter - spanning, 0) / (shorter + abs(added) + spanning)
    deviation = sketch_deviation(expected, config.minhash.sketch_bits, config.minhash.num_perm)
    bar = max(expected - _ADDED_DEVIATIONS * deviation, _ADDED_FLOOR)
    return resemblance(first, second, config) >= bar


def _required_resemblance(fingerprint: Sketched, original: Sketched, config: Config) -> float:
    minhash = config.minhash
    if min(fingerprint.token_count, original.token_count) < minhash.short_page_tokens:
        return minhash.short_page_resemblance
    return minhash.min_resemblance


def codes_apart(first: int, second: int) -> bool:
    """Whether two pages' code hashes are both of code blocks with words (not 0), and other
    words: editions of one document, not copies."""
    return bool(first) and bool(second) and first != second


def _titled_apart(fingerprint: Sketched, original: Sketched, config: Config) -> bool:
    """Whether both pages have titles whose words differ: two documents of one site."""
    return config.text.same_site_titles and _titles_differ(fingerprint, original)


def _other_document(fingerprint: Sketched, original: Sketched, config: Config) -> bool:
    """Whether two pages of two sites are other documents: titled apart, under other names (the
    last segments of their paths, extensions aside). A copy keeps one or the other (a mirror may
    add its name to titles, a renamed copy keeps them).
    On the tenth holdout web, a manual whose every page holds a 1,000-token table of contents had
    pages of one site dropped for other pages of another at 0.78-0.83 of their shingles shared:
    what such a page adds (~100 words) is lost where its own copy is not held."""
    return (
        config.text.cross_site_titles
        and _titles_differ(fingerprint, original)
        and document_stem_of(fingerprint.url) != document_stem_of(original.url)
    )


def _titles_differ(first: Sketched, second: Sketched) -> bool:
    return bool(first.title) and bool(second.title) and first.title != second.title


def _relation(first_url: str, second_url: str) -> str:
    return "same_site" if site_of(first_url) == site_of(second_url) else "cross_site"
