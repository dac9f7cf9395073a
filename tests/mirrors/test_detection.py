"""Mirror detection on hand-built trees of real text, case by case, in content and URL mode."""

from __future__ import annotations

import pytest

from dedup_filter.mirrors.records import MATCH, MISMATCH, REJECTED, Rejection
from dedup_filter.mirrors.store import MirrorStore, pair_reference, relative_hash

from .conftest import (
    DEEP_COPY,
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    deeper_copy_first,
    docs_tree,
    interleave,
    prose_guide,
)

COMMUNITY = "http://www.community.test/"
RENAMED = COMMUNITY + "mirrors/pylib-notes/"


def leaves_in_sample_order(pages: dict[str, bytes], base: str) -> list[str]:
    """The non-index pages under ``base`` in the hash order coordinate sampling takes them in."""
    relatives = [
        url[len(base) :] for url in pages if url.startswith(base) and not url.endswith("/")
    ]
    return sorted(relatives, key=lambda relative: relative_hash(relative.lower()))


def rules_of(dedup) -> list[tuple[str, str, str]]:
    return [(rule["mirror"], rule["origin"], rule["boundary"]) for rule in dedup.mirror_rules()]


def origin_dropped(crawl: OnlineCrawl, base: str = ORIGIN) -> list[str]:
    dropped = [url for url, decision in crawl.decisions.items() if decision.dropped]
    return [url for url in dropped + list(crawl.pruned) if url.startswith(base)]


@pytest.mark.parametrize("mode", ["content", "url"])
def test_whole_host_mirror_is_one_rule_at_the_host_root(open_filter, origin_tree, mode):
    dedup = open_filter(mode=mode)
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    order = interleave(breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR))
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]
    assert origin_dropped(crawl) == []
    mirror_fetched = [url for url in crawl.fetched if url.startswith(MIRROR)]
    assert len(mirror_fetched) <= 6 < len(crawl.pruned)  # index page, probes, pairs met on the way
    verdict = dedup.check_url(MIRROR + "extra/wave.html")
    assert (verdict.action, verdict.reason) == ("drop", "mirrored_directory")
    assert verdict.duplicate_of == ORIGIN + "extra/wave.html"
    assert verdict.evidence["mirror_rule"]["matches"] == 3  # certain at 3 of 4 (0.75)


