"""Features computed outside the write transaction: a ``PagePreparer`` needs no index, so each
process of a pool can hold one and send its ``PreparedPage`` values to the process that decides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint, Fingerprinter
from dedup_filter.features.text import Anchors
from dedup_filter.mirrors.detector import MirrorDetector
from dedup_filter.mirrors.links import LazyLinks
from dedup_filter.urls import normalize_url


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """What is computed from a page before the write transaction starts: a plain value, so a
    worker process can compute it and send it back to the process that decides."""

    fingerprint: Fingerprint
    anchors: Anchors | None = None  # only for a page whose links the mirror detector reads

    def links(self) -> Iterable[str]:
        """The page's links, resolved when the mirror detector reads them."""
        return () if self.anchors is None else LazyLinks(self.fingerprint.url, self.anchors)


class PagePreparer:
    """Prepares pages under one configuration. It needs no index, so each process of a pool can
    hold one; build it from the deciding filter's ``config`` (features computed under another
    configuration would be compared with the index's as if they were alike)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.fingerprinter = Fingerprinter(config)
        self._mirrors = MirrorDetector(config)

    def prepare(
        self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None
    ) -> PreparedPage:
        normal, body = normalize_url(url), body or b""
        if not self._mirrors.wants_links(normal):
            return PreparedPage(self.fingerprinter.fingerprint(normal, body, headers))
        return PreparedPage(*self.fingerprinter.fingerprint_with_anchors(normal, body, headers))
