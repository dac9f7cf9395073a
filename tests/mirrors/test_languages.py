"""Language editions named in their URLs are never paired: a partial translation whose
untranslated pages are the source edition's would otherwise be confirmed, and its translated
pages pruned with the copies."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dedup_filter.languages import declared_language, language_editions, variant_in_named_edition

from .conftest import (
    GERMAN,
    GERMAN_COPY,
    LAYOUTS,
    OnlineCrawl,
    assert_editions_kept_apart,
    breadth_first,
    copy_tree,
    docs_tree,
    partial_translation,
    two_tree_orders,
)


@pytest.mark.parametrize(
    ("directory", "other", "editions"),
    [
        ("http://a.test/en/", "http://a.test/de/", True),
        ("http://a.test/manual-en/", "http://b.test/pub/manual-fr/", True),
        ("http://a.test/apache-ja/misc/", "http://a.test/apache-de/misc/", True),
        ("http://a.test/en-US/guide/", "http://a.test/fr-FR/guide/", True),
        ("http://a.test/fr/3/library/", "http://a.test/de/3/library/", True),
        ("http://a.test/docs/german/", "http://a.test/docs/english/", True),
        ("http://a.test/handbuch-deutsch/", "http://b.test/manual-en/", True),
        # the source edition unnamed, as most sites serve it
        ("http://a.test/3/library/", "http://a.test/fr/3/library/", True),
        ("http://a.test/docs/", "http://a.test/de/docs/", True),
        ("http://a.test/manual/", "http://b.test/manual/ja/", True),
        # languages named by subdomains
        ("http://ja.react.test/learn/", "http://react.test/learn/", True),
        ("http://de.archive.test/docs/", "http://fr.archive.test/docs/", True),
        ("http://pt-br.docs.test/x/", "http://docs.test/pt-br/x/", False),
        ("http://www.docs.example.co.uk/x/", "http://docs.example.org/x/", False),
        ("http://docs.example.de/x/", "http://docs.example.org/x/", False),  # a suffix
        ("http://de.example/x/", "http://other.example/x/", False),  # a domain's own name
        # the same language, or none: sampled as any pair
        ("http://a.test/apache-de/", "http://b.test/apache-de/", False),
        ("http://a.test/zh_Hans/", "http://b.test/zh-hans/", False),
        ("http://a.test/docs/german/", "http://b.test/docs/de/", False),
        ("http://a.test/docs/", "http://b.test/pub/docs/", False),
        # codes that are words in path names name no language
        ("http://a.test/how-to/", "http://b.test/docs/", False),
        ("http://a.test/io/en/", "http://b.test/en/", False),
        # a rare language's code leading a longer name is an abbreviation, a common one's a tag
        ("http://a.test/st-docs/", "http://b.test/", False),
        ("http://a.test/gl-matrix/", "http://b.test/pub/gl-matrix/", False),
        ("http://a.test/ha-cluster/docs/", "http://b.test/docs/", False),
        ("http://a.test/en-docs/", "http://a.test/de-docs/", True),
        ("http://a.test/st-za/", "http://a.test/en-za/", True),
        ("http://a.test/guide-st/", "http://a.test/guide/", True),
    ],
)
def test_language_editions_by_name(directory, other, editions):
    assert language_editions(directory, other) is editions
    assert language_editions(other, directory) is editions


@pytest.mark.parametrize(
    ("directory", "other", "declared", "editions"),
    [
        # Debian's layout of a manual (``manual/en/``) beside a site's unnamed English one
        ("http://deb.test/manual/en/", "http://a.test/manual/", ("en", "en"), False),
        ("http://a.test/docs/", "http://a.test/en/docs/", ("en", "en"), False),
        # either side silent, or the two declaring different languages: named apart, as before
        ("http://deb.test/manual/en/", "http://a.test/manual/", ("en", ""), True),
        ("http://deb.test/manual/en/", "http://a.test/manual/", ("", "en"), True),
        ("http://deb.test/manual/en/", "http://a.test/manual/", ("en", "de"), True),
        # a partial translation whose index page is still its source's declares the source's
        # language, not the one its path names
        ("http://a.test/de/docs/", "http://a.test/docs/", ("en", "en"), True),
        ("http://deb.test/manual/de/", "http://a.test/manual/", ("de", "en"), True),
        # both named: the names alone say
        ("http://a.test/en/", "http://a.test/de/", ("en", "en"), True),
        # both unnamed: sampled as any pair, whatever they declare
        ("http://a.test/docs/", "http://b.test/docs/", ("en", "de"), False),
    ],
)
def test_an_unnamed_directory_holds_the_edition_both_index_pages_declare(
    directory, other, declared, editions
):
    assert language_editions(directory, other, lambda: declared) is editions
    assert language_editions(other, directory, lambda: declared[::-1]) is editions


@pytest.mark.parametrize(
    ("value", "language"),
    [
        *[("en", "en"), ("en-US", "en"), ("EN_gb", "en"), (" pt-BR ", "pt"), ("he", "he")],
        *[("", ""), ("english", ""), ("x-klingon", ""), ("zz", "")],
    ],
)
def test_the_language_a_lang_attribute_declares(value, language):
    assert declared_language(value) == language


@pytest.mark.parametrize("order", ["unnamed_first", "debian_first", "interleaved"])
def test_debians_english_edition_of_a_manual_is_a_mirror_of_the_unnamed_english_one(
    open_filter, corpus, modules, order
):
    """Debian installs the Apache manual as ``manual/en/``, ``manual/de/``, ...; a site serves
    the English one unnamed. Both declare ``lang="en"``: the copy is pruned, not fetched page
    by page as another language's edition."""
    unnamed, debian = "http://httpd.lang.test/manual/", "http://deb.lang.test/manual/en/"
    manual = english_manual(corpus, modules, unnamed)
    pages = manual | copy_tree(manual, unnamed, debian)
    urls = two_tree_orders(pages, {"unnamed": unnamed, "debian": debian})[order]
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
        (debian, unnamed)
    ]
    # the Debian tree crawled whole first is fetched before the pair is made
    pruned = sum(url.startswith(debian) and url not in crawl.fetched for url in urls)
    assert pruned == 0 if order == "debian_first" else pruned > len(manual) // 2