def test_content_mode_probes_only_the_mirror_pages_a_verdict_needs(open_filter, origin_tree):
    """Four samples, and a probe of the mirror's page for the first three: 3 matches of 4 (0.75)
    confirm whatever the fourth shows, and a fourth probe is asked only if one fails."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert crawl.decisions[MIRROR].reason == "mirror_candidate"
    assert crawl.decisions[MIRROR].duplicate_of == ORIGIN
    assert sorted(crawl.decisions[MIRROR].probes) == sorted(
        MIRROR + relative for relative in leaves_in_sample_order(pages, ORIGIN)[:3]
    )
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]


def test_url_mode_confirms_from_links_without_a_probe(open_filter, origin_tree):
    dedup = open_filter(mode="url")
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, ORIGIN), MIRROR])
    assert crawl.probes == []
    assert crawl.decisions[MIRROR].reason == "mirrored_directory"
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]


@pytest.mark.parametrize("mode", ["content", "url"])
def test_renamed_directory_on_a_host_with_its_own_content(
    open_filter, origin_tree, stdlib_page, mode
):
    dedup = open_filter(mode=mode)
    notes = {
        url.replace(ORIGIN, ORIGIN + "library/notes/"): body for url, body in origin_tree.items()
    }
    own = {
        COMMUNITY + f"{name}.html": stdlib_page(name).encode()
        for name in ("fractions", "statistics")
    }
    own[COMMUNITY] = docs_tree({}, COMMUNITY, [], "Community pages")[COMMUNITY]
    pages = notes | own | copy_tree(notes, ORIGIN + "library/notes/", RENAMED)
    order = breadth_first(pages, ORIGIN) + breadth_first(pages, COMMUNITY)
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert rules_of(dedup) == [(RENAMED, ORIGIN + "library/notes/", "renamed")]
    assert origin_dropped(crawl) == []
    assert all(not dedup.check_url(url).dropped for url in own)
    assert (
        dedup.check_url(RENAMED + "extra/csv.html").duplicate_of
        == ORIGIN + "library/notes/extra/csv.html"
    )


def test_partial_mirror_lacking_a_fifth_of_its_pages(open_filter, origin_tree):
    dedup = open_filter()
    leaves = leaves_in_sample_order(origin_tree, ORIGIN)
    lacking = {MIRROR + relative for relative in leaves[: len(leaves) // 5]}  # the first samples
    mirror = {
        url: body
        for url, body in copy_tree(origin_tree, ORIGIN, MIRROR).items()
        if url not in lacking
    }
    crawl = OnlineCrawl(dedup, origin_tree | mirror).visit(
        [*breadth_first(origin_tree, ORIGIN), MIRROR]
    )
    assert set(crawl.failed_probes) == lacking
    [rule] = dedup.mirror_rules()
    assert (rule["mirror"], rule["matches"], rule["samples"], rule["unchecked"]) == (
        MIRROR,
        3,
        3,
        len(lacking),
    )


def snapshot(body: bytes) -> bytes:
    return body.replace(b"</body>", b"<p>Mirrored 2021-06-14.</p></body>")


def older(body: bytes) -> bytes:
    """A page as a copy made before its last third was written holds it."""
    return body[: len(body) * 2 // 3] + b"</body></html>"


@pytest.mark.parametrize(
    ("edited", "evidence"), [(1, (3, 4)), (2, (4, 6)), (8, None)], ids=["1", "2", "half"]
)
def test_stale_mirror_with_edited_pages(open_filter, origin_tree, edited, evidence):
    """Pages edited since the copy was made, the first samples taken: one of four is Zhang's 3 of
    4; two of four is ambiguous, so more are drawn (4 of 6); half is no mirror."""
    dedup = open_filter()
    mirror = {url: snapshot(body) for url, body in copy_tree(origin_tree, ORIGIN, MIRROR).items()}
    for relative in leaves_in_sample_order(origin_tree, ORIGIN)[:edited]:
        mirror[MIRROR + relative] = older(origin_tree[ORIGIN + relative])
    crawl = OnlineCrawl(dedup, origin_tree | mirror).visit(
        [*breadth_first(origin_tree, ORIGIN), MIRROR]
    )
    rules = dedup.mirror_rules()
    assert bool(rules) is (evidence is not None)
    if evidence is not None:
        assert (rules[0]["matches"], rules[0]["samples"]) == evidence
    else:
        assert dedup.check_page(MIRROR, mirror[MIRROR]).reason == "look_alike_index"
        assert crawl.pruned == {}


def test_a_sampled_page_of_other_text_is_no_stale_copys(open_filter, origin_tree, stdlib_page):
    """Three samples of four match, and the fourth holds other text, not an older edit: the
    pages under the same names are other documents (their share of such pages unknown, each
    lost if pruned), so the pair is no copy, though Zhang's 3 of 4 would confirm it."""
    dedup = open_filter()
    mirror = copy_tree(origin_tree, ORIGIN, MIRROR)
    rewritten = leaves_in_sample_order(origin_tree, ORIGIN)[0]
    mirror[MIRROR + rewritten] = stdlib_page("fractions").encode()
    crawl = OnlineCrawl(dedup, origin_tree | mirror).visit(
        [*breadth_first(origin_tree, ORIGIN), MIRROR]
    )
    assert dedup.mirror_rules() == []
    assert crawl.pruned == {}
    [candidate] = dedup.mirror_candidates()
    assert (candidate["state"], candidate["rejected_for"]) == ("rejected", "other_text")
    assert candidate["samples"][rewritten] == "other_text"


