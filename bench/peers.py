"""The pipelines a user would build instead of dedup-filter, over the same parser and tokens.

Each peer sees the tokens our tokenizer produces (so the HTML parser's cost and behaviour are the
same on both sides) and does what its documentation shows: datasketch builds a MinHash of the
page's 8-token shingles with ``update_batch`` and queries a MinHashLSH before inserting; the
``simhash`` package builds a 64-bit Simhash of the tokens and queries a SimhashIndex (k = 3, Manku
et al.'s setting) before adding. Both keep the first copy, like the filter. ``SelectolaxPeers`` is
the exception: it extracts its text the fastest way selectolax offers, as issue 13 asks of the
per-core comparison.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from datasketch import MinHash, MinHashLSH
from selectolax.lexbor import LexborHTMLParser
from simhash import Simhash, SimhashIndex

from dedup_filter.features.text import decode_body, html_tokens

SHINGLE_WIDTH = 8
NUM_PERM = 84
_WORD = re.compile(r"\w+")


def page_tokens(url: str, body: bytes) -> list[str]:
    """The filter's own decoding and tokenizer, so every pipeline parses the same way."""
    text = decode_body(body, None).text
    return html_tokens(text, url)[0] if text is not None else []


def shingle_strings(tokens: list[str]) -> list[bytes]:
    """The page's 8-token shingles as datasketch wants them: one byte string each."""
    if len(tokens) <= SHINGLE_WIDTH:
        return [" ".join(tokens).encode()]
    return [
        " ".join(tokens[i : i + SHINGLE_WIDTH]).encode()
        for i in range(len(tokens) - SHINGLE_WIDTH + 1)
    ]


@dataclass(frozen=True, slots=True)
class PeerVerdict:
    """The peer's answer for one page: the first earlier page it matched, if any."""

    url: str
    duplicate_of: str | None


class DatasketchPipeline:
    """MinHash(num_perm=84) + MinHashLSH, query then insert (Henzinger's Algorithm B, LSH style)."""

    name = "datasketch MinHash+LSH"

    def __init__(self, threshold: float = 0.9) -> None:
        self.threshold = threshold
        self._lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)

    def check(self, url: str, body: bytes) -> PeerVerdict:
        return self.check_tokens(url, page_tokens(url, body))

    def check_tokens(self, url: str, tokens: list[str]) -> PeerVerdict:
        minhash = MinHash(num_perm=NUM_PERM)
        minhash.update_batch(shingle_strings(tokens))
        matches = self._lsh.query(minhash)
        if matches:
            return PeerVerdict(url, min(matches))
        self._lsh.insert(url, minhash)
        return PeerVerdict(url, None)


class SimhashPipeline:
    """The ``simhash`` package: Simhash(tokens, f=64) + SimhashIndex(k=3), query then add."""

    name = "simhash package"

    def __init__(self, max_distance: int = 3) -> None:
        self._index = SimhashIndex([], f=64, k=max_distance)

    def check(self, url: str, body: bytes) -> PeerVerdict:
        return self.check_tokens(url, page_tokens(url, body))

    def check_tokens(self, url: str, tokens: list[str]) -> PeerVerdict:
        fingerprint = Simhash(tokens or [""], f=64)
        matches = self._index.get_near_dups(fingerprint)
        if matches:
            return PeerVerdict(url, min(matches))
        self._index.add(url, fingerprint)
        return PeerVerdict(url, None)


class BothPeers:
    """What a user doing both B and C with the peers runs: datasketch, then the simhash package."""

    name = "datasketch + simhash package"

    def __init__(self) -> None:
        self._minhash = DatasketchPipeline()
        self._simhash = SimhashPipeline()

    def check(self, url: str, body: bytes) -> PeerVerdict:
        return self.check_tokens(url, page_tokens(url, body))

    def check_tokens(self, url: str, tokens: list[str]) -> PeerVerdict:
        by_minhash = self._minhash.check_tokens(url, tokens)
        by_simhash = self._simhash.check_tokens(url, tokens)
        return by_minhash if by_minhash.duplicate_of else by_simhash


def selectolax_tokens(body: bytes) -> list[str]:
    """The fastest text a user gets from selectolax (Lexbor decodes the bytes itself; scripts and
    styles dropped, the body's text nodes joined by spaces), split into ``\\w+`` runs."""
    tree = LexborHTMLParser(body)
    tree.strip_tags(["script", "style"])
    text = tree.body.text(separator=" ") if tree.body is not None else ""
    return _WORD.findall(text.lower())


class SelectolaxPeers(BothPeers):
    """The issue's peer pipeline: selectolax text and ``\\w+`` terms, then datasketch and the
    simhash package (B and C both), in memory."""

    name = "selectolax + datasketch + simhash package"

    def check(self, url: str, body: bytes) -> PeerVerdict:
        return self.check_tokens(url, selectolax_tokens(body))
