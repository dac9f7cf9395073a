"""A fetched page becomes its features: exact hash, Broder's super-shingles, Charikar's simhash and
a b-bit min-hash sketch that estimates resemblance before a near-duplicate drop.

The pipeline never raises on bad input: binary, empty, oversized or mis-encoded bodies all yield a
``Fingerprint`` that says what happened, and the filter turns that into a logged decision.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from dedup_filter.config import Config
from dedup_filter.features.alternates import NO_EDITIONS, Editions, declared_editions
from dedup_filter.features.hashing import U64, hash64, sequence_hash, span_hashes
from dedup_filter.features.minhash import MinHasher, bbit_sketch, super_shingles
from dedup_filter.features.shingles import shingle_hashes
from dedup_filter.features.simhash import simhash
from dedup_filter.features.text import (
    Anchors,
    decode_body,
    html_text,
    is_plain_text,
    lowered_token_spans,
    plain_text,
    title_words,
    utf8_body,
)
from dedup_filter.features.versions import Release, page_releases
from dedup_filter.languages import declared_language

NO_ANCHORS = Anchors(None, ())
_LONGER_WORD = 5  # letters: a title's words that name its subject rather than join others
_TITLE_READ = 2048  # tokens of a page's text read for its title's words
_ABSOLUTE_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s\"'<>()]*/")  # up to its last segment


@dataclass(frozen=True, slots=True)
class Fingerprint:
    """The features of one page. ``features``, ``simhash`` and ``sketch`` are empty below the
    token floor."""

    url: str
    exact: int
    token_count: int
    features: tuple[int, ...]
    simhash: bytes
    encoding: str
    truncated: bool
    title: int = 0  # 32-bit hash of the title's words (``text.title_words``); 0 without a title
    sketch: bytes = b""  # low ``minhash.sketch_bits`` bits of every min-value (``bbit_sketch``)
    code: int = 0  # 32-bit hash of the words of its <pre> blocks; 0 without any
    # the release numbers it names, read only when asked (an index page: ``versions.py``)
    releases: tuple[Release, ...] = ()
    # the language its <html> element declares (``languages.declared_language``), read with
    # the releases: an index page's, which tells what edition an unnamed directory holds
    language: str = ""
    # its text does not bear out its title (``title_apart``): a page a copier filled with other
    # text under the title of the page it stands in for
    title_apart: bool = False
    # the language editions it declares (``alternates.declared_editions``)
    editions: Editions = NO_EDITIONS

    @property
    def binary(self) -> bool:
        return self.encoding == "binary"

    @property
    def has_features(self) -> bool:
        return bool(self.features)


class Fingerprinter:
    """Computes ``Fingerprint``s under one configuration (permutations are built once)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._minhasher = MinHasher(config.minhash.num_perm, config.minhash.seed)

    def fingerprint(
        self, url: str, body: bytes, headers: Mapping[Any, Any] | None = None
    ) -> Fingerprint:
        return self._fingerprint(url, body, headers, with_anchors=False)[0]

    def fingerprint_with_anchors(
        self,
        url: str,
        body: bytes,
        headers: Mapping[Any, Any] | None = None,
        with_releases: bool = False,
    ) -> tuple[Fingerprint, Anchors]:
        """``fingerprint`` and the page's anchors, read from the same parse; with the release
        numbers its text names when ``with_releases``."""
        return self._fingerprint(url, body, headers, with_anchors=True, with_releases=with_releases)

    def _fingerprint(
        self,
        url: str,
        body: bytes,
        headers: Mapping[Any, Any] | None,
        with_anchors: bool,
        with_releases: bool = False,
    ) -> tuple[Fingerprint, Anchors]:
        text_config = self.config.text
        truncated = len(body) > text_config.max_body_bytes
        body = body[: text_config.max_body_bytes]
        decoded = decode_body(body, headers, text_config.fallback_encoding)
        if decoded.text is None:
            exact = hash64(body, self.config.minhash.seed)
            return Fingerprint(url, exact, 0, (), b"", "binary", truncated), NO_ANCHORS
        if is_plain_text(headers):
            page = plain_text(decoded.text)
        else:
            page = html_text(
                decoded.text,
                url,
                text_config.max_depth,
                anchors=with_anchors,
                utf8=utf8_body(body, decoded),
            )
        seed = self.config.minhash.seed
        hashes = span_hashes(*lowered_token_spans(page.text), seed)
        title = title_words(page.title)
        features: tuple[int, ...] = ()
        simhash_bytes = sketch = b""
        if len(hashes) >= max(text_config.min_tokens, 1):
            simhash_config = self.config.simhash
            features, sketch = self._features(hashes)
            simhash_bytes = simhash(hashes, simhash_config.bits, simhash_config.seed)
        language = declared_language(page.language)
        fingerprint = Fingerprint(
            url,
            sequence_hash(hashes, seed),
            len(hashes),
            features,
            simhash_bytes,
            decoded.encoding,
            truncated or page.truncated,
            hash64(title, seed) >> 32 if title else 0,
            sketch,
            _code_hash(page.code, seed),
            page_releases(page.text) if with_releases else (),
            language if with_releases else "",
            bool(features) and title_apart(page.title, hashes, seed),
            _editions(url, page.alternates, language),
        )
        return fingerprint, page.anchors or NO_ANCHORS

    def _features(self, hashes: U64) -> tuple[tuple[int, ...], bytes]:
        """The super-shingles and the b-bit sketch, from one min-hash signature."""
        minhash = self.config.minhash
        shingles = shingle_hashes(hashes, minhash.shingle_width, minhash.seed)
        signature = self._minhasher.signature(shingles)
        features = super_shingles(signature, minhash.features, minhash.seed)
        return tuple(features), bbit_sketch(signature, minhash.sketch_bits)


