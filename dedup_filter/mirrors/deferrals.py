"""URLs that wait for their counterpart's fate, and counterparts known to be absent.

A rule drops a URL only when its counterpart under the origin is held; a URL whose counterpart
is not known yet is *deferred*: remembered here until the counterpart is fetched (the URL is
then dropped), reported missing (the URL is then fetched) or the URL waited too long (fetched).
Invariant: a deferred URL's row stays until the caller releases it, after acting on its final
decision: a crash in between gives the decision again (at least once, never lost).

Table ``deferred``:
    "d" H(url) -> since (float), url, counterpart      a deferred URL
    "a" H(url) -> status (0: unknown), url            a counterpart reported failed: not fetched
                                                     (404, an error), or fetched but no page to
                                                     check (a 2xx file: the crawl holds it)
    "p" H(url) -> ""                                  a page that arrived as a probe: its links
                                                     may never have been followed
    "m" H(url) -> ""                                  a page moved: answered with a redirect to
                                                     another document of its host
    "t" kind rule -> answered, absent (two u32)       the probes of one kind a rule asked for (the
                                                     rule named by ``store.directory_name`` of its
                                                     mirror): how many came as pages, how many
                                                     were 404s or 410s; kind 0xFF: the counterpart
                                                     probes asked into one directory; kind 0xFE:
                                                     the fetches of one host's names of one
                                                     extension (``name_tally``)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, replace

from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.mirrors.directories import parent_directory
from dedup_filter.mirrors.store import MirrorStore, directory_name, url_hash

_SINCE = struct.Struct(">d")
_STATUS = struct.Struct(">H")
_LENGTH = struct.Struct(">I")
_TALLY = struct.Struct(">IIII")  # answered, absent, asked, failed otherwise
_FEW_ABSENCES = 8  # probes of a kind answered with a 404 or 410 before they are mostly absent
_ABSENCES_PER_PAGE = 3  # ... and that many times the probes answered with a page
_WAITING, _ABSENT, _PROBED, _MOVED, _TALLIED = b"d", b"a", b"p", b"m", b"t"
_SECTION = 0xFF  # the kind of a directory's tally of the counterpart probes asked into it
_NAMES = 0xFE  # the kind of a host's tally of the fetches of its names of one extension


@dataclass(frozen=True, slots=True)
class ProbeTally:
    """What a rule's probes of one kind found: pages, or 404s and 410s."""

    answered: int = 0
    absent: int = 0
    asked: int = 0  # counted since the fields after ``absent`` were added
    failed: int = 0  # otherwise (a 5xx, a timeout): nothing said of the side probed

    @property
    def in_flight(self) -> int:
        return max(0, self.asked - self.answered - self.absent - self.failed)

    @property
    def awaiting_answers(self) -> bool:
        """Whether as many probes as could tell the kind mostly absent are in flight, before
        that many were answered: any more would be asked blind. A copy crawled first is read
        an index page at a time, so every page of a renamed section had its counterpart probed
        before the first 404 came back (SQLite's C reference so copied: 84 probes, all 404s)."""
        return self.answered + self.absent < _FEW_ABSENCES <= self.in_flight

    @property
    def mostly_absent(self) -> bool:
        """Whether the probes mostly found no page: the side probed does not hold the other's
        pages under their names (a copy whose files were renamed: upper-cased, another
        extension; a mirror holding a small part of its origin), so each further probe would
        likely cost a 404 too. A partial copy lacking a third of the pages is far from it."""
        return self.absent >= _FEW_ABSENCES and self.absent >= _ABSENCES_PER_PAGE * self.answered


@dataclass(frozen=True, slots=True)
class Deferred:
    """A URL under a rule, waiting since ``since`` for the fate of ``counterpart``."""

    url: str
    counterpart: str
    since: float


def _text(value: str) -> bytes:
    data = value.encode("utf-8", "surrogatepass")
    return _LENGTH.pack(len(data)) + data


def _tally_key(rule: bytes, kind: int) -> bytes:
    return _TALLIED + bytes([kind]) + rule


def _section(url: str) -> bytes:
    path = url.partition("?")[0]
    return directory_name(parent_directory(path) or path)


def _names(url: str) -> bytes:
    """A host and the extension of the file ``url`` names (``fr`` of ``core.html.fr``)."""
    path = url.partition("?")[0].partition("#")[0]
    host, _, rest = path.partition("://")[2].partition("/")
    name = rest.rpartition("/")[2]
    extension = name.rpartition(".")[2] if "." in name else ""
    return f"{host.lower()}\n{extension.lower()}".encode("utf-8", "surrogatepass")


def _read_text(data: bytes, offset: int) -> tuple[str, int]:
    (size,) = _LENGTH.unpack_from(data, offset)
    start = offset + _LENGTH.size
    return data[start : start + size].decode("utf-8", "surrogatepass"), start + size