def look_alike_listings(corpus, modules) -> dict[str, bytes]:
    """Two package directories whose generated listings are identical (same file names) while
    the files hold other text: the grab-site #43 trap."""
    first, second = "http://files.one.test/pub/", "http://files.two.test/pub/"
    names = [f"part{number}.html" for number in range(8)]
    listing = docs_tree({}, "x/", [], "Index of /pub")["x/"].replace(
        b"</ul>",
        b"".join(f'<li><a href="{name}">{name}</a></li>'.encode() for name in names) + b"</ul>",
    )
    pages = {first: listing, second: listing}
    for number, name in enumerate(names):
        pages[first + name] = corpus[modules[number]].encode()
        pages[second + name] = corpus[modules[number + 8]].encode()
    return pages


def test_look_alike_listings_are_kept_and_crawled_in_content_mode(open_filter, corpus, modules):
    dedup = open_filter()
    pages = look_alike_listings(corpus, modules)
    order = breadth_first(pages, "http://files.one.test/") + breadth_first(
        pages, "http://files.two.test/"
    )
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert dedup.mirror_rules() == []
    assert crawl.pruned == {}
    assert sorted(crawl.fetched) == sorted(pages)
    assert (
        dedup.check_page("http://files.two.test/pub/", pages["http://files.two.test/pub/"]).action
        == "keep"
    )


def test_url_mode_is_fooled_by_look_alike_listings(open_filter, corpus, modules):
    """Why content is the default: URL sampling cannot tell a listing of other files."""
    dedup = open_filter(mode="url")
    pages = look_alike_listings(corpus, modules)
    order = breadth_first(pages, "http://files.one.test/") + breadth_first(
        pages, "http://files.two.test/"
    )
    OnlineCrawl(dedup, pages).visit(order)
    assert rules_of(dedup) == [
        ("http://files.two.test/pub/", "http://files.one.test/pub/", "parents_unknown")
    ]


def test_same_site_boilerplate_makes_no_rule(open_filter, corpus, modules):
    """Two sections of one site share a heavy template and their file names, not their text."""
    site = "http://www.portal.test/"
    template = "".join(
        f"<li><a href='/topics/{name}/'>{name} topic overview and news</a></li>" for name in modules
    )
    pages = {}
    for section, offset in (("alpha/", 0), ("beta/", 6)):
        toc = "".join(f"<a href='item{number}.html'>item {number}</a>" for number in range(6))
        pages[site + section] = f"<html><body><ul>{template}</ul>{toc}</body></html>".encode()
        for number in range(6):
            text = " ".join(corpus[modules[number + offset]].split()[200:260])
            body = f"<html><body><ul>{template}</ul><p>{text}</p></body></html>"
            pages[f"{site}{section}item{number}.html"] = body.encode()
    crawl = OnlineCrawl(dedup := open_filter(), pages).visit(breadth_first(pages, site))
    assert dedup.mirror_rules() == []
    assert crawl.pruned == {}


def test_no_rule_from_index_pages_alone(open_filter, origin_tree):
    dedup = open_filter()
    mirror_index = {MIRROR: origin_tree[ORIGIN]}  # the index page replicates, nothing else exists
    crawl = OnlineCrawl(dedup, origin_tree | mirror_index).visit(
        [*breadth_first(origin_tree, ORIGIN), MIRROR]
    )
    assert crawl.decisions[MIRROR].action == "keep"
    assert len(crawl.failed_probes) >= 4
    assert dedup.mirror_rules() == []
    assert not dedup.check_url(MIRROR + "csv.html").dropped


def test_zero_samples_trusts_the_index_pages(open_filter, origin_tree):
    dedup = open_filter(samples=0)
    crawl = OnlineCrawl(dedup, origin_tree | {MIRROR: origin_tree[ORIGIN]}).visit([ORIGIN, MIRROR])
    assert (crawl.decisions[MIRROR].action, crawl.decisions[MIRROR].reason) == (
        "drop",
        "mirrored_directory",
    )
    assert crawl.probes == []
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]


