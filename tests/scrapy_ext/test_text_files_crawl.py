"""A real Scrapy crawl of a manual whose pages link their plain-text sources (Sphinx's
``_sources/NAME.txt``, served ``text/plain``) and of its whole copy: the sources are judged as
pages (held, compared, the copy's pruned under its rule). Before, only HTML responses were
judged: a source was never held, a probe of one was reported as failed, and a copy's source was
pruned only because the crawl had fetched its counterpart (as many were fetched: none here)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from testweb.site import TestWeb

from .conftest import logged_crawl

ORIGIN = "http://docs.vendor.test/"
COPY = "http://mirror.partner.test/"
_TEXT = ("text/plain; charset=utf-8",)


def with_sources(corpus: dict[str, str], base: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """``docs_tree`` whose every module page links ``_sources/NAME.txt``, and those sources."""
    pages = docs_tree(corpus, base, sorted(corpus), "Standard library notes")
    sources = {}
    for url in list(pages):
        name = url.removeprefix(base).removesuffix(".html")
        if "/" in name or not url.endswith(".html"):
            continue
        link = f'<p><a href="_sources/{name}.txt">Show source</a></p></body>'.encode()
        pages[url] = pages[url].replace(b"</body>", link)
        words = sorted(re.sub(r"<[^>]+>|&\w+;", " ", corpus[name]).split())  # not its page's text
        sources[f"{base}_sources/{name}.txt"] = f"{name} <source>\n{' '.join(words)}".encode()
    return pages, sources


def test_a_copys_plain_text_sources_are_pruned_like_its_pages(corpus, tmp_path: Path):
    pages, sources = with_sources(corpus, ORIGIN)
    copied = copy_tree(pages, ORIGIN, COPY)
    copied_sources = copy_tree(sources, ORIGIN, COPY)
    assets = {url: (*_TEXT, body) for url, body in (sources | copied_sources).items()}
    web = TestWeb(0, "sources", pages | copied, assets, [ORIGIN, COPY], [], [], set(), {}, {})
    _, fetched, decisions = logged_crawl(web, tmp_path, "sources")
    assert set(sources) <= fetched
    judged = {d["url"]: d for d in decisions if d["url"] in sources and "tokens" in d["evidence"]}
    assert judged
    assert all(d["action"] == "keep" for d in judged.values())
    copies_fetched = set(copied_sources) & fetched
    assert len(copies_fetched) <= len(copied_sources) // 3, sorted(copies_fetched)
