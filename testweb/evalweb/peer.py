"""A peer to compare with: a plain datasketch MinHashLSH filter as a Scrapy downloader middleware.

It does what datasketch's documentation shows, on every page the crawl downloads: a MinHash of
the page's 8-token shingles, a query of a MinHashLSH (threshold 0.8, the scorer's near-duplicate
line), then an insert; a page that matches an earlier one is dropped (``IgnoreRequest``), so its
links are not followed, as the filter drops a near-duplicate. It knows nothing of mirrors or URLs.
Enable it with ``DOWNLOADER_MIDDLEWARES = {"testweb.evalweb.peer.MinHashLshPeer": 540}``;
``PEER_DECISION_LOG`` names a file where each drop is written as the filter's decision log writes
one (``url``, ``action``, ``reason``, ``duplicate_of``), for the scorer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasketch import MinHash, MinHashLSH
from scrapy.exceptions import IgnoreRequest
from scrapy.http import TextResponse

from .shingles import page_shingles

NUM_PERM = 128
THRESHOLD = 0.8


class MinHashLshPeer:
    def __init__(self, decision_log: str | None = None) -> None:
        self._lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
        self._log = Path(decision_log) if decision_log else None

    @classmethod
    def from_crawler(cls, crawler: Any) -> MinHashLshPeer:
        return cls(crawler.settings.get("PEER_DECISION_LOG"))

    def process_response(self, request: Any, response: Any, spider: Any) -> Any:
        if not isinstance(response, TextResponse) or response.status != 200:
            return response
        minhash = MinHash(num_perm=NUM_PERM)
        minhash.update_batch([shingle.encode() for shingle in page_shingles(response.body)])
        matches = self._lsh.query(minhash)
        if matches:
            self._write(response.url, min(matches))
            message = f"near-duplicate by MinHashLSH: {response.url}"
            raise IgnoreRequest(message)
        if response.url not in self._lsh:  # a page fetched twice (a retry) is inserted once
            self._lsh.insert(response.url, minhash)
        return response

    def _write(self, url: str, duplicate_of: str) -> None:
        if self._log is not None:
            decision = {
                "url": url,
                "action": "drop",
                "reason": "near_duplicate",
                "duplicate_of": duplicate_of,
            }
            with self._log.open("a", encoding="utf-8") as stream:
                stream.write(json.dumps(decision) + "\n")
