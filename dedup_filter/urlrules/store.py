"""The URL rules' tables and their key layout (the sibling of ``mirrors/store.py``).

Tables:
    url_rules    "r" host NUL kind name -> UrlRule   confirmed rules, the ones ``check_url`` reads
                 "c" host NUL kind name -> UrlRule   open candidates and dead rules (tombstones:
                                                    a dead rule is never learnt again)
                 "n" kind name NUL host -> ""         the hosts that confirmed a rule of this kind
                                                    and name (a rule learnt elsewhere is a
                                                    well-known candidate on a new host)
    url_aliases  H(class key) -> page id            the held page standing for an alias class,
                                                    filed when it is kept (or first met as the
                                                    held side of a pair); validated on read, so a
                                                    row whose page ``gc`` deleted is ignored

Invariant: a rule lives under exactly one of its two keys; hosts are lower-cased authorities.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from dedup_filter.features.hashing import hash64
from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id
from dedup_filter.urlrules.records import CONFIRMED, UrlRule
from dedup_filter.urlrules.rewrite import RuleKey

_U64 = struct.Struct(">Q")
_ALIAS_SEED = 0xA11A5
_NUL = b"\x00"
_CONFIRMED, _OTHER, _NAMED = b"r", b"c", b"n"


def _host_prefix(state_prefix: bytes, host: str) -> bytes:
    return state_prefix + host.encode("utf-8", "surrogatepass") + _NUL


def _key(state_prefix: bytes, key: RuleKey) -> bytes:
    name = key.name.encode("utf-8", "surrogatepass")
    return _host_prefix(state_prefix, key.host) + bytes([key.kind]) + name


def _named_prefix(kind: int, name: str) -> bytes:
    return _NAMED + bytes([kind]) + name.encode("utf-8", "surrogatepass") + _NUL


def alias_key(class_key: str) -> bytes:
    return _U64.pack(hash64(class_key, _ALIAS_SEED))


class UrlRuleStore:
    """Typed access to the URL-rule tables inside one transaction."""

    def __init__(self, view: IndexView) -> None:
        self.view = view

    def rule(self, key: RuleKey) -> UrlRule | None:
        for prefix in (_CONFIRMED, _OTHER):
            data = self.view.get("url_rules", _key(prefix, key))
            if data is not None:
                return UrlRule.decode(data)
        return None

    def put(self, rule: UrlRule) -> None:
        """Store ``rule`` under the key of its state (moving it when its state changed)."""
        here, other = (_CONFIRMED, _OTHER) if rule.state == CONFIRMED else (_OTHER, _CONFIRMED)
        if self.view.get("url_rules", _key(other, rule.key)) is not None:
            self.view.delete("url_rules", _key(other, rule.key))
        self.view.put("url_rules", _key(here, rule.key), rule.encode())
        named = _named_prefix(rule.key.kind, rule.key.name) + rule.key.host.encode(
            "utf-8", "surrogatepass"
        )
        if rule.state == CONFIRMED:
            self.view.put("url_rules", named, b"")
        elif self.view.get("url_rules", named) is not None:
            self.view.delete("url_rules", named)

    def confirming_hosts(self, kind: int, name: str, limit: int) -> list[str]:
        """Up to ``limit`` hosts with a confirmed rule of this kind and name."""
        prefix = _named_prefix(kind, name)
        hosts = []
        for key, _ in self.view.scan("url_rules", prefix):
            hosts.append(bytes(key[len(prefix) :]).decode("utf-8", "surrogatepass"))
            if len(hosts) >= limit:
                break
        return hosts

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
        return [UrlRule.decode(value) for _, value in self.view.scan("url_rules", prefix)]

    # aliases
    def alias(self, class_key: str) -> int | None:
        data = self.view.get("url_aliases", alias_key(class_key))
        return None if data is None else decode_id(data)

    def put_alias(self, class_key: str, page_id: int) -> None:
        self.view.put("url_aliases", alias_key(class_key), encode_id(page_id))
