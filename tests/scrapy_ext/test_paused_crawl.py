"""A real crawl paused (``JOBDIR``, SIGINT) and resumed: the resumption fetches no page the paused
part got, its probes' pages included, and loses none."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from scrapy.settings.default_settings import CONCURRENT_REQUESTS

from dedup_filter.decision import PAGE_REASONS
from testweb.scrapy_project.run import CrawlRun, start_crawl
from testweb.server import LoggedRequest, RunningServer, fetched_again, serve
from testweb.site import TestWeb, build_web

from .test_crawl import DECISIONS, _decisions

PAUSE_AFTER = 60  # requests the server answers before the crawl is paused


@pytest.fixture(scope="module")
def web() -> TestWeb:
    return build_web(seed=0, scale="small")


def test_a_paused_crawl_resumes_without_fetching_again(web: TestWeb, tmp_path: Path) -> None:
    with serve(web) as server:
        first, first_fetched = _crawl_part(server, web, tmp_path, "first", pause=True)
        kept = tmp_path / "job" / "dedup-probes.pickle"
        assert first.stat("dedup/probes") > 0
        _, memory = pickle.loads(kept.read_bytes())  # (its writer, the memory) for the resumption
        assert memory.answers
        assert memory.judged
        second, second_fetched = _crawl_part(server, web, tmp_path, "second", pause=False)
    assert not kept.exists()  # read back once
    # pages a probe fetched before the pause are handed to the spider after it, unfetched
    probed = {answer.url for answer in memory.answers}
    assert second.stat("dedup/resumed/probe_answers") == len(memory.answers)
    assert probed & set(second.parsed)
    assert not probed & {entry.url for entry in second_fetched}
    # a probe in flight as the pause closes the downloader is cancelled: its response never
    # reached the crawler, and the resumption fetches its URL again. The server cannot always
    # tell (a response written whole into the socket before the crawler hung up counts as
    # delivered), so a page fetched again is one the paused part judged
    decisions = {part: _decisions(tmp_path, part) for part in ("first", "second")}
    judged_first = {d["url"] for d in decisions["first"] if d["reason"] in PAGE_REASONS}
    again = fetched_again(first_fetched + second_fetched, status=200)
    assert len(again) <= CONCURRENT_REQUESTS, again  # at most the fetches in flight at the pause
    again = {url: count for url, count in again.items() if url in judged_first}
    assert not again, _fetched_again_story(again, first_fetched, second_fetched, decisions)
    parsed = set(first.parsed) | set(second.parsed)
    dropped = {d["url"]: d for lines in decisions.values() for d in lines if d["action"] == "drop"}
    for url in web.originals - parsed:  # no content lost: a page not parsed has a parsed copy
        assert dropped[url]["duplicate_of"] in parsed, url


def _fetched_again_story(
    again: dict[str, int],
    first: list[LoggedRequest],
    second: list[LoggedRequest],
    decisions: dict[str, list[dict]],
) -> str:
    """For a failure's message: each URL fetched again, its fetches in either part (status,
    delivered) and what the filter logged of it in either part, in order."""
    lines = []
    for url in again:
        fetches = [
            (part, entry.status, entry.delivered)
            for part, entries in (("first", first), ("second", second))
            for entry in entries
            if entry.url == url
        ]
        logged = [
            (part, d["time"], d["action"], d["reason"])
            for part, lines in decisions.items()
            for d in lines
            if d["url"] == url
        ]
        lines.append(f"{url}: fetches {fetches}; decisions {logged}")
    return "\n".join(lines)


def _crawl_part(
    server: RunningServer, web: TestWeb, workdir: Path, name: str, *, pause: bool
) -> tuple[CrawlRun, list[LoggedRequest]]:
    """One part of the crawl in ``workdir`` (``JOBDIR`` ``workdir/job``), stopped by SIGINT (as
    Ctrl-C stops a crawl to be resumed) once the server answered ``PAUSE_AFTER`` requests."""
    server.request_log.clear()
    running = start_crawl(
        workdir,
        server.proxy_url,
        web.start_urls,
        name=name,
        settings={"JOBDIR": str(workdir / "job"), "DEDUP_DECISION_LOG": f"{name}.{DECISIONS}"},
    )
    if pause:
        assert running.pause_after(lambda: len(server.request_log), PAUSE_AFTER, 60)
    run = running.wait(120)
    assert run.returncode == 0, run.log[-3000:]
    assert run.stat("log_count/ERROR") == 0, run.log[-3000:]
    if pause:
        assert run.stats.get("finish_reason") == "shutdown", run.stats.get("finish_reason")
    return run, server.request_log.entries()
