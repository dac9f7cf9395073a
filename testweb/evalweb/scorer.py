"""Score one crawl against the ground truth, from the server's request log and the filter's own
listings (decision log, rules): never from the filter's internals.

- *saved*: (unfiltered fetches - fetches) / avoidable fetches, where avoidable = unfiltered fetches
  (every request, 404s too) - the contents the unfiltered crawl reached (one fetch each is needed);
- *lost*: contents the unfiltered crawl reached of which the crawl fetched no URL (``must_keep``:
  those held by a single URL of the web); *newer text lost*: a stale copy's edited page shares
  its origin's content key, so a crawl that fetched only the older text counts nothing lost;
  these are the keys whose newer text (the origin's page and its faithful copies) the
  unfiltered crawl fetched and the crawl did not;
- *rules right*: mirror rules whose two directories hold copies of one directory of a package,
  in the filter's listing at the crawl's end; *wrong rules gone*: those the decision log shows
  pruning (``mirrored_directory`` drops under them) that are wrong and no longer listed (turned
  or revoked after they pruned: the platforms web's release rules pruned 11 pages so);
- *origins pruned*: package directories (no copy of anything) whose URLs a true mirror rule
  dropped, as the decision log shows (an origin taken for the copy of its copy, a copier's
  victim, or an origin whose copy was crawled first);
- *boundaries*: replicas (``truth.replicas``) whose copy's top directory a rule names, with a true
  counterpart, in either orientation (a partial translation's is not sought);
- *near-duplicate precision*: page drops (exact or near) whose named page has a Jaccard >= 0.8 of
  8-word shingles with the dropped one; *recall*: of the fetched pages with Jaccard >= 0.8 to a
  page fetched before them, the share dropped;
- *aliases avoided*: the share of same-site alias URLs fetched without the filter that it did not
  fetch (``alias_kinds``: by kind); *aliases first*: those of them the crawl fetched as the first
  URL of their content (no filter can avoid them: nothing of their class was held); *traps
  missed*: URLs with a content-selecting parameter fetched without the filter and not with it;
  *trap rules*: URL rules that name such a parameter (None: the filter has no URL-rules listing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from testweb.scoring import share

from .crawls import CrawlRecord
from .shingles import NEAR, jaccard, near_pairs, page_shingles
from .truth import NOT_DOCUMENTS, OWN_PAGES, GroundTruth

_PAGE_DROPS = {"exact_duplicate", "near_duplicate"}


@dataclass(frozen=True, slots=True)
class Score:
    order: str
    variant: str
    fetches: int
    unfiltered_fetches: int
    avoidable: int
    lost: list[str]  # content keys
    must_keep_lost: int
    rules: int
    rules_right: int
    origins_pruned: int
    boundaries: int
    boundaries_found: int
    page_drops: int
    page_drops_right: int
    near_pairs: int
    near_pairs_dropped: int
    aliases: int
    aliases_fetched: int
    trap_rules: int | None
    wrong_rules: list[str] = field(default_factory=list)
    boundaries_missed: list[str] = field(default_factory=list)
    alias_kinds: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind: (fetched, of)
    aliases_first: int = 0
    traps_missed: list[str] = field(default_factory=list)
    newer_lost: list[str] = field(default_factory=list)  # content keys
    wrong_rules_gone: list[str] = field(default_factory=list)  # "mirror -> origin (N pruned)"

    @property
    def saved(self) -> float:
        return (self.unfiltered_fetches - self.fetches) / self.avoidable if self.avoidable else 0.0

    @property
    def near_precision(self) -> float | None:
        return share(self.page_drops_right, self.page_drops)

    @property
    def near_recall(self) -> float | None:
        return share(self.near_pairs_dropped, self.near_pairs)

    @property
    def aliases_avoided(self) -> float | None:
        return share(self.aliases - self.aliases_fetched, self.aliases)


def score(
    truth: GroundTruth, pages: Mapping[str, bytes], unfiltered: CrawlRecord, record: CrawlRecord
) -> Score:
    reached = {
        truth.contents[url]
        for url in unfiltered.fetched()
        if url in truth.contents and truth.kinds[url] not in NOT_DOCUMENTS
    }
    fetched = record.fetched()
    held = {truth.contents[url] for url in fetched if url in truth.contents}
    lost = sorted(reached - held)
    single = {truth.contents[url] for url in truth.must_keep()}
    mirror_rules = [rule for rule in record.rules if rule["kind"] == "mirror"]
    wrong = [
        f"{rule['mirror']} -> {rule['origin']}"
        for rule in mirror_rules
        if not _true_rule(truth, rule)
    ]
    # a replica with pages of its own is no boundary to find: the safe crawl fetches it
    boundaries = [replica for replica in truth.replicas if replica.kind not in OWN_PAGES]
    missed = [
        f"{replica.copy} ({replica.kind})"
        for replica in boundaries
        if not _boundary_found(truth, replica.copy, mirror_rules)
    ]
    shingles = _Shingles(pages)
    drops, drops_right = _page_drops(record.decisions, shingles)
    pairs, pairs_dropped = _near_recall(fetched, shingles, record.decisions)
    aliases = truth.aliases() & set(unfiltered.fetched())
    return Score(
        order=record.order,
        variant=record.variant,
        fetches=_requests(record),
        unfiltered_fetches=_requests(unfiltered),
        avoidable=_requests(unfiltered) - len(reached),
        lost=lost,
        must_keep_lost=len(set(lost) & single),
        rules=len(mirror_rules),
        rules_right=len(mirror_rules) - len(wrong),
        origins_pruned=len(_pruned_package_directories(truth, mirror_rules, record.decisions)),
        boundaries=len(boundaries),
        boundaries_found=len(boundaries) - len(missed),
        page_drops=drops,
        page_drops_right=drops_right,
        near_pairs=pairs,
        near_pairs_dropped=pairs_dropped,
        aliases=len(aliases),
        aliases_fetched=len(aliases & set(fetched)),
        trap_rules=_trap_rules(truth, record.rules) if record.lists_url_rules else None,
        wrong_rules=wrong,
        wrong_rules_gone=_wrong_rules_gone(truth, mirror_rules, record.decisions),
        boundaries_missed=missed,
        alias_kinds=_by_kind(truth, aliases, set(fetched)),
        aliases_first=len(aliases & _firsts(truth, fetched)),
        traps_missed=sorted(_traps(truth) & set(unfiltered.fetched()) - set(fetched)),
        newer_lost=_newer_text_lost(truth, set(unfiltered.fetched()), set(fetched)),
    )


def _newer_text_lost(truth: GroundTruth, reached: set[str], fetched: set[str]) -> list[str]:
    """The content keys of stale copies' edited pages whose newer text the unfiltered crawl
    fetched (``reached``: URLs) and the crawl did not (``fetched``)."""
    edited = {url for url, kind in truth.kinds.items() if kind == "copy_edited"}
    newer: dict[str, set[str]] = {truth.contents[url]: set() for url in edited}
    for url, key in truth.contents.items():
        if key in newer and url not in edited:
            newer[key].add(url)
    return sorted(key for key, urls in newer.items() if urls & reached and not urls & fetched)


def _by_kind(truth: GroundTruth, urls: set[str], fetched: set[str]) -> dict[str, tuple[int, int]]:
    """For each kind of URL, how many of ``urls`` the crawl fetched, of how many."""
    kinds = sorted({truth.kinds[url] for url in urls})
    return {
        kind: (
            sum(url in fetched for url in urls if truth.kinds[url] == kind),
            sum(truth.kinds[url] == kind for url in urls),
        )
        for kind in kinds
    }


def _firsts(truth: GroundTruth, fetched: list[str]) -> set[str]:
    """The first URL the crawl fetched of each content."""
    first: dict[str, str] = {}
    for url in fetched:
        if url in truth.contents:
            first.setdefault(truth.contents[url], url)
    return set(first.values())


def _traps(truth: GroundTruth) -> set[str]:
    return {url for url, kind in truth.kinds.items() if kind.startswith("trap")}


def canonical_directory(
    truth: GroundTruth, directory: str, skipped: frozenset[str] = frozenset()
) -> str:
    """The package directory a directory URL (or a page's) holds a copy of (itself when it copies
    nothing), through every replica but those of the ``skipped`` kinds."""
    while True:
        copies = [
            replica
            for replica in truth.replicas
            if directory.startswith(replica.copy) and replica.kind not in skipped
        ]
        if not copies:
            return directory
        nearest = max(copies, key=lambda replica: len(replica.copy))
        directory = nearest.source + directory[len(nearest.copy) :]


def _pruned_package_directories(
    truth: GroundTruth, rules: list[Mapping[str, Any]], decisions: list[Mapping[str, Any]]
) -> set[str]:
    """The package directories (no copy of anything) that a true rule pruned: where the decision
    log drops a URL as ``mirrored_directory`` under the rule. Read from the drops, not from the
    rule's orientation: a rule may prune its origin side (a copy crawled first)."""
    sides = {
        rule["mirror"]: (rule["mirror"], rule["origin"])
        for rule in rules
        if _true_rule(truth, rule)
    }
    pruned = set()
    for decision, rule in _pruned_under_rules(decisions):
        if rule.get("mirror") not in sides:
            continue
        under = [side for side in sides[rule["mirror"]] if decision["url"].startswith(side)]
        side = max(under, key=len, default=None)  # a copy may lie inside its origin
        if side is not None and canonical_directory(truth, side) == side:
            pruned.add(side)
    return pruned


