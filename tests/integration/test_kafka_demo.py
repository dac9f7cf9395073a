"""The main job's stream section: pages through the embedded broker, verdict counts back."""

from __future__ import annotations

from collections import Counter

from dedup_filter import Config, DedupFilter
from testweb.demo_stream import run_stream_demo


def test_the_stream_demo_counts_what_the_filter_decides(stdlib_page, tmp_path):
    pages = [
        (f"http://host{host}.example/{name}.html", stdlib_page(name).encode())
        for host in range(3)
        for name in ("csv", "json", "heapq")
    ]
    summary = run_stream_demo(pages, tmp_path / "index")
    with DedupFilter.open(tmp_path / "reference", Config.default()) as reference:
        expected = Counter(d.action for d in reference.check_pages(pages))
    assert summary["verdicts"] == summary["messages"] == len(pages)
    assert summary["actions"] == dict(expected)
    assert summary["forwarded_to_keep"] == expected["keep"]
    assert summary["dead_letters"] == 0
