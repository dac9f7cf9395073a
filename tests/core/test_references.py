"""References resolved without urllib must resolve exactly as urllib does: checked on generated
references against ``normalize_url(urljoin(...))`` and the image term urllib gives."""

from __future__ import annotations

import itertools
import random
from urllib.parse import urljoin

import pytest

from dedup_filter.features.text import image_term, image_term_by_urllib
from dedup_filter.references import References, plain_file_name, plain_reference
from dedup_filter.urls import host_of, normalize_url

BASES = [
    "http://docs.test/a/b/page.html",
    "http://Docs.TEST:80/a//b/",
    "https://docs.test:8443/",
    "http://docs.test",
    "http://user@docs.test/x/y;p?q=1#f",
    "http://docs.test/a/b/?q",
    "HTTP://DOCS.TEST/A/",
    "http://[::1]:8080/a/b",
    "http://docs.test:99999/a/",  # a port that does not parse
    "http://[::1/a/",  # a host that does not parse
    "ftp://docs.test/a/",
    "mailto:someone@docs.test",
    "http:/no-host/a/b",
    "http://docs.test/a;x/b",
    "http://docs.test/a/b;x",
    "",
]
PIECES = [
    "a", "b.html", "..", ".", "", "img.png", "x%20y", "é", "\u2003", "\x1c", "?q=1", "?", "#f",
    "#", ";p=1", ":", "//", "/", "\\", " ", "\t", "\u00a0", "http:", "index.html?x#y",
]  # fmt: skip


def _generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    made = ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 5))) for _ in range(count)]
    made += ["/".join(pieces) for pieces in itertools.product(["..", ".", "a", ""], repeat=4)]
    return made


def _urllib_resolve(base: str, reference: str) -> str:
    try:
        target = urljoin(base, reference.strip())
    except ValueError:
        return ""
    return normalize_url(target) if target.startswith(("http://", "https://")) else ""


@pytest.mark.parametrize("base", BASES)
def test_references_resolve_as_urllib_does(base: str) -> None:
    references = _generated(3000, seed=len(base))
    resolver = References(base)
    wrong = [ref for ref in references if resolver.resolve(ref) != _urllib_resolve(base, ref)]
    assert not wrong, [(ref, resolver.resolve(ref), _urllib_resolve(base, ref)) for ref in wrong]


@pytest.mark.parametrize("page_url", BASES)
def test_image_terms_are_the_ones_urllib_gives(page_url: str) -> None:
    page_host = host_of(page_url)
    sources = _generated(3000, seed=len(page_url) + 1)
    wrong = [
        src
        for src in sources
        if image_term(src, page_url, page_host)
        != image_term_by_urllib(src.strip(), page_url, page_host)
    ]
    assert not wrong, wrong[:20]


def test_most_documentation_references_are_resolved_without_urllib() -> None:
    """The generated references above would pass with no fast path at all: these are the
    references the fast path is for."""
    for reference in ("../api/index.html", "img/logo.png", "x.html?a=1#top", "/abs/path.css"):
        assert plain_reference(reference) is not None
    assert plain_file_name("../img/logo.png") == "logo.png"
    for reference in ("//cdn.test/x.js", "mailto:a@b", "a;jsessionid=1", "#top", "?q", "a\\b"):
        assert plain_reference(reference) is None
    assert plain_file_name("../") is None
    assert plain_file_name("a/..") is None
