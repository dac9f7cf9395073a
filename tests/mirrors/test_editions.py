"""Editions of one guide (the same prose, other code on a few pages) are never mirrors; copies of
pages with code blocks still are, stale ones included."""

from __future__ import annotations

import pytest

from .conftest import ORIGIN, OnlineCrawl, breadth_first, interleave, table_of_contents
from .test_detection import leaves_in_sample_order, older

GUIDE = ORIGIN + "install/"
EDITION = ORIGIN + "install-rpm/"
COPY = "http://mirror.copy.test/install/"


def commands(name: str, manager: str) -> str:
    """A block of shell commands for one page of the guide, for one package manager."""
    return "\n".join(
        f"$ sudo {manager} {verb} {name}-{step} && {manager} --verify {name}-{step}"
        for step, verb in enumerate(("install", "remove", "upgrade", "info", "list", "purge"))
    )


def with_code(body: bytes, code: str) -> bytes:
    return body.replace(b"</body>", f"<pre>{code}</pre></body>".encode())


def guide_pages(corpus: dict[str, str], names: list[str]) -> dict[str, bytes]:
    """The guide: a table of contents and one page a module."""
    pages = {GUIDE: table_of_contents("Installation guide", [(f"{n}.html", n) for n in names])}
    return pages | {f"{GUIDE}{name}.html": corpus[name].encode() for name in names}


def coded_guide(corpus: dict[str, str], modules: list[str]) -> tuple[dict[str, bytes], list[str]]:
    """A 20-page guide whose pages at sample positions 5, 8, 11 and 14 (past the first samples
    that hash order draws) have a block of dpkg commands; and those four relative paths."""
    pages = guide_pages(corpus, modules[:20])
    order = leaves_in_sample_order(pages, GUIDE)
    coded = [order[position] for position in (5, 8, 11, 14)]
    for relative in coded:
        pages[GUIDE + relative] = with_code(pages[GUIDE + relative], commands(relative, "dpkg"))
    return pages, coded


def moved(pages: dict[str, bytes], base: str) -> dict[str, bytes]:
    return {base + url[len(GUIDE) :]: body for url, body in pages.items() if url.startswith(GUIDE)}


def rules(dedup) -> list[tuple[str, str]]:
    return [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()]


def rpm_edition(
    corpus: dict[str, str], modules: list[str]
) -> tuple[dict[str, bytes], dict[str, bytes], list[str]]:
    """``coded_guide``, its rpm edition (2 of the 4 coded pages with rpm commands instead) and
    the coded pages' relative paths."""
    guide, coded = coded_guide(corpus, modules)
    edition = moved(guide, EDITION)
    for relative in coded[1::2]:
        edition[EDITION + relative] = with_code(
            guide_pages(corpus, modules[:20])[GUIDE + relative], commands(relative, "rpm")
        )
    return guide, edition, coded


def in_order(pages: dict[str, bytes], order: str) -> list[str]:
    """The guide's and the edition's URLs in one of the crawl orders the tests name."""
    guide_order, edition_order = breadth_first(pages, GUIDE), breadth_first(pages, EDITION)
    return {
        "guide_first": guide_order + edition_order,
        "edition_first": interleave(edition_order, guide_order),
        "index_pages_first": [GUIDE, EDITION, *guide_order[1:], *edition_order[1:]],
    }[order]


@pytest.mark.parametrize("order", ["guide_first", "edition_first", "index_pages_first"])
def test_an_edition_differing_in_the_code_of_a_tenth_of_its_pages_is_no_mirror(
    open_filter, corpus, modules, order
):
    """18 of its 20 pages are identical copies; 2 of the 4 with code blocks have rpm commands
    instead. Sampling in hash order alone sees matches only; drawn from the coded pages first,
    or, when both index pages come first and the pair is confirmed before any page with code
    is known, checking the coded pages' counterparts after, it sees an edition: no rule stays,
    and every page is fetched but, after a revocation, prose pages dropped for their identical
    counterparts in the other edition, crawled and without code blocks."""
    guide, edition, coded = rpm_edition(corpus, modules)
    pages = guide | edition
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(in_order(pages, order))
    assert rules(dedup) == []
    unfetched = [url for url in pages if url not in crawl.fetched]
    assert all(
        crawl.pruned[url].reason == "edition_prose"
        and pages[crawl.pruned[url].duplicate_of] == pages[url]
        and url.removeprefix(GUIDE).removeprefix(EDITION) not in coded
        for url in unfetched
    )
    revoked = [d for d in crawl.decisions.values() if d.evidence.get("mirrors_revoked")]
    if order == "index_pages_first":  # confirmed before any coded page was known, then revoked
        assert revoked
    if order == "guide_first":  # the coded pages known first: never confirmed
        assert not revoked


