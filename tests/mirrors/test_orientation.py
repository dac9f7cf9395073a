"""Orientation by evidence, and no hijack: a copier never gets its victim pruned, a copy of a copy
met first costs no page of the origin, whatever the order."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.mirrors.records import Rule
from dedup_filter.mirrors.store import MirrorStore

from .conftest import (
    FIXED_NOW,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    docs_tree,
    interleave,
    table_of_contents,
    two_tree_orders,
)

VICTIM = "http://victim.test/docs/"


def without_every_third_leaf(pages: dict[str, bytes], base: str) -> dict[str, bytes]:
    """``pages`` lacking a third of the documents under ``base`` (not the index pages)."""
    leaves = sorted(url for url in pages if url.startswith(base) and not url.endswith("/"))
    lacking = set(leaves[::3])
    return {url: body for url, body in pages.items() if url not in lacking}


def lost(crawl: OnlineCrawl, base: str) -> list[str]:
    """Pages under ``base`` whose content the crawl holds nowhere: never fetched, or pruned
    while their counterpart was not fetched."""
    missing = []
    for url in crawl.pages:
        if not url.startswith(base) or url in crawl.fetched:
            continue
        pruned = crawl.pruned.get(url)
        if pruned is None or pruned.duplicate_of not in crawl.fetched:
            missing.append(url)
    return missing


@pytest.mark.parametrize("copier", ["http://copier.test/", "http://copier.test/docs/"])
@pytest.mark.parametrize("victim_first", [True, False], ids=["victim_first", "copier_first"])
def test_a_copier_never_gets_its_victim_pruned(open_filter, corpus, modules, copier, victim_first):
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copied = without_every_third_leaf(copy_tree(victim, VICTIM, copier), copier)
    pages = victim | copied
    first, second = (VICTIM, copier) if victim_first else (copier, VICTIM)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, first) + breadth_first(pages, second)
    )
    assert lost(crawl, VICTIM) == []
    only_victim = [url for url in victim if copier + url[len(VICTIM) :] not in copied]
    assert only_victim
    assert not any(url in crawl.pruned for url in only_victim)
    assert not any(dedup.check_url(url).dropped for url in only_victim)
    if victim_first:
        assert not any(url.startswith(VICTIM) for url in crawl.pruned)
        assert not any(dedup.check_url(url).dropped for url in victim)
        # the copier lacks sampled pages of the victim's: it is the copy, whatever the depths
        assert [rule["mirror"] for rule in dedup.mirror_rules()] == [copier]
        assert any(url.startswith(copier) for url in crawl.pruned)


@pytest.mark.parametrize("order", ["copy_of_copy_first", "interleaved"])
def test_a_partial_copy_of_a_copy_met_first_costs_no_page_of_the_origin(
    open_filter, origin_tree, order
):
    dedup = open_filter()
    copy = "http://copy.test/notes/"
    copy_of_copy = "http://again.test/"  # as deep as the origin
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, copy)
    pages |= without_every_third_leaf(copy_tree(pages, copy, copy_of_copy), copy_of_copy)
    bases = (copy_of_copy, ORIGIN, copy)
    if order == "copy_of_copy_first":
        urls = [url for base in bases for url in breadth_first(pages, base)]
    else:
        urls = interleave(*(breadth_first(pages, base) for base in bases))
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    assert lost(crawl, ORIGIN) == []
    rules = dedup.mirror_rules()
    mirrors = {rule["mirror"] for rule in rules}
    assert all(rule["origin"] not in mirrors for rule in rules)  # resolved to the held origin
    assert len(crawl.fetched) < len(pages)


def test_a_copy_of_a_copy_paired_first_with_the_whole_copy_resolves_to_the_origin(
    open_filter, origin_tree
):
    """The whole copy's index page is held first; the origin's and the partial copy's duplicate
    it, and the pair with the partial copy (shallower) is confirmed first. The origin's pair with
    the whole copy is then covered by that rule: the two origins are paired instead, and the
    partial copy is found to be the origin's copy."""
    dedup = open_filter()
    whole = "http://full.mirror.example/pub/notes/"
    partial = "http://quick.mirror.example/notes/"
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, whole)
    pages |= without_every_third_leaf(copy_tree(pages, whole, partial), partial)
    urls = [whole, ORIGIN, partial]
    urls += breadth_first(pages, partial) + breadth_first(pages, whole)
    urls += breadth_first(pages, ORIGIN)
    crawl = OnlineCrawl(dedup, pages).visit(dict.fromkeys(urls))
    rules = {rule["mirror"]: rule["origin"] for rule in dedup.mirror_rules()}
    assert rules == {whole: ORIGIN, partial: ORIGIN}
    assert lost(crawl, ORIGIN) == []
    assert not any(url.startswith(ORIGIN) for url in crawl.pruned)


