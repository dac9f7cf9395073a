"""Probes are worth their fetch: never asked twice at once, never inside a confirmed mirror."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from dedup_filter import DedupFilter
from dedup_filter.mirrors.deferrals import Deferrals
from testweb.online import ORDERS, CrawlLog, crawl
from testweb.site import TestWeb

from .conftest import (
    DEEP_COPY,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    as_htm,
    breadth_first,
    copy_tree,
    guide_with_index_file,
    leave_out,
    prose_guide,
    renamed_copy,
    renamed_guide,
    table_of_contents,
    text_words,
    two_guides,
    two_hosts,
)


def test_a_decision_never_lists_a_probe_twice(open_filter, origin_tree):
    """Two nested candidates (the host roots and their ``extra/``) sample the same page."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    extra = [url for url in breadth_first(pages, ORIGIN + "extra/") if not url.endswith("/")]
    crawl = OnlineCrawl(dedup, pages).visit(
        [ORIGIN, ORIGIN + "extra/", MIRROR, MIRROR + "extra/", *extra]
    )
    asked = [decision.probes for decision in crawl.decisions.values()]
    assert any(probes for probes in asked)
    assert all(len(set(probes)) == len(probes) for probes in asked)
    assert len(set(crawl.probes)) == len(crawl.probes)


def test_no_probe_inside_a_directory_already_confirmed_a_mirror(open_filter, origin_tree):
    """The deeper copy's ``extra/`` index page came first; the origin's ``extra/`` index page
    arrives after the copy was confirmed, duplicating it: no pair, no probe under the rule."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_COPY)
    top = [url for url in breadth_first(origin_tree, ORIGIN) if "/extra/" not in url]
    crawl = OnlineCrawl(dedup, pages).visit([DEEP_COPY + "extra/", *top, DEEP_COPY])
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [DEEP_COPY]
    confirmed_at = len(crawl.probes)
    crawl.visit(breadth_first(origin_tree, ORIGIN + "extra/"))
    assert crawl.decisions[ORIGIN + "extra/"].reason == "mirror_origin"
    assert [url for url in crawl.probes[confirmed_at:] if url.startswith(DEEP_COPY)] == []
    assert dedup.pending_probes() == []


def test_a_withdrawn_probe_answered_with_a_404_is_remembered_absent(open_filter):
    """As a fetch's 404 is: a pair that draws the same sample later settles it at once. Asked
    again, it is never answered by a crawler that fetches each URL once (Scrapy's duplicate
    filter): on the eighteenth holdout web (round robin) a copier's pair sampled two pages a
    withdrawn probe had found absent, waited for them to the crawl's end, and kept the copier's
    documents deferred until then (six times each, then fetched)."""
    dedup = open_filter()
    url = MIRROR + "extra/gone.html"
    assert dedup.probe_failed(url, 404).evidence["outstanding_probe"] is False
    with dedup.index.read() as view:
        assert Deferrals(view).absent(url) == 404


def test_a_probe_withdrawn_by_a_wider_rule_is_pruned_by_check_url(open_filter, origin_tree):
    """A crawler may still hold probes of a candidate that a wider rule absorbed: asking
    check_url before fetching one tells it the probe is no longer wanted. One already in
    flight answers as a probe still does: its page is no page the crawl parsed."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    for url in (ORIGIN, ORIGIN + "extra/"):
        dedup.check_page(url, pages[url])
    origin_first = dedup.check_page(MIRROR + "extra/", pages[MIRROR + "extra/"]).probes
    assert origin_first
    assert all(url.startswith(ORIGIN) for url in origin_first)  # the crawl fetches those anyway
    held = [probe for url in origin_first for probe in dedup.check_page(url, pages[url]).probes]
    assert held
    assert all(url.startswith(MIRROR + "extra/") for url in held)
    assert not any(dedup.check_url(url).dropped for url in held)  # outstanding: never pruned
    queue = list(dedup.check_page(MIRROR, pages[MIRROR]).probes)
    for _ in range(100):  # answer all but the held probes (bounded: each asks a few more)
        if not queue:
            break
        url = queue.pop(0)
        if url in pages and url not in held:
            queue += dedup.check_page(url, pages[url]).probes
        elif url not in pages:  # the URL asked for what the origin answers for a page it lacks
            queue += dedup.probe_failed(url, 404).probes
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR]
    assert {dedup.check_url(url).reason for url in held} == {"mirrored_directory"}
    # one was in flight: its page, when it comes, is a probe's answer the spider never parsed
    in_flight = held[0]
    dedup.check_page(in_flight, pages[in_flight])
    with dedup.index.read() as view:
        assert Deferrals(view).probed(in_flight)
    dedup.probe_served(in_flight)  # the crawl asked for it after all
    with dedup.index.read() as view:
        assert not Deferrals(view).probed(in_flight)