def _wrong_rules_gone(
    truth: GroundTruth, listed: list[Mapping[str, Any]], decisions: list[Mapping[str, Any]]
) -> list[str]:
    """Wrong rules that pruned URLs (``mirrored_directory`` drops under them) and are gone from
    the listing at the crawl's end, with the URLs each pruned."""
    still = {(rule["mirror"], rule["origin"]) for rule in listed}
    pruned: Counter[tuple[str, str]] = Counter()
    for _, rule in _pruned_under_rules(decisions):
        pair = (rule.get("mirror"), rule.get("origin"))
        if None not in pair and pair not in still:
            pruned[pair] += 1
    return [
        f"{mirror} -> {origin} ({count} pruned)"
        for (mirror, origin), count in sorted(pruned.items())
        if not _true_rule(truth, {"mirror": mirror, "origin": origin})
    ]


def _pruned_under_rules(
    decisions: list[Mapping[str, Any]],
) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """The decision log's ``mirrored_directory`` drops that name their rule whole, with it."""
    for decision in decisions:
        rule = decision.get("evidence", {}).get("mirror_rule")
        if decision["reason"] == "mirrored_directory" and isinstance(rule, Mapping):
            yield decision, rule


def _true_rule(truth: GroundTruth, rule: Mapping[str, Any]) -> bool:
    mirror, origin = rule["mirror"], rule["origin"]
    return mirror != origin and canonical_directory(truth, mirror) == canonical_directory(
        truth, origin
    )