def test_an_origin_met_after_its_copy_of_a_copy_was_ruled_the_origin_takes_its_place(
    open_filter, origin_tree
):
    """The whole copy is ruled a mirror of the partial copy of it (shallower, met first) before
    the origin's index page arrives: that page duplicates the whole copy's, whose directory a
    rule prunes, so it is paired with the partial copy instead, and kept as the origin."""
    dedup = open_filter()
    whole = "http://full.mirror.example/pub/notes/"
    partial = "http://quick.mirror.example/notes/"
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, whole)
    pages |= without_every_third_leaf(copy_tree(pages, whole, partial), partial)
    urls = [whole, *breadth_first(pages, partial), *breadth_first(pages, whole)]
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    assert {rule["mirror"]: rule["origin"] for rule in dedup.mirror_rules()} == {whole: partial}
    crawl.visit(breadth_first(pages, ORIGIN))
    rules = {rule["mirror"]: rule["origin"] for rule in dedup.mirror_rules()}
    assert rules == {whole: ORIGIN, partial: ORIGIN}
    assert crawl.decisions[ORIGIN].action == "keep"
    assert not any(url.startswith(ORIGIN) for url in crawl.pruned)
    assert lost(crawl, ORIGIN) == []


def test_a_partial_copy_paired_first_with_a_whole_copy_is_its_copy_whatever_the_depths(
    open_filter, origin_tree
):
    """The whole copy's index page is paired with the origin's and with the partial copy's; the
    pair with the partial copy (shallower, so taken for the origin) is settled first, the
    origin's probes not answered yet. The partial copy lacks sampled pages the whole copy holds:
    it is the copy (``Orientation.lacks_pages``), not the whole copy's origin, and once the
    whole copy is ruled a mirror of the origin the partial copy resolves to the origin too."""
    dedup = open_filter()
    whole = "http://full.mirror.example/pub/notes/"
    partial = "http://quick.mirror.example/notes/"
    pages = origin_tree | copy_tree(origin_tree, ORIGIN, whole)
    pages |= without_every_third_leaf(copy_tree(pages, whole, partial), partial)
    held, waiting = set(), [whole, ORIGIN, partial]
    waiting += breadth_first(pages, partial)[1:] + breadth_first(pages, whole)[1:]
    while waiting:  # the probes are answered, but not the origin's
        url = waiting.pop(0)
        if url in held or (url.startswith(ORIGIN) and url != ORIGIN):
            continue
        held.add(url)
        if url in pages:
            waiting += dedup.check_page(url, pages[url]).probes
        else:
            waiting += dedup.probe_failed(url, 404).probes
    [rule] = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"], rule["copy_named"]) == (partial, whole, True)
    open_pairs = [(c["mirror"], c["origin"]) for c in dedup.mirror_candidates()]
    assert (whole, ORIGIN) in open_pairs
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, ORIGIN)[1:])
    rules = {rule["mirror"]: rule["origin"] for rule in dedup.mirror_rules()}
    assert rules == {whole: ORIGIN, partial: ORIGIN}
    assert not any(url.startswith(ORIGIN) for url in crawl.pruned)


def listing_its_own(pages: dict[str, bytes], base: str) -> dict[str, bytes]:
    """``pages`` with the index page of ``base`` rewritten to list only the documents it holds
    there, under a title of its own (a generated listing: it neither duplicates nor lists the
    same entries as the index page it was copied from)."""
    names = sorted(
        url[len(base) : -len(".html")]
        for url in pages
        if url.startswith(base) and url.endswith(".html") and "/" not in url[len(base) :]
    )
    listing = table_of_contents(f"Index of {base}", [(f"{name}.html", name) for name in names])
    return pages | {base: listing}


@pytest.mark.parametrize("copier", ["http://copier.test/", "http://copier.test/docs/"])
def test_a_copier_with_a_listing_of_its_own_is_found_from_its_documents(
    open_filter, corpus, modules, copier
):
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copied = listing_its_own(
        without_every_third_leaf(copy_tree(victim, VICTIM, copier), copier), copier
    )
    pages = victim | copied
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, VICTIM) + breadth_first(pages, copier)
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(copier, VICTIM)]
    assert not any(url.startswith(VICTIM) for url in crawl.pruned)
    assert lost(crawl, VICTIM) == []
    assert any(url.startswith(copier) for url in crawl.pruned)


