"""The mirror detector's tables and their key layout (the sibling of ``lmdb_index``'s layout).

Invariants: keys are fixed-width big-endian hashes or lower-cased directory names, so that a
directory's pages are one key range in hash order (``dirs``) and the rules or candidates below a
directory are one key range by name (``rules``, ``candidates``); values are the records of
``mirror_records`` (a ``dirs`` entry's bytes: ``entry_bytes``).

Tables:
    dirs        H(directory) H48(relative path) -> representative page id, exact hash, path
                                              (the last two usually read from the page's record)
    page_entries  the same keys -> page id, a posting table (``lmdb_index``): a page's own
                                              entries that its record tells all of
                                              (``entry_bytes.told_by_record``); a key is in one
                                              of the two tables at most
    links       H(url) -> page id             (URL mode: URLs that fetched pages link to; the id
                                              of the indexed page that linked it last)
                "L" K directory -> page id    (the index page of ``directory`` lists relative
                                              paths whose min-hash values K are: one row for
                                              each of the 16, ``listings.listing_keys``)
    candidates  "c" mirror NUL origin -> Candidate ; "o" origin NUL mirror -> ""
    rules       "r" mirror -> Rule ; "o" origin NUL mirror -> "" ; "a" mirror -> Rule (a rule a
                                              wider one absorbed: listed, never applied) ;
                "v" side NUL other -> other, as written (a rule revoked for its code after it
                                              pruned, once from each side: ``code_checks``) ;
                "s" host -> name=value pairs joined by "&" (the session ids a host writes
                                              into its links: ``sessions.py``) ;
                "f" directory -> "" (an entry of it is ``FOLDED``: URL checks read entries
                                              for it only where some are) ;
                "t" directory -> H48(name)... (names an index page of it lists beside a
                                              case twin: ``listings.case_twins``)
    probes      H(url) kind reference -> probe URL
"""

from __future__ import annotations

import functools
import heapq
import struct
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TypeVar

from dedup_filter.features.hashing import hash64
from dedup_filter.features.versions import Release
from dedup_filter.index.lmdb_index import SAMPLE_KEY, IndexView, PageRecord, decode_id, encode_id
from dedup_filter.mirrors.directories import relative_key
from dedup_filter.mirrors.entry_bytes import (
    decode_entry,
    encode_entry,
    recorded_entry,
    representative_of,
    told_by_record,
)
from dedup_filter.mirrors.records import (
    COLLIDING,
    FOLDED,
    OPEN,
    Candidate,
    DirectoryPair,
    DirEntry,
    Rule,
    side_naming,
)

_U64 = struct.Struct(">Q")
_Pair = TypeVar("_Pair", bound=DirectoryPair)
T = TypeVar("T")
_DIRECTORY_SEED, _RELATIVE_SEED, _URL_SEED, _HOST_SEED = 0xD1, 0x5E1, 0x0F1, 0x405
_NUL = b"\x00"
_RELATIVE_BYTES = 6  # a relative path's hash in a ``dirs`` key: unique enough within a directory
_PAGE_ENTRIES = "page_entries"
_PAGE_ENTRY_KEY_BYTES = _U64.size + _RELATIVE_BYTES  # an orphan's is followed by its page id

# why a URL was probed: a sample, a mirror's parent index page, the counterpart of a deferred URL,
# a URL that names no page under a rule's origin (``soft404.py``), a rule's mirror page whose
# origin page has code blocks (``editions.py``), the index page of a directory whose documents
# duplicate another's (``documents.py``), a rule's page audited after it was made (``audits.py``)
(
    SAMPLE_PROBE,
    PARENT_PROBE,
    COUNTERPART_PROBE,
    ABSENT_PROBE,
    CODE_PROBE,
    INDEX_PROBE,
    AUDIT_PROBE,
) = range(7)


@functools.lru_cache(maxsize=4096)
def directory_hash(directory_key: str) -> bytes:
    """A directory's key in ``dirs`` (kept: a check hashes each directory of its page ~4 times,
    and a site's pages share their directories)."""
    return _U64.pack(hash64(directory_key, _DIRECTORY_SEED))


