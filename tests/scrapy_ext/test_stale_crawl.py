"""A real Scrapy crawl of a stale copy of a manual met before the manual: as deep, named like any
site, every page naming an older release, copied before the manual gained a page that only one of
its documents links. Before, the order took the stale copy for the origin and the manual's
document that links the gained page was pruned for the copy's, which links nothing of it: the
page was never requested. The releases the index pages name now take the copy for the mirror,
and its rule never prunes the manual."""

from __future__ import annotations

from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from tests.mirrors.test_orientation import naming_release
from testweb.site import TestWeb

from .conftest import logged_crawl

MANUAL = "http://docs.project.test/manual/"
STALE = "http://notes.elsewhere.test/manual/"  # as deep as the manual, and met first


def test_a_page_a_manual_gained_after_its_stale_copy_was_made_is_fetched(
    corpus, stdlib_page, tmp_path: Path
):
    tree = docs_tree(corpus, MANUAL, sorted(corpus), "Standard library notes")
    stale = naming_release(copy_tree(tree, MANUAL, STALE), "2.3.9")
    linking = sorted(url for url in tree if url.startswith(MANUAL) and not url.endswith("/"))[0]
    gained = f"{MANUAL}gained.html"
    tree[linking] = tree[linking].replace(
        b"</body>", b'<p><a href="gained.html">what is new</a></p></body>'
    )
    tree[gained] = stdlib_page("fractions").encode()
    manual = naming_release(tree, "2.4.1")
    web = TestWeb(0, "stale-first", manual | stale, {}, [STALE, MANUAL], [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "stale-first")
    rules = {
        (rule["mirror"], rule["origin"], rule["mirror_older"])
        for decision in decisions
        if isinstance(rule := decision["evidence"].get("mirror_rule"), dict)
    }
    assert (STALE, MANUAL, True) in rules
    assert not [
        d["url"] for d in decisions if d["url"].startswith(MANUAL) and d["action"] == "drop"
    ]
    assert gained in fetched
    assert gained in run.parsed
