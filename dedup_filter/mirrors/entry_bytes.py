"""The bytes of a ``dirs`` entry: most entries are a kept page's own, under each of its ancestor
directories, and repeat what the page's record holds, so they are stored as a reference to it.

A value is ``varint(form) varint(representative)``, then what the form does not take from the
representative's record, then the role and linked hosts when there are any:

- ``form = 4 * tail + 3``: the representative's own URL (a kept page): the exact hash is its
  record's, the relative path the last ``tail`` characters of its URL (about 5 bytes in all);
- ``form = 4 * tail + 2``: the representative's URL ends with the relative path (a copy at the
  same relative path of another host): the 8-byte exact hash follows;
- ``form = 0``: the exact hash, ``varint(length)`` and the relative path in UTF-8 follow.

A page's own entry that is ordinary and links no host is not stored here at all but as the key
alone, a posting of its page (``told_by_record``, ``MirrorStore``): about a third of the bytes.
A near-duplicate drop's entry ends with its own length in tokens (``varint`` after the linked
hosts; an entry written before it was kept ends at the hosts and reads as length not recorded),
an index page's with the release numbers it names after that length (``varint(count)``, then each
as ``varint(parts)`` and its numbers as varints; an entry written before them ends earlier), and an
index page standing under another side's page with ``varint(met)`` after its releases (the page
id the crawl had reached when it met the page; an entry without it ends at its releases), and one
that declares its language with that language after ``met`` (its letters, five bits each, as a
``varint``; ``met`` is then written, 0 when not recorded). The
role's byte carries ``_BARE_NAMES`` for an index page that names its documents bare,
``_HTM_NAMES`` for one that names them ``.htm``, and ``_LISTS_FEW`` for one that lists a small
closed world.

Why the own form stays right: a page's record changes only when the page itself is fetched again,
and then its entries are recorded again with the record's new exact hash. A page id is never
reused for another URL, so the tail of a record's URL is the tail it had. An entry whose record
is gone (``gc``) reads as absent until ``forget_orphans`` deletes it.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Callable

from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.index.varints import decode_varint, encode_varint
from dedup_filter.mirrors.records import ORDINARY, DirEntry

_U64 = struct.Struct(">Q")
_OWN, _TAIL = 1, 2
_BARE_NAMES = 0x80  # a bit of the role's byte (roles are small numbers)
_LISTS_FEW = 0x40  # another bit of it (``DirEntry.lists_few``)
_HTM_NAMES = 0x20  # and another (``DirEntry.htm_names``)
_FLAGS = _BARE_NAMES | _LISTS_FEW | _HTM_NAMES


def encode_entry(entry: DirEntry, record: PageRecord | None, url_key: str) -> bytes:
    """The value of ``entry``, the entry of the page whose URL lower-cased is ``url_key``;
    ``record`` is its representative's record (None if it has none)."""
    form, rest = 0, _U64.pack(entry.exact)
    if record is not None and record.url.endswith(entry.relative):
        form = 4 * len(entry.relative) + _TAIL
        if record.exact == entry.exact and record.url.lower() == url_key:
            form, rest = form | _OWN, b""
    if not form & _TAIL:
        path = entry.relative.encode("utf-8", "surrogatepass")
        rest += encode_varint(len(path)) + path
    head = encode_varint(form) + encode_varint(entry.representative) + rest
    return head + _trailer(entry, _own_length(entry, record))


def told_by_record(
    entry: DirEntry, record: PageRecord | None, directory_key: str, url_key: str
) -> bool:
    """Whether the record of ``entry``'s representative tells all of it (``recorded_entry``): the
    page's own entry under ``directory_key``, ordinary, linking no host."""
    return (
        record is not None
        and entry.role == ORDINARY
        and not entry.bare_names
        and not entry.htm_names
        and not entry.lists_few
        and not entry.linked_hosts
        and not entry.releases
        and not entry.language
        and record.exact == entry.exact
        and record.url.lower() == url_key
        and record.url[len(directory_key) :] == entry.relative
    )


def recorded_entry(record: PageRecord | None, directory_key: str) -> DirEntry | None:
    """The entry a page's record tells under one of its directories; None when it is gone."""
    if record is None:
        return None
    return DirEntry(record.page_id, record.exact, record.url[len(directory_key) :])


def representative_of(data: bytes) -> int:
    return decode_varint(data, decode_varint(data)[1])[0]


