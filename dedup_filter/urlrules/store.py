"""The URL rules' tables and their key layout (the sibling of ``mirrors/store.py``).

Tables:
    url_rules    "r" host NUL kind name -> UrlRule   confirmed rules, the ones ``check_url`` reads
                 "c" host NUL kind name -> UrlRule   open candidates and dead rules (tombstones:
                                                    a dead rule is never learnt again)
                 "n" kind name NUL host -> ""         the hosts that confirmed a rule of this kind
                                                    and name (a rule learnt elsewhere is a
                                                    well-known candidate on a new host)
                 "s" kind name NUL host -> classes,   the hosts where a live rule (open or
                                           values   confirmed) of this kind and name has
                                                    support, its classes and values (a byte each)
                 "x" kind name NUL host -> ""         the hosts where a rule of this kind and
                                                    name died
                 "t" other NUL host NUL name -> ""    the live ``layout`` rules of ``host`` that
                                                    move its URLs onto the host ``other``
    url_aliases  H(class key) -> page id            the held page standing for an alias class,
                                                    filed when it is kept (or first met as the
                                                    held side of a pair); validated on read, so a
                                                    row whose page ``gc`` deleted is ignored

Invariant: a rule lives under exactly one of its two keys; hosts are lower-cased authorities.
"""

from __future__ import annotations

import functools
import struct
from collections.abc import Iterator

from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id
from dedup_filter.urlrules.layouts import layout_named
from dedup_filter.urlrules.records import CONFIRMED, DEAD, UrlRule
from dedup_filter.urlrules.rewrite import LAYOUT, RuleKey

_U64 = struct.Struct(">Q")
_ALIAS_SEED = 0xA11A5
_NUL = b"\x00"
_CONFIRMED, _OTHER, _NAMED, _SUPPORTED, _DIED = b"r", b"c", b"n", b"s", b"x"
_LAID_ONTO = b"t"


def _host_prefix(state_prefix: bytes, host: str) -> bytes:
    return state_prefix + host.encode("utf-8", "surrogatepass") + _NUL


def _key(state_prefix: bytes, key: RuleKey) -> bytes:
    name = key.name.encode("utf-8", "surrogatepass")
    return _host_prefix(state_prefix, key.host) + bytes([key.kind]) + name


def _named_prefix(mark: bytes, kind: int, name: str) -> bytes:
    return mark + bytes([kind]) + name.encode("utf-8", "surrogatepass") + _NUL


def alias_key(class_key: str) -> bytes:
    return _U64.pack(hash64(class_key, _ALIAS_SEED))


# a rule's value decoded once: every URL check reads its host's confirmed rules, and they change
# seldom (a ``UrlRule`` is frozen, so one decoding serves every reader)
_decoded = functools.lru_cache(maxsize=4096)(UrlRule.decode)