@pytest.mark.parametrize("status", [404, 503])
def test_a_sample_whose_page_failed_before_is_settled_without_asking_again(
    open_filter, origin_tree, status
):
    """A copier's partial copy of ``extra/`` at its root, paired first with a mirror's copy: the
    page it lacks fails its probe (a 404, or a 503 that may never end). When the origin's
    ``extra/`` is paired with the copier later, the same sample is drawn, and asked for again it
    would never be answered (a crawler fetches a probe once): it is settled at once from the
    failure remembered. A seed-1 holdout crawl left such a pair open to the end, and the
    copier's boundary unnamed."""
    copier = "http://copier.test/"
    extra = {url: body for url, body in origin_tree.items() if url.startswith(ORIGIN + "extra/")}
    lacking = sorted(url for url in extra if url.endswith(".html"))[0]
    missing = lacking.replace(ORIGIN + "extra/", copier)
    copied = {
        url: body
        for url, body in copy_tree(extra, ORIGIN + "extra/", copier).items()
        if url != missing
    }
    pages = copied | copy_tree(extra, ORIGIN + "extra/", MIRROR + "extra/")
    with open_filter() as dedup:
        OnlineCrawl(dedup, pages).visit(breadth_first(copied, copier))
        asked = list(dedup.check_page(MIRROR + "extra/", pages[MIRROR + "extra/"]).probes)
        failed = []
        for url in asked[:100]:  # bounded: each page is fetched once
            if url == missing:
                failed.append(url)
                asked += dedup.probe_failed(url, status).probes
            elif url in pages and url not in asked[: asked.index(url)]:
                asked += dedup.check_page(url, pages[url]).probes
        assert failed == [missing]
        decision = dedup.check_page(ORIGIN + "extra/", origin_tree[ORIGIN + "extra/"])
        assert missing not in decision.probes
        relative = lacking.removeprefix(ORIGIN + "extra/")
        (pair,) = [c for c in dedup.mirror_candidates() if c["origin"] == copier]
        assert pair["mirror"] == ORIGIN + "extra/"
        assert pair["samples"][relative] == "missing"


def _capitalized(path: str) -> str:
    return path if path == "index.html" else path[:1].upper() + path[1:]


# long enough that a page under it is no near-duplicate of its original (170 words)
_BANNER = (
    b"<body><p>This copy is kept for the campus network by the library's systems group, who "
    b"refresh it every night from the publisher's server; report broken links or missing "
    b"pages to the help desk in the east wing, open weekdays from nine to five, or write to "
    b"the systems group's mailing list, which answers within two working days.</p>"
)