def test_a_candidate_samples_the_listing_before_its_origin_is_crawled(open_filter, origin_tree):
    """Both index pages came first (a mirror crawled beside its origin): the listing names the
    documents to sample; the origin's pages are probed first (the crawl fetches them anyway),
    then the mirror's of as many samples as matches are needed."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    crawl = OnlineCrawl(dedup, pages).visit([ORIGIN, MIRROR])
    leaves = leaves_in_sample_order(origin_tree, ORIGIN)
    listed = [relative for relative in leaves if "/" not in relative]
    assert crawl.decisions[MIRROR].reason == "mirror_candidate"
    assert sorted(crawl.decisions[MIRROR].probes) == sorted(ORIGIN + path for path in listed[:4])
    assert sorted(crawl.probes) == sorted(
        [ORIGIN + path for path in listed[:4]] + [MIRROR + path for path in listed[:3]]
    )
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]
    assert origin_dropped(crawl) == []


def test_a_copy_crawled_before_its_origin_is_confirmed_by_probing_the_origin(
    open_filter, origin_tree
):
    """The copy's top directory was crawled before the origin's index page was met (a small host
    crawled side by side with a large one): its fetched pages are the samples, the origin's
    counterparts are probed (the crawl fetches them anyway), and the copy's ``extra/`` is pruned."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, DEEP_COPY)
    top = [url for url in breadth_first(pages, DEEP_COPY) if "/extra/" not in url]
    extra = breadth_first(pages, DEEP_COPY + "extra/")
    crawl = OnlineCrawl(dedup, pages).visit([*top, ORIGIN, *extra])
    assert crawl.probes
    assert all(url.startswith(ORIGIN) for url in crawl.probes)
    assert rules_of(dedup) == [(DEEP_COPY, ORIGIN, "host_root")]
    assert sorted(crawl.pruned) == sorted(extra)
    assert origin_dropped(crawl) == []


def test_a_host_named_a_mirror_is_the_mirror_although_committed_first(open_filter, origin_tree):
    """Concurrent crawls commit the two host roots in any order: the name decides, not the order."""
    dedup = open_filter()
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR)
    order = interleave(breadth_first(pages, MIRROR), breadth_first(pages, ORIGIN))
    crawl = OnlineCrawl(dedup, pages).visit(order)
    assert rules_of(dedup) == [(MIRROR, ORIGIN, "host_root")]
    assert origin_dropped(crawl) == []
    assert crawl.decisions[ORIGIN].reason == "mirror_origin"


def linking(tree: dict[str, bytes], url: str) -> dict[str, bytes]:
    """``tree`` whose index page links ``url`` too, absolutely."""
    index = tree[ORIGIN].replace(b"</ul>", f'<li><a href="{url}">{url}</a></li></ul>'.encode())
    return tree | {ORIGIN: index}


def test_a_copy_as_deep_as_its_origin_and_seen_first_stands_for_it_though_it_links_it(
    open_filter, origin_tree
):
    """The origin's index page links its own host absolutely; the copy, crawled first at the same
    depth, keeps that link, so it is the page that links the other's host: taken for the copy,
    but its link names no copy over the crawl's order (a victim's index page links the forges
    beside it too, ``test_a_victim_crawled_first_is_never_pruned_for_a_copy_on_a_host_it_links``):
    the copy held first stands for the origin's pages, each dropped for the copy's same page."""
    dedup = open_filter()
    copy = "http://www.copy.test/"
    origin = linking(origin_tree, f"{ORIGIN}extra/")
    pages = origin | copy_tree(origin, ORIGIN, copy)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, copy) + breadth_first(pages, ORIGIN)
    )
    assert rules_of(dedup) == [(copy, ORIGIN, "host_root")]
    [rule] = dedup.mirror_rules()
    assert not rule["copy_named"]
    for url in origin_dropped(crawl):
        decision = crawl.decisions.get(url) or crawl.pruned[url]
        assert decision.duplicate_of == copy + url.removeprefix(ORIGIN)


def test_a_victim_crawled_first_is_never_pruned_for_a_copy_on_a_host_it_links(
    open_filter, origin_tree
):
    """A red team's copier put its copy at the depth of its victim on the forge the victim's
    index page links: the link took the victim for the copy over the crawl's order, and the
    victim's pages were pruned for the copier's (sixty-eighth session)."""
    dedup = open_filter()
    forge = "http://forge.test/"
    victim = linking(origin_tree, f"{forge}project/")
    pages = victim | copy_tree(victim, ORIGIN, forge)
    first = breadth_first(pages, ORIGIN)  # the victim leads by its index page and 4 pages
    crawl = OnlineCrawl(dedup, pages).visit(
        first[:5] + interleave(first[5:], breadth_first(pages, forge))
    )
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [ORIGIN]  # by the link
    assert [url for url in crawl.pruned if url.startswith(ORIGIN)] == []  # all fetched


