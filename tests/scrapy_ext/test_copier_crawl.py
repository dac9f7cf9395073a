"""A real Scrapy crawl of a copier's site met before its victim: the copier holds two thirds of
the victim's directory at its host's root, copied before the victim gained a page that only one
of its documents links. Depth takes the copier for the origin, and the victim's documents whose
counterpart the copier holds are pruned. Once a document the copier lacks is fetched, the victim
is no longer pruned and its documents pruned before are asked again, so the page it gained is
reached through the document that links it (before, that document stayed pruned for the
copier's, which links nothing of it)."""

from __future__ import annotations

from pathlib import Path

from tests.mirrors.conftest import copy_tree, docs_tree
from testweb.site import TestWeb

from .conftest import logged_crawl

VICTIM = "http://docs.vendor.test/manual/"
COPIER = "http://notes.reader.test/"  # at its host's root: shallower than its victim


def test_a_page_a_victim_gained_after_its_copier_copied_it_is_fetched(
    corpus, stdlib_page, tmp_path: Path
):
    modules = sorted(corpus)
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    documents = sorted(url for url in victim if url.startswith(VICTIM) and not url.endswith("/"))
    copier = copy_tree(victim, VICTIM, COPIER)  # copied before the victim gained a page
    lacking = documents[1:-4:3]  # a third of the top level's documents: none of ``extra/``
    for url in lacking:
        del copier[COPIER + url[len(VICTIM) :]]
    # a document the copier holds, listed with the others by the victim's index page: pruned
    # as soon as that page's links are queued, before any document the copier lacks is fetched
    linking = documents[0]
    assert linking not in lacking
    gained = f"{VICTIM}gained.html"
    victim[linking] = victim[linking].replace(
        b"</body>", b'<p><a href="gained.html">what is new</a></p></body>'
    )
    victim[gained] = stdlib_page("fractions").encode()
    web = TestWeb(0, "copier-first", victim | copier, {}, [COPIER, VICTIM], [], [], set(), {}, {})
    run, fetched, decisions = logged_crawl(web, tmp_path, "copier-first")
    paired = [d for d in decisions if d["reason"] == "mirror_candidate"]
    assert [d["evidence"]["mirror"]["origin"] for d in paired] == [COPIER]  # by depth
    pruned = [d["url"] for d in decisions if d["reason"] == "mirrored_directory"]
    assert linking in pruned
    assert any(d["evidence"].get("mirrors_origin_lacking") == [VICTIM] for d in decisions)
    assert run.stats["dedup/unpruned_requeued"] >= 1
    assert gained in fetched, [d for d in decisions if d["url"] in (linking, gained)]
    assert gained in run.parsed
