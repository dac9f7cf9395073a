"""The scorer's own reading of a page: visible text, words, 8-word shingles, exact Jaccard.

Independent of the filter's tokenizer on purpose: the truth the filter is measured against must
not share its parsing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping

from selectolax.lexbor import LexborHTMLParser

WIDTH = 8
NEAR = 0.8  # the Jaccard from which two pages are near-duplicates
_WORD = re.compile(r"\w+")


def page_words(body: bytes) -> list[str]:
    tree = LexborHTMLParser(body)
    for node in tree.css("script, style"):
        node.decompose()
    root = tree.body or tree.root
    text = root.text(separator=" ") if root is not None else ""
    return _WORD.findall(text.lower())


def page_shingles(body: bytes) -> set[str]:
    return word_shingles(page_words(body))


def word_shingles(words: list[str]) -> set[str]:
    if len(words) <= WIDTH:
        return {" ".join(words)}
    return {" ".join(words[start : start + WIDTH]) for start in range(len(words) - WIDTH + 1)}


def jaccard(first: set[str], second: set[str]) -> float:
    union = len(first | second)
    return len(first & second) / union if union else 1.0


def near_pairs(
    shingles: Mapping[str, set[str]], threshold: float = NEAR
) -> Iterator[tuple[str, str, float]]:
    """Every pair of pages with Jaccard >= ``threshold`` (prefix filtering: two such pages share
    one of the rarest shingles of each, so only pairs sharing a prefix shingle are compared)."""
    frequency = Counter(shingle for page in shingles.values() for shingle in page)
    postings: dict[str, list[str]] = {}
    for url, page in shingles.items():
        rarest = sorted(page, key=lambda shingle: (frequency[shingle], shingle))
        prefix = rarest[: len(page) - int(threshold * len(page)) + 1]
        candidates = {other for shingle in prefix for other in postings.get(shingle, ())}
        for other in sorted(candidates):
            similarity = jaccard(page, shingles[other])
            if similarity >= threshold:
                yield other, url, similarity
        for shingle in prefix:
            postings.setdefault(shingle, []).append(url)
