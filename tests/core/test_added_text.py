"""A copy that adds the same text to every page (a banner after the title, a footer) leaves short
pages far below the near-duplicate bar; ``resembles_beside_added`` expects what that text costs a
page of each length, so the copy's pages match their origin's and pages of other text do not."""

from __future__ import annotations

import pytest

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint, Fingerprinter
from dedup_filter.matching import resembles, resembles_beside_added
from tests.mirrors.conftest import text_words

BANNER = "<div>You are reading a mirror hosted by docs.partner.test.</div>"
FOOTER = "<div>Mirror of docs.project.test, synchronised daily.</div>"
LENGTHS = range(30, 200, 10)  # words of the page's own text


@pytest.fixture(scope="module")
def fingerprinter() -> Fingerprinter:
    return Fingerprinter(Config.default())


def page(fingerprinter: Fingerprinter, url: str, title: str, text: str, copy: bool) -> Fingerprint:
    banner, footer = (BANNER, FOOTER) if copy else ("", "")
    html = (
        f"<html><head><title>{title}</title></head><body>{banner}<h1>{title}</h1>"
        f"<p>{text}</p>{footer}</body></html>"
    )
    return fingerprinter.fingerprint(url, html.encode())


def words(corpus: dict[str, str], name: str, count: int) -> str:
    return " ".join(text_words(corpus[name])[40 : 40 + count])


def test_the_short_pages_of_a_banner_copy_resemble_their_origin_s_beside_the_banner(
    fingerprinter, corpus
):
    config = fingerprinter.config
    below_the_page_rules = 0
    for count, name in zip(LENGTHS, sorted(corpus), strict=False):
        text = words(corpus, name, count)
        origin = page(fingerprinter, f"http://docs.project.test/{name}.html", name, text, False)
        copy = page(fingerprinter, f"http://docs.partner.test/{name}.html", name, text, True)
        added = copy.token_count - origin.token_count
        assert resembles_beside_added(origin, copy, added, config), (name, count)
        below_the_page_rules += not resembles(origin, copy, config)
    assert below_the_page_rules >= len(LENGTHS) // 2  # what the rescue is for


def test_pages_of_other_text_under_the_banner_do_not(fingerprinter, corpus):
    """Each origin page against the copy of another module's page of as many words: the length
    difference is the banner's, the text is not the page's."""
    config = fingerprinter.config
    names = sorted(corpus)[: len(LENGTHS) + 1]
    for count, name, other in zip(LENGTHS, names, names[1:], strict=False):
        origin = page(
            fingerprinter,
            f"http://docs.project.test/{name}.html",
            name,
            words(corpus, name, count),
            False,
        )
        copy = page(
            fingerprinter,
            f"http://docs.partner.test/{name}.html",
            name,
            words(corpus, other, count),
            True,
        )
        added = copy.token_count - origin.token_count
        assert not resembles_beside_added(origin, copy, added, config), (name, other, count)
