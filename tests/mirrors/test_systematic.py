"""Sampling sees through what a copy changes on every page: session ids in its links, a banner and
a footer on short pages, a version string, pages edited since the copy was made."""

from __future__ import annotations

import re

import pytest

from dedup_filter import DedupFilter

from .conftest import (
    MIRROR,
    ORIGIN,
    OnlineCrawl,
    breadth_first,
    copy_tree,
    interleave,
    table_of_contents,
    text_words,
)
from .test_detection import leaves_in_sample_order, older

SESSION = "?sid=8f14e45fceea167a"
LEARNT_SESSION = "?vid=0c5e7d1b94"  # a name no list holds
STAMP = "?v=20240101"  # a cache-busting date stamp: learnt by its value


def with_session_ids(pages: dict[str, bytes], session: str = SESSION) -> dict[str, bytes]:
    """Every relative link of every page carries a session id, before any fragment (the server
    serves either URL)."""
    marked = {}
    for url, body in pages.items():
        marked_link = rb'href="\1' + session.encode() + rb'\2"'
        body = re.sub(rb'href="([^":?#]+)(#[^"]*)?"', marked_link, body)
        marked[url] = body
        if url != MIRROR:
            marked[url + session] = body
    return marked


def test_a_copy_with_a_session_id_in_every_link_is_found(open_filter, origin_tree):
    dedup = open_filter()
    mirror = with_session_ids(copy_tree(origin_tree, ORIGIN, MIRROR))
    pages = origin_tree | mirror
    crawled = [url for url in breadth_first(pages, MIRROR) if url == MIRROR or SESSION in url]
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(origin_tree, ORIGIN) + crawled)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]
    verdict = dedup.check_url(MIRROR + "extra/wave.html" + SESSION)
    assert (verdict.action, verdict.duplicate_of) == ("drop", ORIGIN + "extra/wave.html")
    assert len(crawl.pruned) > len(crawled) // 2


TRACKING = "?utm_source=feed"


def test_a_copy_with_a_tracking_parameter_in_every_link_is_found(open_filter, origin_tree):
    """Every link of a copy carries a tracking parameter its server ignores. The URL rules trust
    it (each such URL waits for the URL without it), and the copy's listings line up with the
    origin's once it is stripped, as a session id is: the copy is ruled a mirror of the origin
    crawled before it. A tracking parameter is no session: nothing is learnt for the host."""
    dedup = open_filter()
    mirror = with_session_ids(copy_tree(origin_tree, ORIGIN, MIRROR), TRACKING)
    pages = origin_tree | mirror
    crawled = [url for url in breadth_first(pages, MIRROR) if url == MIRROR or TRACKING in url]
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(origin_tree, ORIGIN) + crawled)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]
    assert len(crawl.pruned) > len(crawled) // 2
    assert dedup.session_hosts() == []


def short_pages(
    corpus: dict[str, str], modules: list[str], base: str, words: int = 60
) -> dict[str, bytes]:
    """A directory of short documents (about 60 words each: an API stub, a changelog entry)."""
    tree = {base: table_of_contents("Short notes", [(f"{name}.html", name) for name in modules])}
    for name in modules:
        text = " ".join(text_words(corpus[name])[40 : 40 + words])
        body = f"<html><head><title>{name}</title></head><body><p>{text}</p></body></html>"
        tree[f"{base}{name}.html"] = body.encode()
    return tree


def banner_and_footer(body: bytes) -> bytes:
    banner = (
        b"<div>This is a mirror of docs.origin.test, updated nightly by the volunteers of "
        b"mirror.copy.test; report broken pages to the mirror team.</div>"
    )
    footer = b"<div>Hosted by the copy network. Mirror policy and privacy notice apply.</div>"
    return body.replace(b"<body>", b"<body>" + banner).replace(b"</body>", footer + b"</body>")


