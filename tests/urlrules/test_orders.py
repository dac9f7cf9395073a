"""The alias site crawled in three orders by a simulated crawler that fetches the probes asked for.

Breadth-first, depth-first and a seeded random frontier: in every order the rules must avoid most
alias fetches, no trap parameter may become a rule and no page of its own content may be lost.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from dedup_filter import DedupFilter
from testweb.crawl import page_links

from .alias_web import AliasWeb, avoided_share, build_alias_web

ORDERS: dict[str, Callable[[list[str], random.Random], str]] = {
    "breadth_first": lambda frontier, rng: frontier.pop(0),
    "depth_first": lambda frontier, rng: frontier.pop(),
    "random": lambda frontier, rng: frontier.pop(rng.randrange(len(frontier))),
}


@dataclass
class SimulatedCrawl:
    """Fetch what ``check_url`` keeps, check every page, fetch every probe once."""

    dedup: DedupFilter
    site: AliasWeb
    fetched: dict[str, bool] = field(default_factory=dict)  # URL -> kept

    def run(self, order: str, seed: int = 0) -> SimulatedCrawl:
        rng, frontier = random.Random(seed), list(self.site.web.start_urls)
        seen = set(frontier)
        while frontier:
            url = ORDERS[order](frontier, rng)
            if url not in self.fetched and self.dedup.check_url(url).dropped:
                continue
            if self._fetch(url):
                links = page_links(url, self.site.web.pages[url])
                frontier += [link for link in links if link not in seen]
                seen.update(links)
        return self

    def _fetch(self, url: str) -> bool:
        """Whether the page is kept (a probe fetched earlier is not fetched again)."""
        if url in self.fetched:
            return self.fetched[url]
        body = self.site.web.pages.get(url)
        if body is None:
            self.dedup.probe_failed(url, 404)
            self.fetched[url] = False
            return False
        decision = self.dedup.check_page(url, body)
        self.fetched[url] = not decision.dropped
        for probe in decision.probes:
            self._fetch(probe)
        return self.fetched[url]


@pytest.fixture(scope="module")
def site() -> AliasWeb:
    return build_alias_web()


@pytest.mark.parametrize("order", ORDERS)
def test_in_every_order_aliases_are_avoided_traps_rejected_and_nothing_lost(site, order, tmp_path):
    with DedupFilter.open(tmp_path / "index") as dedup:
        crawl = SimulatedCrawl(dedup, site).run(order)
        rules = dedup.url_rules(with_candidates=True)
        pruned_as = {url: dedup.check_url(url).duplicate_of for url in site.must_keep}
    fetched = set(crawl.fetched) & set(site.web.pages)
    for kind, aliases in site.aliases.items():
        assert avoided_share(aliases, fetched) >= 0.8, (order, kind)
    confirmed = [rule for rule in rules if rule["state"] == "confirmed"]
    assert not [rule for rule in confirmed if rule["name"] in site.trap_parameters]
    assert site.lost(fetched, pruned_as) == []
