"""A real Scrapy crawl of a manual and its partial German translation, laid out as sites serve
translations: English unnamed beside ``/de/docs/``, or one host a language. The translation's
untranslated pages are the English pages, so sampling would confirm a mirror and URL rules would
learn ``marker de`` from the duplicates; either would prune the three translated pages unfetched.
Through the middleware, every translated page is fetched and kept, and the untranslated ones are
dropped as duplicates after their fetch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirrors.conftest import LAYOUTS, partial_translation
from testweb.site import TestWeb

from .conftest import logged_crawl


@pytest.mark.parametrize("layout", ["source_unnamed", "subdomains"])
def test_a_partial_translation_is_crawled_whole(corpus, stdlib_page, tmp_path: Path, layout):
    pages, translated = partial_translation(corpus, sorted(corpus), stdlib_page, layout)
    english, german = LAYOUTS[layout]
    web = TestWeb(0, layout, pages, {}, [english, german], [], [], set(), {}, {})
    _, fetched, decisions = logged_crawl(web, tmp_path, layout)
    assert set(translated) <= fetched
    kept = {d["url"] for d in decisions if d["reason"] == "unique"}
    assert set(translated) <= kept
    assert not {d["reason"] for d in decisions} & {"mirrored_directory", "duplicate_url"}
    dropped = {d["url"] for d in decisions if d["reason"] == "exact_duplicate"}
    for url in pages:  # each untranslated page, or its English twin, dropped after its fetch
        if url.startswith(german) and url.endswith(".html") and url not in translated:
            assert {url, english + url[len(german) :]} & dropped, url
