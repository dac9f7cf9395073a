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

# enough words for every feature (shingles, min-hash, simhash), a title, a link, a code block and
# a letter beyond ASCII (``text.lowered_token_spans`` builds its table)
_WARM_UP_URL = "http://warm-up.invalid/"
_WARM_UP_BODY = (
    b"<html><head><title>warm up</title></head><body><p>caf\xc3\xa9 "
    + b" ".join(b"term%d" % number for number in range(200))
    + b'</p><a href="page.html">a link</a><pre>code = 1</pre></body></html>'
)


@dataclass(frozen=True, slots=True)
class PreparedPage:
    """What is computed from a page before the write transaction starts: a plain value, so a
    worker process can compute it and send it back to the process that decides."""

    fingerprint: Fingerprint
    anchors: Anchors | None = None  # read in the same parse: the mirror detector's, or kept
    detector_reads_links: bool = False  # it learns from any link it is given (session ids)

    def links(self) -> Iterable[str]:
        """The page's links, resolved when the mirror detector reads them."""
        if self.anchors is None or not self.detector_reads_links:
            return ()
        return LazyLinks(self.fingerprint.url, self.anchors)

    def whole_anchors(self) -> Anchors | None:
        """The anchors read, unless the parse was cut anywhere (``Fingerprint.truncated``): they
        may then lack some of the page's."""
        return None if self.fingerprint.truncated else self.anchors


class PagePreparer:
    """Prepares pages under one configuration. It needs no index, so each process of a pool can
    hold one; build it from the deciding filter's ``config`` (features computed under another
    configuration would be compared with the index's as if they were alike)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.fingerprinter = Fingerprinter(config)
        self._mirrors = MirrorDetector(config)

    def prepare(
        self,
        url: str,
        body: bytes,
        headers: Mapping[Any, Any] | None = None,
        keep_anchors: bool = False,
    ) -> PreparedPage:
        """The page's fingerprint, and its anchors where they are read.

        Args:
            keep_anchors: read them even if the mirror detector does not (8 % more time a page):
                ``DedupFilter.links_to_follow`` then needs no second parse.
        """
        normal, body = normalize_url(url), body or b""
        wanted = self._mirrors.wants_links(normal)
        if not wanted and not keep_anchors:
            return PreparedPage(self.fingerprinter.fingerprint(normal, body, headers))
        releases = wanted and self._mirrors.is_index_page(normal)
        fingerprint, anchors = self.fingerprinter.fingerprint_with_anchors(
            normal, body, headers, releases
        )
        return PreparedPage(fingerprint, anchors, wanted)

    def warm_up(self) -> None:
        """Prepare a made-up page, so that the compiled kernels are loaded (numba's cache, about
        half a second of CPU a process) and the lazy imports done before the first real page
        waits for them."""
        self.prepare(_WARM_UP_URL, _WARM_UP_BODY)
