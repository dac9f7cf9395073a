"""A renamed copy inside an origin's host, carried to a whole copy of that host: the copy, held
first, holds the renamed directory too, and loses the URLs that directory already holds."""

from __future__ import annotations

from .conftest import OnlineCrawl, breadth_first, copy_tree, docs_tree
from .test_orientation import lost

HOST = "http://docs.origin.test/"
NOTES, OLD_NOTES = HOST + "notes/", HOST + "archive/notes-old/"
COPY_HOST = "http://www.copy.test/pub/site/"


def test_a_host_copy_held_first_loses_what_its_renamed_directory_holds(
    open_filter, corpus, modules
):
    notes = docs_tree(corpus, NOTES, modules, "Standard library notes")
    host = {HOST: b"<html><body><a href='notes/'>notes</a></body></html>"} | notes
    host |= copy_tree(notes, NOTES, OLD_NOTES)
    copy = copy_tree(host, HOST, COPY_HOST)
    dedup = open_filter()
    old_copy = breadth_first(copy, COPY_HOST + "archive/notes-old/")
    old_listings = [url for url in old_copy if url.endswith("/")]
    notes_documents = [url for url in breadth_first(notes, NOTES) if not url.endswith("/")]
    crawl = OnlineCrawl(dedup, host | copy).visit(
        [url for url in old_copy if url not in old_listings]  # the copy's renamed directory
        + notes_documents
        + [NOTES, OLD_NOTES, COPY_HOST, HOST, *old_listings]
        + breadth_first(copy, COPY_HOST + "notes/")
    )
    rules = {rule["mirror"]: rule for rule in dedup.mirror_rules()}
    assert rules[OLD_NOTES]["origin"] == NOTES
    assert (rules[COPY_HOST]["held_first"], rules[COPY_HOST]["pruned"]) == ("mirror", ["origin"])
    copy_notes = [url for url in copy if url.startswith(COPY_HOST + "notes/") and url[-1] != "/"]
    for url in copy_notes:
        decision = crawl.pruned[url]
        assert decision.reason == "mirrored_directory"
        assert decision.duplicate_of == COPY_HOST + "archive/notes-old/" + url.split("/notes/")[1]
        assert decision.duplicate_of in crawl.fetched
    assert COPY_HOST + "notes/" in crawl.fetched  # index pages are never pruned
    assert lost(crawl, COPY_HOST) == []