class UrlRuleStore:
    """Typed access to the URL-rule tables inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    def rule(self, key: RuleKey) -> UrlRule | None:
        for prefix in (_CONFIRMED, _OTHER):
            data = self.view.get("url_rules", _key(prefix, key))
            if data is not None:
                return _decoded(data)
        return None

    def put(self, rule: UrlRule) -> None:
        """Store ``rule`` under the key of its state (moving it when its state changed)."""
        here, other = (_CONFIRMED, _OTHER) if rule.state == CONFIRMED else (_OTHER, _CONFIRMED)
        if self.view.get("url_rules", _key(other, rule.key)) is not None:
            self.view.delete("url_rules", _key(other, rule.key))
        self.view.put("url_rules", _key(here, rule.key), rule.encode())
        # classes, then values: only the classes are read since values stopped being pooled
        # across hosts; the layout stays that of the indexes already written
        counts = bytes([min(len(rule.classes), 255), len(rule.values)])
        self._mark(_NAMED, rule.key, b"" if rule.state == CONFIRMED else None)
        self._mark(_SUPPORTED, rule.key, counts if rule.state != DEAD and rule.classes else None)
        self._mark(_DIED, rule.key, b"" if rule.state == DEAD else None)
        if rule.key.kind == LAYOUT:
            self._mark_laid_onto(rule)

    def _mark_laid_onto(self, rule: UrlRule) -> None:
        """File a live ``layout`` rule under the host it moves URLs onto (``laid_onto``)."""
        layout = layout_named(rule.key.name)
        if layout is None:
            return
        entry = _host_prefix(_LAID_ONTO, layout.authority) + _key(b"", rule.key)
        self._set(entry, b"" if rule.state != DEAD else None)

    def laid_onto(self, host: str) -> tuple[UrlRule, ...]:
        """The live ``layout`` rules of other hosts that move URLs onto ``host`` (read once a
        state of the rules: every page kept on ``host`` tests them)."""
        return self.view.memoised(("laid_onto", host), lambda: tuple(self._laid_onto(host)))

    def _laid_onto(self, host: str) -> Iterator[UrlRule]:
        prefix = _host_prefix(_LAID_ONTO, host)
        for entry, _ in self.view.scan("url_rules", prefix):
            owner, _, kind_name = bytes(entry[len(prefix) :]).partition(_NUL)
            name = kind_name[1:].decode("utf-8", "surrogatepass")
            rule = self.rule(RuleKey(owner.decode("utf-8", "surrogatepass"), LAYOUT, name))
            if rule is not None and rule.state != DEAD:
                yield rule

    def _mark(self, mark: bytes, key: RuleKey, value: bytes | None) -> None:
        """Set (or, with ``value`` None, clear) the host's entry under a kind-and-name index."""
        entry = _named_prefix(mark, key.kind, key.name) + key.host.encode("utf-8", "surrogatepass")
        self._set(entry, value)

    def _set(self, entry: bytes, value: bytes | None) -> None:
        """Put ``value`` under ``entry``; with None, delete the entry if it is there."""
        if value is not None:
            self.view.put("url_rules", entry, value)
        elif self.view.get("url_rules", entry) is not None:
            self.view.delete("url_rules", entry)

    def confirming_hosts(self, kind: int, name: str, limit: int) -> list[str]:
        """Up to ``limit`` hosts with a confirmed rule of this kind and name."""
        hosts = []
        for host, _ in self._marked(_NAMED, kind, name):
            hosts.append(host)
            if len(hosts) >= limit:
                break
        return hosts

    def supporting_hosts(self, kind: int, name: str) -> Iterator[tuple[str, int]]:
        """The hosts where a live rule of this kind and name has support, with its classes."""
        for host, value in self._marked(_SUPPORTED, kind, name):
            yield host, value[0]

    def died_anywhere(self, kind: int, name: str) -> bool:
        """Whether a rule of this kind and name died on some host."""
        return next(self._marked(_DIED, kind, name), None) is not None

    def _marked(self, mark: bytes, kind: int, name: str) -> Iterator[tuple[str, bytes]]:
        prefix = _named_prefix(mark, kind, name)
        for key, value in self.view.scan("url_rules", prefix):
            yield bytes(key[len(prefix) :]).decode("utf-8", "surrogatepass"), bytes(value)

    def confirmed(self, host: str) -> list[UrlRule]:
        return self._scan(_host_prefix(_CONFIRMED, host))

    def of_host(self, host: str) -> list[UrlRule]:
        """Every rule of ``host``: confirmed, open and dead."""
        return self.confirmed(host) + self.unconfirmed(host)

    def unconfirmed(self, host: str) -> list[UrlRule]:
        """The open and dead rules of ``host``."""
        return self._scan(_host_prefix(_OTHER, host))

    def every(self, with_candidates: bool = False) -> Iterator[UrlRule]:
        """Every confirmed rule (and every open or dead one with ``with_candidates``)."""
        yield from self._scan(_CONFIRMED)
        if with_candidates:
            yield from self._scan(_OTHER)

    def _scan(self, prefix: bytes) -> list[UrlRule]:
        return [_decoded(value) for _, value in self.view.scan("url_rules", prefix)]

    # aliases
    def alias(self, class_key: str) -> int | None:
        data = self.view.get("url_aliases", alias_key(class_key))
        return None if data is None else decode_id(data)

    def put_alias(self, class_key: str, page_id: int) -> None:
        self.view.put("url_aliases", alias_key(class_key), encode_id(page_id))