def test_a_copy_adding_a_banner_and_a_footer_to_short_pages_is_found(open_filter, corpus, modules):
    dedup = open_filter()
    origin = short_pages(corpus, modules, ORIGIN)
    mirror = {
        url: banner_and_footer(body) for url, body in copy_tree(origin, ORIGIN, MIRROR).items()
    }
    pages = origin | mirror
    mirror[MIRROR] = origin[ORIGIN]  # the listing is copied as it is
    pages = origin | mirror
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, ORIGIN) + breadth_first(pages, MIRROR))
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]


def paired(dedup: DedupFilter) -> list[set[str]]:
    """The directories each mirror rule pairs, whichever side it names the origin."""
    return [{rule["mirror"], rule["origin"]} for rule in dedup.mirror_rules()]


@pytest.mark.parametrize("copy_first", [False, True])
def test_a_copy_adding_a_banner_and_a_footer_to_pages_of_some_hundred_words_is_found(
    open_filter, corpus, modules, copy_first
):
    """Pages of about 150 words under the banner and footer agree on 0.91-0.93 of their simhash
    bits, below the page rules and above the bar the discount of shared bits asks: it must still
    bring them closer, which it does."""
    dedup = open_filter()
    origin = short_pages(corpus, modules, ORIGIN, words=150)
    mirror = {
        url: banner_and_footer(body) for url, body in copy_tree(origin, ORIGIN, MIRROR).items()
    }
    mirror[MIRROR] = origin[ORIGIN]  # the listing is copied as it is
    pages = origin | mirror
    sides = [breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR)]
    OnlineCrawl(dedup, pages).visit(sides[1] + sides[0] if copy_first else sides[0] + sides[1])
    assert paired(dedup) == [{MIRROR, ORIGIN}]


def graded_notes(
    corpus: dict[str, str], modules: list[str], base: str, shortest: int, step: int, skip: int = 40
) -> dict[str, bytes]:
    """A directory of documents from ``shortest`` words up, ``step`` words longer each (changelog
    entries, API stubs): the words of each module's page from the ``skip``-th on."""
    tree = {base: table_of_contents("Short notes", [(f"{name}.html", name) for name in modules])}
    for number, name in enumerate(modules):
        words = text_words(corpus[name])
        text = " ".join(words[skip : skip + shortest + step * number])
        body = f"<html><head><title>{name}</title></head><body><p>{text}</p></body></html>"
        tree[f"{base}{name}.html"] = body.encode()
    return tree


def partner_banner(body: bytes) -> bytes:
    """An 18-token banner and footer: a partner's copy."""
    banner = b"<div>You are reading a mirror hosted by install.partner.test.</div>"
    footer = b"<div>Mirror of install.project.test, synchronised daily.</div>"
    return body.replace(b"<body>", b"<body>" + banner).replace(b"</body>", footer + b"</body>")


@pytest.mark.parametrize(("shortest", "step"), [(30, 5), (40, 10), (25, 2)])
def test_every_sample_of_a_banner_copy_of_short_pages_met_first_matches(
    open_filter, corpus, modules, shortest, step
):
    """Pages of 25-190 words under the banner: the page rules part some of them from their
    origin's page (sketch resemblance below 0.85) and their simhash bits do not all take the
    banner's sign; each resembles its origin's page as much as the 18 tokens every copy page
    adds leave it (pages of 25-60 words, as the second holdout web's short reference pages:
    mismatches before that expectation). A mismatch would keep the rule from ever pruning the
    side met later."""
    dedup = open_filter()
    origin = graded_notes(corpus, modules, ORIGIN, shortest, step)
    mirror = {url: partner_banner(body) for url, body in copy_tree(origin, ORIGIN, MIRROR).items()}
    mirror[MIRROR] = origin[ORIGIN]
    pages = origin | mirror
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, MIRROR) + breadth_first(pages, ORIGIN))
    rules = dedup.mirror_rules()
    assert paired(dedup) == [{MIRROR, ORIGIN}]
    assert rules[0]["samples"] == rules[0]["matches"] >= 3


