"""A host of real pages (pydoc text) fetched under chosen URLs through a real ``DedupFilter``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from dedup_filter import Config, Decision, DedupFilter

HOST = "http://docs.a.test"


@dataclass
class Site:
    """``fetch(path, page)``: check page number ``page`` of the corpus under ``HOST + path``."""

    dedup: DedupFilter
    bodies: list[bytes]

    def fetch(self, path: str, page: int, greeting: str = "") -> Decision:
        body = self.bodies[page]
        if greeting:  # a session's greeting line: a near duplicate of the page
            body = body.replace(b"<body", f"<p>{greeting}</p><body".encode(), 1)
        return self.dedup.check_page(HOST + path, body)

    def check(self, path: str) -> Decision:
        return self.dedup.check_url(HOST + path)

    def rule(self, label: str) -> dict | None:
        rules = self.dedup.url_rules(with_candidates=True)
        return next((rule for rule in rules if rule["rule"] == label), None)


@pytest.fixture
def site(tmp_path: Path, config: Config, corpus: dict[str, str]) -> Iterator[Site]:
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        yield Site(dedup, [html.encode() for html in corpus.values()])


@pytest.fixture
def learning_site(tmp_path: Path, config: Config, corpus: dict[str, str]) -> Iterator[Site]:
    """``site`` with no parameter trusted: the tracking ones too are learnt from pairs."""
    untrusted = replace(config, url_rules=replace(config.url_rules, trusted_parameters=()))
    with DedupFilter.open(tmp_path / "index", untrusted) as dedup:
        yield Site(dedup, [html.encode() for html in corpus.values()])


def hold(site: Site, pages: range, path: str = "/p{}.html") -> None:
    """Fetch pages under their plain URLs: each is kept, as unique."""
    for page in pages:
        assert site.fetch(path.format(page), page).reason == "unique"