@pytest.mark.parametrize("own_listing", [False, True])
def test_a_copy_whose_documents_come_before_any_index_page_has_its_index_pages_probed(
    open_filter, corpus, modules, own_listing
):
    """A crawl in random order meets a directory's documents long before its index page: two
    same-named documents that duplicate each other ask for both index pages, and the pair
    found then is sampled like any other (with a listing of its own, the copy is paired from
    its documents once the index pages are held)."""
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copier = "http://copier.test/docs/"
    copied = copy_tree(victim, VICTIM, copier)
    pages = victim | (listing_its_own(copied, copier) if own_listing else copied)
    sides = [breadth_first(pages, side) for side in (VICTIM, copier)]
    documents = [[url for url in side if not url.endswith("/")] for side in sides]
    index_pages = [url for side in sides for url in side if url.endswith("/")]
    crawl = OnlineCrawl(dedup, pages).visit(interleave(*documents) + index_pages)
    assert {VICTIM, copier} <= set(crawl.probes)
    assert [{rule["mirror"], rule["origin"]} for rule in dedup.mirror_rules()] == [{copier, VICTIM}]
    assert lost(crawl, VICTIM) == lost(crawl, copier) == []


def test_index_pages_a_server_lacks_are_asked_for_once(open_filter, corpus, modules):
    """Neither directory serves an index page (no listing, no ``index.html``): each duplicated
    document would ask for them again; a directory whose index page failed is not asked again."""
    dedup = open_filter()
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copier = "http://copier.test/docs/"
    pages = {
        url: body
        for url, body in (victim | copy_tree(victim, VICTIM, copier)).items()
        if not url.endswith("/")
    }
    documents = [breadth_first(pages, side) for side in (VICTIM, copier)]
    crawl = OnlineCrawl(dedup, pages).visit(interleave(*documents))
    asked = [url for url in crawl.failed_probes if url.endswith("/")]
    assert {copier, VICTIM} <= set(asked)
    assert len(asked) == len(set(asked))  # each asked once (it was 14 times each)


NEWER_MANUAL, STALE_MANUAL = (
    "http://docs.project.test/manual/",
    "http://notes.elsewhere.test/manual/",
)


def crawled_in(order: str, dedup, pages: dict[str, bytes]) -> OnlineCrawl:
    """The newer manual and its stale copy crawled breadth-first, one after the other (either
    first) or in turns."""
    urls = two_tree_orders(pages, {"stale": STALE_MANUAL, "newer": NEWER_MANUAL})[order]
    return OnlineCrawl(dedup, pages).visit(urls)


def naming_release(pages: dict[str, bytes], release: str) -> dict[str, bytes]:
    """``pages`` with a footer naming the manual's release on every page."""
    footer = f"<p>Manual version {release}</p></body>".encode()
    return {url: body.replace(b"</body>", footer, 1) for url, body in pages.items()}


def release_and_copy(
    corpus: dict[str, str], modules: list[str], base: str, release: str, copy_base: str, copied: str
) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """A manual under ``base`` naming ``release`` on every page, and the same pages under
    ``copy_base`` naming ``copied``."""
    tree = docs_tree(corpus, base, modules[:-1], "Standard library notes")
    return naming_release(tree, release), naming_release(copy_tree(tree, base, copy_base), copied)


def extend_page(pages: dict[str, bytes], url: str, release: str) -> None:
    """Add a paragraph of ``release``'s changes to the page at ``url``."""
    added = f"<p>Changes in {release}: the context is freed once, not twice.</p></body>"
    pages[url] = pages[url].replace(b"</body>", added.encode(), 1)


