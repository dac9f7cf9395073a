"""A real Scrapy crawl over an index that already holds a guide but one coded page, and a rule
that takes the guide's rpm edition (on the same host) for a copy of it: the edition's pages are
dropped before their fetch. Its pages with code blocks differ: when the guide's last coded page
arrives, its edition page is compared and revokes the rule, and the edition's other coded pages,
dropped already, are requested again (``fetch_back``): they exist nowhere else."""

from __future__ import annotations

from pathlib import Path

from dedup_filter.scrapy.session import DedupSession

from dedup_filter import Config, Decision, DedupFilter
from dedup_filter.decision import Reason
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore
from tests.mirrors.test_editions import EDITION, GUIDE, coded_guide, commands, moved, with_code
from testweb.site import TestWeb

from .conftest import logged_crawl
from .test_deferral import _Scheduled

OVERRIDES = {"mirror.code_samples": 1, "mirror.code_samples_siblings": 1}


def test_the_edition_pages_a_revoked_rule_dropped_are_fetched_back(corpus, tmp_path: Path):
    modules = sorted(corpus)
    guide, coded = coded_guide(corpus, modules)
    edition = moved(guide, EDITION)
    for relative in coded:
        plain = edition[EDITION + relative].split(b"<pre>")[0] + b"</body></html>"
        edition[EDITION + relative] = with_code(plain, commands(relative, "rpm"))
    config = Config.default().with_overrides(OVERRIDES)
    with DedupFilter.open(tmp_path / ".scrapy" / "dedup-index", config) as dedup:
        for url, body in guide.items():
            if url != GUIDE + coded[0]:  # the guide's first coded page comes with the crawl
                dedup.check_page(url, body)
        rule = Rule(EDITION, GUIDE, EDITION, GUIDE, 0.0, "content", 4, 4, 0)
        dedup.index.transact(lambda view: MirrorStore(view).put_rule(rule))
    # the edition's documents first, then the guide's last coded page
    start = [url for url in edition if url not in (EDITION, EDITION + coded[0])]
    start.append(GUIDE + coded[0])
    web = TestWeb(0, "fetch-back", guide | edition, {}, start, [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "fetch-back", OVERRIDES)
    assert any(d["evidence"].get("mirrors_revoked") == [EDITION] for d in decisions)
    assert {EDITION + relative for relative in coded} <= fetched
    assert run.stat("dedup/fetched_back") >= 1


def test_a_page_fetched_back_is_asked_again_for_each_rule_revoked(make_crawler):
    """Two wrong rules dropped an edition's page: the first revoked fetches it back, the second,
    still standing, drops it again before its fetch, and is revoked by the next page; that
    revocation asks for the page again (once a rule: the same revocation reported twice asks
    once)."""
    crawler = make_crawler()
    crawler.engine = scheduled = _Scheduled()
    session = DedupSession.of(crawler)
    page = EDITION + "intro.html"

    def revoking(mirror: str) -> Decision:
        evidence = {"mirrors_revoked": [mirror], "fetch_back": [page]}
        return Decision(mirror + "coded.html", "keep", Reason.UNIQUE, evidence=evidence)

    for mirror in ("http://partner.test/guide/", "http://library.test/guide/"):
        session.fetch_back(revoking(mirror))
        session.fetch_back(revoking(mirror))
    assert [request.url for request in scheduled.requests] == [page, page]
    assert crawler.stats.get_value("dedup/fetched_back") == 2
