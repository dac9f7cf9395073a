"""A URL rule's record: its state and the evidence for and against it, and its bytes.

Invariant: values are ``struct``-packed, big-endian, with length-prefixed UTF-8 strings (lone
surrogates kept), never pickle; the evidence a record keeps is bounded (``MAX_SUPPORT`` hashes,
``MAX_VALUES`` values), so a rule costs a few hundred bytes however often it is supported.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace

from dedup_filter.config import MAX_SUPPORT
from dedup_filter.features.hashing import hash64
from dedup_filter.urlrules.rewrite import RuleKey

_HEAD = struct.Struct(">BBIHHdd")  # state, kind, support, counterexamples, probes, created, changed
_U32 = struct.Struct(">I")
MAX_VALUES = 4
OPEN, CONFIRMED, DEAD = 0, 1, 2
STATE_NAMES = ("open", "confirmed", "dead")


def short_hash(text: str) -> int:
    """32 bits of a URL or pair: enough to tell a record's few distinct classes apart."""
    return hash64(text, 0x0A11A5) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class UrlRule:
    """A candidate, confirmed or dead rule with its evidence.

    ``support`` counts the distinct duplicate pairs it explains, ``classes`` the distinct canonical
    URLs among them (what confirmation counts: pairs of one page prove little), ``example`` is the
    last supporting pair, or the counterexample that killed it (alias URL, held URL).
    """

    key: RuleKey
    state: int = OPEN
    support: int = 0
    counterexamples: int = 0
    probes_asked: int = 0
    created_at: float = 0.0
    changed_at: float = 0.0  # when it was confirmed or killed
    classes: tuple[int, ...] = ()
    pairs: tuple[int, ...] = ()
    values: tuple[str, ...] = ()
    example: tuple[str, str] = ("", "")

    def supported(self, alias: str, held: str, canonical: str, values: tuple[str, ...]) -> UrlRule:
        """The record after one more duplicate pair (the same pair again counts once)."""
        pair = short_hash(f"{alias}\n{held}")
        if pair in self.pairs:
            return self
        seen = tuple(dict.fromkeys((*self.values, *values)))[-MAX_VALUES:]
        return replace(
            self,
            support=self.support + 1,
            pairs=_bounded(self.pairs, pair),
            classes=_bounded(self.classes, short_hash(canonical)),
            values=seen,
            example=(alias, held),
        )

    def encode(self) -> bytes:
        head = _HEAD.pack(
            self.state,
            self.key.kind,
            self.support,
            self.counterexamples,
            self.probes_asked,
            self.created_at,
            self.changed_at,
        )
        hashes = b"".join(
            bytes([len(found)]) + b"".join(_U32.pack(item) for item in found)
            for found in (self.classes, self.pairs)
        )
        texts = (self.key.host, self.key.name, *self.example, *self.values)
        return head + hashes + bytes([len(self.values)]) + pack_texts(texts)

    @classmethod
    def decode(cls, data: bytes) -> UrlRule:
        state, kind, support, counterexamples, probes, created, changed = _HEAD.unpack_from(data)
        offset, hashes = _HEAD.size, []
        for _ in range(2):
            count = data[offset]
            hashes.append(struct.unpack_from(f">{count}I", data, offset + 1))
            offset += 1 + 4 * count
        value_count = data[offset]
        host, name, alias, held, *values = unpack_texts(data, offset + 1, 4 + value_count)
        return cls(
            RuleKey(host, kind, name),
            state,
            support,
            counterexamples,
            probes,
            created,
            changed,
            hashes[0],
            hashes[1],
            tuple(values),
            (alias, held),
        )


def _bounded(items: tuple[int, ...], item: int) -> tuple[int, ...]:
    return items if item in items or len(items) >= MAX_SUPPORT else (*items, item)


def pack_texts(values: tuple[str, ...]) -> bytes:
    encoded = (value.encode("utf-8", "surrogatepass") for value in values)
    return b"".join(_U32.pack(len(data)) + data for data in encoded)


def unpack_texts(data: bytes, offset: int, count: int) -> list[str]:
    texts = []
    for _ in range(count):
        (size,) = _U32.unpack_from(data, offset)
        offset += _U32.size + size
        texts.append(data[offset - size : offset].decode("utf-8", "surrogatepass"))
    return texts
