"""10,000 hostile pages through ``check_pages``: a decision each, whose every text leaves the
process as UTF-8, and no exception (issue 10)."""

from __future__ import annotations

import json
from collections import Counter

from dedup_filter import Config, DedupFilter
from testweb.hostile import MARKUP_SHAPES, hostile_pages

from .conftest import SEED, batches

PAGES = 10_000
BATCH = 250  # pages per write transaction, as a crawl's batches


def test_every_hostile_page_gets_a_decision_that_encodes(tmp_path, real_pages):
    kinds: Counter[str] = Counter()
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        for batch in batches(hostile_pages(SEED, PAGES, real_pages, max_bytes=5_000), BATCH):
            decisions = dedup.check_pages([(page.url, page.body, page.headers) for page in batch])
            assert len(decisions) == len(batch)
            for page, decision in zip(batch, decisions, strict=True):
                line = decision.to_json().encode("utf-8")  # a decision log line survives
                assert json.loads(line)["action"] in {"keep", "drop"}, page.kind
                kinds[page.kind] += 1
    assert sum(kinds.values()) == PAGES
    assert set(MARKUP_SHAPES) | {"byte flips", "bytes", "charset", "url"} == set(kinds)


def test_a_host_name_longer_than_a_key_breaks_nothing(tmp_path, stdlib_page):
    """Host and directory names are LMDB keys (511 bytes at most) in the mirror and URL-rule
    tables: a host of 600 bytes serving an index page, then its session-id aliases (a URL rule's
    pairs), failed their whole write transactions. Such a host learns nothing; it is decided."""
    host = "http://" + "a" * 600 + ".test/"
    listing = "".join(f'<a href="{name}.html">{name}</a> ' for name in "abcdefgh")
    body = f"<html><body><h1>Index</h1>{listing}{stdlib_page('fractions')}</body></html>"
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        assert dedup.check_page(host + "docs/", body.encode()).action == "keep"
        for session in ("S1", "S2", "S3"):
            alias = dedup.check_page(f"{host}docs/?sessionid={session}", body.encode())
            assert alias.reason == "exact_duplicate"
        assert dedup.check_url(host + "docs/?sessionid=S4").action == "keep"
        for path in ("a", "b", "c"):
            dedup.redirected(host + path, host + path + "/", 301)