def naming(body: bytes, manager: str) -> bytes:
    """The page with a line of prose that names the package manager (no code block)."""
    return body.replace(b"</body>", f"<p>Packages come with {manager}.</p></body>".encode())


@pytest.mark.parametrize("order", ["guide_first", "edition_first", "index_pages_first"])
def test_an_edition_that_names_its_tools_in_its_prose_loses_no_page(
    open_filter, corpus, modules, order
):
    """The edition above, whose every page also names its package manager in a line of prose (as
    a C++ edition of a guide names its API inline, no code block on either side): its pages
    without code blocks are no copies of the guide's, and none is dropped for one."""
    guide, edition, _ = rpm_edition(corpus, modules)
    guide = {url: naming(body, "dpkg") if url != GUIDE else body for url, body in guide.items()}
    edition = {
        url: naming(body, "rpm") if url != EDITION else body for url, body in edition.items()
    }
    pages = guide | edition
    crawl = OnlineCrawl(open_filter(), pages).visit(in_order(pages, order))
    assert not [url for url in pages if url not in crawl.fetched]


def test_a_true_mirror_with_code_blocks_is_confirmed(open_filter, corpus, modules):
    dedup = open_filter()
    guide, coded = coded_guide(corpus, modules)
    pages = guide | moved(guide, COPY)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, GUIDE) + breadth_first(pages, COPY)
    )
    assert rules(dedup) == [(COPY, GUIDE)]
    assert len(crawl.pruned) >= 10
    probed = [url for url in crawl.probes if url.startswith(COPY)]
    # the three matches that confirm, drawn from the coded pages first, then the guide's other
    # coded page held before the rule: every coded page compared, no other fetched for the code
    assert sorted(url[len(COPY) :] for url in probed) == sorted(coded)


def test_a_stale_copy_with_prose_edits_on_coded_pages_is_confirmed(open_filter, corpus, modules):
    """Two pages edited since the copy was made, one of them with code blocks (its code kept):
    prose edits, a stale copy, not an edition."""
    dedup = open_filter()
    guide, coded = coded_guide(corpus, modules)
    copy = moved(guide, COPY)
    plain = next(r for r in leaves_in_sample_order(guide, GUIDE) if r not in coded)
    copy[COPY + plain] = older(guide[GUIDE + plain])
    unedited = guide_pages(corpus, modules[:20])[GUIDE + coded[0]]
    copy[COPY + coded[0]] = with_code(older(unedited), commands(coded[0], "dpkg"))
    pages = guide | copy
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, GUIDE) + breadth_first(pages, COPY))
    assert rules(dedup) == [(COPY, GUIDE)]


def test_a_rule_made_before_coded_pages_are_known_probes_a_bounded_number_of_them(
    open_filter, corpus, modules
):
    """Both index pages first: the copy is confirmed from plain samples, then the guide's coded
    pages arrive and their copies are probed, at most ``code_samples`` compared; the copy lacks
    the first two, whose failed probes leave their places to the next."""
    dedup = open_filter(code_samples=2)
    guide, coded = coded_guide(corpus, modules)
    copy = moved(guide, COPY)
    lacking, compared = sorted(coded)[:2], sorted(coded)[2:]  # in the order the guide arrives
    for relative in lacking:
        del copy[COPY + relative]
    pages = guide | copy
    guide_order, copy_order = breadth_first(pages, GUIDE), breadth_first(pages, COPY)
    crawl = OnlineCrawl(dedup, pages).visit([GUIDE, COPY, *guide_order[1:], *copy_order[1:]])
    assert rules(dedup) == [(COPY, GUIDE)]
    code_probes = [url[len(COPY) :] for url in crawl.probes if url[len(COPY) :] in coded]
    assert sorted(code_probes) == sorted(coded)
    failed = [url[len(COPY) :] for url in crawl.failed_probes if url.startswith(COPY)]
    assert sorted(relative for relative in failed if relative in coded) == lacking
    assert all(COPY + relative in crawl.fetched for relative in compared)


