"""The mirror detector's tables and their byte layout (the sibling of ``lmdb_index``'s layout).

Invariants: keys are fixed-width big-endian hashes or lower-cased directory names, so that a
directory's pages are one key range in hash order (``dirs``) and the rules or candidates below a
directory are one key range by name (``rules``, ``candidates``); values are ``struct``-packed with
length-prefixed UTF-8 strings, never pickle.

Tables:
    dirs        H(directory) H(relative path) -> representative page id, exact hash, path
    links       H(url) -> ""                  (URL mode: URLs that fetched pages link to)
    candidates  "c" mirror NUL origin -> Candidate ; "o" origin NUL mirror -> ""
    rules       "r" mirror -> Rule ; "o" origin NUL mirror -> ""
    probes      H(url) kind reference -> probe URL
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from .hashing import hash64
from .lmdb_index import IndexView

_U64 = struct.Struct(">Q")
_U32 = struct.Struct(">I")
_ENTRY_HEAD = struct.Struct(">QQ")  # representative page id, exact hash
_SAMPLE_HEAD = struct.Struct(">QB")  # relative-path hash, outcome
_CANDIDATE_HEAD = struct.Struct(">dBBH")  # created_at, state, level, number of samples
_RULE_HEAD = struct.Struct(">dBHHHB")  # created_at, mode, checked, matches, missing, level
_DIRECTORY_SEED, _RELATIVE_SEED, _URL_SEED = 0xD1, 0x5E1, 0x0F1
_NUL = b"\x00"

PENDING, MATCH, MISMATCH, MISSING = 0, 1, 2, 3  # sample outcomes
OUTCOME_NAMES = ("pending", "match", "mismatch", "missing")
OPEN, REJECTED = 0, 1  # candidate states (a confirmed candidate becomes a Rule)
SAMPLE_PROBE, PARENT_PROBE = 0, 1  # why a URL was probed
MODES = ("url", "content")


def directory_hash(directory_key: str) -> bytes:
    return _U64.pack(hash64(directory_key, _DIRECTORY_SEED))


def relative_hash(relative_key: str) -> int:
    return hash64(relative_key, _RELATIVE_SEED)


def url_hash(url: str) -> bytes:
    """Key of a URL compared lower-cased (links and probes)."""
    return _U64.pack(hash64(url.lower(), _URL_SEED))


def _text(value: str) -> bytes:
    data = value.encode("utf-8", "surrogatepass")
    return _U32.pack(len(data)) + data


def _read_text(data: bytes, offset: int) -> tuple[str, int]:
    (size,) = _U32.unpack_from(data, offset)
    start = offset + _U32.size
    return data[start : start + size].decode("utf-8", "surrogatepass"), start + size


def _read_texts(data: bytes, offset: int, count: int) -> tuple[list[str], int]:
    texts = []
    for _ in range(count):
        text, offset = _read_text(data, offset)
        texts.append(text)
    return texts, offset


@dataclass(frozen=True, slots=True)
class DirEntry:
    """A fetched page as seen from one ancestor directory."""

    representative: int  # page id of the indexed page standing for its content (its own, if kept)
    exact: int
    relative: str  # original case, to build the URL of the counterpart

    def same_content(self, other: DirEntry) -> bool:
        """Exact duplicates, or both represented by the same indexed page (near-duplicates)."""
        return self.exact == other.exact or self.representative == other.representative

    def encode(self) -> bytes:
        return _ENTRY_HEAD.pack(self.representative, self.exact) + _text(self.relative)

    @classmethod
    def decode(cls, data: bytes) -> DirEntry:
        representative, exact = _ENTRY_HEAD.unpack_from(data)
        relative, _ = _read_text(data, _ENTRY_HEAD.size)
        return cls(representative, exact, relative)


@dataclass(frozen=True, slots=True)
class Sample:
    """One sampled relative path of a candidate pair and what comparing it showed."""

    relative: str
    relative_hash: int
    outcome: int = PENDING


@dataclass(frozen=True, slots=True)
class Candidate:
    """A directory (``mirror``) whose index page replicates the index page of ``origin``."""

    mirror: str
    origin: str
    mirror_index: str
    origin_index: str
    created_at: float
    state: int = OPEN
    level: int = 0  # how many levels above an index-page candidate the boundary search created it
    samples: tuple[Sample, ...] = field(default=())

    def count(self, outcome: int) -> int:
        return sum(1 for sample in self.samples if sample.outcome == outcome)

    @property
    def key(self) -> bytes:
        return candidate_key(self.mirror, self.origin)

    def with_outcome(self, relative_hash: int, outcome: int) -> Candidate:
        samples = tuple(
            replace(sample, outcome=outcome) if sample.relative_hash == relative_hash else sample
            for sample in self.samples
        )
        return replace(self, samples=samples)

    def encode(self) -> bytes:
        head = _CANDIDATE_HEAD.pack(self.created_at, self.state, self.level, len(self.samples))
        texts = b"".join(
            map(_text, (self.mirror, self.origin, self.mirror_index, self.origin_index))
        )
        samples = b"".join(
            _SAMPLE_HEAD.pack(sample.relative_hash, sample.outcome) + _text(sample.relative)
            for sample in self.samples
        )
        return head + texts + samples

    @classmethod
    def decode(cls, data: bytes) -> Candidate:
        created_at, state, level, count = _CANDIDATE_HEAD.unpack_from(data)
        (mirror, origin, mirror_index, origin_index), offset = _read_texts(
            data, _CANDIDATE_HEAD.size, 4
        )
        samples = []
        for _ in range(count):
            rel_hash, outcome = _SAMPLE_HEAD.unpack_from(data, offset)
            relative, offset = _read_text(data, offset + _SAMPLE_HEAD.size)
            samples.append(Sample(relative, rel_hash, outcome))
        return cls(
            mirror, origin, mirror_index, origin_index, created_at, state, level, tuple(samples)
        )


@dataclass(frozen=True, slots=True)
class Rule:
    """A confirmed mirror: every URL under ``mirror`` has its counterpart under ``origin``."""

    mirror: str
    origin: str
    mirror_index: str
    origin_index: str
    created_at: float
    mode: str
    checked: int
    matches: int
    missing: int
    level: int = 0

    @property
    def resemblance(self) -> float:
        return self.matches / self.checked if self.checked else 1.0

    def encode(self) -> bytes:
        head = _RULE_HEAD.pack(
            self.created_at,
            MODES.index(self.mode),
            self.checked,
            self.matches,
            self.missing,
            self.level,
        )
        return head + b"".join(
            map(_text, (self.mirror, self.origin, self.mirror_index, self.origin_index))
        )

    @classmethod
    def decode(cls, data: bytes) -> Rule:
        created_at, mode, checked, matches, missing, level = _RULE_HEAD.unpack_from(data)
        (mirror, origin, mirror_index, origin_index), _ = _read_texts(data, _RULE_HEAD.size, 4)
        return cls(
            mirror,
            origin,
            mirror_index,
            origin_index,
            created_at,
            MODES[mode],
            checked,
            matches,
            missing,
            level,
        )


def candidate_key(mirror: str, origin: str) -> bytes:
    return b"c" + _name(mirror) + _NUL + _name(origin)


def _name(directory: str) -> bytes:
    return directory.lower().encode("utf-8", "surrogatepass")


class MirrorStore:
    """Typed access to the mirror tables inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    # pages under directories
    def entry(self, directory_key: str, relative_key: str) -> DirEntry | None:
        data = self.view.get("dirs", self._entry_key(directory_key, relative_key))
        return None if data is None else DirEntry.decode(data)

    def put_entry(self, directory_key: str, relative_key: str, entry: DirEntry) -> None:
        key, value = self._entry_key(directory_key, relative_key), entry.encode()
        if self.view.get("dirs", key) != value:
            self.view.put("dirs", key, value)

    def subtree(self, directory_key: str) -> Iterator[tuple[int, DirEntry]]:
        """The pages under a directory (at any depth), in the hash order of their relative paths."""
        for key, value in self.view.scan("dirs", directory_hash(directory_key)):
            yield _U64.unpack_from(key, 8)[0], DirEntry.decode(value)

    @staticmethod
    def _entry_key(directory_key: str, relative_key: str) -> bytes:
        return directory_hash(directory_key) + _U64.pack(relative_hash(relative_key))

    def entry_by_hash(self, directory_key: str, rel_hash: int) -> DirEntry | None:
        data = self.view.get("dirs", directory_hash(directory_key) + _U64.pack(rel_hash))
        return None if data is None else DirEntry.decode(data)

    # links (URL mode)
    def add_link(self, url: str) -> None:
        self.view.put("links", url_hash(url), b"")

    def has_link(self, url: str) -> bool:
        return self.view.get("links", url_hash(url)) is not None

    # candidates
    def candidate(self, key: bytes) -> Candidate | None:
        data = self.view.get("candidates", key)
        return None if data is None else Candidate.decode(data)

    def put_candidate(self, candidate: Candidate) -> None:
        self.view.put("candidates", candidate.key, candidate.encode())
        self.view.put("candidates", _origin_key(candidate.origin, candidate.mirror), b"")

    def delete_candidate(self, candidate: Candidate) -> None:
        self.view.delete("candidates", candidate.key)
        self.view.delete("candidates", _origin_key(candidate.origin, candidate.mirror))

    def candidates_of_mirror(self, directory: str) -> list[Candidate]:
        """Candidates whose mirror side is exactly ``directory``."""
        prefix = b"c" + _name(directory) + _NUL
        return [Candidate.decode(value) for _, value in self.view.scan("candidates", prefix)]

    def candidates_under(self, directory: str) -> list[Candidate]:
        """Candidates whose mirror side is ``directory`` or lies below it."""
        prefix = b"c" + _name(directory)
        return [Candidate.decode(value) for _, value in self.view.scan("candidates", prefix)]

    def candidates_of_origin(self, directory: str) -> list[Candidate]:
        """Candidates whose origin side is exactly ``directory``."""
        prefix = b"o" + _name(directory) + _NUL
        keys = [
            b"c" + key[len(prefix) :] + _NUL + _name(directory)
            for key, _ in self.view.scan("candidates", prefix)
        ]
        return [candidate for key in keys if (candidate := self.candidate(key)) is not None]

    # rules
    def rule(self, directory: str) -> Rule | None:
        data = self.view.get("rules", b"r" + _name(directory))
        return None if data is None else Rule.decode(data)

    def put_rule(self, rule: Rule) -> None:
        self.view.put("rules", b"r" + _name(rule.mirror), rule.encode())
        self.view.put("rules", _origin_key(rule.origin, rule.mirror), b"")

    def delete_rule(self, rule: Rule) -> None:
        self.view.delete("rules", b"r" + _name(rule.mirror))
        self.view.delete("rules", _origin_key(rule.origin, rule.mirror))

    def rules_under(self, directory: str = "") -> list[Rule]:
        """Rules whose mirror side is ``directory`` or lies below it (every rule for ``""``)."""
        prefix = b"r" + _name(directory)
        return [Rule.decode(value) for _, value in self.view.scan("rules", prefix)]

    def mirrors_of_origin(self, directory: str) -> list[str]:
        """Mirror sides (lower-cased) of the open candidates and rules with origin ``directory``."""
        mirrors = [
            candidate.mirror.lower()
            for candidate in self.candidates_of_origin(directory)
            if candidate.state == OPEN
        ]
        prefix = b"o" + _name(directory) + _NUL
        for key, _ in self.view.scan("rules", prefix):
            mirrors.append(key[len(prefix) :].decode("utf-8", "surrogatepass"))
        return mirrors

    def has_origin_under(self, directory: str) -> bool:
        """Whether some rule's origin side is ``directory`` or lies below it."""
        return next(self.view.scan("rules", b"o" + _name(directory)), None) is not None

    def has_origin_at(self, directory: str) -> bool:
        return next(self.view.scan("rules", b"o" + _name(directory) + _NUL), None) is not None

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


def _origin_key(origin: str, mirror: str) -> bytes:
    return b"o" + _name(origin) + _NUL + _name(mirror)
