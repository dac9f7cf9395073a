"""Index pages whose text differs but whose listings agree open a candidate; sampling decides."""

from __future__ import annotations

import re

import pytest

from dedup_filter import Config
from dedup_filter.mirrors.directories import IndexPages
from dedup_filter.mirrors.listings import listing, listing_keys, names_bare, names_htm
from testweb.crawl import page_links

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree

BANNER = (
    "<div><p>This server mirrors the standard library notes every night for readers in our region."
    " Report broken pages to the original maintainers, not to us; we only copy what they publish."
    " Mirror statistics, our privacy policy and the list of other mirrors are on our home page."
    f' The original: <a href="{ORIGIN}">{ORIGIN}</a>.</p></div>'
)


def index_pages() -> IndexPages:
    config = Config.default().mirror
    return IndexPages(config.index_names, config.index_extensions)


def test_a_listing_holds_the_documents_and_subdirectories_of_its_directory():
    links = [
        "http://h.test/d/a.html",
        "http://h.test/d/B.html",
        "http://h.test/d/sub/index.html",
        "http://h.test/d/sub/deep.html",  # navigation into a subdirectory, not a listing
        "http://h.test/d/index.html",  # the page itself
        "http://h.test/d/?C=N;O=D",  # a sort order of a generated listing
        "http://h.test/d/archive.tar.gz",
        "http://h.test/other/x.html",
    ]
    assert listing("http://h.test/d/", links, index_pages()) == {"a.html", "b.html", "sub/"}


def test_a_subdirectory_linked_by_either_name_is_one_entry():
    pages = index_pages()
    by_name = listing(
        "http://h.test/", ["http://h.test/x.html", "http://h.test/s/index.html"], pages
    )
    by_slash = listing("http://m.test/", ["http://m.test/x.html", "http://m.test/s/"], pages)
    assert listing_keys(by_name) == listing_keys(by_slash)


def test_listings_agree_on_their_keys_as_much_as_on_their_entries():
    """Each of a listing's keys is the least of its entries under one permutation: equal
    listings share all, disjoint ones none, and an empty listing has none."""
    entries = frozenset(f"page{number}.html" for number in range(14))
    keys = listing_keys(entries)
    assert len(keys) == 16
    assert listing_keys(frozenset(sorted(entries, reverse=True))) == keys
    other = frozenset(f"other{number}.html" for number in range(14))
    assert not set(listing_keys(other)) & set(keys)
    assert listing_keys(frozenset()) == ()


def bannered(pages: dict[str, bytes]) -> dict[str, bytes]:
    """The copy with a mirror banner on its top index page (no near-duplicate of the origin's)."""
    return pages | {MIRROR: pages[MIRROR].replace(b"<body>", b"<body>" + BANNER.encode())}


def test_a_bannered_index_page_pairs_by_its_listing(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | bannered(copy_tree(origin_tree, ORIGIN, MIRROR))
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, ORIGIN) + breadth_first(pages, MIRROR)
    )
    assert crawl.decisions[MIRROR].reason == "unique"  # not a duplicate: its own text is indexed
    assert crawl.decisions[MIRROR].evidence["mirror"]["origin"] == ORIGIN
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]
    assert MIRROR + "csv.html" in crawl.pruned