def decode_entry(data: bytes, page: Callable[[int], PageRecord | None]) -> DirEntry | None:
    """The entry in ``data``; None when it refers to a record that is gone."""
    form, offset = decode_varint(data)
    representative, offset = decode_varint(data, offset)
    exact = 0
    if not form & _OWN:
        (exact,) = _U64.unpack_from(data, offset)
        offset += _U64.size
    if form & _TAIL:
        record, tail = page(representative), form >> 2
        if record is None or len(record.url) < tail:
            return None
        relative = record.url[len(record.url) - tail :]
        if form & _OWN:
            exact = record.exact
    else:
        size, offset = decode_varint(data, offset)
        offset += size
        relative = data[offset - size : offset].decode("utf-8", "surrogatepass")
    if offset >= len(data):
        return DirEntry(representative, exact, relative)
    role, hosts, length, releases, met, language = _trailer_fields(data[offset:])
    return DirEntry(
        representative, exact, relative, role & ~_FLAGS, hosts, length, releases, met,
        bare_names=bool(role & _BARE_NAMES),
        lists_few=bool(role & _LISTS_FEW),
        htm_names=bool(role & _HTM_NAMES),
        language=language,
    )  # fmt: skip


def _own_length(entry: DirEntry, record: PageRecord | None) -> int:
    """The length to store: a near-duplicate drop's own (its representative's is another
    page's); 0 for a page its record tells all of (itself, or an exact duplicate)."""
    return 0 if record is not None and record.exact == entry.exact else entry.token_count


def _trailer(entry: DirEntry, length: int) -> bytes:
    flags = (
        (_BARE_NAMES if entry.bare_names else 0)
        | (_LISTS_FEW if entry.lists_few else 0)
        | (_HTM_NAMES if entry.htm_names else 0)
    )
    extras = entry.linked_hosts or length or entry.releases or entry.met or entry.language or flags
    if entry.role == ORDINARY and not extras:
        return b""
    hosts = b"".join(_U64.pack(host) for host in entry.linked_hosts)
    role = entry.role | flags
    trailer = bytes([role]) + encode_varint(len(entry.linked_hosts)) + hosts
    if not entry.releases and not entry.met and not entry.language:
        return trailer + (encode_varint(length) if length else b"")
    releases = b"".join(
        encode_varint(len(release)) + b"".join(map(encode_varint, release))
        for release in entry.releases
    )
    met = encode_varint(entry.met) if entry.met or entry.language else b""
    if entry.language:
        met += encode_varint(_language_number(entry.language))
    return trailer + encode_varint(length) + encode_varint(len(entry.releases)) + releases + met


@functools.lru_cache(maxsize=8192)
def _trailer_fields(
    trailer: bytes,
) -> tuple[int, tuple[int, ...], int, tuple[tuple[int, ...], ...], int, str]:
    """The role, linked hosts, length, releases, meeting and language a trailer holds: decoded
    once a process, as an index page's long list of releases is read by every check under its
    directory."""
    role = trailer[0]
    count, offset = decode_varint(trailer, 1)
    hosts = tuple(
        _U64.unpack_from(trailer, offset + _U64.size * number)[0] for number in range(count)
    )
    offset += _U64.size * count
    length = 0
    if offset < len(trailer):
        length, offset = decode_varint(trailer, offset)
    releases, met, language = (
        _read_numbers(trailer, offset) if offset < len(trailer) else ((), 0, "")
    )
    return role, hosts, length, releases, met, language


def _read_numbers(data: bytes, offset: int) -> tuple[tuple[tuple[int, ...], ...], int, str]:
    """The releases written from ``offset`` (a count, then each one's count and numbers), the
    meeting after them (0 when the entry ends at its releases) and the language after that
    ("" when it ends before)."""
    numbers = []
    while offset < len(data):
        number, offset = decode_varint(data, offset)
        numbers.append(number)
    releases, at = [], 1
    for _ in range(numbers[0]):
        releases.append(tuple(numbers[at + 1 : at + 1 + numbers[at]]))
        at += 1 + numbers[at]
    met = numbers[at] if at < len(numbers) else 0
    language = _language_code(numbers[at + 1]) if at + 1 < len(numbers) else ""
    return tuple(releases), met, language


def _language_number(code: str) -> int:
    """A language code's letters as a number, five bits each (``en``: 2 bytes as a varint)."""
    number = 0
    for letter in code:
        number = number << 5 | (ord(letter) - 96)
    return number


def _language_code(number: int) -> str:
    letters = []
    while number:
        letters.append(chr((number & 31) + 96))
        number >>= 5
    return "".join(reversed(letters))
