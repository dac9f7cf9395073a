"""A Scrapy crawl and a stream processor write one index at once and see each other's pages."""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from dataclasses import replace

from dedup_filter.urls import normalize_url
from testweb.scrapy_project.run import start_crawl
from testweb.server import serve
from testweb.site import build_web


def test_a_crawl_and_a_processor_recognise_each_others_pages(
    kafka, stream_config, spawn_processor, tmp_path
):
    web = build_web(seed=0, scale="small")
    config = replace(stream_config, index_dir=str(tmp_path / "index"))
    kafka.create_topics(config)
    copies = {
        f"http://stream.example/copy/{i}.html": web.pages[url]
        for i, url in enumerate(sorted(web.originals))
    }
    messages = [
        json.dumps(
            {"url": url, "status": 200, "body_b64": base64.b64encode(body).decode()}
        ).encode()
        for url, body in copies.items()
    ]
    settings = {"DEDUP_INDEX_PATH": config.index_dir, "DEDUP_DECISION_LOG": "decisions.jsonl"}
    with serve(web) as server, spawn_processor(config):
        crawl = start_crawl(tmp_path / "crawl", server.proxy_url, web.start_urls, settings=settings)
        kafka.produce(config.pages_in, messages)  # while the crawl runs
        run = crawl.wait(timeout_s=120)
        kafka.wait_committed(config.group_id, config.pages_in, len(messages))
    assert run.returncode == 0, run.log[-3000:]

    body_of = {normalize_url(url): body for url, body in {**web.pages, **copies}.items()}
    crawled = [
        json.loads(line)
        for line in (tmp_path / "crawl" / ".scrapy" / "decisions.jsonl").read_text().splitlines()
    ]
    streamed = kafka.json_values(config.verdicts)
    by_body: dict[bytes, dict[str, list[dict[str, object]]]] = defaultdict(
        lambda: {"crawl": [], "stream": []}
    )
    for side, decisions in (("crawl", crawled), ("stream", streamed)):
        for decision in decisions:
            if decision["url"] in body_of and "tokens" in decision["evidence"]:  # page checks only
                by_body[body_of[decision["url"]]][side].append(decision)
    shared = [sides for sides in by_body.values() if sides["crawl"] and sides["stream"]]
    assert len(shared) >= 10
    recognised = 0  # bodies whose copy in one writer was dropped as a duplicate of the other's
    for sides in shared:
        everyone = sides["crawl"] + sides["stream"]
        firsts = [d for d in everyone if d["reason"] == "unique"]
        assert len(firsts) <= 1, [(d["url"], d["action"], d["reason"]) for d in everyone]
        exact = [d for d in everyone if d["reason"] == "exact_duplicate"]
        assert all(d["duplicate_of"] == firsts[0]["url"] for d in exact) if firsts else True
        if firsts:
            others = sides["stream"] if firsts[0] in sides["crawl"] else sides["crawl"]
            recognised += any(d in exact for d in others)
    assert recognised >= 10
