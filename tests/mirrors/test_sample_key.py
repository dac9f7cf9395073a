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


def test_a_directory_read_from_its_secret_start_holds_every_page_once(tmp_path, monkeypatch):
    """The pool a draw is taken from starts at a point of the hash order the index's key chooses
    for the directory, and goes round: no copier can tell which of a large directory's pages
    are read first."""
    from dedup_filter import DedupFilter
    from dedup_filter.mirrors.store import MirrorStore

    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, "0x5eed")
    pages = [(f"{VICTIM}p{n}.html", f"<p>page {n} {'word ' * n}</p>".encode()) for n in range(90)]
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_pages(pages)
        with dedup.index.read() as view:
            store = MirrorStore(view)
            plain = [rel_hash for rel_hash, _ in store.subtree(VICTIM)]
            rotated = [rel_hash for rel_hash, _ in store.subtree(VICTIM, store.sample_key())]
    assert len(plain) == 90
    assert plain == sorted(plain)
    assert sorted(rotated) == plain
    turn = rotated.index(plain[0])
    assert 0 < turn < 90  # it starts inside the order, not at its first page
    assert rotated == plain[-turn:] + plain[:-turn]


@pytest.mark.parametrize(("key", "pruned_for_other_text"), [("0", True), ("0x5eed", False)])
def test_a_copier_faithful_on_the_first_pages_of_a_large_directory_gets_them_only(
    open_filter, corpus, monkeypatch, key, pruned_for_other_text
):
    """200 documents: the copier copies the 64 first in the plain hash order faithfully (the
    pool a draw was taken from) and fills the others with its own text, crawled first. In the
    public order (key 0) the victim's other pages are pruned for the copier's; read from the
    directory's secret start, the draw meets the copier's own text."""
    monkeypatch.setenv(SAMPLE_KEY_VARIABLE, key)
    words = [word for name in sorted(corpus) for word in text_words(corpus[name])]
    names = [f"n{number:03d}.html" for number in range(200)]
    victim = {VICTIM: _listing(names)} | {
        VICTIM + name: _page(words[40 * n : 40 * n + 40]) for n, name in enumerate(names)
    }
    copied = copy_tree(victim, VICTIM, COPIER)
    faithful = sorted(names, key=relative_hash)[:64]
    for n, name in enumerate(names):
        if name not in faithful:
            copied[COPIER + name] = _page(list(reversed(words[40 * n : 40 * n + 40])))
    crawl = OnlineCrawl(open_filter(), victim | copied).visit(
        breadth_first(copied, COPIER) + breadth_first(victim, VICTIM)
    )
    lost = [
        url
        for url, decision in crawl.pruned.items()
        if url.startswith(VICTIM) and copied.get(decision.duplicate_of or "") != victim[url]
    ]
    assert bool(lost) is pruned_for_other_text


def _listing(names: list[str]) -> bytes:
    items = "".join(f'<li><a href="{name}">{name}</a></li>' for name in names)
    return f"<html><body><h1>Notes</h1><ul>{items}</ul></body></html>".encode()


def _page(words: list[str]) -> bytes:
    return f"<html><body><p>{' '.join(words)}</p></body></html>".encode()
