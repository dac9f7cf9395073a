"""A crawl of the test web simulated in memory, with the filter in the loop like an integration.

Every request asks ``check_url`` first (frontier pruning; a deferred URL waits aside until
``settle_deferred`` says its fate, and is fetched when nothing else is left); every HTML
response goes through
``check_page``; the probes a decision asks for jump the queue, their responses are fed back (a
404 or a non-HTML body is reported with ``probe_failed``) and kept, so that the crawl's own later
request for a probed URL, or a drop naming it to crawl instead (``crawl_instead``), is served
without a second fetch (and reported with ``probe_served``). Links are followed from pages the
filter keeps, and, with ``follow_dropped``, from a page it drops those ``links_to_follow`` names,
as the Scrapy middleware does. Two orders: one breadth-first FIFO over all hosts, or one FIFO per
host visited in turn (a polite crawler interleaving hosts). The log says what was fetched, probed
and pruned.
"""

from __future__ import annotations

import tempfile
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from dedup_filter import Config, Decision, DedupFilter
from dedup_filter.mirrors.links import page_links
from dedup_filter.urls import normalize_url

from .site import TestWeb

ORDERS = ("breadth_first", "host_round_robin")
# a failed probe reported to the filter again (another candidate asked for it); more is a loop
_REPORTS_AT_MOST = 20


@dataclass(slots=True)
class CrawlLog:
    """What one simulated crawl did."""

    fetched: list[str] = field(default_factory=list)  # every request sent, probes included
    probes: list[str] = field(default_factory=list)  # requests sent as probes
    failed_probes: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)  # dropped by check_url before any fetch
    deferred: list[str] = field(default_factory=list)  # deferred by check_url, settled later
    served_from_probe: list[str] = field(default_factory=list)
    decisions: dict[str, Decision] = field(default_factory=dict)  # HTML page -> its decision

    @property
    def fetched_set(self) -> set[str]:
        return set(self.fetched)


class _Frontier:
    """Discovered URLs in crawl order; probes always come first."""

    def __init__(self, order: str) -> None:
        if order not in ORDERS:
            msg = f"order must be one of {ORDERS}, not {order!r}"
            raise ValueError(msg)
        self._round_robin = order == "host_round_robin"
        self._queues: dict[str, deque[str]] = {}
        self._turn: deque[str] = deque()
        self.probes: deque[str] = deque()
        self.released: deque[str] = deque()  # deferred URLs settled as keeps: fetched next
        self.waiting = 0  # deferred URLs not settled yet
        self.seen: set[str] = set()

    def add(self, url: str) -> None:
        if url in self.seen:
            return
        self.seen.add(url)
        host = urlsplit(url).netloc if self._round_robin else ""
        queue = self._queues.setdefault(host, deque())
        if not queue and host not in self._turn:  # new, or left the turn once drained
            self._turn.append(host)
        queue.append(url)

    def next(self) -> tuple[str, str] | None:
        """The next URL and where it comes from (``probe``, ``released``: a deferred URL to
        fetch, ``frontier``), or None when the crawl is over."""
        if self.probes:
            return self.probes.popleft(), "probe"
        if self.released:
            return self.released.popleft(), "released"
        while self._turn:
            host = self._turn[0]
            self._turn.rotate(-1)
            if self._queues[host]:
                return self._queues[host].popleft(), "frontier"
            self._turn.remove(host)
        return None


