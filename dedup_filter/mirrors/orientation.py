"""Which side of a candidate pair is the origin, by evidence: a wrong answer must cost fetches only.

Signals, strongest first:

1. a side under ``mirror.protected_prefixes`` (the operator pins it) is the origin;
   a side whose index page was reached through session ids is the mirror (its URLs cannot be
   rebuilt from relative paths: probes and counterparts without the id may not be served);
2. a side whose host label or path segment names a copy (``mirror1.example.org``,
   ``/pub/mirrors/``) is the mirror when the other is not named so;
3. at equal depths, the side whose index page links the other's host is the copy (a copy keeps
   absolute links to the site it was copied from; only at equal depths, since an origin's list
   of mirrors links its copies);
4. the side whose index page names an earlier release in place of the other's release numbers
   is a stale copy (``features.versions.later_release``: a number only one side names, a
   copy's banner, says nothing), or, once the pair is confirmed and whenever one arrives
   later, where the index pages tell nothing, whose subdirectories' index pages do
   (``later_side``); its rule never prunes the newer side (``Rule.mirror_older``);
5. when both sides hold documents, the side that holds more of the other's pages (a partial
   copy of a copy lacks some of its origin's pages; the origin lacks none of the copy's); and
   once a pair's samples are settled, a side taken for the origin whose only mismatches are
   sampled pages it lacks (404s) is turned into the mirror, and named the copy by them
   (``lacks_pages``, ``candidates.CandidateUpdate._turn_partial_origin``);
6. the shallower directory (copies are filed under ``pub/``, ``mirrors/``...);
7. else the side indexed first.

*Held first* does not orient: a side crawled first is a copier's victim as often as a copy met
early (a stale copy crawled whole before its origin's index page: taking it for the origin would
make the origin's newer pages duplicates of its older ones). Instead every page the index holds
as itself is never pruned by a rule (``pruning.py``), and a page not held yet is pruned only
where its counterpart is held: the victim crawled first loses nothing. Invariant: only the last
signal depends on the order of commits alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from dedup_filter.features.versions import Release, later_release
from dedup_filter.mirrors.directories import (
    IndexPages,
    authority,
    directory_depth,
    named_as_copy,
    own_placement,
)
from dedup_filter.mirrors.probes import partial_origin
from dedup_filter.mirrors.pruning import Protection
from dedup_filter.mirrors.records import REJECTED, Rule
from dedup_filter.mirrors.sessions import SessionParameters
from dedup_filter.mirrors.store import MirrorStore, host_hash, pair_reference
from dedup_filter.mirrors.verdict import MirrorPage
from dedup_filter.releases import Release as PathRelease
from dedup_filter.releases import names_one_of

# documents of each side compared when weighing which holds more of the other's pages
_COMPARED = 32
# entries of a side read for the subdirectories whose index pages may name its release
_SUBTREE_READ = 256


@dataclass(frozen=True, slots=True)
class Orientation:
    """Orients pairs against what one index holds."""

    store: MirrorStore
    index_pages: IndexPages
    protection: Protection
    max_depth: int
    sessions: SessionParameters = field(default_factory=lambda: SessionParameters(()))
    # the index page in hand, not recorded yet: its directory's key, the releases it names and
    # the language it declares
    in_hand: tuple[str, tuple[Release, ...], str] = ("", (), "")

    def holding(
        self, page: MirrorPage, releases: tuple[Release, ...], language: str = ""
    ) -> Orientation:
        """This orientation, reading ``releases`` and ``language`` as those of the index page
        ``page`` (checked now, recorded after its pairing is oriented)."""
        if not (releases or language) or not page.places:
            return self
        return replace(self, in_hand=(page.places[-1].directory_key, releases, language))

    def page_is_origin(
        self, page_url: str, page_dir: str, indexed_url: str, indexed_dir: str
    ) -> bool:
        """Whether the directory of the page checked now, rather than that of the indexed page
        it is paired with, is the origin."""
        page_pinned = self.protection.covers(page_dir)
        if page_pinned != self.protection.covers(indexed_dir):
            return page_pinned
        page_session = self.reached_with_session(page_url)
        if page_session != self.reached_with_session(indexed_url):
            return not page_session
        page_copy, indexed_copy = named_as_copy(page_dir), named_as_copy(indexed_dir)
        if page_copy != indexed_copy:
            return indexed_copy
        as_deep = directory_depth(page_dir) == directory_depth(indexed_dir)
        if as_deep and self.links_back(indexed_url, page_url):
            return True
        # the index pages alone: a pair is made before the pages below arrive, and a rule is
        # weighed again by them when they do (``detector._weighed_by_release``)
        later = later_release(self.releases(page_dir), self.releases(indexed_dir))
        if later:
            return later > 0
        page_docs, indexed_docs = self._documents(page_dir), self._documents(indexed_dir)
        if page_docs and indexed_docs:
            page_holds = sum(self._holds(page_dir, relative) for relative in indexed_docs)
            indexed_holds = sum(self._holds(indexed_dir, relative) for relative in page_docs)
            page_share, indexed_share = (
                page_holds / len(indexed_docs),
                indexed_holds / len(page_docs),
            )
            if page_share != indexed_share:
                return page_share > indexed_share
        return directory_depth(page_dir) < directory_depth(indexed_dir)

    def names_the_copy(
        self,
        mirror: str,
        mirror_index: str,
        origin: str,
        origin_index: str,
        held_first: bool = False,
    ) -> bool:
        """Whether evidence that does not depend on the crawl's order takes ``mirror`` for the
        copy: the operator pins the origin, the mirror was reached through session ids, its
        name says it is a copy, it lacks sampled pages the origin holds (``lacks_pages``), or
        (at equal depths) its index page links the origin's host, unless the crawl held the
        mirror first (``held_first``): an index page links the forges and wikis its project
        lives beside, where a copier may put its copy (a red team's victim, crawled first, was
        pruned for a copy on the forge its index page linked, sixty-eighth session).
        Without it the orientation rests on counts, depth or order, and the side held first
        is never pruned (``precedence.py``)."""
        if self.protection.covers(origin) and not self.protection.covers(mirror):
            return True
        if self.reached_with_session(mirror_index) and not self.reached_with_session(origin_index):
            return True
        if named_as_copy(mirror) and not named_as_copy(origin):
            return True
        if self.lacks_pages(mirror, origin):
            return True
        as_deep = directory_depth(mirror) == directory_depth(origin)
        return not held_first and as_deep and self.links_back(mirror_index, origin_index)

    def lacks_pages(self, mirror: str, origin: str) -> bool:
        """Whether the pair the other way round was rejected only for pages ``mirror`` lacks
        (404s where ``origin`` holds the page: ``probes.partial_origin``): ``mirror`` is a
        partial copy of ``origin``, whatever the depths say."""
        other_way = self.store.candidate(pair_reference(origin, mirror))
        return (
            other_way is not None
            and other_way.state == REJECTED
            and partial_origin(self.store, other_way)
        )

    def with_evidence(self, rule: Rule) -> Rule:
        """``rule`` with the order-free evidence on its mirror side weighed again: named a
        copy, or naming an older release."""
        return replace(
            rule,
            copy_named=self.names_the_copy(
                rule.mirror,
                rule.mirror_index,
                rule.origin,
                rule.origin_index,
                rule.mirror_held_first,
            ),
            mirror_older=self.names_older_release(rule.mirror, rule.origin),
        )

    def names_older_release(self, mirror: str, origin: str) -> bool:
        """Whether the index page of ``mirror`` names an earlier release than that of
        ``origin`` (``features.versions.later_release``): a stale copy of a manual."""
        return self.later_side(mirror, origin) < 0

    def release_turn(self, rule: Rule) -> int:
        """1 where ``rule`` is to be turned round, its mirror naming the later release and
        nothing naming it the copy (``rules.turn_to_newer``); -1 where its mirror names the
        earlier release (a stale copy: ``rules.mark_older``); 0 otherwise."""
        later = self.later_side(rule.mirror, rule.origin)
        return 0 if later > 0 and rule.copy_named else later

    def later_side(self, first: str, second: str) -> int:
        """``later_release`` of the index pages of directories ``first`` and ``second``; where
        those tell nothing (a host's front page over its manual), of the index pages of the
        subdirectories at the same places on both sides, the shallowest level that tells, where
        every telling pair agrees. On the ninth holdout web a stale copy's host and its origin's
        were paired at their roots, whose front pages name no release: the stale copy was taken
        for the origin and crawled whole, and its origin's newer pages were fetched too."""
        verdict = later_release(self.releases(first), self.releases(second))
        if verdict:
            return verdict
        levels: dict[int, set[str]] = {}
        for _, entry in itertools.islice(self.store.subtree(first.lower()), _SUBTREE_READ):
            path = entry.relative.split("?", 1)[0]
            below = path[: path.rfind("/") + 1]
            if below:
                levels.setdefault(below.count("/"), set()).add(below)
        for _, subdirectories in sorted(levels.items()):
            verdicts = {
                later_release(self.releases(first + below), self.releases(second + below))
                for below in subdirectories
            } - {0}
            if verdicts:
                return verdicts.pop() if len(verdicts) == 1 else 0
        return 0

    def same_releases(self, first: str, second: str, numbered: Iterable[PathRelease]) -> bool:
        """Whether the index pages of directories ``first`` and ``second`` name the very same
        releases, one of them agreeing with one of ``numbered`` (what a path names)."""
        releases = sorted(self.releases(first))
        return releases == sorted(self.releases(second)) and names_one_of(releases, numbered)

    def releases(self, directory: str) -> tuple[Release, ...]:
        """The release numbers the index page of ``directory`` names."""
        if directory.lower() == self.in_hand[0]:
            return self.in_hand[1]
        return self.store.releases(directory)

    def declared(self, directory: str, other: str) -> tuple[str, str]:
        """The languages the index pages of two directories declare ("": unknown)."""
        return self._language(directory), self._language(other)

    def _language(self, directory: str) -> str:
        if directory.lower() == self.in_hand[0]:
            return self.in_hand[2]
        return self.store.language(directory)

    def reached_with_session(self, index_url: str) -> bool:
        """Whether the index page ``index_url`` was kept under a URL that carries a session
        parameter (its own record: a page dropped as a duplicate is represented by another's),
        or its host writes a session id into its links (``sessions.propagated``)."""
        if self.sessions.filed(index_url):
            return True
        place = own_placement(index_url, self.max_depth)
        entry = self.store.entry(place.directory_key, "") if place is not None else None
        record = self.store.view.page(entry.representative) if entry is not None else None
        if record is None or not self.sessions.carries(record.url):
            return False
        own = own_placement(self.sessions.strip(record.url), self.max_depth)
        return own is not None and own.directory_key == place.directory_key

    def links_back(self, indexed_url: str, url: str) -> bool:
        """Whether the recorded index page ``indexed_url`` links the host of ``url``."""
        place = own_placement(indexed_url, self.max_depth)
        entry = self.store.entry(place.directory_key, "") if place is not None else None
        return entry is not None and host_hash(authority(url)) in entry.linked_hosts

    def _documents(self, directory: str) -> list[str]:
        """The first documents (not index pages) held under ``directory``, in hash order;
        relative paths, lower-cased."""
        documents = (
            entry.relative.lower()
            for _, entry in self.store.subtree(directory.lower())
            if not self.index_pages.names_listing(entry.relative)
        )
        return list(itertools.islice(documents, _COMPARED))

    def _holds(self, directory: str, relative: str) -> bool:
        return self.store.entry(directory.lower(), relative) is not None
