"""Aliases that wait for their canonical URL: a URL rule never prunes a URL whose class has no
held page, but it need not fetch the alias first either.

An alias met before any page of its class is held (a session-id link met before the page's plain
link, a sorted view before its listing) is *deferred*: its canonical URL (the URL the confirmed
rules rewrite it to) is asked for as a probe, and the alias waits for that URL's fate. Fetched and
held: the alias is dropped as ``duplicate_url`` of it. Fetched and dropped as a duplicate of a held
page: the alias is dropped as a duplicate of that page. Redirected (a 3xx, a meta refresh the
crawler followed): the alias is dropped, and the crawl goes on from the canonical URL (the alias
would be sent on alike, its fetch telling nothing new). Failed (a 404, an error) or fetched with
nothing held: the alias is fetched. Waited too long (``settle``'s ``max_age_s``, or the Scrapy
crawl's ``DEDUP_MAX_DEFERRALS`` passes): the alias is fetched. So the page of a class is fetched
once, under the URL that stands for the class, and never lost.

Invariant: a deferred URL's row stays until the caller releases it, after acting on its final
decision (a crash in between gives the decision again); a counterpart's fate, once known, is kept.

Table ``url_deferred``:
    "d" H(url) -> since (float), url, counterpart   an alias waiting for its canonical URL
    "w" H(counterpart) -> ""                         a canonical URL some alias waits for
    "f" H(counterpart) -> status, held URL           its fate: fetched and dropped as a duplicate
                                                    of the held URL (status 200), or not fetched
                                                    as a page (the status, 0 when unknown; no
                                                    held URL)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from dedup_filter.decision import Decision, Reason
from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.statuses import REDIRECT_STATUSES
from dedup_filter.urlrules.aliases import Rules
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.records import UrlRule, pack_texts, short_hash, unpack_texts
from dedup_filter.urlrules.rewrite import IGNORE, Scope, rewrite

_TABLE = "url_deferred"
_SEED = 0xDEFE55
_U64 = struct.Struct(">Q")
_SINCE = struct.Struct(">d")
_STATUS = struct.Struct(">H")
_WAITING, _AWAITED, _FATE = b"d", b"w", b"f"


@dataclass(frozen=True, slots=True)
class Waiting:
    """An alias deferred since ``since`` until the fate of its canonical URL is known."""

    url: str
    counterpart: str
    since: float


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of a canonical URL: ``held`` names the page it duplicates (status 200), else
    it gave no page (``status``, 0 when unknown)."""

    status: int
    held: str


def _key(prefix: bytes, url: str) -> bytes:
    return prefix + _U64.pack(hash64(url, _SEED))


class UrlDeferrals:
    """Typed access to the ``url_deferred`` table inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    def defer(self, url: str, counterpart: str, now: float) -> None:
        """Remember ``url`` as waiting for ``counterpart`` (since the first time it was)."""
        key = _key(_WAITING, url)
        if self.view.get(_TABLE, key) is None:
            self.view.put(_TABLE, key, _SINCE.pack(now) + pack_texts((url, counterpart)))
        self.view.put(_TABLE, _key(_AWAITED, counterpart), b"")

    def waiting(self) -> Iterator[Waiting]:
        for _, value in list(self.view.scan(_TABLE, _WAITING)):
            (since,) = _SINCE.unpack_from(value)
            url, counterpart = unpack_texts(bytes(value), _SINCE.size, 2)
            yield Waiting(url, counterpart, since)

    def any_waiting(self) -> bool:
        return next(iter(self.view.scan(_TABLE, _WAITING)), None) is not None

    def release(self, url: str) -> None:
        key = _key(_WAITING, url)
        if self.view.get(_TABLE, key) is not None:
            self.view.delete(_TABLE, key)

    def awaited(self, url: str) -> bool:
        """Whether some alias waits (or waited) for ``url``."""
        return self.view.get(_TABLE, _key(_AWAITED, url)) is not None

    def settle(self, url: str, status: int, held: str = "") -> None:
        """Record the fate of an awaited ``url`` (see ``Fate``)."""
        value = _STATUS.pack(min(max(status, 0), 0xFFFF)) + pack_texts((held,))
        self.view.put(_TABLE, _key(_FATE, url), value)

    def fate(self, url: str) -> Fate | None:
        value = self.view.get(_TABLE, _key(_FATE, url))
        if value is None:
            return None
        (status,) = _STATUS.unpack_from(value)
        (held,) = unpack_texts(bytes(value), _STATUS.size, 1)
        return Fate(status, held)


def counterpart(parts: UrlParts, rules: Rules) -> tuple[UrlParts, list[str]]:
    """The URL that stands for the class of ``parts`` (rewritten by every rule that applies,
    one after the other), and those rules. An ``ignore`` rule builds no URL worth fetching (the
    parameter with an empty value), so it takes no part."""
    labels: list[str] = []
    for key, scope in rules:
        rewritten = rewrite(key, parts, scope) if key.kind != IGNORE else None
        if rewritten is not None:
            parts, labels = rewritten, [*labels, key.label]
    return parts, labels


def awaiting_canonical(view: IndexView, parts: UrlParts, rules: Rules) -> Decision | None:
    """The decision on an alias none of whose class is held: ``defer`` (and probe its canonical
    URL) while that URL's fate is unknown, then ``drop`` or ``keep`` by that fate; None when no
    rule rewrites it into another URL (the URL stands for its class)."""
    target, labels = counterpart(parts, rules)
    if not labels:
        return None
    url, wanted = parts.url(), target.url()
    evidence: dict[str, object] = {"url_rule": labels, "counterpart": wanted}
    fate = UrlDeferrals(view).fate(wanted)
    if fate is None:
        return Decision(url, "defer", Reason.COUNTERPART_PENDING, wanted, evidence, (wanted,))
    if fate.held and view.page_id_for_url(fate.held) is not None:
        # the probe's page, dropped for ``fate.held``, may link what that page does not
        evidence["crawl_instead"] = wanted
        return Decision(url, "drop", Reason.DUPLICATE_URL, fate.held, evidence)
    evidence["status"] = fate.status or None
    if fate.status in REDIRECT_STATUSES:  # where it leads the crawl goes from ``wanted``
        evidence["crawl_instead"] = wanted
        return Decision(url, "drop", Reason.DUPLICATE_URL, wanted, evidence)
    return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)


def awaiting_candidate(
    view: IndexView, parts: UrlParts, candidates: list[tuple[UrlRule, Scope]]
) -> Decision | None:
    """``defer`` for an alias of a held page whose class already supports an open candidate,
    with a value the candidate covers (a listing's third sorted view, once two others were seen
    to sort the same rows): it waits for the candidate to be confirmed (then it is dropped) or
    killed (then it is fetched), instead of being fetched only to support the same class again.
    A parameter seen with one value only (``page=1`` repeating its listing) covers no other
    value, so ``page=2`` is fetched and tells against it. None otherwise."""
    for rule, scope in candidates:
        rewritten = rewrite(rule.key, parts, scope)
        if rewritten is None or short_hash(rewritten.class_key()) not in rule.classes:
            continue
        held = rewritten.url()
        if view.page_id_for_url(held) is not None:
            evidence = {"url_rule_candidate": rule.key.label, "counterpart": held}
            return Decision(parts.url(), "defer", Reason.CANDIDATE_PENDING, held, evidence)
    return None