def test_an_edition_held_first_is_revoked_by_its_origin_page_probed_for_code(
    open_filter, corpus, modules
):
    """An edition (other commands on four pages) filed deeper and held first, confirmed from
    plain samples: its rule prunes the origin, which the crawl then never fetches where the
    edition holds it; a coded page of the edition has its origin page probed, whose other code
    revokes the rule, so the origin's coded pages are fetched."""
    dedup = open_filter(code_samples=2)
    guide, coded = coded_guide(corpus, modules)
    edition_base = "http://www.edition.test/pub/install/"  # deeper: the mirror, by depth alone
    edition = {
        url: with_code(body.split(b"<pre>")[0] + b"</body></html>", commands(url, "rpm"))
        if url[len(edition_base) :] in coded
        else body
        for url, body in moved(guide, edition_base).items()
    }
    pages = guide | edition
    guide_order, edition_order = breadth_first(pages, GUIDE), breadth_first(pages, edition_base)
    crawl = OnlineCrawl(dedup, pages).visit(
        [edition_base, GUIDE, *edition_order[1:], *guide_order[1:]]
    )
    assert rules(dedup) == []
    assert any(GUIDE + relative in crawl.probes for relative in coded)
    assert all(GUIDE + relative in crawl.fetched for relative in coded)


def test_an_edition_crawled_before_its_rule_has_its_held_coded_pages_checked_at_confirmation(
    open_filter, corpus, modules
):
    """An edition crawled whole before the guide's index page is met, whose code differs only
    on the two coded pages that come last in hash order: the coded samples that confirm it are
    four identical ones, and none of its coded pages arrives after the rule (it is held), so
    only checking the coded pages held at confirmation (within ``code_samples``: two more)
    sees the edition, and the guide's pages are fetched, not dropped for the edition's."""
    guide = guide_pages(corpus, modules[:20])
    order = leaves_in_sample_order(guide, GUIDE)
    coded = [order[position] for position in (3, 5, 8, 11, 13, 14)]
    for relative in coded:
        guide[GUIDE + relative] = with_code(guide[GUIDE + relative], commands(relative, "dpkg"))
    edition_base = "http://www.edition.test/install/"
    edition = moved(guide, edition_base)
    for relative in coded[4:]:
        plain = guide_pages(corpus, modules[:20])[GUIDE + relative]
        edition[edition_base + relative] = with_code(plain, commands(relative, "rpm"))
    pages = guide | edition
    dedup = open_filter(code_samples=6)
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, edition_base) + breadth_first(pages, GUIDE)
    )
    assert rules(dedup) == []
    assert all(GUIDE + relative in crawl.fetched for relative in coded[4:])


def test_a_copy_paired_first_with_an_edition_is_paired_with_the_guide_again_once_revoked(
    open_filter, corpus, modules
):
    """A copy of the guide, filed deeper on another host, whose index page is identical to the
    guide's and to its rpm edition's: all three index pages arrive before any sample is
    answered, and the copy is confirmed a mirror of the edition (the first samples are identical
    prose); the edition's pages with other code revoke that rule. The copy's pair with the
    guide, superseded by the rule, is sampled again: no other index page may come to pair them
    (on the holdout web, the guide's pages were all dropped for a host copy's)."""
    guide, coded = coded_guide(corpus, modules)
    edition = moved(guide, EDITION)
    for relative in coded:
        edition[EDITION + relative] = with_code(
            guide_pages(corpus, modules[:20])[GUIDE + relative], commands(relative, "rpm")
        )
    copy_base = "http://mirror.copy.test/pub/install/"
    pages = guide | edition | moved(guide, copy_base)
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages)
    waiting = [probe for url in (copy_base, EDITION, GUIDE) for probe in crawl.fetch(url).probes]
    crawl.answer(waiting)
    assert (copy_base, EDITION) in rules(dedup)
    crawl.visit(EDITION + relative for relative in coded)
    assert (copy_base, EDITION) not in rules(dedup)
    paired = rules(dedup) + [
        (candidate["mirror"], candidate["origin"])
        for candidate in dedup.mirror_candidates()
        if candidate["state"] == "open"
    ]
    assert (copy_base, GUIDE) in paired