def english_manual(corpus: dict[str, str], modules: list[str], base: str) -> dict[str, bytes]:
    """``docs_tree`` at ``base``, every page declaring ``lang="en"``."""
    manual = docs_tree(corpus, base, modules[:24], "Manual")
    return {url: body.replace(b"<html>", b'<html lang="en">', 1) for url, body in manual.items()}


# the French text of a negotiated manual's variants: modules no other page of these webs renders
OTHER_MODULES = (
    *("fractions", "graphlib", "statistics", "decimal", "pathlib", "random", "enum"),
    *("functools", "ipaddress", "secrets", "sched", "selectors", "base64", "hashlib"),
    *("gettext", "locale"),
)


def negotiated_manual(
    corpus: dict[str, str], modules: list[str], stdlib_page: Callable[[str], str], base: str
) -> tuple[dict[str, bytes], dict[str, bytes], dict[str, bytes]]:
    """A manual served as Apache negotiates the language: each page ``x.html`` (English,
    declared ``lang="en"``) beside ``x.html.en`` (the same) and ``x.html.fr`` (here: another
    module's page, which no other URL holds). Returns the English pages, the variants and the
    French ones."""
    english = english_manual(corpus, modules, base)
    documents = sorted(url for url in english if url.endswith(".html"))
    french = {
        f"{url}.fr": stdlib_page(module).encode()
        for url, module in zip(documents, OTHER_MODULES, strict=False)
    }
    return english, {f"{url}.en": english[url] for url in documents} | french, french


@pytest.mark.parametrize("order", ["debian_first", "negotiated_first"])
def test_a_negotiated_manuals_variants_are_not_asked_of_debians_english_edition(
    open_filter, corpus, modules, stdlib_page, order
):
    """A manual served as Apache negotiates the language (``x.html`` beside ``x.html.en`` and
    ``x.html.fr``), Debian's English edition of it (``manual/en/x.html``) and an English-only
    copy, held first. The copy lacks every variant; the pages to crawl in place of one are the
    pruned sides' same-named URLs, but Debian's edition names its pages plainly: none is asked
    there, and every French page is fetched."""
    negotiated, debian = "http://httpd.lang.test/manual/", "http://deb.lang.test/manual/en/"
    copy = "http://plain.copy.test/manual/"
    english, variants, french = negotiated_manual(corpus, modules, stdlib_page, negotiated)
    pages = (
        english
        | variants
        | copy_tree(english, negotiated, copy)
        | copy_tree(english, negotiated, debian)
    )
    after = [breadth_first(pages, debian), breadth_first(pages, negotiated)]
    if order == "negotiated_first":
        after.reverse()
    dedup = open_filter()
    # the copy's pages link the variants as the manual's do (its language selector): 404s
    lacked = [copy + url[len(negotiated) :] for url in variants]
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, copy) + after[0] + after[1] + lacked
    )
    assert all(url in crawl.fetched for url in french)
    assert not [url for url in crawl.failed_probes + crawl.missing if url.startswith(debian)]


