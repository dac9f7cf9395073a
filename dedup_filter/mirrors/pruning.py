"""Before the fetch: what a mirror rule does to a URL. Rules never cost content.

A URL under a rule's mirror side is dropped only when its counterpart under the origin is
*held*: fetched and kept, or represented by a kept copy (its entry under its own directory names
an indexed page). A URL whose counterpart is not known yet is deferred (``deferrals.py``), and
its counterpart asked for as a probe (the crawl fetches an origin's pages anyway); one whose
counterpart could not be fetched is fetched itself (a counterpart fetched as a file, reported
with a 2xx status, is held by the crawl), as is a URL under a prefix the operator protects, and
a URL whose own page the index holds already (pages held first are never pruned in favour of a
copy met later). Invariant: nothing is dropped unless a copy of it is held, whatever the
orientation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dedup_filter.config import MirrorConfig
from dedup_filter.decision import Decision, Reason
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import IndexPages, authority, own_placement, placements
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.rules import rule_over
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.store import COUNTERPART_PROBE, MirrorStore


class Protection:
    """Hosts and URL prefixes (``mirror.protected_prefixes``) that no rule ever prunes."""

    def __init__(self, entries: tuple[str, ...]) -> None:
        self._prefixes = tuple(entry.lower() for entry in entries if "://" in entry)
        self._hosts = frozenset(entry.lower() for entry in entries if "://" not in entry)

    def covers(self, url: str) -> bool:
        lowered = url.lower()
        return lowered.startswith(self._prefixes) or authority(lowered) in self._hosts


class UrlPruner:
    """``check_url`` for the mirror rules, and the settling of the URLs it deferred."""

    def __init__(
        self,
        config: MirrorConfig,
        index_pages: IndexPages,
        sessions: SessionParameters,
        describe: Callable[[MirrorStore, Rule], dict[str, Any]],
    ) -> None:
        self.config = config
        self._index_pages = index_pages
        self._sessions = sessions
        self._describe = describe
        self.protection = Protection(config.protected_prefixes)

    def check(self, view: IndexView, url: str) -> Decision:
        """The decision on ``url`` before its fetch (read only: a ``defer`` is recorded by
        ``defer``, in a write transaction)."""
        store = MirrorStore(view)
        found = None
        if self.config.enabled and store.has_rules():
            found = rule_over(store, placements(self._sessions.strip(url), self.config.max_depth))
        if found is None:
            return Decision(url, "keep", Reason.NOT_MIRRORED)
        rule, place = found
        if store.probes_for(url):
            return Decision(url, "keep", Reason.PROBE, evidence={"mirror_rule": rule.mirror})
        counterpart = rule.origin + place.relative
        evidence: dict[str, Any] = {"mirror_rule": rule.mirror, "counterpart": counterpart}
        if self.protection.covers(url):
            return Decision(url, "keep", Reason.PROTECTED, evidence=evidence)
        if store.view.page_id_for_url(url) is not None:  # held as itself before the rule came
            return Decision(url, "keep", Reason.ALREADY_HELD, evidence=evidence)
        if self.held(store, counterpart):
            evidence["mirror_rule"] = self._describe(store, rule)
            return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, counterpart, evidence)
        status = Deferrals(view).absent(counterpart)
        if status is not None:
            evidence["status"] = status or None
            if 200 <= status < 300:  # fetched by the crawl, a file rather than a page: held
                evidence["mirror_rule"] = self._describe(store, rule)
                return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, counterpart, evidence)
            return Decision(url, "keep", Reason.COUNTERPART_MISSING, evidence=evidence)
        return Decision(url, "defer", Reason.COUNTERPART_PENDING, counterpart, evidence)

    def defer(self, view: IndexView, url: str, now: float) -> Decision:
        """``check`` inside a write transaction: a deferred URL is remembered, and its
        counterpart asked for as a probe unless it is being fetched already."""
        decision = self.check(view, url)
        if not decision.deferred or decision.duplicate_of is None:
            return decision
        counterpart = decision.duplicate_of
        Deferrals(view).defer(url, counterpart, now)
        store = MirrorStore(view)
        if store.probes_for(counterpart):
            return decision
        store.add_probe(counterpart, COUNTERPART_PROBE, b"")
        return Decision(
            url, "defer", decision.reason, counterpart, decision.evidence, (counterpart,)
        )

    def settle(self, view: IndexView, now: float, max_age_s: float) -> list[Decision]:
        """Final decisions for the deferred URLs whose counterpart's fate is known, or that
        waited ``max_age_s`` or longer; they wait on until released (``Deferrals.release``)."""
        deferrals, settled = Deferrals(view), []
        for waiting in deferrals.waiting():
            decision = self.check(view, waiting.url)
            waited = now - waiting.since
            if decision.deferred and waited < max_age_s:
                continue
            if decision.deferred:
                evidence = decision.evidence | {"waited_s": round(waited, 3)}
                decision = Decision(
                    waiting.url, "keep", Reason.COUNTERPART_TIMED_OUT, evidence=evidence
                )
            settled.append(decision)
        return settled

    def held(self, store: MirrorStore, url: str) -> bool:
        """Whether the content of ``url`` is held: the page was kept under its URL, or it was
        checked and is represented by a page the index still holds."""
        view = store.view
        if view.page_id_for_url(url) is not None:
            return True
        place = own_placement(url, self.config.max_depth)
        if place is None:
            return False
        entry = store.entry(place.directory_key, self._index_pages.entry_key(place))
        return entry is not None and view.page(entry.representative) is not None