def _boundary_found(truth: GroundTruth, top: str, rules: list[dict[str, Any]]) -> bool:
    return any(
        top in (rule["mirror"], rule["origin"]) and _true_rule(truth, rule) for rule in rules
    )


def _requests(record: CrawlRecord) -> int:
    return sum(entry.method == "GET" for entry in record.requests)


class _Shingles(dict[str, set[str]]):
    """The shingles of served pages, each computed once (None for a URL the web does not serve)."""

    def __init__(self, pages: Mapping[str, bytes]) -> None:
        super().__init__()
        self._pages = pages

    def __missing__(self, url: str) -> set[str] | None:
        if url not in self._pages:
            return None
        self[url] = page_shingles(self._pages[url])
        return self[url]


def _page_drops(decisions: list[dict[str, Any]], shingles: _Shingles) -> tuple[int, int]:
    """Page drops, and those whose named page resembles the dropped one (Jaccard >= 0.8)."""
    drops = [d for d in decisions if d["action"] == "drop" and d["reason"] in _PAGE_DROPS]
    right = 0
    for decision in drops:
        dropped, named = shingles[decision["url"]], shingles[decision.get("duplicate_of") or ""]
        right += dropped is not None and named is not None and jaccard(dropped, named) >= NEAR
    return len(drops), right


def _near_recall(
    fetched: list[str], shingles: _Shingles, decisions: list[dict[str, Any]]
) -> tuple[int, int]:
    """Fetched pages with a near-duplicate fetched before them, and how many were dropped."""
    served = {url: shingles[url] for url in fetched if shingles[url] is not None}
    later = {second for _, second, _ in near_pairs(served)}  # near_pairs yields (earlier, later)
    dropped = {d["url"] for d in decisions if d["action"] == "drop" and d["reason"] in _PAGE_DROPS}
    return len(later), len(later & dropped)


def _trap_rules(truth: GroundTruth, rules: list[dict[str, Any]]) -> int:
    url_rules = [rule for rule in rules if rule["kind"] == "url"]
    return sum(
        any(_names(rule, parameter) for parameter in truth.trap_parameters) for rule in url_rules
    )


def _names(rule: Mapping[str, Any], parameter: str) -> bool:
    """Whether a listed URL rule names ``parameter`` (as a value, or as ``parameter=`` in one)."""
    values = [value for value in rule.values() if isinstance(value, str)]
    values += [
        item
        for value in rule.values()
        if isinstance(value, list)
        for item in value
        if isinstance(item, str)
    ]
    return any(value == parameter or f"{parameter}=" in value for value in values)