def test_a_copy_confirmed_for_an_edition_pairs_with_the_edition_its_coded_page_duplicates(
    open_filter, corpus, modules
):
    """The rpm edition is crawled whole first, and the only indexed one of three identical index
    pages: the guide's and a copy's index pages are both candidates of the edition's. The copy
    is confirmed from pages alike in both editions; the guide's page with other code, fetched
    for its own pair, then revokes it when the copy's namesake duplicates it. The copy's other
    pages duplicate the edition's (the guide's were dropped for them), so no second namesake
    could ever pair it with the guide: the page that revoked the rule pairs it."""
    guide, coded = coded_guide(corpus, modules)
    edition = moved(guide, EDITION)
    differing = coded[-1]
    edition[EDITION + differing] = with_code(
        guide_pages(corpus, modules[:20])[GUIDE + differing], commands(differing, "rpm")
    )
    copy_base = "http://library.copy.test/debian/install/"
    copy = moved(guide, copy_base)
    pages = guide | edition | copy
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit([*breadth_first(pages, EDITION), GUIDE, copy_base])
    crawl.visit(breadth_first(pages, copy_base)[1:] + breadth_first(pages, GUIDE)[1:])
    revoked = [d.url for d in crawl.decisions.values() if d.evidence.get("mirrors_revoked")]
    assert copy_base + differing in revoked
    assert (copy_base, EDITION) not in rules(dedup)
    assert (copy_base, GUIDE) in rules(dedup) or (GUIDE, copy_base) in rules(dedup)
    assert GUIDE + differing in crawl.fetched or copy_base + differing in crawl.fetched


CASE_TWINS = {"Check.html": "macro", "check.html": "function"}


def guide_with_case_twins(corpus: dict[str, str], modules: list[str]) -> dict[str, bytes]:
    """A 12-page guide with two pages more whose names differ only in case, each with its own
    code (gi-docgen's page of a macro and of a function by one name)."""
    names = modules[:12]
    pages = guide_pages(corpus, names)
    pages[GUIDE] = table_of_contents(
        "Installation guide", [(f"{n}.html", n) for n in names] + [(t, t) for t in CASE_TWINS]
    )
    for twin, kind in CASE_TWINS.items():
        pages[GUIDE + twin] = with_code(corpus[modules[13]].encode(), commands(kind, "dpkg"))
    return pages


@pytest.mark.parametrize("met", ["both_on_each_side", "one_on_each_side"])
def test_two_files_whose_names_differ_only_in_case_never_make_a_copy_an_edition(
    open_filter, corpus, modules, met
):
    """gi-docgen writes ``func.CHECK_VERSION.html`` (a macro) beside ``func.check_version.html``
    (a function), each with its own code. Relative paths compare lower-cased, so the two are one
    path to the index; the copy's crawl met them first, in the other order than the guide's (or
    met one on each side), and every document before the index pages that pair the two. Their
    code, compared under that path, is two pages' and not an edition's: the copy is a mirror
    (on the ninth holdout web a stale copy's pair was rejected as an edition so)."""
    dedup = open_filter()
    guide = guide_with_case_twins(corpus, modules)
    pages = guide | moved(guide, COPY)
    guide_met = [GUIDE + "Check.html", GUIDE + "check.html"]
    copy_met = [COPY + "check.html", COPY + "Check.html"]
    if met == "one_on_each_side":
        guide_met, copy_met = guide_met[1:], copy_met[1:]
    twin_urls = {base + twin for base in (GUIDE, COPY) for twin in CASE_TWINS}
    documents = [
        url
        for url in breadth_first(pages, GUIDE) + breadth_first(pages, COPY)
        if not url.endswith("/") and url not in twin_urls
    ]
    OnlineCrawl(dedup, pages).visit([*guide_met, *copy_met, *documents, GUIDE, COPY])
    assert rules(dedup) == [(COPY, GUIDE)]


