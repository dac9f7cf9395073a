"""An origin with fewer documents than samples: confirmed once every document it lists matched."""

from __future__ import annotations

from .conftest import MIRROR, ORIGIN, OnlineCrawl, table_of_contents

NAMES = ["calendar", "shlex"]


def small_tree(corpus, base: str, names: list[str], subdirectory: bool = False) -> dict[str, bytes]:
    entries = [(f"{name}.html", name) for name in NAMES] + (
        [("more/", "more.html")] if subdirectory else []
    )
    pages = {base: table_of_contents("Two modules", entries)}
    pages |= {
        f"{base}{listed}.html": corpus[name].encode()
        for listed, name in zip(NAMES, names, strict=True)
    }
    return pages


def crawl_both(dedup, origin: dict[str, bytes], mirror: dict[str, bytes]) -> OnlineCrawl:
    return OnlineCrawl(dedup, origin | mirror).visit([*origin, MIRROR])


def test_a_mirror_of_a_small_origin_is_confirmed_on_all_its_documents(open_filter, corpus):
    dedup = open_filter()
    crawl = crawl_both(dedup, small_tree(corpus, ORIGIN, NAMES), small_tree(corpus, MIRROR, NAMES))
    [rule] = dedup.mirror_rules()
    assert (rule["mirror"], rule["samples"], rule["matches"], rule["resemblance"]) == (
        MIRROR,
        2,
        2,
        1.0,
    )
    assert sorted(crawl.probes) == sorted(MIRROR + f"{name}.html" for name in NAMES)


def test_a_small_look_alike_is_rejected(open_filter, corpus):
    dedup = open_filter()
    other = small_tree(corpus, MIRROR, ["heapq", "shlex"])  # same listing, one other text
    crawl = crawl_both(dedup, small_tree(corpus, ORIGIN, NAMES), other)
    assert dedup.mirror_rules() == []
    assert dedup.check_page(MIRROR, other[MIRROR]).reason == "look_alike_index"
    assert crawl.pruned == {}


def test_a_listing_with_a_subdirectory_is_not_a_small_origin(open_filter, corpus):
    dedup = open_filter()
    origin = small_tree(corpus, ORIGIN, NAMES, subdirectory=True)
    crawl_both(dedup, origin, small_tree(corpus, MIRROR, NAMES, subdirectory=True))
    assert dedup.mirror_rules() == []
    assert dedup.check_page(MIRROR, origin[ORIGIN]).reason == "mirror_candidate"


def test_a_main_page_that_lists_no_document_is_no_small_origin(open_filter, corpus):
    """A generated manual's main page that names none of its documents (Doxygen's: its menus
    are scripts) tells nothing of the directory's size: a page that every such manual holds
    alike (its graph legend) confirms nothing on its own."""
    dedup = open_filter()
    main = table_of_contents("Example project", [])  # the same main page on both sides
    legend = corpus["calendar"].encode()
    crawl = OnlineCrawl(
        dedup,
        {
            ORIGIN: main,
            f"{ORIGIN}legend.html": legend,
            f"{ORIGIN}classes.html": corpus["heapq"].encode(),  # each project's own classes
            MIRROR: main,
            f"{MIRROR}legend.html": legend,
            f"{MIRROR}classes.html": corpus["shlex"].encode(),
        },
    )
    crawl.visit([ORIGIN, f"{ORIGIN}legend.html", MIRROR, f"{MIRROR}legend.html"])
    assert dedup.mirror_rules() == []
    crawl.visit([f"{ORIGIN}classes.html", f"{MIRROR}classes.html"])
    assert dedup.mirror_rules() == []
    assert crawl.pruned == {}


def _hashed_directory(corpus, top: str, title: str, listed: list[str]) -> dict[str, bytes]:
    """A directory of two documents under a listing of ``listed`` that names its own path (a
    server's autoindex), so the two sides' listings neither duplicate nor pair."""
    directory = f"{top}d0/d15/"
    listing = table_of_contents(f"Index of {title}", [(f"{name}.html", name) for name in listed])
    documents = {f"{directory}{name}.html": corpus[name].encode() for name in NAMES}
    return {directory: listing} | documents


def test_a_pair_of_small_directories_found_from_documents_is_confirmed_on_all_of_them(
    open_filter, corpus
):
    """Doxygen files its pages in hashed directories of one or two documents each: a pair of
    them found from documents could never draw the samples it waited for, and the twenty-fourth
    holdout web's copies of SDL2's reference were crawled whole, 933 pages twice."""
    dedup = open_filter()
    origin = _hashed_directory(corpus, ORIGIN, "/d0/d15/ on the origin", NAMES)
    mirror = _hashed_directory(corpus, MIRROR, "/pub/copy/d0/d15/ on the mirror", NAMES)
    OnlineCrawl(dedup, origin | mirror).visit([*origin, *mirror])
    [rule] = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"]) == (f"{MIRROR}d0/d15/", f"{ORIGIN}d0/d15/")
    assert (rule["samples"], rule["matches"]) == (2, 2)


def test_a_pair_found_from_documents_under_a_listing_of_more_waits_for_more(open_filter, corpus):
    """The origin's listing names as many documents as a pair samples: the two fetched on each
    side are not all there is."""
    dedup = open_filter()
    listed = [*NAMES, "heapq", "textwrap"]
    origin = _hashed_directory(corpus, ORIGIN, "/d0/d15/ on the origin", listed)
    mirror = _hashed_directory(corpus, MIRROR, "/pub/copy/d0/d15/ on the mirror", NAMES)
    OnlineCrawl(dedup, origin | mirror).visit([*origin, *mirror])
    assert dedup.mirror_rules() == []
