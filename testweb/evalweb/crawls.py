"""Serve an evaluation web on loopback and crawl it with real Scrapy: with the filter, without it,
and with the datasketch peer, in each order (``orders``); collect what the server saw.

Each crawl runs ``scrapy crawl`` in a subprocess in a fresh project directory (a fresh index), as
``testweb.scrapy_project.run`` does for the other webs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dedup_filter import DedupFilter
from testweb.scrapy_project.run import start_crawl
from testweb.server import LoggedRequest, RunningServer

from .builder import EvalWeb
from .orders import order_settings, order_starts

FILTER, UNFILTERED, PEER = "filter", "unfiltered", "peer"
VARIANTS = (FILTER, UNFILTERED, PEER)
_INDEX = Path(".scrapy", "dedup-index")
_VARIANT_SETTINGS: dict[str, dict[str, Any]] = {
    FILTER: {},
    UNFILTERED: {"DEDUP_ENABLED": False},
    PEER: {
        "DEDUP_ENABLED": False,
        "DOWNLOADER_MIDDLEWARES": {"testweb.evalweb.peer.MinHashLshPeer": 540},
    },
}


@dataclass(frozen=True, slots=True)
class CrawlRecord:
    """One crawl as the scorer needs it: the server's log, and the filter's own account."""

    variant: str
    order: str
    requests: list[LoggedRequest]
    decisions: list[dict[str, Any]]  # the filter's (or the peer's) decision log
    rules: list[dict[str, Any]]  # mirror rules, then URL rules where the filter lists them
    lists_url_rules: bool  # whether the filter has a URL-rules listing at all
    seconds: float

    def fetched_again(self) -> list[str]:
        """The URL of every GET the server had answered for that URL before (any status), in
        order: a second fetch of one page."""
        answered: set[str] = set()
        again = []
        for entry in self.requests:
            if entry.method == "GET":
                if entry.url in answered:
                    again.append(entry.url)
                answered.add(entry.url)
        return again

    def fetched(self) -> list[str]:
        """URLs answered 200, in the order the server answered them (each once)."""
        return list(
            dict.fromkeys(
                entry.url
                for entry in self.requests
                if entry.method == "GET" and entry.status == 200
            )
        )


def crawl(
    server: RunningServer,
    web: EvalWeb,
    workdir: Path,
    variant: str,
    order: str,
    seed: int = 0,
    timeout_s: float = 900.0,
    settings: dict[str, Any] | None = None,
    pause_every: int = 0,
    spider_arguments: dict[str, str] | None = None,
) -> CrawlRecord:
    """One crawl of ``web`` (already served by ``server``) in a fresh ``workdir``; ``settings`` are
    Scrapy settings of the caller's (``CONCURRENT_REQUESTS=1`` makes the order deterministic).
    With ``pause_every``, the crawl runs with a ``JOBDIR`` and is paused (SIGINT, as Ctrl-C
    pauses it) each time the server answered that many of its requests, then resumed; its record
    is the whole crawl's, kept beside it as ``requests.jsonl``. ``spider_arguments`` go to the
    spider (``errback``: "no")."""
    name = f"{variant}-{order}"
    directory = workdir / name
    settings = _VARIANT_SETTINGS[variant] | order_settings(order, seed) | (settings or {})
    decisions_file = directory / "decisions.jsonl"
    decisions_file.unlink(missing_ok=True)
    log_setting = {FILTER: "DEDUP_DECISION_LOG", PEER: "PEER_DECISION_LOG"}.get(variant)
    if log_setting is not None:
        settings[log_setting] = str(decisions_file)  # absolute: Scrapy resolves relative paths
    if pause_every:
        settings["JOBDIR"] = str(directory / "job")
    requests: list[LoggedRequest] = []
    seconds = 0.0
    paused = True
    while paused:  # a part paused before the crawl's end is resumed
        server.request_log.clear()
        running = start_crawl(
            directory,
            server.proxy_url,
            order_starts(order, web.start_urls, seed),
            name=name,
            settings=settings,
            spider_arguments=spider_arguments,
        )
        paused = bool(pause_every) and running.pause_after(
            lambda: len(server.request_log), pause_every, timeout_s
        )
        run = running.wait(timeout_s)
        if run.returncode != 0 or run.stat("log_count/ERROR"):
            msg = f"crawl {name} failed ({run.returncode}): {run.log[-2000:]}"
            raise RuntimeError(msg)
        requests += server.request_log.entries()
        seconds += run.seconds
    (directory / "requests.jsonl").write_text("".join(f"{entry.to_json()}\n" for entry in requests))
    if variant == FILTER and not decisions_file.exists():  # the peer logs only its drops
        msg = f"crawl {name} wrote no decision log at {decisions_file}"
        raise RuntimeError(msg)
    decisions = (
        [json.loads(line) for line in decisions_file.read_text().splitlines()]
        if decisions_file.exists()
        else []
    )
    rules, lists_url_rules = listed_rules(directory / _INDEX) if variant == FILTER else ([], False)
    return CrawlRecord(variant, order, requests, decisions, rules, lists_url_rules, seconds)


def listed_rules(index: Path) -> tuple[list[dict[str, Any]], bool]:
    """The filter's rules, as its Python API lists them: mirror rules (``kind`` "mirror"), and URL
    rules (``kind`` "url") once the filter has a ``url_rules()`` listing (issue 12); and whether
    it has that listing."""
    with DedupFilter.open(index) as dedup:
        rules = [{"kind": "mirror"} | rule for rule in dedup.mirror_rules()]
        url_rules = getattr(dedup, "url_rules", None)
        if callable(url_rules):
            rules += [rule | {"kind": "url", "url_rule_kind": rule["kind"]} for rule in url_rules()]
    return rules, callable(url_rules)