def test_a_directory_holding_pages_its_origin_lacks_is_no_mirror(
    open_filter, origin_tree, stdlib_page
):
    """Its index page replicates the origin's, but the documents it holds 404 at the origin: each
    is a mismatch (a rule would prune a page that exists nowhere else), not an unchecked sample.
    Refuted only by pages the origin lacks, the pair waits for its pending samples (a partial
    copy taken for the origin would match one: ``probes.partial_origin_pending``); none match."""
    dedup = open_filter()
    own = {
        f"{DEEP_COPY}{name}.html": stdlib_page(name).encode()
        for name in ("fractions", "statistics", "getopt", "gettext", "plistlib", "queue")
    }
    pages = origin_tree | own | {DEEP_COPY: origin_tree[ORIGIN]}
    crawl = OnlineCrawl(dedup, pages).visit([*own, DEEP_COPY, ORIGIN])
    assert dedup.mirror_rules() == []
    with dedup.index.read() as view:
        candidate = MirrorStore(view).candidate(pair_reference(DEEP_COPY, ORIGIN))
    assert (candidate.state, candidate.rejected_for) == (REJECTED, Rejection.SAMPLES_DIFFER)
    assert candidate.count(MATCH) == 0
    assert candidate.count(MISMATCH) >= 2  # 3 matches of 4 became impossible
    assert [url for url in crawl.failed_probes if url.startswith(ORIGIN)]


def test_a_deeper_copy_seen_first_is_the_mirror(open_filter, origin_tree):
    """Orientation: copies are filed deeper, so the shallower directory stays though seen second."""
    crawl = deeper_copy_first(dedup := open_filter(), origin_tree)
    assert rules_of(dedup) == [(DEEP_COPY, ORIGIN, "host_root")]
    assert origin_dropped(crawl) == []
    assert {crawl.decisions[url].reason for url in origin_tree} <= {"mirror_origin"}


def test_nested_directories_are_never_a_pair(open_filter, origin_tree):
    dedup = open_filter()
    pages = origin_tree | {ORIGIN + "latest/": origin_tree[ORIGIN]}
    crawl = OnlineCrawl(dedup, pages).visit(
        [*breadth_first(origin_tree, ORIGIN), ORIGIN + "latest/"]
    )
    assert crawl.decisions[ORIGIN + "latest/"].reason == "exact_duplicate"
    assert dedup.mirror_rules() == []


def test_probe_failed_for_an_unknown_url_is_harmless(open_filter):
    decision = open_filter().probe_failed("http://nowhere.test/x.html", 404)
    assert (decision.action, decision.reason, decision.probes) == ("keep", "probe_failed", ())
    assert decision.evidence == {"status": 404, "outstanding_probe": False}


@pytest.mark.parametrize("interleaved", [False, True])
def test_trees_without_index_pages_are_paired_from_their_documents(
    open_filter, corpus, interleaved
):
    """A tree with no index file (Debian's Git manual), and its copy, both served where a
    directory URL is a 404: no index page pairs them, and each side's failed once asked for.
    Their same-named documents do: the copy is pruned, nothing lost (before: crawled whole).
    (A copy crawled before its origin is not pruned, index pages or not: its origin is kept.)"""
    origin = prose_guide(corpus, ORIGIN + "guide/", 60, contents=False)
    copy = copy_tree(origin, ORIGIN + "guide/", MIRROR + "pub/guide/")
    order = interleave(list(origin), list(copy)) if interleaved else [*origin, *copy]
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, origin | copy).visit(order)
    assert [rule["mirror"] for rule in dedup.mirror_rules()] == [MIRROR + "pub/guide/"]
    assert len(crawl.pruned) >= len(copy) // 2
    held = {(origin | copy)[url] for url in crawl.fetched}
    assert set(origin.values()) <= held  # every page's content fetched