def relative_hash(relative: str) -> int:
    """A relative path's 48-bit hash (of its ``relative_key``): its ``dirs`` key under a
    directory, its sampling order."""
    return hash64(relative_key(relative), _RELATIVE_SEED) >> (64 - 8 * _RELATIVE_BYTES)


def _folds(before: DirEntry, entry: DirEntry) -> bool:
    """Whether ``entry`` and the one recorded ``before`` at its path are one file served under
    names that differ only in case: the same bytes (two files merely alike are two files, as
    GDK's ``const.KEY_A.html`` and ``const.KEY_a.html`` are where case counts)."""
    if before.role == COLLIDING or before.exact != entry.exact:
        return False
    if before.role == FOLDED:
        return True
    return before.relative != entry.relative and before.relative.lower() == entry.relative.lower()


def _entry_key(directory_key: str, rel_hash: int) -> bytes:
    return directory_hash(directory_key) + _relative_bytes(rel_hash)


def _relative_bytes(rel_hash: int) -> bytes:
    return rel_hash.to_bytes(_RELATIVE_BYTES, "big")


def _is_row(value: bytes | None) -> bool:
    return value is not None


def _hashes(packed: bytes | None) -> frozenset[int]:
    """The relative-path hashes ``put_case_twins`` packed."""
    if not packed:
        return frozenset()
    width = _RELATIVE_BYTES
    return frozenset(
        int.from_bytes(packed[at : at + width], "big") for at in range(0, len(packed), width)
    )


def url_hash(url: str) -> bytes:
    """Key of a URL compared lower-cased (links and probes)."""
    return _U64.pack(hash64(url.lower(), _URL_SEED))


def host_hash(authority: str) -> int:
    """How the hosts an index page links are remembered in its entry (host[:port])."""
    return hash64(authority.lower(), _HOST_SEED)


def pair_reference(mirror: str, origin: str) -> bytes:
    """How a candidate pair is named in keys (and in the probes asked for it)."""
    return directory_name(mirror) + _NUL + directory_name(origin)


def _source(table: str, key: bytes, value: bytes) -> int | None:
    """The page a ``dirs`` entry or a link belongs to (None for an untied link: older layout)."""
    if table == "dirs":
        return representative_of(value)
    return decode_id(value) if len(value) == 8 else None


def _listing_prefix(listing_key: int) -> bytes:
    return b"L" + _U64.pack(listing_key)  # longer than a link's key, which is 8 bytes


def directory_name(directory: str) -> bytes:
    """How a directory is named in keys, and a rule (by its mirror) in the probes it asks for."""
    return directory.lower().encode("utf-8", "surrogatepass")


def _decoded_pairs(value: bytes) -> tuple[str, ...]:
    """A host's session pairs as ``put_session_pairs`` wrote them."""
    return tuple(value.decode("utf-8").split("&"))


# a rule's value decoded once: every URL check reads the rules over its directories, and rules
# change seldom (a ``Rule`` is frozen, so one decoding serves every reader)
_decoded_rule = functools.lru_cache(maxsize=4096)(Rule.decode)


def _origin_key(origin: str, mirror: str) -> bytes:
    return b"o" + pair_reference(origin, mirror)