@pytest.mark.parametrize("order", ["stale_first", "newer_first", "interleaved"])
def test_a_stale_copy_naming_an_older_release_never_gets_the_newer_manual_pruned(
    open_filter, corpus, modules, order
):
    """A stale copy as deep as its origin and named like any site: whichever index page the
    crawl holds first, the release the index pages name takes the stale copy for the mirror, and
    its rule never prunes the newer manual (whose pages may link pages the copy lacks); the
    stale copy is pruned where the newer manual was crawled first."""
    dedup = open_filter()
    newer_base, stale_base = NEWER_MANUAL, STALE_MANUAL
    tree = docs_tree(corpus, newer_base, modules, "Standard library notes")
    newer = naming_release(tree, "2.4.1")
    stale = naming_release(copy_tree(tree, newer_base, stale_base), "2.3.9")
    pages = newer | stale
    crawl = crawled_in(order, dedup, pages)
    rules = [
        (rule["mirror"], rule["origin"], rule["mirror_older"]) for rule in dedup.mirror_rules()
    ]
    assert (stale_base, newer_base, True) in rules
    assert not any(url.startswith(newer_base) for url in crawl.pruned)
    assert not any(dedup.check_url(url).dropped for url in newer)
    if order == "newer_first":
        assert any(url.startswith(stale_base) for url in crawl.pruned)


@pytest.mark.parametrize("order", ["stale_first", "newer_first", "interleaved"])
def test_a_subdirectory_naming_a_later_release_is_never_pruned_for_a_stale_copys(
    open_filter, corpus, modules, order
):
    """The two top index pages list the same documents and name no release (a listing of
    manuals), so the pair may be oriented by order; the `extra/` subdirectory's pages name one,
    older on the stale copy, and one of them was edited since. Whatever the orientation, no
    page of the newer `extra/` is dropped for the stale copy's: the edited page's newer text is
    fetched (on the first holdout web it was dropped for its older text)."""
    dedup = open_filter()
    newer_base, stale_base = NEWER_MANUAL, STALE_MANUAL
    tree = docs_tree(corpus, newer_base, modules, "Standard library notes")
    extra = {url: body for url, body in tree.items() if url.startswith(newer_base + "extra/")}
    newer = tree | naming_release(extra, "2.4.1")
    copied = copy_tree(tree, newer_base, stale_base)
    stale = copied | naming_release(
        {url: body for url, body in copied.items() if "/extra/" in url}, "2.3.9"
    )
    edited = sorted(url for url in extra if url.endswith(".html"))[0]
    newer[edited] = newer[edited].replace(b"</body>", b"<p>A section added since.</p></body>")
    pages = newer | stale
    crawl = crawled_in(order, dedup, pages)
    assert dedup.mirror_rules()
    assert not any(url.startswith(newer_base + "extra/") for url in crawl.pruned)
    assert edited in crawl.fetched
    kept = dedup.check_url(edited)
    assert kept.action == "keep"


@pytest.mark.parametrize("copier", ["http://copier.test/", "http://copier.test/docs/"])
def test_a_copier_naming_a_later_release_never_gets_its_victim_crawled_first_pruned(
    open_filter, corpus, modules, copier
):
    """A copier may write any release on its pages: taken for the newer side, it is the
    origin, but the victim crawled first is never pruned, and the copier is not either."""
    dedup = open_filter()
    tree = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    victim = naming_release(tree, "1.0")
    pages = victim | naming_release(copy_tree(tree, VICTIM, copier), "9.0")
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, VICTIM) + breadth_first(pages, copier)
    )
    rules = [(r["mirror"], r["origin"], r["mirror_older"]) for r in dedup.mirror_rules()]
    assert rules == [(VICTIM, copier, True)]
    assert not any(url.startswith(VICTIM) for url in crawl.pruned)
    assert not any(dedup.check_url(url).dropped for url in victim)
    assert lost(crawl, VICTIM) == []


@pytest.mark.parametrize("other_named", [False, True], ids=["unnamed", "named_copy"])
def test_a_newer_copy_of_a_stale_copys_origin_gives_way_to_another_newer_copy(
    open_filter, corpus, modules, other_named
):
    """Two copies of the newer manual (the same release on their index pages), both ruled
    mirrors of a stale copy taken for the origin: neither is dropped for the stale copy's older
    text, and a page one of them crawled stands for the other's; not a page of a copy a name
    or a session id calls one, for a side nothing calls one (it may be the original, and its
    page link what the copy, made before, does not)."""
    dedup = open_filter()
    stale_base, newer_base, other_base = (
        STALE_MANUAL,
        NEWER_MANUAL,
        "http://copy.third.test/manual/",
    )
    tree = docs_tree(corpus, newer_base, modules, "Standard library notes")
    newer = naming_release(tree, "2.4.1")
    stale = naming_release(copy_tree(tree, newer_base, stale_base), "2.3.9")
    other = copy_tree(newer, newer_base, other_base)
    pages = stale | newer | other
    for url in (stale_base, newer_base, other_base):
        dedup.check_page(url, pages[url])
    page = next(url for url in sorted(tree) if url.endswith(".html") and "/extra/" not in url)
    relative = page[len(newer_base) :]
    dedup.check_page(other_base + relative, pages[other_base + relative])

    def rules(view) -> None:
        store = MirrorStore(view)
        for mirror in (newer_base, other_base):
            named = other_named and mirror == other_base
            rule = Rule(mirror, stale_base, "", "", 0.0, "content", 3, 3, 0, copy_named=named)
            store.put_rule(rule)

    dedup.index.transact(rules)
    for absent in dedup.check_url(newer_base + relative).probes:
        dedup.probe_failed(absent, 404)
    decision = dedup.check_url(newer_base + relative)
    assert decision.evidence["newer_release"] == newer_base
    if other_named:
        assert (decision.action, decision.reason) == ("keep", "newer_release")
    else:
        assert (decision.action, decision.duplicate_of) == ("drop", other_base + relative)
    kept = dedup.check_url(newer_base + "never-copied.html")
    assert (kept.action, kept.reason) == ("keep", "newer_release")


