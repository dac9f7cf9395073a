"""The web of real documentation trees, built here from small trees written to a temporary dir."""

from __future__ import annotations

from pathlib import Path

from dedup_filter import DedupFilter
from testweb.online import crawl
from testweb.real_trees import (
    DEEP_COPY,
    ORIGIN_TREES,
    OWN_TREES,
    PARTIAL_COPY,
    packaged_docs_web,
    real_tree_web,
)

WORDS = ("ownership", "borrowing", "lifetimes", "traits", "generics", "closures", "macros")


def write_trees(root: Path, edition: str) -> None:
    """Every tree the web reads: a few chapters each, linked in a chain from index.html."""
    for number, tree in enumerate(ORIGIN_TREES + OWN_TREES):
        chapters = [f"ch{index:02d}.html" for index in range(1, 8)]
        for position, name in enumerate(["index.html", *chapters]):
            following = chapters[position] if position < len(chapters) else "index.html"
            text = " ".join(
                f"{tree} {WORDS[(i * (number + 3) + position) % len(WORDS)]} {i}"
                for i in range(300)
            )
            extra = edition if position == 2 else ""
            page = (
                f"<html><body><h1>{tree} {name}</h1><p>{text}</p><p>{extra}</p>"
                f'<a href="{following}">next</a></body></html>'
            )
            path = root / tree / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(page)


def test_the_web_holds_the_three_copies_with_their_truth(tmp_path):
    write_trees(tmp_path / "stable", "")
    write_trees(tmp_path / "nightly", "new in this release: const generics everywhere")
    web = real_tree_web(tmp_path / "stable", tmp_path / "nightly")
    whole, deep, partial = web.mirrors
    assert whole.kind == "stale"
    assert whole.edited_paths == tuple(f"{tree}/ch02.html" for tree in sorted(ORIGIN_TREES))
    assert deep.d2.endswith(DEEP_COPY[1])
    assert len(deep.relative_paths) == 8
    assert partial.d2.endswith(PARTIAL_COPY[1])
    assert len(partial.missing_paths) == 1
    assert len(partial.relative_paths) == 7


def test_a_crawl_of_the_web_finds_every_mirror_without_losing_an_original(tmp_path):
    write_trees(tmp_path, "")
    web = real_tree_web(tmp_path)
    unfiltered = crawl(web, None)
    with DedupFilter.open(tmp_path / "index") as dedup:
        log = crawl(web, dedup)
        rules = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert rules == {mirror.boundary for mirror in web.mirrors}
    assert web.originals & unfiltered.fetched_set <= log.fetched_set
    assert len(log.fetched) < len(unfiltered.fetched)


def test_packaged_manuals_get_a_listing_and_every_copy_is_found(tmp_path):
    write_trees(tmp_path, "")
    trees = dict(zip(("node/", "valgrind/", "npm/"), ORIGIN_TREES, strict=False))
    sources = {prefix: tmp_path / tree for prefix, tree in trees.items()}
    (tmp_path / ORIGIN_TREES[0] / "index.html").unlink()  # a manual without an index page
    web = packaged_docs_web(sources)
    assert {mirror.kind for mirror in web.mirrors} == {"whole_host", "renamed_subdirectory"}
    assert len(web.mirrors) == 4
    listing = web.pages["http://docs.origin.test/node/index.html"].decode()
    assert 'href="ch01.html"' in listing
    with DedupFilter.open(tmp_path / "index") as dedup:
        crawl(web, dedup)
        rules = {(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()}
    assert rules == {mirror.boundary for mirror in web.mirrors}