@pytest.mark.parametrize("order", ORDERS)
def test_a_copy_under_other_names_costs_no_probe_for_each_page(open_filter, corpus, order):
    """A copy whose names do not map onto its origin's, crawled first, is paired with it from
    its content; then each of the copy's pages has its counterpart under its own name probed,
    and each coded page of the origin its copy: all 404s. Probed each, the crawl made more
    requests than it makes without the filter (212 for 204 pages here; a real tree renamed
    so, 858 pages: 985). Once a rule's probes of a kind mostly fail they stop; nothing is
    lost."""
    origin = prose_guide(corpus, ORIGIN + "guide/", 100)
    pages = origin | renamed_copy(origin, ORIGIN + "guide/", MIRROR + "pub/guide/")
    pages[ORIGIN] = b'<html><body><a href="guide/">Guide</a></body></html>'
    pages[MIRROR] = b'<html><body><a href="pub/guide/">Guide</a></body></html>'
    web = TestWeb(0, "renamed", pages, {}, [MIRROR, ORIGIN], [], [], set(), {}, {})
    log = crawl(web, open_filter(), order, follow_dropped=True)
    assert len(log.fetched) < len(pages)  # probes included
    assert len(log.failed_probes) <= 2 * 8 + 12  # two kinds' tallies, a pair's samples
    assert set(origin.values()) <= {pages.get(url) for url in log.fetched}  # nothing lost


def crawled_from_roots(
    dedup: DedupFilter,
    pages: dict[str, bytes],
    links: tuple[str, str],
    first: str,
    order: str,
    name: str,
) -> CrawlLog:
    """``pages`` with each host's root linking its guide (``links``: the origin's, the copy's),
    crawled from both roots, ``first`` ("origin" or "copy") leading."""
    for root, link in zip((ORIGIN, MIRROR), links, strict=True):
        pages[root] = f'<html><body><a href="{link}">Guide</a></body></html>'.encode()
    starts = [ORIGIN, MIRROR] if first == "origin" else [MIRROR, ORIGIN]
    web = TestWeb(0, name, pages, {}, starts, [], [], set(), {}, {})
    return crawl(web, dedup, order, follow_dropped=True)


def assert_copy_pruned(
    log: CrawlLog, pages: dict[str, bytes], origin: dict[str, bytes], copy: dict[str, bytes]
) -> None:
    """Most of the copy pruned, the crawl hardly longer than the origin, nothing lost."""
    assert len(log.fetched) < len(origin) + 25  # probes and 404s included; no filter: 124
    assert sum(url in copy for url in log.pruned) > 45
    assert set(origin.values()) <= {pages.get(url) for url in log.fetched}  # nothing lost