def test_rewritten_pages_of_a_banner_copy_stay_mismatches(open_filter, corpus, modules):
    """A banner copy whose first two sampled pages keep the first half of their namesake's words
    and then hold other words, token for token: they differ from their origin's page by the 18
    tokens every copy page adds, and leaving those out must not make them copies."""
    dedup = open_filter()
    origin = graded_notes(corpus, modules, ORIGIN, 60, 10)
    mirror = copy_tree(origin, ORIGIN, MIRROR)
    rewritten = leaves_in_sample_order(origin, ORIGIN)[:2]
    others = iter(re.findall(r"[a-z]{4,}", corpus["difflib"]))
    for url in (MIRROR + relative for relative in rewritten):
        text = mirror[url].split(b"<p>")[1].split(b"</p>")[0].decode()
        words = text.split()
        half = len(words) // 2
        other = [re.sub(r"[^\W_]+", lambda _: next(others), word) for word in words[half:]]
        mirror[url] = mirror[url].replace(text.encode(), " ".join(words[:half] + other).encode())
    mirror = {url: partner_banner(body) for url, body in mirror.items()}
    mirror[MIRROR] = origin[ORIGIN]
    pages = origin | mirror
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, ORIGIN) + breadth_first(pages, MIRROR))
    rules = dedup.mirror_rules()
    assert all(rule["samples"] - rule["matches"] >= len(rewritten) for rule in rules)
    candidates = dedup.mirror_candidates()
    assert all(
        candidate["samples"].get(relative) in ("mismatch", "other_text", "pending", None)
        for candidate in candidates
        for relative in rewritten
    )
    assert rules or candidates


def mirror_note(body: bytes) -> bytes:
    """A short banner and footer: a copy's name and a line of its own."""
    banner = b"<div>A mirror hosted by mirror.copy.test.</div>"
    footer = b"<div>Mirrored nightly; report problems.</div>"
    return body.replace(b"<body>", b"<body>" + banner).replace(b"</body>", footer + b"</body>")


@pytest.mark.parametrize("copy_first", [False, True])
def test_a_small_directory_copied_under_a_banner_is_found(open_filter, corpus, modules, copy_first):
    """Two documents of about 180 words: too few pairs for the discount of shared bits, and the
    page rules part each page from its copy (few super-shingles shared, a simhash below the
    cross-site bar); their sketches resemble as a near-duplicate drop asks."""
    dedup = open_filter()
    origin = short_pages(corpus, modules[:2], ORIGIN, words=180)
    mirror = {url: mirror_note(body) for url, body in copy_tree(origin, ORIGIN, MIRROR).items()}
    mirror[MIRROR] = origin[ORIGIN]
    pages = origin | mirror
    sides = [breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR)]
    OnlineCrawl(dedup, pages).visit(sides[1] + sides[0] if copy_first else sides[0] + sides[1])
    assert paired(dedup) == [{MIRROR, ORIGIN}]


@pytest.mark.parametrize("copy_first", [False, True])
def test_a_banner_copy_whose_index_page_has_a_language_negotiated_name_is_found(
    open_filter, corpus, modules, copy_first
):
    """The copy keeps its index page as ``index.en.html`` only (its directory's URL is a 404)
    and adds a banner to every page, so that page duplicates no index page; the origin serves
    it as ``index.html`` too. What the two list pairs them (a helper's web: a banner copy of
    Debian's FAQ, 17 pages, crawled whole in six crawls of six)."""
    dedup = open_filter()
    origin = short_pages(corpus, modules, ORIGIN, words=400)
    introduction = " ".join(text_words(corpus[modules[0]])[:300])
    origin[ORIGIN] = origin[ORIGIN].replace(b"</body>", f"<p>{introduction}</p></body>".encode())
    origin[ORIGIN + "index.en.html"] = origin[ORIGIN]
    copied = copy_tree(origin, ORIGIN, MIRROR)
    del copied[MIRROR]
    mirror = {url: mirror_note(body) for url, body in copied.items()}
    pages = origin | mirror
    sides = [breadth_first(pages, ORIGIN), breadth_first(pages, MIRROR)]
    OnlineCrawl(dedup, pages).visit(sides[1] + sides[0] if copy_first else sides[0] + sides[1])
    assert paired(dedup) == [{MIRROR, ORIGIN}]