def test_a_copy_that_lists_most_of_its_origins_entries_pairs_by_its_listing(
    open_filter, origin_tree
):
    """A copy in another site's layout keeps the links of the page's own content and drops the
    theme's (its index and search pages): a listing short of two of its 13 entries still
    pairs, where one that must equal the origin's would not."""
    dedup = open_filter()
    copy = bannered(copy_tree(origin_tree, ORIGIN, MIRROR))
    top = copy[MIRROR].decode()
    links = re.findall(r'<a href="([^"#/]+\.html)">', top)
    for name in links[:: len(links) // 2]:
        top = top.replace(f'<a href="{name}">', "<a>", 1)
    copy[MIRROR] = top.encode()
    entries = listing(MIRROR, page_links(MIRROR, copy[MIRROR]), index_pages())
    listed = listing(ORIGIN, page_links(ORIGIN, origin_tree[ORIGIN]), index_pages())
    assert len(entries) == len(listed) - 2 == 11  # as a reader site's copy of Babel: 12 of 14
    pages = origin_tree | copy
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert crawl.decisions[MIRROR].evidence["mirror"]["origin"] == ORIGIN


def test_a_listing_that_agrees_on_half_its_entries_pairs_nothing(open_filter, origin_tree):
    dedup = open_filter()
    copy = bannered(copy_tree(origin_tree, ORIGIN, MIRROR))
    top = copy[MIRROR].decode()
    links = re.findall(r'<a href="[^"#/]+\.html">', top)
    for link in links[: len(links) // 2]:
        top = top.replace(link, "<a>", 1)
    copy[MIRROR] = top.encode()
    pages = origin_tree | copy
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert "mirror" not in crawl.decisions[MIRROR].evidence


def test_without_listings_the_bannered_top_is_never_paired(open_filter, origin_tree):
    dedup = open_filter(listing_min_links=0)
    pages = origin_tree | bannered(copy_tree(origin_tree, ORIGIN, MIRROR))
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert "mirror" not in crawl.decisions[MIRROR].evidence
    assert dedup.mirror_rules() == []


def test_an_index_page_names_its_documents_bare_when_most_of_its_names_have_no_page_extension():
    """A static-site host's "pretty" listing (``intro``, ``class.Pixbuf``, ``3.2.16``) against a
    listing of pages beside a ``README`` and a ``COPYING``; its own name, sections, queries and
    other directories do not count."""
    directory = "http://m.test/pub/"
    pretty = ["intro", "class.Pixbuf", "3.2.16", "", "index", "sub/", "sub/page", "intro?x=1"]
    pretty.append("CHANGES.html")
    plain = ["intro.html", "class.Pixbuf.html", "README", "COPYING", "sub/", "index.html"]
    elsewhere = [f"http://o.test/{name}" for name in ("a", "b", "c")]
    assert names_bare(directory, [directory + name for name in pretty], index_pages())
    assert not names_bare(
        directory, [directory + name for name in plain] + elsewhere, index_pages()
    )


def test_an_index_page_names_its_documents_htm_when_most_of_its_pages_end_so():
    """A copy kept where names carry three-letter extensions links its pages ``.htm``; a
    listing of ``.html`` pages beside one ``.htm`` does not, nor do deeper links, queries and
    other directories' pages."""
    directory = "http://m.test/pub/"
    renamed = ["intro.htm", "usage.htm", "faq.htm#top", "index.html", "sub/a.htm"]
    plain = ["intro.html", "usage.html", "faq.html", "old.htm", "sub/a.htm", "sub/b.htm"]
    elsewhere = [f"http://o.test/{name}.htm" for name in ("a", "b", "c")]
    assert names_htm(directory, [directory + name for name in renamed])
    assert not names_htm(directory, [directory + name for name in plain] + elsewhere)
    assert not names_htm(directory, [directory + "a.htm?x=1", directory + "b.htm?x=2"])


@pytest.mark.parametrize(
    "names",
    [
        ["handler", "handler/intro.html", "xmlreader", "xmlreader/", "sax", "sax/a.html"],
        ["dom", "parsers"],  # two subdirectories linked without their slash, nothing else
        ["docs-html.zip", "docs-html.tar.bz2", "docs-pdf-a4.zip", "README", "SHA256SUMS"],
        # a listing of guides beside its index file, three of them linked without their slash
        ["index.html", "design_principles", "efficiency_guide/", "embedded", "oam", "tutorial/"],
    ],
    ids=["directories-linked-below", "two-names", "files", "beside-the-index-file"],
)
def test_directories_linked_without_their_slash_and_files_are_no_pretty_names(names):
    """Subdirectories linked without their slash (a hand-written index page, a redirect
    rule's host) and a release's files are not a pretty host's pages: read as such, a section's
    ``.html`` pages were asked bare there (404s), and a generated listing was taken for the
    directory's index page."""
    directory = "http://m.test/pub/"
    assert not names_bare(directory, [directory + name for name in names], index_pages())
