"""A real Scrapy crawl of a mirror whose origin answers every page it lacks with a 200 "not
found" page (a soft 404): the pages only the mirror holds are still fetched and parsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirrors.conftest import MIRROR, ORIGIN, copy_tree, docs_tree
from testweb.site import TestWeb

from .conftest import logged_crawl

LINKS = "http://links.test/"
NOT_FOUND = (
    "<html><head><title>Standard library notes</title></head><body>"
    "<h1>Page not found</h1><p>Sorry, that page is not part of the notes.</p>"
    + "".join(f"<p>Browse the notes by module, entry {n} of the site map.</p>" for n in range(30))
    + "</body></html>"
).encode()


class SoftOrigin(dict):
    """The web's pages; the origin host answers any other URL with its "not found" page."""

    def get(self, url, default=None):  # the test server's lookup
        found = super().get(url, default)
        return NOT_FOUND if found is None and url.startswith(ORIGIN) else found


@pytest.fixture
def soft_web(corpus, stdlib_page) -> tuple[TestWeb, list[str]]:
    origin = docs_tree(corpus, ORIGIN, sorted(corpus), "Standard library notes")
    pages = origin | copy_tree(origin, ORIGIN, MIRROR)
    only = [f"{MIRROR}only/{name}.html" for name in ("fractions", "statistics")]
    pages |= {url: stdlib_page(url.rsplit("/", 1)[1][:-5]).encode() for url in only}
    anchors = "".join(f'<a href="{url}">{url}</a> ' for url in only)
    pages[LINKS] = f"<html><body><p>Mirror-only notes: {anchors}</p></body></html>".encode()
    web = TestWeb(
        0, "soft404", SoftOrigin(pages), {}, [ORIGIN, MIRROR, LINKS], [], [], set(), {}, {}
    )
    return web, only


def test_pages_only_the_mirror_holds_are_parsed(soft_web, tmp_path: Path):
    web, only = soft_web
    run, fetched, decisions = logged_crawl(web, tmp_path, "soft404")
    assert any(d["reason"] == "mirrored_directory" for d in decisions)  # the rule prunes copies
    assert any("dedup-filter-absent-" in url for url in fetched)  # the origin was asked
    assert set(only) <= set(run.parsed), [d for d in decisions if d["url"] in only]