@pytest.mark.parametrize("order", ["stale_first", "newer_first", "interleaved"])
def test_a_stale_copy_named_only_by_its_subdirectories_is_the_mirror_in_every_order(
    open_filter, corpus, modules, order
):
    """The top index pages name no release (a host's front page over its manual); the `extra/`
    subdirectory's name one, older on the stale copy. The release below orients the pair, in
    every order: the stale copy is the mirror, its rule says so (on the ninth holdout web the
    stale copy was ruled the origin by order, crawled whole, and its origin's pages too). Before
    the rule is turned, the pages both sides hold alike may be dropped for the stale copy's:
    none that the newer side alone holds."""
    dedup = open_filter()
    newer_base, stale_base = NEWER_MANUAL, STALE_MANUAL
    tree = docs_tree(corpus, newer_base, modules, "Standard library notes")
    extra = {url: body for url, body in tree.items() if url.startswith(newer_base + "extra/")}
    copied = copy_tree(tree, newer_base, stale_base)
    stale = copied | naming_release(
        {url: body for url, body in copied.items() if "/extra/" in url}, "2.3.9"
    )
    crawl = crawled_in(order, dedup, tree | naming_release(extra, "2.4.1") | stale)
    rules = [(r["mirror"], r["origin"], r["mirror_older"]) for r in dedup.mirror_rules()]
    assert rules == [(stale_base, newer_base, True)]
    assert not any(url.startswith(newer_base + "extra/") for url in crawl.pruned)
    assert lost(crawl, newer_base) == []


def test_a_manual_moved_onto_a_stale_copy_through_a_copier_is_the_origin(
    open_filter, corpus, modules
):
    """A partial copier's copy of the newer manual is ruled a mirror of the stale copy crawled
    first (named the copy by the pages it lacks); the newer manual's index page, the copier's
    twin, then pairs it with the copier, and its rule is moved onto the stale copy. The
    release the index pages name turns that rule at once: the newer manual is the origin of
    both copies (on the eleventh holdout web it stayed the stale copy's mirror, kept for its
    newer release, and both were crawled whole)."""
    dedup = open_filter()
    copier = "http://tips.test/"
    tree = docs_tree(corpus, NEWER_MANUAL, modules, "Standard library notes")
    newer = naming_release(tree, "2.4.1")
    stale = naming_release(copy_tree(tree, NEWER_MANUAL, STALE_MANUAL), "2.3.9")
    pages = newer | stale | without_every_third_leaf(copy_tree(newer, NEWER_MANUAL, copier), copier)
    crawl = OnlineCrawl(dedup, pages).visit([STALE_MANUAL, copier])
    crawl.visit(breadth_first(pages, STALE_MANUAL)[1:])
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(copier, STALE_MANUAL)]
    crawl.visit([NEWER_MANUAL])
    rules = {(r["mirror"], r["origin"], r["mirror_older"]) for r in dedup.mirror_rules()}
    assert rules == {(STALE_MANUAL, NEWER_MANUAL, True), (copier, NEWER_MANUAL, False)}
    assert not any(dedup.check_url(url).dropped for url in newer)