def crawl(
    web: TestWeb,
    dedup: DedupFilter | None,
    order: str = "breadth_first",
    max_requests: int = 100_000,
    follow_dropped: bool = False,
) -> CrawlLog:
    """Crawl ``web`` from its start URLs; without ``dedup`` every reachable URL is fetched once.
    ``follow_dropped``: follow the links ``links_to_follow`` names on a dropped page."""
    frontier = _Frontier(order)
    for url in web.start_urls:
        frontier.add(normalize_url(url))
    log = CrawlLog()
    answered: dict[str, Decision | None] = {}  # probed URL -> its decision (None: failed probe)
    reports: Counter[str] = Counter()  # failed probes reported again
    fetched = False  # anything since deferred URLs were last settled
    while len(log.fetched) < max_requests:
        if dedup is not None and frontier.waiting and fetched and not frontier.probes:
            _settle(dedup, frontier, log, float("inf"))  # their counterparts may have arrived
            fetched = False
        item = frontier.next()
        if item is None and dedup is not None and frontier.waiting:
            _settle(dedup, frontier, log, 0.0)  # nothing else is left: what waits is fetched
            item = frontier.next()
        if item is None:
            break
        url, source = item
        fetched = True
        if source == "probe":
            if url in answered and answered[url] is None and dedup is not None:
                # asked again by another candidate: the crawler knows the answer, no second fetch
                reports[url] += 1
                if reports[url] > _REPORTS_AT_MOST:
                    msg = f"the filter asks for {url} again each time its failure is reported"
                    raise RuntimeError(msg)
                frontier.probes.extend(dedup.probe_failed(url, _status(web, url)).probes)
            elif url not in answered and url not in log.decisions and dedup is not None:
                answered[url] = _probe(web, dedup, url, frontier, log)
            continue
        if dedup is not None and source == "frontier":
            verdict = dedup.check_url(url)
            frontier.probes.extend(verdict.probes)
            if verdict.dropped:
                _pruned(verdict, frontier, log)
                continue
            if verdict.deferred:
                log.deferred.append(url)
                frontier.waiting += 1
                continue
        if url in answered:
            if url in log.served_from_probe:
                continue
            log.served_from_probe.append(url)
            decision = answered[url]
            if dedup is not None and decision is not None:
                dedup.probe_served(url)  # handed to the spider, as the integrations report
        else:
            decision = _fetch(web, dedup, url, frontier, log)
        if decision is None:
            continue
        if not decision.dropped:
            links = page_links(url, web.pages[url], None, "utf-8")
        elif follow_dropped and dedup is not None:
            links = dedup.links_to_follow(decision, web.pages[url])
        else:
            links = []
        for link in links:
            if _in_web(web, link):
                frontier.add(link)
    return log


def crawl_filtered(
    web: TestWeb, order: str, config: Config | None = None, follow_dropped: bool = True
) -> CrawlLog:
    """``crawl`` with a filter of its own, on a fresh index that is gone afterwards."""
    with tempfile.TemporaryDirectory() as directory:
        dedup = DedupFilter.open(Path(directory), config)
        try:
            return crawl(web, dedup, order, follow_dropped=follow_dropped)
        finally:
            dedup.close()


def _settle(dedup: DedupFilter, frontier: _Frontier, log: CrawlLog, max_age_s: float) -> None:
    settled = dedup.settle_deferred(max_age_s)
    dedup.release_deferred(decision.url for decision in settled)
    for decision in settled:
        frontier.waiting -= 1
        if decision.dropped:
            _pruned(decision, frontier, log)
        else:
            frontier.released.append(decision.url)


def _pruned(decision: Decision, frontier: _Frontier, log: CrawlLog) -> None:
    """A URL dropped before its fetch; a probe's page it names to crawl in its place
    (``crawl_instead``: its links were never followed) is crawled next, served from the probe,
    unless the crawl fetched that URL as itself (Scrapy's duplicate filter drops the request)."""
    log.pruned.append(decision.url)
    instead = decision.evidence.get("crawl_instead")
    if instead and (instead in log.probes or instead not in log.fetched):
        frontier.released.append(instead)


def _fetch(
    web: TestWeb, dedup: DedupFilter | None, url: str, frontier: _Frontier, log: CrawlLog
) -> Decision | None:
    """Fetch a URL; the decision on it when it is an HTML page (a keep without a filter)."""
    log.fetched.append(url)
    body = web.pages.get(url)
    if body is None:
        return None
    if dedup is None:
        return Decision(url, "keep", "unfiltered")
    decision = dedup.check_page(url, body)
    log.decisions[url] = decision
    frontier.probes.extend(decision.probes)
    return decision


def _probe(
    web: TestWeb, dedup: DedupFilter, url: str, frontier: _Frontier, log: CrawlLog
) -> Decision | None:
    log.probes.append(url)
    decision = _fetch(web, dedup, url, frontier, log)
    if decision is None:
        log.failed_probes.append(url)
        frontier.probes.extend(dedup.probe_failed(url, _status(web, url)).probes)
    return decision


def _status(web: TestWeb, url: str) -> int:
    """The status of a response that is not an HTML page: 200 for a file, else 404."""
    return 200 if url in web.assets else 404


def _in_web(web: TestWeb, url: str) -> bool:
    """Whether a link points at one of the web's hosts (a missing page there is a 404)."""
    host = urlsplit(url).netloc
    return any(start.split("/")[2] == host for start in web.start_urls)
