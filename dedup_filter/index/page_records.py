"""What the index keeps of a kept page, and its bytes in the ``pages`` table.

Invariant: the record holds everything the postings of the page were derived from (exact hash,
super-shingles, simhash, URL), so replacing or deleting a page removes exactly its postings, and
the b-bit sketch that verifies a near-duplicate's resemblance (``matching``).
Super-shingles are kept in their first ``FEATURE_BYTES`` bytes, as their postings are (the rest
reads as zero bits): two pages share a super-shingle when those bytes agree.
``last_seen`` is kept in whole seconds, rounded up: ``gc`` never removes a page seen after its
cutoff (a page seen less than a second before the cutoff may survive one more sweep).
The URL's scheme is one byte (``_SCHEMES``), its host a number (``hosts``), the token count a
varint; the title and code hashes are kept only when there are any (a flag each).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, replace
from typing import Protocol

from dedup_filter.index.varints import decode_varint, encode_varint

# exact hash, last seen (s), flags, super-shingles, simhash bytes, sketch bytes; then the title
# and code hashes (when flagged), the token count (varint), the super-shingles, simhash, sketch,
# and the URL: scheme code, then the host's number (varint) and the rest, or the URL as it is
_HEAD = struct.Struct(">QIBBBB")
_HASH = struct.Struct(">I")
# flags: the record keeps a title hash, a code hash; its text does not bear out its title
_TITLE, _CODE, _TITLE_APART = 1, 2, 4
_MAX_SECONDS = (1 << 32) - 1
FEATURE_BYTES = 5
_FEATURE_SHIFT = 64 - 8 * FEATURE_BYTES
_SCHEMES = ("", "http://", "https://")  # code 0: the URL as it is


class HostNames(Protocol):
    """Hosts as numbers (``hosts.HostNumbers``)."""

    def number(self, host: str) -> int | None: ...

    def name(self, number: int) -> str: ...


def kept_feature(feature: int) -> int:
    """A super-shingle as a record keeps it (its low bits cleared)."""
    return feature >> _FEATURE_SHIFT << _FEATURE_SHIFT


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What the index keeps of a kept page."""

    page_id: int
    url: str
    exact: int
    token_count: int
    features: tuple[int, ...]
    simhash: bytes
    last_seen: float
    title: int = 0  # 32-bit hash of the title's words, 0 without a title (``Fingerprint.title``)
    sketch: bytes = b""  # the b-bit min-hash sketch (``Fingerprint.sketch``)
    code: int = 0  # 32-bit hash of its code blocks' words, 0 without any (``Fingerprint.code``)
    title_apart: bool = False  # its text does not bear out its title (``Fingerprint.title_apart``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", tuple(map(kept_feature, self.features)))

    def as_stored(self) -> PageRecord:
        """The record as ``decode`` reads its encoding back (``last_seen`` in whole seconds), made
        without encoding it: a write transaction reads the records it stores (a directory entry's
        representative) again."""
        return replace(self, last_seen=float(_stored_seconds(self.last_seen)))

    def encode(self, hosts: HostNames) -> bytes:
        seen = _stored_seconds(self.last_seen)
        flags = (_TITLE if self.title else 0) | (_CODE if self.code else 0)
        flags |= _TITLE_APART if self.title_apart else 0
        head = _HEAD.pack(
            self.exact, seen, flags, len(self.features), len(self.simhash), len(self.sketch)
        )
        head += _HASH.pack(self.title) if self.title else b""
        head += _HASH.pack(self.code) if self.code else b""
        features = b"".join(
            (feature >> _FEATURE_SHIFT).to_bytes(FEATURE_BYTES, "big") for feature in self.features
        )
        body = features + self.simhash + self.sketch
        return head + encode_varint(self.token_count) + body + _encode_url(self.url, hosts)

    @classmethod
    def decode(cls, page_id: int, data: bytes | memoryview, hosts: HostNames) -> PageRecord:
        exact, last_seen, flags, n_features, n_simhash, n_sketch = _HEAD.unpack_from(data)
        start = _HEAD.size
        title = code = 0
        if flags & _TITLE:
            (title,), start = _HASH.unpack_from(data, start), start + _HASH.size
        if flags & _CODE:
            (code,), start = _HASH.unpack_from(data, start), start + _HASH.size
        token_count, start = decode_varint(data, start)
        features = tuple(
            int.from_bytes(data[offset : offset + FEATURE_BYTES], "big") << _FEATURE_SHIFT
            for offset in range(start, start + FEATURE_BYTES * n_features, FEATURE_BYTES)
        )
        start += FEATURE_BYTES * n_features
        simhash = bytes(data[start : start + n_simhash])
        start += n_simhash
        sketch = bytes(data[start : start + n_sketch])
        url = _decode_url(bytes(data[start + n_sketch :]), hosts)
        return cls(
            page_id,
            url,
            exact,
            token_count,
            features,
            simhash,
            float(last_seen),
            title,
            sketch,
            code,
            bool(flags & _TITLE_APART),
        )


def _stored_seconds(last_seen: float) -> int:
    return min(max(math.ceil(last_seen), 0), _MAX_SECONDS)


def stored_simhash(data: bytes | memoryview) -> bytes:
    """The simhash of an encoded record, read without decoding the rest: a near-duplicate search
    screens its candidates by it (``matching.find_near``)."""
    _, _, flags, n_features, n_simhash, _ = _HEAD.unpack_from(data)
    start = _HEAD.size + _HASH.size * (bool(flags & _TITLE) + bool(flags & _CODE))
    start = decode_varint(data, start)[1] + FEATURE_BYTES * n_features
    return bytes(data[start : start + n_simhash])


def _encode_url(url: str, hosts: HostNames) -> bytes:
    code = next((code for code in range(1, len(_SCHEMES)) if url.startswith(_SCHEMES[code])), 0)
    rest = url[len(_SCHEMES[code]) :]
    end = min((at for at in map(rest.find, "/?#") if at >= 0), default=len(rest))
    number = hosts.number(rest[:end]) if code else None
    if number is None:
        return b"\x00" + url.encode("utf-8", "surrogatepass")
    return bytes([code]) + encode_varint(number) + rest[end:].encode("utf-8", "surrogatepass")


def _decode_url(data: bytes, hosts: HostNames) -> str:
    if not data[0]:
        return data[1:].decode("utf-8", "surrogatepass")
    number, start = decode_varint(data, 1)
    return _SCHEMES[data[0]] + hosts.name(number) + data[start:].decode("utf-8", "surrogatepass")