def test_a_copier_whose_subdirectory_names_a_later_release_never_gets_its_victim_pruned(
    open_filter, corpus, modules
):
    """A copier deeper than its victim, crawled after it, is ruled the mirror by depth; its
    `extra/` index page then names a later release than the victim's, and the rule is turned:
    the copier is the origin, but the victim, crawled first, loses no page to it."""
    dedup = open_filter()
    copier = "http://copier.test/pub/notes/docs/"
    tree = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    extra = {url: body for url, body in tree.items() if url.startswith(VICTIM + "extra/")}
    copied = copy_tree(tree, VICTIM, copier)
    pages = tree | naming_release(extra, "1.0") | copied
    pages |= naming_release({u: b for u, b in copied.items() if "/extra/" in u}, "9.0")
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, VICTIM) + breadth_first(pages, copier)
    )
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(VICTIM, copier)]
    assert not any(url.startswith(VICTIM) for url in crawl.pruned)
    assert not any(dedup.check_url(url).dropped for url in tree)
    assert lost(crawl, VICTIM) == []


def test_a_copier_lacking_the_first_samples_answered_is_turned_the_copy(
    open_filter, corpus, modules
):
    """A copier's partial copy at its host's root, taken for the origin by depth: the first two
    of its sampled pages to answer are pages it lacks (404s), before any match. Rejected then,
    the pair could never be turned (a partial origin shows a match); it waits for its other
    samples instead, matches, and is turned: the copier is the mirror, the victim, crawled
    first, loses nothing."""
    dedup = open_filter()
    copier = "http://copier.test/"
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    pages = victim | without_every_third_leaf(copy_tree(victim, VICTIM, copier), copier)
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(pages, VICTIM))
    probes = crawl.fetch(copier).probes
    absent = [url for url in probes if url not in pages]
    assert 2 <= len(absent) < len(probes)
    crawl.answer(absent + [url for url in probes if url in pages])
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(copier, VICTIM)]
    [turned] = dedup.mirror_candidates()
    assert (turned["mirror"], turned["rejected_for"]) == (VICTIM, "turned_round")
    assert lost(crawl, VICTIM) == []


RELEASE_15, UNNAMED_COPY = "http://docs.release.test/15/", "http://mirror.release.test/pub/docs/"
RELEASE_16 = "http://docs.release.test/16/"


def releases_15_and_16(corpus: dict[str, str], modules: list[str]) -> tuple[dict, dict]:
    """Releases 15 and 16 side by side: 16 carries every page over, its index page extended."""
    fifteen = docs_tree(corpus, RELEASE_15, modules[:-1], "Standard library notes")
    sixteen = copy_tree(fifteen, RELEASE_15, RELEASE_16)
    extend_page(sixteen, RELEASE_16, "16")
    return fifteen, sixteen


@pytest.mark.parametrize("order", ["stale_first", "newer_first", "interleaved"])
@pytest.mark.parametrize(("copied", "paired"), [("16.0.6", False), ("15.0.7", True)])
def test_a_copy_of_another_release_is_never_paired_with_a_directory_its_path_names_a_release(
    open_filter, corpus, modules, order, copied, paired
):
    """A mirror files a copy of release 16 under a path naming none; release 15's directory
    names its release, and 16 rewrote one of its pages (its release notes). The index pages name
    different releases: no rule either way (one could prune a release's rewritten page for the
    other's), nothing of either lost. A copy of 15 itself is paired as ever."""
    dedup = open_filter()
    release, copy = release_and_copy(corpus, modules, RELEASE_15, "15.0.7", UNNAMED_COPY, copied)
    if not paired:
        notes = UNNAMED_COPY + f"{modules[0]}.html"
        copy[notes] = naming_release({notes: corpus[modules[-1]].encode()}, copied)[notes]
    pages = release | copy
    urls = two_tree_orders(pages, {"stale": UNNAMED_COPY, "newer": RELEASE_15})[order]
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    sides = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert bool(sides & {(UNNAMED_COPY, RELEASE_15), (RELEASE_15, UNNAMED_COPY)}) == paired
    if not paired:
        [why] = {pair["rejected_for"] for pair in dedup.mirror_candidates()}
        assert why == "other_release"
    assert lost(crawl, RELEASE_15) == []
    assert lost(crawl, UNNAMED_COPY) == []


