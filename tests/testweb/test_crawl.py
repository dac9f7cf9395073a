"""Link extraction and the breadth-first order of simulated crawls."""

from __future__ import annotations

from testweb.crawl import breadth_first_crawl, breadth_first_order, page_links


def test_links_are_resolved_defragmented_and_kept_on_test_hosts():
    body = (
        b'<a href="../b/c.html#part">x</a><a href="/">root</a><a href="http://example.com/">out</a>'
        b'<a href="mailto:a@b.test">mail</a><a href="http://Other.test/x?y=1">other</a>'
        b"<a>no href</a>"
    )
    assert page_links("http://a.test/d/e/f.html", body) == [
        "http://a.test/d/b/c.html",
        "http://a.test/",
        "http://Other.test/x?y=1",
    ]


def test_broken_markup_yields_no_links_and_no_error():
    assert page_links("http://a.test/", b"<a href='http://[::1'>x</a>\x00\xff<a href") == []


def test_order_starts_with_the_start_urls_and_interleaves_hosts(web):
    order = breadth_first_order(web)
    assert order[: len(web.start_urls)] == web.start_urls
    first_hosts = [url.split("/")[2] for url in order[: 3 * len(web.start_urls)]]
    assert len(set(first_hosts)) == len(web.start_urls)


def test_a_page_whose_links_are_not_followed_hides_its_subtree(web):
    whole_host = next(mirror for mirror in web.mirrors if mirror.kind == "whole_host")
    visited = breadth_first_crawl(web, lambda url: url != whole_host.index_url)
    assert whole_host.index_url in visited
    assert not [
        url for url in visited if url.startswith(whole_host.d2) and url != whole_host.index_url
    ]


def test_visit_is_called_once_per_page_in_order(web):
    calls = []
    visited = breadth_first_crawl(web, lambda url: calls.append(url) is None)
    assert calls == visited == breadth_first_order(web)
