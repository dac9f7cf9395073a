"""A real Scrapy crawl of a copy served only under a session id no list holds (``?vid=``), or a
cache-busting stamp (``?v=20240101``), met before its origin, which holds one page more: the id
is learnt from the copy's links, the copy is paired with its origin and named the copy, the
page only the origin holds is fetched, and every request to the copy carries the id."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirrors.test_systematic import LEARNT_SESSION, STAMP, with_session_ids
from testweb.site import TestWeb

from .conftest import logged_crawl
from .test_copy_held_first_crawl import COPY, ORIGIN, origin_and_partial_copy


@pytest.mark.parametrize("session", [LEARNT_SESSION, STAMP], ids=["id", "stamp"])
def test_a_copy_under_an_unlisted_session_id_met_first_is_paired_and_loses_nothing(
    corpus, stdlib_page, tmp_path: Path, session: str
):
    origin, copy, guide = origin_and_partial_copy(corpus, stdlib_page)
    only_here = f"{ORIGIN}{guide}-details.html"
    served = {
        url: body for url, body in with_session_ids(copy, session).items() if url.endswith(session)
    }
    start = [COPY + session, ORIGIN]
    web = TestWeb(0, "session-copy", origin | served, {}, start, [], [], set(), {}, {})
    _, fetched, decisions = logged_crawl(web, tmp_path, "session-copy")
    learnt = [d["url"] for d in decisions if d["evidence"].get("session_learnt")]
    assert learnt == [COPY + session]
    rules = {
        (rule["mirror"], rule["origin"], rule["copy_named"])
        for d in decisions
        if isinstance(rule := d["evidence"].get("mirror_rule"), dict)
    }
    assert rules == {(COPY, ORIGIN, True)}
    assert only_here in fetched
    # the copy is asked for as it serves its pages: probes and stand-ins (the origin's pages
    # that answer 404, a pydoc page's links to modules it does not hold) carry the id
    assert not [url for url in fetched if url.startswith(COPY) and session not in url]