def test_a_copy_waits_no_longer_than_a_pair_open_too_long_for_a_closer_pair(
    tmp_path, corpus, modules
):
    """The copy of 16 paired with 15 and with 16, whose samples never come (16's pages pruned
    by another rule, say): the pair with 15 waits while the pair with 16 is open, and no longer
    once both have been open too long (``settle_candidates``): it is confirmed, not expired."""
    clock = [FIXED_NOW]
    index = LmdbIndex.open(tmp_path / "index", Config.default())
    dedup = DedupFilter(index, Config.default(), clock=lambda: clock[0])
    fifteen, sixteen = releases_15_and_16(corpus, modules)
    pages = fifteen | sixteen | copy_tree(sixteen, RELEASE_16, UNNAMED_COPY)
    crawl = OnlineCrawl(dedup, pages)
    crawl.fetch(UNNAMED_COPY)
    probes_15 = crawl.fetch(RELEASE_15).probes
    assert crawl.fetch(RELEASE_16).probes
    crawl.answer(probes_15)
    assert dedup.mirror_rules() == []
    clock[0] += 600.0
    dedup.settle_candidates(600.0)  # handed out again, once
    dedup.settle_candidates(600.0)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
        (UNNAMED_COPY, RELEASE_15)
    ]
    dedup.close()


OLD_RELEASE = "http://archive.release.test/docs/3.0.17/"
COPIED_RELEASE = "http://archive.release.test/docs/3.0.20/"
SERIES_COPY = "http://mirror.release.test/openssl-3.0/"


@pytest.mark.parametrize("order", ["old_release_first", "old_release_beside"])
def test_a_copy_filed_under_its_series_pairs_with_its_own_release(
    open_filter, corpus, modules, order
):
    """A mirror files release 3.0.20 under its series' name, which may be any 3.0 release; the
    archive's 3.0.17, one of whose pages 3.0.20 extended, is crawled before 3.0.20. The index
    pages of the copy and of 3.0.17 name different releases: no rule between them (the copy would be
    crawled whole as the newer release). The copy pairs with 3.0.20 once that is met, and
    nothing of the three is lost."""
    dedup = open_filter()
    old, copied = release_and_copy(corpus, modules, OLD_RELEASE, "3.0.17", COPIED_RELEASE, "3.0.20")
    extend_page(copied, COPIED_RELEASE + f"{modules[0]}.html", "3.0.20")
    copy = copy_tree(copied, COPIED_RELEASE, SERIES_COPY)
    pages = old | copied | copy
    old_urls, copy_urls = breadth_first(pages, OLD_RELEASE), breadth_first(pages, SERIES_COPY)
    ahead = {
        "old_release_first": old_urls + copy_urls,
        "old_release_beside": interleave(old_urls, copy_urls),
    }[order]
    crawl = OnlineCrawl(dedup, pages).visit(ahead + breadth_first(pages, COPIED_RELEASE))
    sides = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert not sides & {(SERIES_COPY, OLD_RELEASE), (OLD_RELEASE, SERIES_COPY)}
    assert sides & {(SERIES_COPY, COPIED_RELEASE), (COPIED_RELEASE, SERIES_COPY)}
    for base in (OLD_RELEASE, COPIED_RELEASE, SERIES_COPY):
        assert lost(crawl, base) == []


LATEST = "http://archive.release.test/docs/latest/"