def test_a_negotiated_manuals_variants_are_not_probed_on_debians_english_edition(
    open_filter, corpus, modules, stdlib_page
):
    """The negotiated manual pruned for Debian's English edition, held first: its variants are
    fetched without a probe there, which would be a 404 each."""
    negotiated, debian = "http://httpd.lang.test/docs/manual/", "http://deb.lang.test/en/"
    english, variants, french = negotiated_manual(corpus, modules, stdlib_page, negotiated)
    pages = english | variants | copy_tree(english, negotiated, debian)
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(
        breadth_first(pages, debian) + breadth_first(pages, negotiated)
    )
    assert [(rule["mirror"], rule["origin"]) for rule in dedup.mirror_rules()] == [
        (negotiated, debian)
    ]
    assert sum(url in crawl.pruned for url in english) > len(english) // 2
    assert all(url in crawl.fetched for url in french)
    assert not [url for url in crawl.failed_probes if url.startswith(debian)]


@pytest.mark.parametrize(
    ("url", "variant"),
    [
        ("http://deb.test/manual/en/mod/index.html.es", True),
        ("http://deb.test/manual/en/index.en.html", True),
        ("http://deb.test/manual/de/x.html.zh-cn", True),
        ("http://de.docs.test/manual/x.html.fr", True),
        # plain names, or variants in a directory that names no language (a negotiated manual)
        ("http://deb.test/manual/en/mod/index.html", False),
        ("http://httpd.test/manual/mod/core.html.fr", False),
        ("http://deb.test/manual/en/jquery.ui.html", False),
        ("http://deb.test/manual/en/notes.de.txt", False),
    ],
)
def test_a_variant_in_a_directory_named_for_a_language(url, variant):
    """What is never asked of Debian's ``manual/en/`` as a counterpart, a stand-in or a page
    fetched back (``x.html.es``): such an edition names its pages plainly."""
    assert variant_in_named_edition(url) is variant


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("order", ["english_first", "german_first", "interleaved"])
def test_a_partial_translation_keeps_its_translated_pages(
    open_filter, corpus, modules, stdlib_page, order, layout
):
    """Neither a mirror rule nor a URL rule (``/de/docs/x.html`` = ``/docs/x.html``, learnt from
    the untranslated pages dropped as duplicates) prunes a translated page."""
    pages, translated = partial_translation(corpus, modules, stdlib_page, layout)
    english_base, german_base = LAYOUTS[layout]
    urls = two_tree_orders(pages, {"english": english_base, "german": german_base})[order]
    dedup = open_filter()
    crawl = OnlineCrawl(dedup, pages).visit(urls)
    assert dedup.url_rules(with_candidates=True) == []
    reason = assert_editions_kept_apart(dedup, crawl, translated, english_base, german_base)
    assert reason == "language_editions"  # the pair's and its subdirectories'


def test_a_copy_of_a_translation_is_still_a_mirror(open_filter, corpus, modules, stdlib_page):
    pages, _ = partial_translation(corpus, modules, stdlib_page)
    german = {url: body for url, body in pages.items() if url.startswith(GERMAN)}
    copy = {GERMAN_COPY + url[len(GERMAN) :]: body for url, body in german.items()}
    dedup = open_filter()
    OnlineCrawl(dedup, german | copy).visit(
        breadth_first(german, GERMAN) + breadth_first(copy, GERMAN_COPY)
    )
    assert [(r["mirror"], r["origin"]) for r in dedup.mirror_rules()] == [(GERMAN_COPY, GERMAN)]
