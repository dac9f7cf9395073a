"""The values of the mirror tables (pages under directories, candidates, rules) and their bytes.

Invariant: every value is ``struct``-packed, big-endian, with length-prefixed UTF-8 strings
(lone surrogates kept), never pickle, so an index written by one process reads the same in any
other.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field, replace
from enum import IntEnum

from dedup_filter.mirrors.directories import (
    case_guessed,
    copier_at_root,
    relative_key,
    spelled_as,
)

_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_SAMPLE_HEAD = struct.Struct(">QB")  # relative-path hash, outcome
_CANDIDATE_HEAD = struct.Struct(">dBBH")  # created_at, state, level, number of samples
_RULE_HEAD = struct.Struct(">dBHHHB")  # created_at, mode, checked, matches, missing, level

# sample outcomes; an edition's pair: both pages have code blocks, with other words (editions.py);
# other text: a mismatch whose pages are other documents (``CoordinateSampler.other_text``)
PENDING, MATCH, MISMATCH, MISSING, EDITION, OTHER_TEXT = 0, 1, 2, 3, 4, 5
OUTCOME_NAMES = ("pending", "match", "mismatch", "missing", "edition", "other_text")
# candidate states (a confirmed candidate becomes a Rule); an expired one stayed open too long; a
# superseded one lost its mirror to a rule with another origin, and is sampled again if that
# rule is revoked (``CandidateUpdate.reopen``)
OPEN, REJECTED, EXPIRED, SUPERSEDED = 0, 1, 2, 3
STATE_NAMES = ("open", "rejected", "expired", "superseded")
_CLOSED, _REISSUED, _FROM_DOCUMENTS, _REJECTED_FOR = 1, 2, 4, 8  # flags of a candidate value
# flags of a rule value
_MIRROR_HELD_FIRST, _COPY_NAMED, _SIDE_BY_SIDE, _ORIGIN_LACKS, _MIRROR_OLDER = 1, 2, 4, 8, 16
_TURNED_BY_ABSENCE, _ABSENCES, _ORIGIN_PARTIAL = 32, 64, 128  # _ABSENCES: a count byte follows
MODES = ("url", "content")
# what the mirror detector made of a page: nothing special, kept as the index page of a candidate
# pair, or dropped as the index page of the mirror it confirmed (replays repeat it); or what a
# directory holds at a relative path: two files whose names differ only in case (``COLLIDING``:
# relative paths compare lower-cased, so neither stands for that path), or one file served under
# two such names (``FOLDED``: a server on a file system that folds case; what it serves under
# either name may be the other side's other file)
ORDINARY, KEPT_AS_CANDIDATE, DROPPED_AS_MIRROR, COLLIDING, FOLDED = 0, 1, 2, 3, 4


class Rejection(IntEnum):
    """Why a candidate was rejected (a byte after its flags; shown lower-cased)."""

    SAMPLES_DIFFER = 1  # its samples told the sides apart
    NAMED_EDITIONS = 2  # the directories name different editions (``named_editions.py``)
    EDITIONS_THROUGH_COPY = 3  # they do through the copy a side collapsed onto
    OTHER_TEXT = 4  # its samples are other documents under shared names
    OTHER_RELEASE = 5  # the index pages name different releases
    TURNED_ROUND = 6  # refuted by pages the origin lacks: paired the other way round
    RULED_ALREADY = 7  # a rule covers a side already: the pair can never be a rule
    REVOKED_ON_CODE = 8  # its rule was revoked: the sides' code differs
    REVOKED_BY_AUDIT = 9  # its rule was revoked: an audited page held other text


def _texts(*values: str) -> bytes:
    encoded = (value.encode("utf-8", "surrogatepass") for value in values)
    return b"".join(_U32.pack(len(data)) + data for data in encoded)


def _read_texts(data: bytes, offset: int, count: int) -> tuple[list[str], int]:
    texts = []
    for _ in range(count):
        (size,) = _U32.unpack_from(data, offset)
        offset += _U32.size + size
        texts.append(data[offset - size : offset].decode("utf-8", "surrogatepass"))
    return texts, offset


@dataclass(frozen=True, slots=True)
class DirEntry:
    """A fetched page as seen from one ancestor directory."""

    representative: int  # page id of the indexed page standing for its content (its own, if kept)
    exact: int
    relative: str  # original case, to build the URL of the counterpart
    role: int = ORDINARY  # what the mirror detector made of the page when it was recorded
    # an index page under its own directory: hashes of the other hosts it links (a copy links
    # the host it was copied from: converted links, a mirror banner)
    linked_hosts: tuple[int, ...] = ()
    # a near-duplicate drop's own length in tokens (0: not recorded): the length of the page its
    # representative stands for is what tells a copy's added banner apart (``systematic.py``)
    token_count: int = 0
    # an index page under its own directory: the release numbers it names
    # (``features.versions``), which tell a stale copy of a manual from its newer origin
    releases: tuple[tuple[int, ...], ...] = ()
    # an index page under its own directory that stands under another side's page: the id the
    # next kept page had when the crawl met it (0: not recorded), so the side counts as met then
    # (``precedence._held``)
    met: int = 0
    # an index page under its own directory that names its documents bare, ``intro`` for
    # ``intro.html`` (``listings.names_bare``): how its side is asked for them
    bare_names: bool = False
    # an index page under its own directory that lists a small closed world: a few documents
    # and nothing else (``CoordinateSampler.listing_closed``), so a pair of its directory found
    # from documents is judged on those (a generated tree's directories of one or two pages)
    lists_few: bool = False
    # an index page under its own directory that names its documents ``.htm``
    # (``listings.names_htm``): how its side is asked for them
    htm_names: bool = False
    # an index page under its own directory: the language its <html> element declares
    # (``languages.declared_language``; "" none), which tells an unnamed directory's edition
    language: str = ""

    def same_content(self, other: DirEntry) -> bool:
        """Exact duplicates, or both represented by the same indexed page (near-duplicates)."""
        return self.exact == other.exact or self.representative == other.representative

    def other_file(self, relative: str | None) -> bool:
        """Whether this entry may be of another file than the one at ``relative`` (None: any
        will do): relative paths compare by ``relative_key``, and two names that differ only so
        are two files (gi-docgen's ``func.CHECK_VERSION.html`` beside
        ``func.check_version.html``); so is whatever holds a path such files collided at."""
        if self.role in (COLLIDING, FOLDED):
            return True
        return (
            relative is not None
            and self.relative != relative
            and relative_key(self.relative) == relative_key(relative)
        )


@dataclass(frozen=True, slots=True)
class Sample:
    """One sampled relative path of a candidate pair and what comparing it showed."""

    relative: str
    relative_hash: int
    outcome: int = PENDING


def side_naming(side: str, index: DirEntry | None) -> dict[str, bool]:
    """How a pair's ``side`` (``"mirror"`` or ``"origin"``) names its documents, as its index
    page's entry ``index`` says (neither bare nor ``.htm`` without one): the pair's fields."""
    bare, htm = (False, False) if index is None else (index.bare_names, index.htm_names)
    return {f"{side}_bare": bare, f"{side}_htm": htm}


@dataclass(frozen=True, slots=True)
class DirectoryPair:
    """What candidates and rules share: the two directories, their index pages, and when the
    pair was made."""

    mirror: str
    origin: str
    mirror_index: str
    origin_index: str
    created_at: float
    # whether each side names its documents bare (``DirEntry.bare_names`` of its index page)
    mirror_bare: bool = field(default=False, kw_only=True)
    origin_bare: bool = field(default=False, kw_only=True)
    # whether each side names its documents ``.htm`` (``DirEntry.htm_names`` of its index page)
    mirror_htm: bool = field(default=False, kw_only=True)
    origin_htm: bool = field(default=False, kw_only=True)

    def origin_spelling(self, relative: str) -> str:
        """``relative`` as the origin spells its names (``directories.spelled_as``)."""
        return spelled_as(
            relative,
            self.origin_index,
            self.mirror_index,
            side_bare=self.origin_bare,
            other_bare=self.mirror_bare,
            side_htm=self.origin_htm,
            other_htm=self.mirror_htm,
        )

    def mirror_spelling(self, relative: str) -> str:
        """``relative`` as the mirror spells its names."""
        return spelled_as(
            relative,
            self.mirror_index,
            self.origin_index,
            side_bare=self.mirror_bare,
            other_bare=self.origin_bare,
            side_htm=self.mirror_htm,
            other_htm=self.origin_htm,
        )

    @property
    def names_shown(self) -> dict[str, list[str]]:
        """The sides that name their documents bare or ``.htm``, as a description shows them
        (nothing where neither does): why a side is asked for ``intro`` or ``intro.htm``, not
        ``intro.html``."""
        shown = {}
        for kind, mirror, origin in (
            ("bare_names", self.mirror_bare, self.origin_bare),
            ("htm_names", self.mirror_htm, self.origin_htm),
        ):
            sides = [side for side, named in (("mirror", mirror), ("origin", origin)) if named]
            if sides:
                shown[kind] = sides
        return shown

    @property
    def sides_reversed(self) -> dict[str, object]:
        """The fields that turn the pair round (for ``dataclasses.replace``)."""
        return {
            "mirror": self.origin,
            "origin": self.mirror,
            "mirror_index": self.origin_index,
            "origin_index": self.mirror_index,
        } | {name: getattr(self, _other_side(name)) for name in _NAMING_FIELDS}

    @property
    def origin_names_guessed(self) -> bool:
        """Whether the origin's names are guessed from the mirror's (``case_guessed``)."""
        return case_guessed(self.origin_index, self.mirror_index)

    @property
    def mirror_names_guessed(self) -> bool:
        return case_guessed(self.mirror_index, self.origin_index)

    def on_origin(self, relative: str) -> str:
        return self.origin + self.origin_spelling(relative)

    def on_mirror(self, relative: str) -> str:
        return self.mirror + self.mirror_spelling(relative)

    def _encode_sides(self) -> bytes:
        texts = _texts(self.mirror, self.origin, self.mirror_index, self.origin_index)
        naming = sum(getattr(self, name) << bit for bit, name in enumerate(_NAMING_FIELDS))
        return texts + bytes([naming])

    @property
    def sides_naming(self) -> dict[str, bool]:
        """The fields that say how its sides spell their documents (for a pair made from it)."""
        return {name: getattr(self, name) for name in _NAMING_FIELDS}


# how a pair's sides spell their documents, in the order of their bits in its sides' byte
_NAMING_FIELDS = ("mirror_bare", "origin_bare", "mirror_htm", "origin_htm")


def _other_side(name: str) -> str:
    """The field naming the other side (``origin_bare`` for ``mirror_bare``)."""
    side, _, kind = name.partition("_")
    return ("origin" if side == "mirror" else "mirror") + "_" + kind


def _read_sides(data: bytes, offset: int) -> tuple[tuple[str, str, str, str], dict[str, bool], int]:
    """The four texts of a pair's sides, and how each spells its documents (bare, ``.htm``)."""
    (mirror, origin, mirror_index, origin_index), offset = _read_texts(data, offset, 4)
    naming = {name: bool(data[offset] >> bit & 1) for bit, name in enumerate(_NAMING_FIELDS)}
    return (mirror, origin, mirror_index, origin_index), naming, offset + 1


