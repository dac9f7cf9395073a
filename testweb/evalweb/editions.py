"""Editions of one manual side by side on one site (its releases, its platforms), with the truth
read from the real texts, not constructed.

A page joins the document of a namesake placed before it (the latest edition first) when the
Jaccard of their 8-word shingles, numbers left out, is at least ``shingles.NEAR`` with every page
of that document (the scorer's own words); otherwise it is a document of its own. Numbers are
left out because every page names its release, its copyright years and the day it was built: a
stub of 90 words that differs in those alone is the same document, as Henzinger's raters judged
pages that differ in a time stamp.
"""

from __future__ import annotations

from collections.abc import Sequence

from testweb.copies import site_url

from .builder import EvalWeb
from .hosts import HostsBuilder
from .packages import read_tree
from .shingles import NEAR, jaccard, page_words, word_shingles


def place_editions(
    web: HostsBuilder, host: str, editions: Sequence[tuple[str, str]], shared_kind: str
) -> None:
    """Place each edition (directory, tree) on ``host`` in turn; a page that shares an earlier
    edition's document is recorded as ``shared_kind``, any other as ``original``."""
    documents: dict[str, list[set[str]]] = {}  # content key -> its pages' shingles
    namesakes: dict[str, list[str]] = {}  # path -> its pages' content keys, latest placed last
    for directory, tree in editions:
        for path, body in read_tree(tree).items():
            shingles = _unnumbered_shingles(body)
            earlier = namesakes.setdefault(path, [])
            key = next(
                (
                    key
                    for key in reversed(earlier)
                    if all(jaccard(shingles, page) >= NEAR for page in documents[key])
                ),
                None,
            )
            kind = shared_kind if key is not None else "original"
            key = key if key is not None else f"{tree}:{path}"
            documents.setdefault(key, []).append(shingles)
            if key in earlier:
                earlier.remove(key)
            earlier.append(key)
            web.put(host, directory + path, body, key, kind)


def served(
    web: HostsBuilder,
    host: str,
    title: str,
    links: list[tuple[str, str]],
    mirror: tuple[str, str],
    mirror_label: str,
) -> EvalWeb:
    """The web of editions on ``host`` once its copies are made: its front page linking
    ``links`` (path, label), the mirror host's linking its copy in ``mirror`` (host, directory),
    autoindex pages; crawled from the mirror host first."""
    web.front_page(host, title, links)
    web.front_page(mirror[0], "Mirrored documentation", [(mirror[1] + "index.html", mirror_label)])
    web.list_directories()
    return EvalWeb(web.pages(), [site_url(mirror[0], ""), site_url(host, "")], web.truth)


def _unnumbered_shingles(body: str) -> set[str]:
    words = page_words(body.encode("utf-8", "surrogateescape"))
    return word_shingles([word for word in words if not word.isdigit()])
