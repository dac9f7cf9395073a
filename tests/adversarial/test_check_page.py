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