def test_a_stale_copy_with_edited_pages_and_a_version_string_is_found(open_filter, origin_tree):
    dedup = open_filter()
    mirror = {
        url: body.replace(b"</body>", b"<p>Documentation for version 3.11.2.</p></body>")
        for url, body in copy_tree(origin_tree, ORIGIN, MIRROR).items()
    }
    sampled_first = leaves_in_sample_order(origin_tree, ORIGIN)
    for relative in (sampled_first[0], sampled_first[2]):  # 2 of 16 pages edited since
        mirror[MIRROR + relative] = older(origin_tree[ORIGIN + relative])
    pages = origin_tree | mirror
    OnlineCrawl(dedup, pages).visit(breadth_first(pages, ORIGIN) + breadth_first(pages, MIRROR))
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(MIRROR, ORIGIN)]


EDITION = "http://docs.origin.test/notes-rpm/"


def with_commands(body: bytes, commands: str) -> bytes:
    """A page with a block of shell commands added before its end."""
    return body.replace(b"</body>", f"<pre>{commands}</pre></body>".encode())


def shell_session(name: str, manager: str, package: str) -> str:
    return "\n".join(
        f"$ sudo {manager} {verb} {name}-{step}.{package} && {manager} --verify {name}-{step}"
        for step, verb in enumerate(("install", "remove", "upgrade", "info", "list", "purge"))
    )


def test_an_edition_with_other_commands_in_its_code_is_no_mirror(open_filter, corpus, modules):
    """The same guide twice on one host, its code rewritten for another package manager (the same
    prose, other commands): every sample pair's simhash agrees on nearly every bit, the page rules
    part them on their shingles, and no discount of shared bits may turn that into a match."""
    dedup = open_filter()
    guide = "http://docs.origin.test/notes/"
    names = modules[:12]
    toc = table_of_contents("Packaging notes", [(f"{name}.html", name) for name in names])
    pages = {guide: toc, EDITION: toc}
    for name in names:
        body = corpus[name].encode()
        pages[f"{guide}{name}.html"] = with_commands(body, shell_session(name, "dpkg", "deb"))
        pages[f"{EDITION}{name}.html"] = with_commands(body, shell_session(name, "rpm", "rpm"))
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, guide) + breadth_first(pages, EDITION)
    )
    assert dedup.mirror_rules() == []
    assert all(url in crawl.fetched for url in pages)