class Deferrals:
    """Typed access to the ``deferred`` table inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    def defer(self, url: str, counterpart: str, now: float) -> None:
        """Remember ``url`` as waiting (since the first time it was deferred)."""
        key = _WAITING + url_hash(url)
        if self.view.get("deferred", key) is None:
            value = _SINCE.pack(now) + _text(url) + _text(counterpart)
            self.view.put("deferred", key, value)

    def waiting(self) -> Iterator[Deferred]:
        """Every deferred URL, in the hash order of their URLs."""
        for _, value in list(self.view.scan("deferred", _WAITING)):
            (since,) = _SINCE.unpack_from(value)
            url, offset = _read_text(value, _SINCE.size)
            counterpart, _ = _read_text(value, offset)
            yield Deferred(url, counterpart, since)

    def any_waiting(self) -> bool:
        return next(iter(self.view.scan("deferred", _WAITING)), None) is not None

    def release(self, url: str) -> None:
        self.view.delete("deferred", _WAITING + url_hash(url))

    def mark_absent(self, url: str, status: int | None) -> None:
        """Remember that ``url`` was reported failed with ``status``: what waits for it is
        fetched instead, unless the status says the crawl fetched it (2xx)."""
        self.view.put(
            "deferred",
            _ABSENT + url_hash(url),
            _STATUS.pack(min(max(status or 0, 0), 0xFFFF)) + _text(url),
        )

    def absent(self, url: str) -> int | None:
        """The status ``url`` was reported failed with (0 when unknown), or None."""
        value = self.view.get("deferred", _ABSENT + url_hash(url))
        return None if value is None else _STATUS.unpack_from(value)[0]

    def mark_moved(self, url: str) -> None:
        """Remember that ``url`` redirects to another document of its host: its page moved, so
        its side does not lack it (``detector._origin_lacking``)."""
        self.view.put("deferred", _MOVED + url_hash(url), b"")

    def moved(self, url: str) -> bool:
        return self.view.get("deferred", _MOVED + url_hash(url)) is not None

    def mark_probed(self, url: str) -> None:
        """Remember that ``url`` arrived while a probe of it was outstanding, or that a probe of
        it was withdrawn in flight: the crawler may never have followed its links (a probe's
        answer goes to the filter, not the spider)."""
        self.view.put("deferred", _PROBED + url_hash(url), b"")

    def probed(self, url: str) -> bool:
        return self.view.get("deferred", _PROBED + url_hash(url)) is not None

    def crawled(self, url: str) -> None:
        """``url``'s page, fetched as a probe, was handed to the crawler's spider after all."""
        self.view.delete("deferred", _PROBED + url_hash(url))

    def tally(self, rule: bytes, kind: int) -> ProbeTally:
        """The probes of ``kind`` (``store.COUNTERPART_PROBE``, ...) that ``rule`` (named as its
        probes name it: ``store.directory_name`` of its mirror) asked for."""
        value = self.view.get("deferred", _tally_key(rule, kind))
        if value is None:
            return ProbeTally()
        return ProbeTally(*_TALLY.unpack(bytes(value).ljust(_TALLY.size, b"\0")))  # or 2 fields

    def section_tally(self, url: str) -> ProbeTally:
        """The counterpart probes asked into the directory holding ``url``, by any rule: where
        a copy renamed a section, each of them finds no page."""
        return self.tally(_section(url), _SECTION)

    def count_section_probe(self, url: str, outcome: str) -> None:
        """``count_probe`` for the directory holding ``url``, a counterpart probed."""
        self.count_probe(_section(url), _SECTION, outcome)

    def name_tally(self, url: str) -> ProbeTally:
        """What the crawl's fetches of ``url``'s host's names of its extension found: pages
        (``answered``, counted from the first absence on) or 404s and 410s (``absent``). A copy
        that kept a negotiated manual's English pages links the manual's ``core.html.fr`` and
        answers each with a 404."""
        return self.tally(_names(url), _NAMES)

    def count_name(self, url: str, outcome: str) -> None:
        """``count_probe`` for ``url``'s host's names of its extension: found absent, or a page
        fetched once one of them was (a read a page, no write: the pages before the first
        absence go uncounted, so a host that served such names and then broke eight links of
        them reads as lacking them, and its names wait for a mirror's page that stands for
        them)."""
        names = _names(url)
        before = self.tally(names, _NAMES)
        if outcome != "answered" or before.absent:  # no absence yet: no row to count in
            self._put_tally(names, _NAMES, before, outcome)

    def count_probe(self, rule: bytes, kind: int, outcome: str) -> None:
        """One more probe of that rule and kind ``asked``, or ``answered`` with a page,
        ``absent`` (a 404 or 410) or ``failed`` otherwise (the fields of ``ProbeTally``)."""
        self._put_tally(rule, kind, self.tally(rule, kind), outcome)

    def _put_tally(self, rule: bytes, kind: int, before: ProbeTally, outcome: str) -> None:
        after = replace(before, **{outcome: getattr(before, outcome) + 1})
        counts = (after.answered, after.absent, after.asked, after.failed)
        self.view.put("deferred", _tally_key(rule, kind), _TALLY.pack(*counts))


def lacks_directory(store: MirrorStore, directory: str, index_url: str) -> bool:
    """Whether a side lacks ``directory``: ``index_url``, its index page, failed (a 404) and no
    page under it is held. One that holds pages has no index file of that name, that is all
    (Javadoc's package directories)."""
    status = Deferrals(store.view).absent(index_url)
    if status is None or 200 <= status < 300:
        return False
    return next(store.subtree(directory.lower()), None) is None
