"""The main job's Scrapy section on a tiny web: both crawls run and the table adds up."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter, IndexMismatchError
from testweb.demo_scrapy import INDEX_DIR, format_scrapy_demo, run_scrapy_demo
from testweb.site import TestWeb

MODULES = ("bisect", "csv", "heapq", "json", "textwrap")


def _tiny_web(stdlib_page) -> TestWeb:
    """Five pydoc pages linked from one index, plus an exact copy of one under another name."""
    pages = {f"http://docs.tiny.test/{name}.html": stdlib_page(name).encode() for name in MODULES}
    pages["http://docs.tiny.test/copy-of-csv.html"] = pages["http://docs.tiny.test/csv.html"]
    links = "".join(f'<li><a href="{url}">{url}</a></li>' for url in pages)
    index = f"<html><body><h1>Tiny manual</h1><ul>{links}</ul></body></html>"
    pages["http://docs.tiny.test/"] = index.encode()
    return TestWeb(
        seed=0,
        scale="tiny",
        pages=pages,
        assets={},
        start_urls=["http://docs.tiny.test/"],
        mirrors=[],
        traps=[],
        boilerplate_urls=set(),
        near_duplicates={},
        exact_duplicates={
            "http://docs.tiny.test/copy-of-csv.html": "http://docs.tiny.test/csv.html"
        },
    )


def test_demo_compares_both_crawls(stdlib_page, tmp_path):
    web = _tiny_web(stdlib_page)
    config = Config.default().with_overrides({"minhash.seed": 7})
    result = run_scrapy_demo(web, tmp_path, config=config)
    without, with_filter = result["crawls"]["without_filter"], result["crawls"]["with_filter"]
    assert without["parsed"] == len(web.pages)
    assert with_filter["parsed"] == len(web.pages) - 1  # the copy is fetched, never parsed
    assert result["dropped"] == {"exact_duplicate": 1}
    assert result["saving"]["fetches"] == without["fetches"] - with_filter["fetches"]
    table = format_scrapy_demo(result)
    assert "dropped by reason: exact_duplicate 1" in table
    assert "mirror rules (0):" in table
    # the crawl ran under the given configuration: its index is stamped with that seed
    with pytest.raises(IndexMismatchError, match=r"minhash\.seed"):
        DedupFilter.open(tmp_path / INDEX_DIR, Config.default())