@dataclass(frozen=True, slots=True)
class Candidate(DirectoryPair):
    """A directory (``mirror``) whose index page replicates the index page of ``origin``."""

    state: int = OPEN
    level: int = 0  # how many levels above an index-page candidate the boundary search created it
    samples: tuple[Sample, ...] = field(default=())
    # its listing names every document of the directory, fewer than the samples wanted, and no
    # subdirectory: once all of them are checked the verdict needs no more
    closed: bool = False
    reissued: bool = False  # open too long once: its probes were handed out again
    # paired by same-named documents, not by index pages (``documents.py``): its origin is the
    # side held first, and it keeps no page of that side that duplicates the other
    from_documents: bool = False
    # a rejected candidate's ``Rejection`` (0: none, or rejected before the reason was kept)
    rejected_for: int = 0

    def count(self, outcome: int) -> int:
        return sum(1 for sample in self.samples if sample.outcome == outcome)

    def with_outcome(self, relative_hash: int, outcome: int) -> Candidate:
        samples = tuple(
            replace(sample, outcome=outcome) if sample.relative_hash == relative_hash else sample
            for sample in self.samples
        )
        return replace(self, samples=samples)

    def encode(self) -> bytes:
        head = _CANDIDATE_HEAD.pack(self.created_at, self.state, self.level, len(self.samples))
        samples = b"".join(
            _SAMPLE_HEAD.pack(sample.relative_hash, sample.outcome) + _texts(sample.relative)
            for sample in self.samples
        )
        # most candidates have no flag: their values keep the layout without the flag byte
        flags = (_CLOSED if self.closed else 0) | (_REISSUED if self.reissued else 0)
        flags |= _FROM_DOCUMENTS if self.from_documents else 0
        flags |= _REJECTED_FOR if self.rejected_for else 0
        tail = bytes([flags]) if flags else b""
        tail += bytes([self.rejected_for]) if self.rejected_for else b""  # flagged above
        return head + self._encode_sides() + samples + tail

    @classmethod
    def decode(cls, data: bytes) -> Candidate:
        created_at, state, level, count = _CANDIDATE_HEAD.unpack_from(data)
        sides, bare, offset = _read_sides(data, _CANDIDATE_HEAD.size)
        samples = []
        for _ in range(count):
            rel_hash, outcome = _SAMPLE_HEAD.unpack_from(data, offset)
            (relative,), offset = _read_texts(data, offset + _SAMPLE_HEAD.size, 1)
            samples.append(Sample(relative, rel_hash, outcome))
        flags = data[offset] if len(data) > offset else 0
        return cls(
            *sides,
            created_at,
            state,
            level,
            tuple(samples),
            bool(flags & _CLOSED),
            bool(flags & _REISSUED),
            bool(flags & _FROM_DOCUMENTS),
            data[offset + 1] if flags & _REJECTED_FOR else 0,
            **bare,
        )