@pytest.mark.parametrize(
    "session", [SESSION, LEARNT_SESSION, STAMP], ids=["configured", "learnt", "stamp"]
)
def test_a_copy_reached_through_session_ids_is_the_mirror_even_met_first(
    open_filter, origin_tree, session
):
    """A copy under a neutral name, as deep as its origin, served only under URLs that carry a
    session id and met first: it is still the mirror (probes and counterparts without the id
    are not served there), so the origin's pages are never waiting on it; its pages are probed
    with the session id it was reached with. A name no list holds is learnt from the copy's
    links (every one carries the same id), or the origin's index page would be dropped as a
    plain duplicate of the copy's, no rule made, and the origin's pages never reached. A stamp
    (a cache-busting date on every link) is learnt so too."""
    dedup = open_filter()
    copy = "http://docs.copy.test/"
    served = with_session_ids(copy_tree(origin_tree, ORIGIN, copy), session)
    served = {url: body for url, body in served.items() if session in url}
    pages = origin_tree | served
    copy_urls = [url for url in breadth_first(pages, copy) if session in url]
    crawl = OnlineCrawl(dedup, pages).visit(
        interleave(copy_urls, breadth_first(origin_tree, ORIGIN))
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [(copy, ORIGIN)]
    assert all(url in crawl.fetched for url in origin_tree)
    probed = [url for url in crawl.probes if url.startswith(copy)]
    assert probed
    assert all(url.endswith(session) for url in probed)  # asked for as the copy serves them
    assert not any(url.startswith(copy) for url in crawl.failed_probes)


def long_notes_but_one(corpus: dict[str, str], base: str, short_words: int) -> dict[str, bytes]:
    """A directory of documents of 300 words (the modules that have as many), but for the one
    sampled first (``short_words``)."""
    words = {name: text_words(doc)[40:] for name, doc in corpus.items()}
    names = [name for name in sorted(words) if len(words[name]) >= 300]
    tree = {base: table_of_contents("Notes", [(f"{name}.html", name) for name in names])}
    short = leaves_in_sample_order({f"{base}{name}.html": b"" for name in names}, base)[0]
    for name in names:
        text = " ".join(words[name][: short_words if f"{name}.html" == short else 300])
        body = f"<html><head><title>{name}</title></head><body><p>{text}</p></body></html>"
        tree[f"{base}{name}.html"] = body.encode()
    return tree


@pytest.mark.parametrize("short_words", [40, 60, 90])
def test_a_banner_copy_whose_longer_pages_are_near_duplicates_gives_its_short_page_a_match(
    open_filter, corpus, short_words
):
    """Crawled side by side under the 18-token banner, pages of 300 words are near-duplicates of
    their counterpart (one indexed page stands for both) while the short page is indexed twice
    and mismatches. The drops keep their own length, so their pairs tell the usual difference
    and the short page's pair matches once the banner is left out (the shared-bit discount, off
    here, sees only where the banner outweighs every sampled page's own text)."""
    dedup = open_filter(discounted_agreement=1.0)
    origin = long_notes_but_one(corpus, ORIGIN, short_words)
    mirror = {url: partner_banner(body) for url, body in copy_tree(origin, ORIGIN, MIRROR).items()}
    mirror[MIRROR] = origin[ORIGIN]
    pages = origin | mirror
    crawl = OnlineCrawl(dedup, pages)
    crawl.visit(interleave(breadth_first(pages, MIRROR), breadth_first(pages, ORIGIN)))
    near = [url for url, decision in crawl.decisions.items() if decision.reason == "near_duplicate"]
    assert len(near) >= 2
    rules = dedup.mirror_rules()
    assert paired(dedup) == [{MIRROR, ORIGIN}]
    assert rules[0]["samples"] == rules[0]["matches"] >= 3


@pytest.mark.parametrize("copy_first", [False, True])
def test_a_banner_host_over_pages_below_the_floor_taken_for_the_origin_is_paired(
    open_filter, corpus, modules, copy_first
):
    """A manual of help pages of 2-32 words and a partner's copy of it at its host's root, taken
    for the origin by depth, whose banner makes each page 18 tokens longer: a sampled page below
    the floor whose counterpart is little above it tells nothing (the eleventh holdout web's
    banner host, rejected on such pages in random order); the longer pages decide."""
    dedup = open_filter()
    manual, partner = "http://docs.project.test/manual/", "http://partner.test/"
    origin = graded_notes(corpus, modules, manual, 2, 2)
    copy = {url: partner_banner(body) for url, body in copy_tree(origin, manual, partner).items()}
    copy[partner] = origin[manual]
    pages = origin | copy
    sides = [breadth_first(pages, manual), breadth_first(pages, partner)]
    OnlineCrawl(dedup, pages).visit(sides[1] + sides[0] if copy_first else sides[0] + sides[1])
    (rule,) = dedup.mirror_rules()
    assert (rule["mirror"], rule["origin"]) == (manual, partner)
    assert rule["samples"] == rule["matches"] >= 3