def test_a_page_whose_name_differs_only_in_case_from_a_copys_page_revokes_no_rule(
    open_filter, corpus, modules
):
    """The copy is ruled a mirror from its other pages; then its ``Check.html`` arrives, and
    later the guide's ``check.html``, another file under the same lower-cased path with other
    code: the rule stands (on the ninth holdout web the copier's rule and the stale copy's were
    revoked so, and all four copies of the reference were crawled whole)."""
    dedup = open_filter()
    guide = guide_with_case_twins(corpus, modules)
    pages = guide | moved(guide, COPY)
    twin_urls = {base + twin for base in (GUIDE, COPY) for twin in CASE_TWINS}
    crawl = OnlineCrawl(dedup, pages).visit(
        url
        for url in interleave(breadth_first(pages, GUIDE), breadth_first(pages, COPY))
        if url not in twin_urls
    )
    assert rules(dedup) == [(COPY, GUIDE)]
    crawl.visit([COPY + "Check.html", GUIDE + "check.html"])
    revoked = [d.url for d in crawl.decisions.values() if d.evidence.get("mirrors_revoked")]
    assert revoked == []
    assert rules(dedup) == [(COPY, GUIDE)]


def test_a_page_dropped_for_a_sibling_whose_code_differs_in_no_word_revokes_no_rule(
    open_filter, corpus, modules
):
    """Boost's reference holds an ``operator!=`` page beside an ``operator==`` one: the same
    words, code blocks apart by the operator alone. The guide's ``ne.html`` is dropped as an exact
    duplicate of its ``eq.html``; the copy's ``ne.html``, fetched under the rule, holds its own
    code, which is no edition's against the code of the guide's ``eq.html`` (on the tenth
    holdout web, breadth first, a chain's top rule was revoked so, and its hosts crawled under
    eleven narrower rules)."""
    names = modules[:12]
    guide = guide_pages(corpus, names)
    operators = {"eq.html": "==", "ne.html": "!="}
    guide[GUIDE] = table_of_contents(
        "Installation guide", [(f"{n}.html", n) for n in names] + [(o, o) for o in operators]
    )
    for name, operator in operators.items():
        code = f"bool operator{operator}(const path& a, const path& b);"
        guide[GUIDE + name] = with_code(corpus[modules[13]].encode(), code)
    pages = guide | moved(guide, COPY)
    crawl = OnlineCrawl(dedup := open_filter(), pages).visit(breadth_first(pages, GUIDE))
    assert crawl.decisions[GUIDE + "ne.html"].duplicate_of == GUIDE + "eq.html"
    crawl.visit(url for url in breadth_first(pages, COPY) if url != COPY + "ne.html")
    assert rules(dedup) == [(COPY, GUIDE)]
    arrived = crawl.fetch(COPY + "ne.html")  # fetched after all: a probe's, or one in flight
    assert "mirrors_revoked" not in arrived.evidence
    assert rules(dedup) == [(COPY, GUIDE)]


def test_a_page_held_as_a_third_sites_page_with_its_examples_marked_up_otherwise_revokes_no_rule(
    open_filter, corpus, modules
):
    """A third site serves a guide page with the same words, its example marked up otherwise
    (Debian's copy of Apache's manual): the guide's page and then the copy's are dropped as its
    exact duplicates. Their own code blocks hold other words than the third site's, but the two
    pages are held as the same page: no edition's code (on the fourth helper's web such a page
    revoked the manual's rule between two hosts, 443 pages fetched back)."""
    names = modules[:12]
    guide = guide_pages(corpus, names)
    example = "<pre>dpkg --install</pre><p>package.deb</p>"
    guide[GUIDE + "setup.html"] = (
        corpus[modules[13]].encode().replace(b"</body>", f"{example}</body>".encode())
    )
    guide[GUIDE] = table_of_contents(
        "Installation guide", [(f"{n}.html", n) for n in names] + [("setup.html", "setup.html")]
    )
    third = "http://third.test/de/setup.html"
    marked_otherwise = example.replace("</pre><p>", " ").replace("</p>", "</pre>")
    pages = guide | moved(guide, COPY)
    pages[third] = (
        corpus[modules[13]].encode().replace(b"</body>", f"{marked_otherwise}</body>".encode())
    )
    crawl = OnlineCrawl(dedup := open_filter(), pages).visit([third])
    crawl.visit(breadth_first(pages, GUIDE))
    assert crawl.decisions[GUIDE + "setup.html"].duplicate_of == third
    crawl.visit(url for url in breadth_first(pages, COPY) if url != COPY + "setup.html")
    assert rules(dedup) == [(COPY, GUIDE)]
    arrived = crawl.fetch(COPY + "setup.html")  # fetched after all: a probe's, or one in flight
    assert arrived.duplicate_of == third
    assert "mirrors_revoked" not in arrived.evidence
    assert rules(dedup) == [(COPY, GUIDE)]