@pytest.mark.parametrize("mixed_case", [False, True])
@pytest.mark.parametrize("banner", [False, True])
@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("rename", [str.upper, as_htm])
def test_a_copy_whose_server_renamed_its_files_is_pruned_as_it_names_them(
    open_filter, corpus, order, first, banner, rename, mixed_case
):
    """The index pages' names (``INDEX.HTML`` or ``index.htm`` against ``index.html``) tell how
    a copy's server renamed every file, so samples and counterparts are asked as each side
    names them. Asked as the other side names them, each was a 404 (or, ``.htm`` for ``.html``,
    a path that hashed apart): the copy was paired late or never, crawled whole and dropped page
    by page (vim's manual so copied: 258 and 254 requests against 246 without the filter).
    Under a banner, its samples match by resemblance: two names apart in case alone are two
    files, unless the index pages name them so. An origin's mixed-case names (``Page00.html``)
    cannot be told from their upper-cased copies: they are waited for, never probed."""
    guide = prose_guide(corpus, ORIGIN + "guide/", 60)
    origin = {
        url if url != ORIGIN + "guide/" else url + "index.html": body for url, body in guide.items()
    }
    if mixed_case:
        origin = renamed_copy(origin, ORIGIN + "guide/", ORIGIN + "guide/", _capitalized)
    copy = renamed_copy(origin, ORIGIN + "guide/", MIRROR + "pub/guide/", rename)
    if banner:
        copy = {url: body.replace(b"<body>", _BANNER, 1) for url, body in copy.items()}
    pages = origin | copy
    links = ("guide/index.html", f"pub/guide/{rename('index.html')}")
    log = crawled_from_roots(open_filter(), pages, links, first, order, "renamed")
    assert_copy_pruned(log, pages, origin, copy)


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_htm_copy_held_under_directory_urls_is_pruned_as_it_names_its_pages(
    open_filter, corpus, order, first
):
    """Both index pages are held under their directories' URLs, whose names tell nothing of
    the copy's renaming; the copy's index page links its pages ``.htm``, which tells. Asked as
    the other side names them, every counterpart was a 404 and the copy was crawled whole (a
    helper's web: 112 pages of a `.htm` mirror, in six crawls of six)."""
    origin = prose_guide(corpus, ORIGIN + "guide/", 60)
    copy = renamed_copy(origin, ORIGIN + "guide/", MIRROR + "pub/guide/", as_htm)
    pages = origin | copy
    log = crawled_from_roots(open_filter(), pages, ("guide/", "pub/guide/"), first, order, "htm")
    assert_copy_pruned(log, pages, origin, copy)


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("rename", [str.upper, as_htm])
def test_a_renamed_copy_lacking_pages_settles_its_samples(
    open_filter, corpus, order, first, rename
):
    """A sample's probe of a page a renamed copy lacks (``page03.htm``, a 404) settles the
    sample as the copy spells it. Compared with the origin's spelling, the failure settled
    nothing and the open sample asked for the same URL again in the decision that reported it:
    a crawler reporting each failure looped for ever (vim's manual, partial and ``.htm``)."""
    guide = guide_with_index_file(corpus, 40)
    web = two_guides(guide, leave_out(renamed_guide(guide, rename), 0, 3), rename, first)
    log = crawl(web, open_filter(), order, follow_dropped=True)  # raises if it loops
    assert len(log.fetched) < len(guide) + 25
    assert set(guide.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("rename", [str.upper, as_htm])
def test_pages_only_a_renamed_copy_holds_are_crawled(open_filter, corpus, order, first, rename):
    """An origin that lacks pages its table of contents names (404s), and a complete copy
    under renamed files: the copy's pages whose counterparts turn out missing are crawled, as
    the copy spells them, and the crawl still sends fewer requests than without the filter."""
    guide = guide_with_index_file(corpus, 40)
    web = two_guides(leave_out(guide, 1, 4), renamed_guide(guide, rename), rename, first)
    log = crawl(web, open_filter(), order, follow_dropped=True)
    assert set(guide.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost
    assert len(log.fetched) < len(crawl(web, None).fetched)  # fewer requests than no filter


def test_a_page_pruned_for_a_name_whose_case_was_guessed_names_the_page_held(open_filter, corpus):
    """An upper-cased copy of mixed-case names (``PAGE00.HTML`` for ``Page00.html``) is pruned
    for the origin's pages, whose case is guessed from the copy's (``page00.html``): the drop
    named the guess, a URL the crawl never fetched, instead of the page it holds."""
    guide = guide_with_index_file(corpus, 30)
    origin = renamed_copy(guide, ORIGIN + "guide/", ORIGIN + "guide/", _capitalized)
    copy = renamed_guide(origin, str.upper)
    web = two_guides(origin, copy, str.upper, "origin")
    dedup = open_filter()
    log = crawl(web, dedup, "breadth_first", follow_dropped=True)
    pruned = [url for url in log.pruned if url in copy]
    assert len(pruned) > 20
    named = {dedup.check_url(url).duplicate_of for url in pruned}
    assert named <= set(log.fetched)


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_copy_that_renamed_its_sections_is_not_probed_page_by_page(
    open_filter, corpus, order, first
):
    """A copy that filed its sections under names of its own (``part0-pages/`` for
    ``part0/``): its host's rule maps each section onto a directory its origin lacks. Each of
    its pages had its counterpart there probed (all 404s), and each section, paired with the
    origin's, was paired again with that image and sampled by probes that failed too: 143
    requests for 130 URLs (Python's guides so copied: 247 against 236 without the filter).
    Once the image's index page is known missing neither is asked; nothing is lost."""
    origin, copy = _renamed_sections(corpus, notes=False)
    web = two_hosts(origin, copy, _MANUALS, first)
    log = crawl(web, open_filter(), order, follow_dropped=True)
    assert len(log.fetched) < len(web.pages) - 10  # probes and 404s included
    assert set(origin.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_renamed_section_paired_with_a_place_holding_nothing_is_let_go(
    open_filter, corpus, order, first
):
    """The same copy with notes of its own beside the pages: each origin section, paired with
    the image of the copy's renamed one (where nothing exists), was refuted by 404s alone and
    so held open as a partial copy that might yet be turned (``partial_origin_pending``),
    drawing samples: 7 failed probes a section, 12 (the cap) and 157 requests for 134 URLs
    breadth first from the copy (Python's guides so copied: 285 against 249 without the
    filter). A place that holds nothing, not even its index page, is no partial copy: rejected
    on its first samples."""
    origin, copy = _renamed_sections(corpus, notes=True)
    web = two_hosts(origin, copy, _MANUALS, first)
    log = crawl(web, open_filter(), order, follow_dropped=True)
    image = [url for url in log.failed_probes if re.match(ORIGIN + r"manual/part\d-pages/", url)]
    assert len(image) <= 4 * 3  # a sample's few probes for each of the three sections
    assert len(log.fetched) < len(web.pages)
    assert set(origin.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost


def _renamed_sections(corpus: dict[str, str], notes: bool) -> tuple[dict, dict]:
    """A manual of three sections under ``ORIGIN``, and a copy under ``MIRROR`` whose sections
    are renamed ``partN-pages/``; ``notes``: the copy also holds each ``page03.html`` again as
    ``page03-local.html`` with a note only it has, linked from its top page."""
    base, copy_base = ORIGIN + "manual/", MIRROR + "pub/manual/"
    sections = [f"part{number}/" for number in range(3)]
    origin = prose_guide(corpus, base, 12)
    for section in sections:
        guide = prose_guide(corpus, base + section, 16)
        guide[base + section + "index.html"] = guide.pop(base + section)
        origin |= guide
    copy = {
        copy_base + re.sub(r"^(part\d)/", r"\1-pages/", url[len(base) :]): body
        for url, body in origin.items()
    }
    local = [url for url in sorted(copy) if notes and url.endswith("/page03.html")]
    for number, url in enumerate(local):
        note = f"<p>A note on this mirror's local setup, number {number}.</p></body>"
        copy[url.replace(".html", "-local.html")] = copy[url].replace(b"</body>", note.encode())
    copy[copy_base] = _contents(
        [(name[:-1] + "-pages/index.html", name[:-1] + ".d") for name in sections]
        + [
            (url[len(copy_base) :].replace(".html", "-local.html"), f"{number}.note")
            for number, url in enumerate(local)
        ]
    )
    origin[base] = _contents([(name + "index.html", name[:-1] + ".d") for name in sections])
    return origin, copy


@pytest.mark.parametrize("order", ORDERS)
def test_a_renamed_section_without_index_page_costs_a_few_probes(open_filter, corpus, order):
    """A copy, crawled first, that filed a section without an index page under a name of its
    own (SQLite's ``c3ref/``, its pages linked from the manual's): every page's counterpart
    there was probed, all at once (one page links them all), before the first 404 came back,
    and the rule's tally, fed by the manual's pages that were answered, never called them
    mostly absent (27 here in round robin order; SQLite's manual so copied: 84, all 404s).
    Counted by the directory probed, and no more asked while eight are in flight unanswered,
    they stop at eight."""
    base = ORIGIN + "manual/"
    origin = prose_guide(corpus, base, 12)
    reference = _reference_pages(corpus)
    origin |= {f"{base}ref/{name}": body for name, body in reference.items()}
    origin[base] = _contents([("ref/" + name, name) for name in reference])
    copy = {
        MIRROR + "pub/manual/" + url[len(base) :].replace("ref/", "ref-pages/", 1): body
        for url, body in origin.items()
    }
    copy[MIRROR + "pub/manual/"] = _contents([("ref-pages/" + name, name) for name in reference])
    web = two_hosts(origin, copy, _MANUALS, "copy")
    log = crawl(web, open_filter(), order, follow_dropped=True)
    renamed = [url for url in log.failed_probes if url.startswith(base + "ref-pages/")]
    assert 0 < len(renamed) <= 9  # eight counterparts, and a sample or a code check
    assert set(origin.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost


# where each host's front page links its manual
_MANUALS = ("manual/", "pub/manual/")


def _contents(entries: list[tuple[str, str]]) -> bytes:
    """The manual's table of contents: ``prose_guide``'s twelve pages, then ``entries``."""
    pages = [(f"page{number:02d}.html", f"page{number:02d}.html") for number in range(12)]
    return table_of_contents("Manual", pages + entries)


def _pretty(path: str) -> str:
    """``path`` as a static-site host serving "pretty" URLs names it."""
    return "" if path == "index.html" else path.removesuffix(".html")


@pytest.mark.parametrize("dotted", [False, True])
@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_copy_under_pretty_urls_is_pruned_as_it_names_its_pages(
    open_filter, corpus, order, first, dotted
):
    """A copy served under "pretty" URLs (``page03`` for ``page03.html``, ``pub/guide/`` for
    ``index.html``, links too), its names dotted or not (gi-docgen's ``class.Pixbuf.html``):
    its index page names its documents bare, so its pages compare with the origin's and are
    asked for as it names them. Before, every sample was asked under the other side's name (a
    404) and the copy was crawled whole: more requests than without the filter."""
    guide = prose_guide(corpus, ORIGIN + "guide/", 60)
    origin = {
        url if url != ORIGIN + "guide/" else url + "index.html": body for url, body in guide.items()
    }
    if dotted:
        origin = renamed_copy(
            origin, ORIGIN + "guide/", ORIGIN + "guide/", lambda path: f"func.{path}"
        )
        origin[ORIGIN + "guide/index.html"] = origin.pop(ORIGIN + "guide/func.index.html")
    copy = renamed_copy(origin, ORIGIN + "guide/", MIRROR + "pub/guide/", _pretty)
    pages = origin | copy
    dedup = open_filter()
    links = ("guide/index.html", "pub/guide/")
    log = crawled_from_roots(dedup, pages, links, first, order, "pretty")
    assert_copy_pruned(log, pages, origin, copy)
    (rule,) = [rule for rule in dedup.mirror_rules() if rule["mirror"].endswith("guide/")]
    pretty_side = "mirror" if rule["mirror"] == MIRROR + "pub/guide/" else "origin"
    assert rule["bare_names"] == [pretty_side]  # why its pages are asked without ``.html``


def _reference_pages(corpus: dict[str, str]) -> dict[str, bytes]:
    """Thirty reference pages (``func00.html`` ...) of prose the guide's pages do not hold."""
    words = [word for name in sorted(corpus) for word in text_words(corpus[name])]
    pages = {}
    for number in range(30):
        prose = " ".join(words[3000 + number * 170 : 3170 + number * 170])
        pages[f"func{number:02d}.html"] = f"<html><body><p>{prose}</p></body></html>".encode()
    return pages


def _manual_with_section(
    corpus,
    base: str,
    section: tuple[str, str, int],
    section_link: Callable[[str], str],
    guide_link: Callable[[str], str] = str,
) -> dict[str, bytes]:
    """``prose_guide``'s twelve pages under ``base`` with its contents as the index file, named
    and linked by ``guide_link``, and a ``section`` (directory, title, pages) of reference pages
    of other prose, those pages and their index page named and linked by ``section_link`` (each
    of the ``.html`` name)."""
    directory, title, pages = section
    guide = prose_guide(corpus, base, 12)
    manual = {
        base + guide_link(url[len(base) :]): body for url, body in guide.items() if url != base
    }
    reference = dict(list(_reference_pages(corpus).items())[:pages])
    manual |= {base + directory + section_link(name): body for name, body in reference.items()}
    manual[base + directory + section_link("index.html")] = table_of_contents(
        title, [(section_link(name), name) for name in reference]
    )
    chapters = [
        (guide_link(f"page{number:02d}.html"), f"page{number:02d}.html") for number in range(12)
    ]
    entry = (directory + section_link("index.html"), f"{title.lower()}.html")
    manual[base + guide_link("index.html")] = table_of_contents("Manual", [*chapters, entry])
    return manual


_REFERENCE = ("ref/", "Reference", 30)  # thirty pages, as many as a real section has
_NOTES = ("notes/", "Notes", 2)  # too few names for its index page to say how it names them


def test_a_page_held_under_its_pretty_name_stands_for_its_html_name(open_filter, corpus):
    """The origin's reference section is served under "pretty" URLs (``ref/func03``, ``ref/``)
    below a top naming ``.html``, and crawled first; its copy names ``.html`` throughout. The
    copy's section pages are dropped for the origin's pages held under their bare names, not
    asked again as ``ref/func03.html`` (a 404 each) and fetched: a page named bare is the one
    a pretty host serves for its ``.html`` name, and its section's index page held under
    ``ref/`` (naming its documents bare) is that host's ``ref/index.html``."""
    origin = _manual_with_section(corpus, ORIGIN + "manual/", _REFERENCE, _pretty)
    copy = _manual_with_section(corpus, MIRROR + "pub/manual/", _REFERENCE, str)
    pages = origin | copy
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(
        [*breadth_first(pages, ORIGIN), *breadth_first(pages, MIRROR)]
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
        (MIRROR + "pub/manual/", ORIGIN + "manual/")
    ]
    section = [url for url in copy if "/ref/" in url]
    assert all(url in crawl.pruned for url in section)
    assert all(crawl.pruned[url].duplicate_of in crawl.fetched for url in section)
    assert not [url for url in crawl.failed_probes if url.startswith(ORIGIN + "manual/ref/")]


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_section_served_under_pretty_urls_below_a_top_naming_html_is_asked_as_it_is_named(
    open_filter, corpus, order, first
):
    """The origin's reference section (another tool's output) is served under "pretty" URLs
    (``ref/func03``, ``ref/``) below a top that names ``.html``; its copy names ``.html``
    throughout. A side's names are read from its nearest held index page above a path: spelt
    by the tops alone, the section's pages were asked as ``ref/func03.html`` there (404s), and
    with the copy crawled first the crawl made more requests than without the filter."""
    origin = _manual_with_section(corpus, ORIGIN + "manual/", _REFERENCE, _pretty)
    copy = _manual_with_section(corpus, MIRROR + "pub/manual/", _REFERENCE, str)
    web = two_hosts(origin, copy, ("manual/index.html", "pub/manual/index.html"), first)
    dedup = open_filter()
    log = crawl(web, dedup, order, follow_dropped=True)
    assert set(origin.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost
    asked_unnamed = [url for url in log.failed_probes if url.startswith(ORIGIN + "manual/ref/")]
    assert len(asked_unnamed) <= 2  # 8 before, the copy crawled first
    assert len(log.fetched) < len(origin) + 18  # probes and 404s included; 97 before, 90 unfiltered


@pytest.mark.parametrize("first", ["origin", "copy"])
@pytest.mark.parametrize("order", ORDERS)
def test_a_pretty_hosts_small_section_is_asked_as_its_top_names_its_pages(
    open_filter, corpus, order, first
):
    """A host serving "pretty" URLs throughout, whose section ``notes/`` lists two pages: too
    few names for its index page to say how it names them (``listings.names_bare``). The
    section is asked as the host's top names its pages (``notes/func00``), not as
    ``notes/func00.html`` (a 404 each), which an index page that does not read bare never
    says."""
    origin = _manual_with_section(corpus, ORIGIN + "manual/", _NOTES, _pretty, _pretty)
    copy = _manual_with_section(corpus, MIRROR + "pub/manual/", _NOTES, str)
    web = two_hosts(origin, copy, ("manual/", "pub/manual/index.html"), first)
    log = crawl(web, open_filter(), order, follow_dropped=True)
    assert set(origin.values()) <= {web.pages.get(url) for url in log.fetched}  # nothing lost
    assert not [url for url in log.failed_probes if url.startswith(ORIGIN + "manual/notes/")]
