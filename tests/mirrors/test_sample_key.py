"""Samples drawn in an order only the index knows: a copier that copies what the public hash order
would draw, and fills the rest of the victim's names with its own text, never gets the victim's
pages pruned (red-team finding, sixty-seventh session)."""

from __future__ import annotations

import pytest

from dedup_filter.index.lmdb_index import SAMPLE_KEY, SAMPLE_KEY_VARIABLE
from dedup_filter.mirrors.store import relative_hash

from .conftest import OnlineCrawl, breadth_first, copy_tree, docs_tree, text_words

VICTIM = "http://victim.test/docs/"
COPIER = "http://copier.test/docs/"
FAITHFUL = 4  # as many as the first draw takes (`mirror.samples`)


def copier_of_the_public_draw(victim: dict[str, bytes]) -> dict[str, bytes]:
    """The victim copied under ``COPIER``: its index pages and the ``FAITHFUL`` documents first in
    the plain hash order of their relative paths as they are, every other document a page of
    the copier's own words (the victim's, reversed)."""
    copied = copy_tree(victim, VICTIM, COPIER)
    documents = sorted(
        (url for url in copied if not url.endswith("/")),
        key=lambda url: relative_hash(url[len(COPIER) :]),
    )
    for url in documents[FAITHFUL:]:
        words = " ".join(reversed(text_words(copied[url].decode())))
        copied[url] = f"<html><body><p>{words}</p></body></html>".encode()
    return copied


def victim_pages_lost(open_filter, corpus, modules) -> list[str]:
    """The copier crawled first, then the victim: the victim's pages pruned in favour of a
    copier's page that holds other text."""
    victim = docs_tree(corpus, VICTIM, modules, "Standard library notes")
    copied = copier_of_the_public_draw(victim)
    crawl = OnlineCrawl(open_filter(), victim | copied).visit(
        breadth_first(copied, COPIER) + breadth_first(victim, VICTIM)
    )
    return [
        url
        for url, decision in crawl.pruned.items()
        if url.startswith(VICTIM) and copied.get(decision.duplicate_of or "") != victim[url]
    ]


def test_a_copier_of_the_samples_the_public_order_draws_gets_nothing_pruned(
    open_filter, corpus, modules, monkeypatch
):
    """With one key: over 61 other keys the same copier still won in 5 (its four faithful pages
    drawn three times in four, by chance), as sampling allows a copy that faithful a share."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "0x5eed")
    assert victim_pages_lost(open_filter, corpus, modules) == []


def test_in_the_public_order_the_same_copier_gets_the_victim_pruned(open_filter, corpus, modules):
    """What the secret order prevents (the tests' indexes draw in the public order: conftest)."""
    assert victim_pages_lost(open_filter, corpus, modules) != []


@pytest.mark.parametrize("fixed", [None, "7"])
def test_each_index_keeps_its_own_key(tmp_path, monkeypatch, fixed):
    from dedup_filter import Config
    from dedup_filter.index.lmdb_index import LmdbIndex

    if fixed is None:
        monkeypatch.delenv(SAMPLE_KEY_VARIABLE)
    else:
        monkeypatch.setenv(SAMPLE_KEY_VARIABLE, fixed)
    config = Config.default()

    def key_of(name: str) -> bytes | None:
        index = LmdbIndex.open(tmp_path / name, config)
        try:
            with index.read() as view:
                return view.get("meta", SAMPLE_KEY)
        finally:
            index.close()

    first = key_of("a")
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "9")  # reopened, an index keeps the key it was given
    assert key_of("a") == first
    if fixed is None:
        monkeypatch.delenv(SAMPLE_KEY_VARIABLE)
        assert first != bytes(4)
        assert key_of("b") not in (first, bytes(4))
    else:
        assert first == (7).to_bytes(4, "big")


def test_a_key_that_is_no_integer_is_a_configuration_error(tmp_path, monkeypatch):
    from dedup_filter import Config
    from dedup_filter.errors import ConfigError
    from dedup_filter.index.lmdb_index import LmdbIndex

    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "secret")
    with pytest.raises(ConfigError, match="is no integer"):
        LmdbIndex.open(tmp_path / "index", Config.default())
