"""The in-memory crawl the benches measure with: it must reach what an integration reaches."""

from __future__ import annotations

from dedup_filter import Decision
from dedup_filter.decision import Reason
from testweb.online import crawl
from testweb.site import TestWeb

A, B = "http://a.test/", "http://b.test/"


def _web(pages: dict[str, str], starts: list[str]) -> TestWeb:
    bodies = {
        url: "".join(f'<a href="{link}">{link}</a>' for link in links).encode()
        for url, links in pages.items()
    }
    return TestWeb(0, "online", bodies, {}, starts, [], [], set(), {}, {})


def test_a_host_whose_queue_ran_dry_is_crawled_when_linked_again():
    """Round robin: a.test's queue is empty when b.test's page links a.test again. Its page was
    never fetched before (the bench's copies looked pruned that were never asked for)."""
    web = _web({A: [B + "one"], B: [], B + "one": [A + "two"], A + "two": []}, [A, B])
    assert set(crawl(web, None, "host_round_robin").fetched) == set(web.pages)


class _Pruning:
    """A filter that probes ``A + "kept"`` at the front page, then drops ``A + "copy"`` naming
    that probe's page to crawl instead (``crawl_instead``), as a rule over a side held first
    does; everything else is kept."""

    def __init__(self) -> None:
        self.served: list[str] = []

    def check_url(self, url: str) -> Decision:
        if url == A + "copy":
            evidence = {"mirror_rule": A, "crawl_instead": A + "kept"}
            return Decision(url, "drop", Reason.MIRRORED_DIRECTORY, A + "kept", evidence)
        return Decision(url, "keep", Reason.NOT_MIRRORED)

    def check_page(self, url: str, body: bytes) -> Decision:
        probes = (A + "kept",) if url == A else ()
        return Decision(url, "keep", Reason.UNIQUE, probes=probes)

    def probe_served(self, url: str) -> None:
        self.served.append(url)

    def settle_deferred(self, max_age_s: float) -> list[Decision]:
        return []


def test_a_probe_named_to_crawl_instead_has_its_links_followed():
    """What only the probe's page links is fetched, and the page is reported served."""
    web = _web({A: [A + "copy"], A + "copy": [], A + "kept": [A + "only"], A + "only": []}, [A])
    dedup = _Pruning()
    log = crawl(web, dedup, "breadth_first")  # type: ignore[arg-type]
    assert A + "only" in log.fetched
    assert log.served_from_probe == [A + "kept"] == dedup.served
    assert log.fetched.count(A + "kept") == 1