class MirrorStore:
    """Typed access to the mirror tables inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    def sample_key(self) -> int:
        """The index's secret that orders the documents samples are drawn from (``SAMPLE_KEY``)."""
        return int.from_bytes(self.view.get("meta", SAMPLE_KEY) or b"", "big")

    # pages under directories
    def entry(self, directory_key: str, relative_key: str) -> DirEntry | None:
        return self.entry_by_hash(directory_key, relative_hash(relative_key))

    def index_entry(self, directory: str) -> DirEntry | None:
        """The entry of the directory's held index page (None when none is held)."""
        return self.entry(directory.lower(), "")

    def naming_as(self, directory: str, side: str) -> dict[str, bool]:
        """How the directory's held index page names its documents, as the fields of a pair's
        ``side`` (``records.side_naming``)."""
        return side_naming(side, self.index_entry(directory))

    def lists_few(self, directory: str) -> bool:
        """Whether the directory's held index page lists a small closed world
        (``DirEntry.lists_few``)."""
        index = self.index_entry(directory)
        return index is not None and index.lists_few

    # how each side of a pair names its pages where a path lies
    def on_origin(self, pair: DirectoryPair, relative: str) -> str:
        """``relative`` under ``pair``'s origin, as the origin names its pages there."""
        return self.named_at(pair, relative).on_origin(relative)

    def on_mirror(self, pair: DirectoryPair, relative: str) -> str:
        return self.named_at(pair, relative).on_mirror(relative)

    def named_at(self, pair: _Pair, relative: str) -> _Pair:
        """``pair`` with a side that names its pages with their extension at its top read as
        naming them bare where a held index page above ``relative``, below the top, does: a
        site whose sections another tool made (``ref/`` served under "pretty" URLs below a top
        naming ``.html``) answers only its own spelling there. Spelt by its top alone, every
        sample there was a 404 (the side taken for a partial copy) and every page under a rule
        waited for a failed probe. An index page that does not read bare tells nothing: a
        pretty host's small section lists too few names to say (``listings.names_bare``)."""
        if "/" not in relative.partition("?")[0]:
            return pair
        mirror_bare = pair.mirror_bare or self._bare_above(pair.mirror, relative)
        origin_bare = pair.origin_bare or self._bare_above(pair.origin, relative)
        if (mirror_bare, origin_bare) == (pair.mirror_bare, pair.origin_bare):
            return pair
        return replace(pair, mirror_bare=mirror_bare, origin_bare=origin_bare)

    def _bare_above(self, top: str, relative: str) -> bool:
        head = relative.partition("?")[0].rpartition("/")[0]
        while head:
            index = self.entry(f"{top}{head}/".lower(), "")
            if index is not None and index.bare_names:
                return True
            head = head.rpartition("/")[0]
        return False

    def entry_by_hash(self, directory_key: str, rel_hash: int) -> DirEntry | None:
        key = _entry_key(directory_key, rel_hash)
        for page_id in self.view.postings(_PAGE_ENTRIES, key):
            return recorded_entry(self.view.page(page_id), directory_key)
        data = self.view.get("dirs", key)
        return None if data is None else decode_entry(data, self.view.page)

    def page_at(self, directory: str, rel_hash: int) -> PageRecord | None:
        """The record of the page standing for the directory's page at a path (None: no page)."""
        entry = self.entry_by_hash(directory.lower(), rel_hash)
        return None if entry is None else self.view.page(entry.representative)

    def releases(self, directory: str) -> tuple[Release, ...]:
        """The release numbers the index page of ``directory`` names (none when it is not held)."""
        index = self.index_entry(directory)
        return index.releases if index is not None else ()

    def language(self, directory: str) -> str:
        """The language the index page of ``directory`` declares ("": none, or not held)."""
        index = self.index_entry(directory)
        return index.language if index is not None else ""

    def lacking(self, directory: str, entries: Iterable[tuple[int, DirEntry]]) -> Iterator[str]:
        """The URLs under ``directory`` of the ``entries`` (another directory's, with their
        relative-path hashes) that it holds no page for: their counterparts there."""
        directory_key = directory.lower()
        for rel_hash, entry in entries:
            if self.entry_by_hash(directory_key, rel_hash) is None:
                yield directory + entry.relative

    def put_entry(
        self, directory_key: str, relative_key: str, entry: DirEntry, record: PageRecord | None
    ) -> str | None:
        """Record ``entry`` under ``directory_key``; ``record`` is its representative's (read
        once for a page's entries under all its directories). Returns the other spelling of
        its name when the two were just found serving one file (``FOLDED``)."""
        key = _entry_key(directory_key, relative_hash(relative_key))
        url_key = directory_key + entry.relative.lower()
        filed = self.view.postings(_PAGE_ENTRIES, key)
        stored = self.view.get("dirs", key)
        before = self._recorded_before(directory_key, stored, filed)
        folded_from = None
        if before is not None and before.other_file(entry.relative):
            folds = _folds(before, entry)
            if folds and before.role != FOLDED:
                folded_from = before.relative
                self.view.put("rules", b"f" + directory_name(directory_key), b"")
            entry = replace(entry, role=FOLDED if folds else COLLIDING)
        if entry.met and before is not None and before.met:
            # a side was met when its index page first was, not when it was fetched again
            entry = replace(entry, met=min(entry.met, before.met))
        told = told_by_record(entry, record, directory_key, url_key)
        for page_id in filed:
            if not told or page_id != entry.representative:
                self.view.remove_posting(_PAGE_ENTRIES, key, page_id)
        if told:
            if entry.representative not in filed:
                self.view.add_posting(_PAGE_ENTRIES, key, entry.representative)
            if stored is not None:
                self.view.delete("dirs", key)
            return None
        value = encode_entry(entry, record, url_key)
        if stored != value:
            self.view.put("dirs", key, value)
        return folded_from

    def _recorded_before(
        self, directory_key: str, stored: bytes | None, filed: list[int]
    ) -> DirEntry | None:
        """The entry recorded at a path before this one (its ``dirs`` row ``stored``, or its
        postings ``filed``), read once for what a new entry keeps of it: its meeting, and
        whether it was another file whose name differs only in case (gi-docgen writes
        ``func.CHECK_VERSION.html``, a macro, beside ``func.check_version.html``; on the ninth
        holdout web a stale copy's pair was rejected as an edition, its two pages' code compared
        under one path)."""
        if stored is not None:
            return decode_entry(stored, self.view.page)
        if filed:
            return recorded_entry(self.view.page(filed[0]), directory_key)
        return None

    def orphans(self, table: str) -> list[bytes]:
        """Keys of ``dirs`` entries or ``links`` whose page is no longer indexed (``gc`` deleted
        it), and links written before links were tied to pages; an entry of ``page_entries`` is
        named by its key and page id. One scan; each page looked up once."""
        indexed: dict[int, bool] = {}
        orphans = []
        for key, value in self.view.scan(table, b""):
            page_id = _source(table, key, value)
            if page_id is not None and page_id not in indexed:
                indexed[page_id] = self._indexed(page_id)
            if page_id is None or not indexed[page_id]:
                orphans.append(key)
        if table == "dirs":
            for key, page_id in self.view.posting_range(_PAGE_ENTRIES, b""):
                if page_id not in indexed:
                    indexed[page_id] = self._indexed(page_id)
                if not indexed[page_id]:
                    orphans.append(key + encode_id(page_id))
        return orphans

    def forget_orphan(self, table: str, key: bytes) -> bool:
        """Delete the ``table`` row at ``key`` if its page is still not indexed (it may have been
        recorded again since the scan); whether it was deleted."""
        if table == "dirs" and len(key) > _PAGE_ENTRY_KEY_BYTES:
            key, page_id = key[:_PAGE_ENTRY_KEY_BYTES], decode_id(key[_PAGE_ENTRY_KEY_BYTES:])
            if self._indexed(page_id) or page_id not in self.view.postings(_PAGE_ENTRIES, key):
                return False
            self.view.remove_posting(_PAGE_ENTRIES, key, page_id)
            return True
        value = self.view.get(table, key)
        if value is None:
            return False
        page_id = _source(table, key, value)
        if page_id is not None and self._indexed(page_id):
            return False
        self.view.delete(table, key)
        return True

    def _indexed(self, page_id: int) -> bool:
        return self.view.get("pages", encode_id(page_id)) is not None

    def subtree(self, directory_key: str, key: int = 0) -> Iterator[tuple[int, DirEntry]]:
        """The pages under a directory (at any depth), in the hash order of their relative paths;
        with the index's secret ``key`` (``sample_key``), from a hash it chooses for the
        directory, round to the ones before it (so the first few read are no set a copier can
        compute; key 0, which no index is given, starts at 0)."""
        if not key:
            yield from self._subtree_from(directory_key, 0)
            return
        start = hash64(directory_key, key) >> (64 - 8 * _RELATIVE_BYTES)
        yield from self._subtree_from(directory_key, start)
        for rel_hash, entry in self._subtree_from(directory_key, 0):
            if rel_hash >= start:
                return
            yield rel_hash, entry

    def _subtree_from(self, directory_key: str, start: int) -> Iterator[tuple[int, DirEntry]]:
        prefix, first = directory_hash(directory_key), _relative_bytes(start)
        page = self.view.page
        stored = (
            (key, decode_entry(value, page)) for key, value in self.view.scan("dirs", prefix, first)
        )
        told = (
            (key, recorded_entry(page(page_id), directory_key))
            for key, page_id in self.view.posting_range(_PAGE_ENTRIES, prefix, first)
        )
        for key, entry in heapq.merge(stored, told, key=lambda pair: pair[0]):
            if entry is not None:
                yield int.from_bytes(key[_U64.size :], "big"), entry

    # links (URL mode)
    def add_link(self, url: str, page_id: int) -> None:
        """Record that the indexed page ``page_id`` (or a page it stands for) links ``url``: the
        page seen last wins, so the row lives as long as the most recently seen page linking it
        (``gc`` deletes the least recently seen pages first)."""
        self.view.put("links", url_hash(url), encode_id(page_id))

    def has_link(self, url: str) -> bool:
        return self.view.get("links", url_hash(url)) is not None

    # listings of index pages (rows of the links table, tied to the index page like links)
    def put_listing(self, listing_keys: Iterable[int], directory: str, page_id: int) -> None:
        name, value = directory_name(directory), encode_id(page_id)
        for key in listing_keys:
            self.view.put("links", _listing_prefix(key) + name, value)

    def listed_alike(
        self, listing_keys: Iterable[int], min_shared: int
    ) -> list[tuple[str, bytes, int]]:
        """The URL and simhash of each indexed index page recorded under at least
        ``min_shared`` of these listing keys (``listings.listing_keys``), with how many."""
        shared = Counter(
            decode_id(value)
            for key in listing_keys
            for _, value in self.view.scan("links", _listing_prefix(key))
        )
        records = (
            (self.view.page(page_id), count)
            for page_id, count in shared.items()
            if count >= min_shared
        )
        return [(record.url, record.simhash, count) for record, count in records if record]

    # candidates
    def candidate(self, reference: bytes) -> Candidate | None:
        """The candidate named ``pair_reference(mirror, origin)``."""
        data = self.view.get("candidates", b"c" + reference)
        return None if data is None else Candidate.decode(data)

    def put_candidate(self, candidate: Candidate) -> None:
        reference = pair_reference(candidate.mirror, candidate.origin)
        self.view.put("candidates", b"c" + reference, candidate.encode())
        self.view.put("candidates", _origin_key(candidate.origin, candidate.mirror), b"")

    def delete_candidate(self, candidate: Candidate) -> None:
        self.view.delete("candidates", b"c" + pair_reference(candidate.mirror, candidate.origin))
        self.view.delete("candidates", _origin_key(candidate.origin, candidate.mirror))

    def candidates_of_mirror(self, directory: str) -> list[Candidate]:
        """Candidates whose mirror side is exactly ``directory``."""
        return self._candidates(b"c" + directory_name(directory) + _NUL)

    def candidates_under(self, directory: str) -> list[Candidate]:
        """Candidates whose mirror side is ``directory`` or lies below it."""
        return self._candidates(b"c" + directory_name(directory))

    def _candidates(self, prefix: bytes) -> list[Candidate]:
        return [Candidate.decode(value) for _, value in self.view.scan("candidates", prefix)]

    def candidates_of_origin(self, directory: str) -> list[Candidate]:
        """Candidates whose origin side is exactly ``directory``."""
        prefix = b"o" + directory_name(directory) + _NUL
        references = [
            key[len(prefix) :] + _NUL + directory_name(directory)
            for key, _ in self.view.scan("candidates", prefix)
        ]
        return [found for ref in references if (found := self.candidate(ref)) is not None]

    # rules
    def rule(self, directory: str) -> Rule | None:
        key = b"r" + directory_name(directory)
        return self.view.memoised(("rule", key), lambda: self._rule_at(key))

    def _rule_at(self, key: bytes) -> Rule | None:
        data = self.view.get("rules", key)
        return None if data is None else _decoded_rule(data)

    def put_rule(self, rule: Rule) -> None:
        self.view.put("rules", b"r" + directory_name(rule.mirror), rule.encode())
        self.view.put("rules", _origin_key(rule.origin, rule.mirror), b"")

    def delete_rule(self, rule: Rule) -> None:
        self.view.delete("rules", b"r" + directory_name(rule.mirror))
        self.view.delete("rules", _origin_key(rule.origin, rule.mirror))

    def rules_under(self, directory: str = "") -> list[Rule]:
        """Rules whose mirror side is ``directory`` or lies below it (every rule for ``""``)."""
        prefix = b"r" + directory_name(directory)
        return [_decoded_rule(value) for _, value in self.view.scan("rules", prefix)]

    def put_absorbed(self, rule: Rule) -> None:
        """Keep ``rule``, absorbed by a wider rule, for the listing alone."""
        self.view.put("rules", b"a" + directory_name(rule.mirror), rule.encode())

    def absorbed_rules(self) -> list[Rule]:
        return [_decoded_rule(value) for _, value in self.view.scan("rules", b"a")]

    def absorbed_under(self, directory: str) -> tuple[Rule, ...]:
        """The absorbed rules whose mirror side is ``directory`` or lies below it (read once
        for the rule tables as they stand: a rule's description names them with every drop)."""
        prefix = b"a" + directory_name(directory)
        return self.view.memoised(
            ("absorbed", prefix),
            lambda: tuple(_decoded_rule(value) for _, value in self.view.scan("rules", prefix)),
        )

    def put_revoked(self, rule: Rule) -> None:
        """Remember that ``rule`` was revoked for its code after it pruned."""
        for side, other in ((rule.mirror, rule.origin), (rule.origin, rule.mirror)):
            written = other.encode("utf-8", "surrogatepass")
            self.view.put("rules", b"v" + pair_reference(side, other), written)

    def has_revoked(self) -> bool:
        """Whether any rule was revoked for its code after it pruned: most crawls have none, and
        every URL check asks (read once a state of the rule tables in readers)."""
        return self.view.memoised("has_revoked", lambda: self._first_row(b"v") is not None)

    def revoked_partners(self, directory: str) -> tuple[str, ...]:
        """The other sides of the rules revoked for their code after they pruned, with
        ``directory`` as one side: read once a state of the rule tables in readers."""
        prefix = b"v" + directory_name(directory) + _NUL
        return self.view.memoised(("revoked", prefix), lambda: self._revoked_partners(prefix))

    def _revoked_partners(self, prefix: bytes) -> tuple[str, ...]:
        rows = self.view.scan("rules", prefix)
        return tuple(value.decode("utf-8", "surrogatepass") for _, value in rows)

    def folds_at(self, directory_key: str) -> bool:
        """Whether an entry of the directory is ``FOLDED``."""
        return self._directory_row(b"f", directory_key, _is_row)

    def put_case_twins(self, directory_key: str, names: Iterable[str]) -> None:
        """Add ``names`` to the directory's names listed beside a case twin."""
        key = b"t" + directory_name(directory_key)
        known = _hashes(self.view.get("rules", key))
        hashes = known | {relative_hash(name) for name in names}
        if hashes != known:
            self.view.put("rules", key, b"".join(map(_relative_bytes, sorted(hashes))))

    def case_twin(self, *urls: str) -> bool:
        """Whether an index page of any of these URLs' directories lists its name beside a name
        that differs from it only in case."""
        for url in urls:
            path = url.split("?", 1)[0]
            directory = path[: path.rfind("/") + 1]
            if relative_hash(url[len(directory) :]) in self._directory_row(
                b"t", directory, _hashes
            ):
                return True
        return False

    def other_file(self, directory: str, entry: DirEntry, relative: str | None) -> bool:
        """``entry.other_file``, or its name is listed beside a case twin in ``directory``
        (which holds it): a server that folds case may serve the twin's file there."""
        return entry.other_file(relative) or self.case_twin(directory + entry.relative)

    def _directory_row(self, kind: bytes, directory: str, read: Callable[[bytes | None], T]) -> T:
        """What the rules table's row ``kind`` of a directory says, ``read`` from its value
        (None without one): most crawls have no row of the kind, and URL checks ask (read once
        a state of the rule tables in readers)."""
        if not self.view.memoised(("any", kind), lambda: self._first_row(kind) is not None):
            return read(None)
        key = kind + directory_name(directory)
        return self.view.memoised(("row", key), lambda: read(self.view.get("rules", key)))

    def _first_row(self, prefix: bytes) -> tuple[bytes, bytes] | None:
        return next(self.view.scan("rules", prefix), None)

    def has_rules(self) -> bool:
        """Whether any rule stands or was revoked after it pruned (the session parameters learnt
        on hosts, in the same table, are no rules)."""
        return self.has_revoked() or self.view.memoised(
            "has_rules", lambda: self._first_row(b"r") is not None
        )

    def session_pairs(self, host: str) -> tuple[str, ...]:
        """The session ``name=value`` pairs filed for ``host`` (read once a state of the rule
        tables in readers)."""
        key = b"s" + directory_name(host)
        return self.view.memoised(("sessions", key), lambda: self._session_pairs(key))

    def _session_pairs(self, key: bytes) -> tuple[str, ...]:
        data = self.view.get("rules", key)
        return _decoded_pairs(data) if data else ()

    def session_hosts(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Every host with session pairs filed, and its pairs."""
        for key, value in self.view.scan("rules", b"s"):
            yield key[1:].decode("utf-8", "surrogatepass"), _decoded_pairs(value)

    def put_session_pairs(self, host: str, pairs: tuple[str, ...]) -> None:
        self.view.put("rules", b"s" + directory_name(host), "&".join(pairs).encode("utf-8"))

    def mirrors_of_origin(self, directory: str) -> list[str]:
        """Mirror sides (lower-cased) of the open candidates (not those paired by documents) and
        rules with origin ``directory``."""
        mirrors = [
            candidate.mirror.lower()
            for candidate in self.candidates_of_origin(directory)
            if candidate.state == OPEN and not candidate.from_documents
        ]
        prefix = b"o" + directory_name(directory) + _NUL
        for key, _ in self.view.scan("rules", prefix):
            mirrors.append(key[len(prefix) :].decode("utf-8", "surrogatepass"))
        return mirrors

    def has_origin_under(self, directory: str) -> bool:
        """Whether some rule's origin side is ``directory`` or lies below it."""
        return next(self.view.scan("rules", b"o" + directory_name(directory)), None) is not None

    def rules_with_origin_under(self, directory: str) -> list[Rule]:
        """Rules whose origin side is ``directory`` or lies below it."""
        prefix = b"o" + directory_name(directory)
        mirrors = [key.rpartition(_NUL)[2] for key, _ in self.view.scan("rules", prefix)]
        return [
            rule
            for mirror in mirrors
            if (rule := self.rule(mirror.decode("utf-8", "surrogatepass"))) is not None
        ]

    def rules_with_origin_at(self, directory: str) -> tuple[Rule, ...]:
        """Rules whose origin side is ``directory`` itself."""
        prefix = b"o" + directory_name(directory) + _NUL
        return self.view.memoised(("origin_at", prefix), lambda: self._rules_with_origin(prefix))

    def _rules_with_origin(self, prefix: bytes) -> tuple[Rule, ...]:
        mirrors = [key[len(prefix) :] for key, _ in self.view.scan("rules", prefix)]
        rules = (self.rule(mirror.decode("utf-8", "surrogatepass")) for mirror in mirrors)
        return tuple(rule for rule in rules if rule is not None)

    def has_origin_at(self, directory: str) -> bool:
        return (
            next(self.view.scan("rules", b"o" + directory_name(directory) + _NUL), None) is not None
        )

    # probes
    def add_probe(self, url: str, kind: int, reference: bytes) -> None:
        self.view.put(
            "probes",
            url_hash(url) + bytes([kind]) + reference,
            url.encode("utf-8", "surrogatepass"),
        )

    def probes_for(self, url: str) -> list[tuple[int, bytes]]:
        """(kind, reference) of every outstanding probe of ``url``."""
        prefix = url_hash(url)
        return [(key[8], key[9:]) for key, _ in self.view.scan("probes", prefix)]

    def delete_probe(self, url: str, kind: int, reference: bytes) -> None:
        self.view.delete("probes", url_hash(url) + bytes([kind]) + reference)

    def probe_urls(self) -> Iterator[str]:
        for _, value in self.view.scan("probes", b""):
            yield value.decode("utf-8", "surrogatepass")
