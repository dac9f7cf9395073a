"""Real Scrapy crawls of a web that redirects as real sites do (``testweb.redirects``):
directory links without their slash, a ``www.`` alias host, pages moved since they were linked.

The filter sees only where a redirect lands (RedirectMiddleware, at 600, answers first); the URL
asked for never answers with a page. Nothing may be lost for it, nothing fetched twice because of
it, and no wait of the filter's may hang on it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from testweb.redirects import RedirectedWeb, with_redirects
from testweb.server import fetched_again, serve
from testweb.site import build_web

from .test_crawl import Crawl, crawl

HOST = "docs.alpha.test"  # the origin of the small web's whole-host mirror (mirror1.beta.test)


@pytest.fixture(scope="module")
def redirected() -> RedirectedWeb:
    return with_redirects(build_web(seed=0, scale="small"), HOST)


@pytest.fixture(scope="module", params=[1, 16], ids=["one_at_a_time", "concurrent"])
def filtered(request: pytest.FixtureRequest, redirected: RedirectedWeb, tmp_path_factory) -> Crawl:
    workdir: Path = tmp_path_factory.mktemp(f"redirects-{request.param}")
    with serve(redirected.web) as server:
        return crawl(
            server, redirected.web, workdir, "redirects", CONCURRENT_REQUESTS=request.param
        )


def test_the_web_redirects_in_the_crawl(filtered: Crawl, redirected: RedirectedWeb) -> None:
    statuses = Counter(entry.status for entry in filtered.fetched)
    redirected_from = {entry.url for entry in filtered.fetched if entry.status == 301}
    assert statuses[301] >= 20, statuses
    assert redirected_from <= redirected.web.redirects.keys()
    assert redirected_from & redirected.moved.keys()
    assert any(url.startswith(f"http://www.{HOST}/") for url in redirected_from)


def test_no_content_is_lost_behind_a_redirect(filtered: Crawl, redirected: RedirectedWeb) -> None:
    web = redirected.web
    assert set(redirected.moved.values()) <= web.originals
    linked_as = {new: old for old, new in redirected.moved.items()}
    for url in web.originals - filtered.parsed:
        # dropped only for a page the spider parsed: pruned for it, or fetched and a copy of
        # it; a moved page may be pruned under the URL that links name (a copy holds it there)
        decision = filtered.dropped.get(url) or filtered.dropped[linked_as[url]]
        assert decision["duplicate_of"] in filtered.parsed, url
    assert not set(redirected.moved) & filtered.parsed  # a redirecting URL is never a page


def test_decisions_name_where_redirects_land(filtered: Crawl, redirected: RedirectedWeb) -> None:
    redirecting = redirected.web.redirects.keys()
    pages = {d["url"] for d in filtered.decisions if "tokens" in d["evidence"]}
    assert pages
    assert not pages & redirecting  # a page is judged under the URL it was served at
    for decision in filtered.decisions:
        if decision["duplicate_of"] is not None and decision["action"] == "drop":
            if "crawl_instead" in decision["evidence"]:  # where a redirect rule sends: asked
                continue  # for next, it may redirect again (a directory without its slash)
            assert decision["duplicate_of"] not in redirecting, decision


def test_a_host_that_only_redirects_is_learnt_and_asked_no_more(filtered: Crawl) -> None:
    """The ``www.`` name answers every URL with a 301 to the bare host: after three, its URLs
    are dropped for where they land, the spider crawling that URL instead."""
    alias = f"http://www.{HOST}/"
    checked = [d for d in filtered.decisions if d["url"].startswith(alias)]
    ruled = [
        d for d in checked if d["evidence"].get("redirect_rule") == f"www.{HOST} redirect move"
    ]
    assert filtered.run.stat("dedup/redirect_rules") >= 1
    assert ruled
    assert all(d["duplicate_of"] == f"http://{HOST}/" + d["url"][len(alias) :] for d in ruled)
    after = checked[checked.index(ruled[0]) :]
    assert all(d["action"] == "drop" for d in after), [d["url"] for d in after]


def test_directories_linked_without_their_slash_are_asked_for_with_it(
    filtered: Crawl, redirected: RedirectedWeb
) -> None:
    """Once a host's slash rule is learnt, a slashless directory link is sent to the directory
    itself (no 301 fetched for it); a file without a dot in its name (``SHA256SUMS``) sent so
    fails as a directory and is fetched itself.

    Concurrently, a URL may be fetched (a 301) before the rule and dropped by it after: a request
    checked before the rule and decided again once the probe of its URL it waited for landed
    (seen in CI). The decision log holds the checks in the order they were made, so the test
    is that no check passed such a URL on to its fetch after the rule dropped it."""
    ruled = [d for d in filtered.decisions if _slash_ruled(d)]
    dropped = [d for d in ruled if d["action"] == "drop"]
    stand_ins = [d for d in ruled if d["reason"] == "stand_in"]
    assert any(d["evidence"].get("crawl_instead") == d["url"] + "/" for d in dropped)
    assert all(d["duplicate_of"] for d in dropped)  # the directory, or the page it is dropped for
    answered_301 = {entry.url for entry in filtered.fetched if entry.status == 301}
    assert not _passed_after_their_slash_drop(filtered.decisions, answered_301)
    # a file without a dot in its name sent to its "directory" is fetched itself after all
    # (met before the rule, it is fetched at once: which of the two is the crawl's order)
    files = {d["url"] for d in dropped} & redirected.web.assets.keys()
    fetched = {entry.url for entry in filtered.fetched if entry.status == 200}
    assert files <= fetched
    for stand_in in stand_ins:
        assert stand_in["evidence"]["directory_failed"] == stand_in["url"] + "/"
        assert stand_in["url"] in fetched


def _slash_ruled(decision: dict[str, Any]) -> bool:
    return decision["evidence"].get("redirect_rule", "").endswith(" redirect slash")


def _passed_after_their_slash_drop(decisions: list[dict[str, Any]], urls: set[str]) -> list[str]:
    """Those of ``urls`` that a URL check passed on to their fetch after a slash rule dropped
    them (a probe's failed answer, logged once it lands, passes nothing on)."""
    dropped: set[str] = set()
    passed: list[str] = []
    for decision in decisions:
        url = decision["url"]
        if url not in urls:
            continue
        if decision["action"] == "drop" and _slash_ruled(decision):
            dropped.add(url)
        elif (
            url in dropped
            and decision["action"] == "keep"
            and decision["reason"] != "probe_failed"
            and "tokens" not in decision["evidence"]
        ):
            passed.append(url)
    return passed


def test_nothing_is_fetched_twice_for_a_redirect(filtered: Crawl) -> None:
    assert filtered.fetched
    assert not fetched_again(filtered.fetched)


def test_every_wait_on_a_redirected_counterpart_ends(filtered: Crawl) -> None:
    """A URL deferred for a counterpart that redirects (a directory named without its slash,
    a moved page) is fetched or dropped in the end: a redirect is no page to wait for."""
    assert filtered.run.stats.get("finish_reason") == "finished"
    assert filtered.run.stat("dedup/mirror_rules") >= 1
    last = {decision["url"]: decision["action"] for decision in filtered.decisions}
    deferred = {d["url"] for d in filtered.decisions if d["action"] == "defer"}
    assert deferred
    ended = {url for url in deferred if url in filtered.fetched_urls or last[url] == "drop"}
    assert ended == deferred


def test_every_page_the_spider_parses_is_judged(filtered: Crawl, redirected: RedirectedWeb) -> None:
    """A probe's answer served to the crawl may be a 301 (probes do not follow redirects): the
    page it leads to is a fetch of its own, judged like any other, never passed on as the
    probe's answer (then unjudged, and waited for by the filter for ever)."""
    judged = {d["url"] for d in filtered.decisions if "tokens" in d["evidence"]}
    pages = filtered.parsed & redirected.web.pages.keys()  # not the downloads
    assert filtered.run.stat("dedup/probes_served") >= 1
    assert pages
    assert pages <= judged, sorted(pages - judged)[:5]