def title_apart(title: str, hashes: U64, seed: int) -> bool:
    """Whether a page's text (its tokens' ``hashes``) does not bear out its ``title``: it holds
    no two words of the title in a row, nor half of the title's longer words (five letters or
    more; a title without any: never apart). A document's title names what its text is about,
    and its text says so (a manual's node in its heading, a module's name in its reference); a
    copier that filled a page with other text under the title of the page it stands in for
    leaves a title its text does not bear out."""
    if not title:
        return False
    codes, starts, ends = lowered_token_spans(title)
    words = span_hashes(codes, starts, ends, seed)
    if len(words) and np.array_equal(hashes[: len(words)], words):
        hashes = hashes[len(words) :]  # the title itself, read as the text's first words
    hashes = hashes[:_TITLE_READ]  # a heading stands near the top: no scan of a long text
    longer = set(words[(ends - starts) >= _LONGER_WORD].tolist())
    if not longer or len(hashes) == 0:
        return False
    held = 0
    for word in longer:  # a few words against the text: no sort of the text
        held += bool(np.any(hashes == word))
        if 2 * held >= len(longer):
            return False
    if len(words) == 1:
        return True
    text_pairs = _pairs(hashes)
    return not any(bool(np.any(text_pairs == pair)) for pair in _pairs(words))


def _pairs(hashes: U64) -> U64:
    """One value for each two tokens in a row."""
    following = hashes[1:]
    return hashes[:-1] ^ ((following << np.uint64(1)) | (following >> np.uint64(63)))


def _editions(url: str, bar: Anchors, language: str) -> Editions:
    """The language editions the page declares in its ``hreflang`` links ``bar`` and its
    declared ``language`` (none: no such link it can be read by)."""
    return declared_editions(url, bar.base, bar.hrefs, language) if bar.hrefs else NO_EDITIONS


def _code_hash(code: str, seed: int) -> int:
    """A hash of the words of a page's code blocks (0 without a word in one): two editions of a
    guide with other commands in their code share nearly all their shingles, but not this. An
    absolute URL counts as its last segment: a copy whose links were made absolute by rewriting
    its HTML's text rewrites the examples too (``&lt;image href="linus.gif"/&gt;`` in libxml2's
    tutorial), and on the fourth helper's web three such pages revoked its mirror rules."""
    words = " ".join(_ABSOLUTE_URL.sub("", code.lower()).split())
    return hash64(words, seed) >> 32 if words else 0
