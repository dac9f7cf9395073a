"""An origin that answers a page it lacks with a page (a soft 404) never costs the mirror's own
pages: the answer is asked for when a rule is made, nothing is pruned before it is known, and a
counterpart that is that answer is no copy."""

from __future__ import annotations

import pytest

from dedup_filter.mirrors.soft404 import absent_url

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree


class SoftOrigin(dict):
    """Pages of a web whose origin host answers every URL it lacks with its "not found" page
    (the site's template around a line that repeats the URL)."""

    def __init__(self, pages: dict[str, bytes], template: str, titled: bool) -> None:
        super().__init__(pages)
        self.template = template
        self.titled = titled  # the URL in the title too: no copy of another by the page rules

    def __contains__(self, url: object) -> bool:
        return super().__contains__(url) or str(url).startswith(ORIGIN)

    def __getitem__(self, url: str) -> bytes:
        if super().__contains__(url):
            return super().__getitem__(url)
        line = f"<h1>Page not found</h1><p>Sorry, {url} does not exist here.</p>"
        page = self.template.replace("<body>", "<body>" + line)
        return (
            page.replace("<title>Notes", f"<title>Not found: {url}") if self.titled else page
        ).encode()


@pytest.fixture(params=[False, True], ids=["near_copies", "titled_apart"])
def soft_web(request, origin_tree, stdlib_page):
    """A mirror of the origin holding two pages more (``only/a.html``, ``only/b.html`` linked from
    a page of its own); the origin answers those URLs with its "not found" page."""
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    extra = {
        f"{MIRROR}only/{name}.html": stdlib_page(module).encode()
        for name, module in (("a", "fractions"), ("b", "statistics"))
    }
    links = "".join(f'<a href="{url}">{url}</a>' for url in extra)
    pages[MIRROR + "only/"] = f"<html><body><h1>Only here</h1>{links}</body></html>".encode()
    pages |= extra
    template = (
        "<html><head><title>Notes</title></head><body>"
        + " ".join(
            f"<p>Navigation entry {n} of the standard library notes site</p>" for n in range(40)
        )
        + "</body></html>"
    )
    return SoftOrigin(pages, template, request.param), extra


def test_pages_only_the_mirror_holds_are_fetched_when_the_origin_answers_soft_404s(
    open_filter, soft_web
):
    pages, extra = soft_web
    dedup = open_filter()
    order = [*breadth_first(pages, ORIGIN), *breadth_first(pages, MIRROR)]
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    assert crawl.absent_probes == [absent_url(ORIGIN)]
    assert set(extra) <= set(crawl.fetched)  # never pruned for the origin's "not found" page
    for url in extra:
        settled = crawl.settled.get(url) or crawl.decisions[url]
        assert not settled.dropped, settled
    assert any(d.evidence.get("soft_404") for d in crawl.settled.values())
    assert crawl.pruned  # the pages both sides hold are still pruned


def test_nothing_is_pruned_before_the_origin_has_answered(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    for url in breadth_first(pages, ORIGIN):
        dedup.check_page(url, pages[url])
    handed_out: list[str] = []
    for url in breadth_first(pages, MIRROR):
        if not dedup.mirror_rules():
            handed_out += dedup.check_page(url, pages[url]).probes
            for probe in [p for p in handed_out if p in pages]:
                handed_out += dedup.check_page(probe, pages[probe]).probes
    assert absent_url(ORIGIN) in handed_out  # asked when the rule was made
    waiting = dedup.check_url(MIRROR + "extra/wave.html")
    assert (waiting.action, waiting.reason) == ("defer", "counterpart_pending")
    assert waiting.evidence["awaiting_absent_answer_of"] == ORIGIN
    dedup.probe_failed(absent_url(ORIGIN), 404)  # an honest origin
    pruned = dedup.check_url(MIRROR + "extra/wave.html")
    assert (pruned.action, pruned.reason) == ("drop", "mirrored_directory")