@dataclass(frozen=True, slots=True)
class Rule(DirectoryPair):
    """A confirmed mirror: every URL under ``mirror`` has its counterpart under ``origin``."""

    mode: str
    checked: int
    matches: int
    missing: int
    level: int = 0
    # the mirror side held a page before the origin side did when the rule was made, and
    # evidence independent of the crawl's order names the mirror the copy (``precedence.py``)
    mirror_held_first: bool = False
    copy_named: bool = False
    # mirror pages probed since the rule was made, as counterparts of origin pages with code
    # blocks: an edition differs there (``editions.py``)
    code_probes: int = 0
    # neither side was crawled first when the rule was made, or by now
    # (``precedence._side_by_side``, ``precedence.side_by_side_by_now``)
    side_by_side: bool = False
    # the mirror of the rule this rule's origin was moved through (its origin lay in that rule's
    # mirror, ``rules.repoint``), "" if none: revoking that rule moves the origin back
    through: str = ""
    # the crawl fetched a page of the mirror side whose counterpart the origin lacks, and no
    # name, session id or pin calls the mirror the copy: the mirror may be the newer side, whose
    # pages link what the origin's copies do not (``detector._origin_lacking``)
    origin_lacks: bool = False
    # the mirror's index page names an earlier release than the origin's: a stale copy, whose
    # pages may be the older text of the origin's (``Orientation.names_older_release``)
    mirror_older: bool = False
    # the side held first lacked a page the other side holds: held first passed to that side,
    # once (``precedence.after_absence``)
    turned_by_absence: bool = False
    # pages of the side not held first whose counterparts the side held first answered with a
    # 404 or 410, counted until the turn (``precedence.after_absence``)
    absences: int = 0
    # the origin, held first, lacked enough of the mirror's pages to be taken for a partial
    # copy: it keeps held first, and is pruned beside the mirror (``precedence.after_absence``)
    origin_partial: bool = False

    @property
    def resemblance(self) -> float:
        return self.matches / self.checked if self.checked else 1.0

    @property
    def on_children(self) -> bool:
        """Confirmed on the rules of its children, with no sample of its own: parents that held
        nothing else (``CoordinateSampler.verdict``). No other rule is made on 0 samples."""
        return self.checked == 0 and self.level > 0

    @property
    def keeps_mirror_listings(self) -> bool:
        """Whether the mirror side's index pages below the rule's own are fetched: only counts,
        depth or the crawl's order took the mirror for the copy (no name, no session id, no pin
        calls it so), so it may be the origin, and its listings name pages the other side
        lacks (a manual's pages added since its copy was made)."""
        return not self.copy_named

    @property
    def prunes_mirror(self) -> bool:
        """Whether the mirror side's URLs may be dropped (``precedence.py`` says when). A stale
        copy (``mirror_older``) held first by a coin flip, crawled side by side with its origin,
        is pruned as one met later: its origin is never pruned for its older text, so the crawl
        fetches the origin whole anyway (the eighth holdout web's stale copy in round robin,
        pruned only beside pages the origin had fetched already: 739 of its pages fetched)."""
        return (
            self.copy_named
            or not self.mirror_held_first
            or (self.mirror_older and self.side_by_side)
        )

    @property
    def drops_mirror_urls(self) -> bool:
        """Whether a URL of the mirror side may be dropped before its fetch: the side is pruned,
        and not shown to hold pages its origin lacks (``origin_lacks``)."""
        return self.prunes_mirror and not self.origin_lacks

    @property
    def prunes_origin(self) -> bool:
        """Whether the origin side's URLs may be dropped (``precedence.py`` says when)."""
        return self.mirror_held_first and self.exchangeable and self.mirror_stands_for_origin

    @property
    def mirror_stands_for_origin(self) -> bool:
        """Whether the mirror's pages may stand for the origin's: not where the mirror is a
        host's root and the origin a directory below another host's, the shape of a copier's
        copy of its victim, made before the victim gained pages, crawled side by side (which
        of the two was held first is a coin flip), unless the origin was shown to lack the
        mirror's pages (``origin_partial``, or held first passed to the mirror for a 404:
        ``turned_by_absence``). A victim's document dropped for the copier's older one has its
        links followed by nothing, and a page the victim gained since, linked only from there,
        was lost (the tenth holdout web, random order: the copier held first by a hair, its
        rule oriented right). A root held first and crawled before its deeper copy, a partial
        copy of a copy there, stands for it as before: sparing that copy cost the same web's
        random order 1,600 fetches. The mirror image of ``origin_lacks`` (docs/mirrors.md,
        points 20 and 47)."""
        if not self.side_by_side or not copier_at_root(self.mirror, self.origin):
            return True
        return self.origin_partial or (self.turned_by_absence and self.mirror_held_first)

    @property
    def prunes_mirror_beside(self) -> bool:
        """Whether the mirror side held first may be pruned too, where the origin holds a page
        the crawl fetched and followed: crawled side by side, and ``exchangeable``
        (``precedence.py`` says when; a stale copy is pruned outright: ``prunes_mirror``)."""
        return self.mirror_held_first and self.side_by_side and self.exchangeable

    @property
    def prunes_origin_beside(self) -> bool:
        """Whether the origin side held first may be pruned too, where the mirror holds a page
        the crawl fetched and followed: the two were crawled side by side, so which was held
        first was a coin flip, or the origin was shown partial (``origin_partial``), or held
        first passed to it from a mirror crawled first and shown partial (``turned_by_absence``:
        what that mirror fetched before the turn stands; the eighth holdout web's guide, in
        breadth-first order, was otherwise fetched whole after a library's partial copy of it,
        700 pages); every sample matched (``precedence.py`` says when)."""
        return (
            (self.side_by_side or self.origin_partial or self.turned_by_absence)
            and not self.mirror_held_first
            and self.exchangeable
            and self.mirror_stands_for_origin
        )

    @property
    def exchangeable(self) -> bool:
        """Nothing names the mirror the copy, nor an older release, and every checked sample
        matched: the evidence a side held first needs before it is pruned, and a mirror's page
        needs to stand for its origin's (a stale copy's page may be the older text)."""
        return not self.copy_named and not self.mirror_older and self.faithful

    @property
    def faithful(self) -> bool:
        """Every checked sample matched: a copy that altered a sampled page may alter others."""
        return self.matches == self.checked

    def encode(self) -> bytes:
        head = _RULE_HEAD.pack(
            self.created_at,
            MODES.index(self.mode),
            self.checked,
            self.matches,
            self.missing,
            self.level,
        )
        # most rules have no flag and probe no code: their values end with the sides
        flags = (
            (_MIRROR_HELD_FIRST if self.mirror_held_first else 0)
            | (_COPY_NAMED if self.copy_named else 0)
            | (_SIDE_BY_SIDE if self.side_by_side else 0)
            | (_ORIGIN_LACKS if self.origin_lacks else 0)
            | (_MIRROR_OLDER if self.mirror_older else 0)
            | (_TURNED_BY_ABSENCE if self.turned_by_absence else 0)
            | (_ABSENCES if self.absences else 0)
            | (_ORIGIN_PARTIAL if self.origin_partial else 0)
        )
        tail = bytes([flags, min(self.code_probes, 255)])
        tail += bytes([min(self.absences, 255)]) if self.absences else b""
        tail = tail + _texts(self.through) if self.through else tail.rstrip(b"\0")
        return head + self._encode_sides() + tail

    @classmethod
    def decode(cls, data: bytes) -> Rule:
        created_at, mode, checked, matches, missing, level = _RULE_HEAD.unpack_from(data)
        sides, bare, offset = _read_sides(data, _RULE_HEAD.size)
        flags = data[offset] if len(data) > offset else 0
        absences = data[offset + 2] if flags & _ABSENCES else 0
        texts = offset + (3 if flags & _ABSENCES else 2)
        through = _read_texts(data, texts, 1)[0][0] if len(data) > texts else ""
        return cls(
            *sides,
            created_at,
            MODES[mode],
            checked,
            matches,
            missing,
            level,
            bool(flags & _MIRROR_HELD_FIRST),
            bool(flags & _COPY_NAMED),
            data[offset + 1] if len(data) > offset + 1 else 0,
            bool(flags & _SIDE_BY_SIDE),
            through,
            bool(flags & _ORIGIN_LACKS),
            bool(flags & _MIRROR_OLDER),
            bool(flags & _TURNED_BY_ABSENCE),
            absences,
            bool(flags & _ORIGIN_PARTIAL),
            **bare,
        )