@pytest.mark.parametrize("order", ["latest_first", "release_first", "interleaved"])
@pytest.mark.parametrize(
    ("named", "served", "paired"),
    [("3.0.20", "3.0.20", True), ("3.0.20", "3.0.21", False), ("7.0", "7.0", False)],
    ids=["its_release", "a_later_release", "no_release"],
)
def test_latest_pairs_with_the_release_its_index_page_names(
    open_filter, corpus, modules, order, named, served, paired
):
    """An archive's ``/latest/`` serves its newest release; which one, only its index page
    says. Naming the very release ``/3.0.20/`` names, it is paired with it (one side's fetches
    saved); naming a later one, one of whose pages it extended, it is not. Index pages that
    both name one number that is no release (a format's ``7.0``, as LLVM's ``PDB/`` pages do)
    say nothing of it: not paired. Nothing of either is lost."""
    dedup = open_filter()
    release, latest = release_and_copy(corpus, modules, COPIED_RELEASE, named, LATEST, served)
    if served != named:
        extend_page(latest, LATEST + f"{modules[0]}.html", served)
    pages = release | latest
    urls = two_tree_orders(pages, {"latest": LATEST, "release": COPIED_RELEASE})[order]
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    sides = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert bool(sides & {(LATEST, COPIED_RELEASE), (COPIED_RELEASE, LATEST)}) == paired
    assert (len(crawl.fetched) < len(pages) * 3 // 4) == paired
    for base in (COPIED_RELEASE, LATEST):
        assert lost(crawl, base) == []


@pytest.mark.parametrize("copied_pages", ["of_16", "of_15"])
def test_a_copy_is_ruled_a_copy_of_the_release_whose_index_page_it_copies(
    open_filter, corpus, modules, copied_pages
):
    """Releases 15 and 16 side by side carry every page over; 16's index page adds a line. An
    unnamed copy of 16 is paired with both, 15's samples answered first: they match, as 16's
    do, but the copy is ruled a copy of 16, whose index page it copies. A copy whose index page
    is 16's but whose pages are 15's, all of which 16 rewrote (``of_15``), is ruled a copy of 15
    once the pair with 16 is rejected. Nothing of either release is lost."""
    dedup = open_filter()
    fifteen, sixteen = releases_15_and_16(corpus, modules)
    copy = copy_tree(sixteen, RELEASE_16, UNNAMED_COPY)
    if copied_pages == "of_15":  # 16 rewrote every document: each holds another's text
        documents = [url for url in sixteen if url.endswith(".html")]
        rewritten = documents[1:] + documents[:1]
        sixteen |= {
            url: fifteen[RELEASE_15 + other[len(RELEASE_16) :]]
            for url, other in zip(documents, rewritten, strict=True)
        }
    pages = fifteen | sixteen | copy
    crawl = OnlineCrawl(dedup, pages)
    crawl.fetch(UNNAMED_COPY)
    probes_15 = crawl.fetch(RELEASE_15).probes
    probes_16 = crawl.fetch(RELEASE_16).probes
    assert probes_15
    assert probes_16
    crawl.answer(probes_15)
    assert dedup.mirror_rules() == []  # the pair with 16 is still open
    crawl.answer(probes_16)
    origin = RELEASE_16 if copied_pages == "of_16" else RELEASE_15
    expected = [(UNNAMED_COPY, origin)]
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == expected
    crawl.visit(breadth_first(pages, UNNAMED_COPY) + breadth_first(pages, RELEASE_15))
    crawl.visit(breadth_first(pages, RELEASE_16))
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == expected
    for base in (RELEASE_15, RELEASE_16, UNNAMED_COPY):
        assert lost(crawl, base) == []


@pytest.mark.parametrize(
    "order", ["latest_first", "release_first", "interleaved", "old_release_between"]
)
@pytest.mark.parametrize("old_index", ["its_own", "the_same"])
def test_latest_pairs_with_the_release_whose_index_page_it_copies_where_releases_change_it(
    open_filter, corpus, modules, order, old_index
):
    """Index pages that name no release (a format's ``7.0`` alone, as LLVM's do): ``/latest/``
    serves 3.0.20, whose index page differs from 3.0.17's, crawled first. The index page of
    ``/latest/`` is 3.0.20's and no other release's: they are paired (one side's fetches
    saved). Where 3.0.17's index page is 3.0.20's too, it tells nothing: not paired. A pair
    whose samples match before 3.0.17 is met waits for it (``old_release_between``). Nothing of
    the three is lost."""
    dedup = open_filter()
    old, copied = release_and_copy(corpus, modules, OLD_RELEASE, "7.0", COPIED_RELEASE, "7.0")
    extend_page(copied, COPIED_RELEASE + f"{modules[0]}.html", "3.0.20")
    if old_index == "its_own":  # a line naming no release
        added = b"<p>This release adds a chapter on providers.</p></body>"
        copied[COPIED_RELEASE] = copied[COPIED_RELEASE].replace(b"</body>", added, 1)
    latest = copy_tree(copied, COPIED_RELEASE, LATEST)
    pages = old | copied | latest
    orders = two_tree_orders(pages, {"latest": LATEST, "release": COPIED_RELEASE})
    old_urls = breadth_first(pages, OLD_RELEASE)
    if order == "old_release_between":
        crawl = OnlineCrawl(dedup, pages).visit([LATEST, COPIED_RELEASE])
        assert dedup.mirror_rules() == []
        crawl.visit(old_urls + orders["interleaved"])
    else:
        crawl = OnlineCrawl(dedup, pages).visit(old_urls + orders[order])
    sides = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    paired = old_index == "its_own"
    assert bool(sides & {(LATEST, COPIED_RELEASE), (COPIED_RELEASE, LATEST)}) == paired
    assert not sides & {(LATEST, OLD_RELEASE), (OLD_RELEASE, LATEST)}
    for base in (OLD_RELEASE, COPIED_RELEASE, LATEST):
        assert lost(crawl, base) == []
