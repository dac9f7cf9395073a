"""Frontier URLs under a mirror rule whose counterpart's fate is unknown: the counterpart goes
out as a probe, the URL waits in the shared index, and whichever member of the group holds the
partitions settles it (real LMDB, fake Kafka clients)."""

from __future__ import annotations

import threading

from dedup_filter.streams.frontier import Frontier
from kafka.structs import TopicPartition

from tests.mirrors.conftest import ORIGIN

from .conftest import COPY, PAGES, URLS, Record


def test_a_deferred_copy_url_sends_its_counterpart_out_as_a_probe(ruled_processor, producer, batch):
    waiting = COPY + "extra/gone.html"
    ruled_processor.process(batch(URLS, [waiting.encode()]), threading.Event())
    assert producer.on("urls.keep") == []
    probes = [value for _, value, _ in producer.on("urls.probes")]
    assert len(probes) == 1
    assert f'"{ORIGIN}extra/gone.html"'.encode() in probes[0]


def test_a_member_given_partitions_settles_what_another_member_deferred(
    ruled_processor, producer, batch, page
):
    """A member that stopped with a URL waiting left it in the shared index; the member its
    partitions go to never deferred one itself, and settles it once they are assigned."""
    stopped = Frontier(ruled_processor.dedup, 0, deferred_max_age_s=600.0)
    waiting = COPY + "extra/gone.html"
    assert stopped.check([waiting])[0].deferred
    missing = page(ORIGIN + "extra/gone.html", "", status=404)  # the counterpart's fate
    ruled_processor.process(batch(PAGES, [missing]), threading.Event())
    assert producer.on("urls.keep") == []
    ruled_processor.on_partitions_assigned([TopicPartition(URLS, 0)])
    ruled_processor.advance({}, threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [waiting.encode()]


def test_a_deferred_url_goes_out_as_it_came_when_it_settles_as_a_keep(
    ruled_processor, producer, batch, page
):
    """Its key, value (JSON fields the processor does not read) and headers, kept in the index
    beside it, also for a member that did not read it (``deferred_records``)."""
    value = b'{"url": "http://user:pw@WWW.copy.test/pub/notes/extra/gone.html#top", "depth": 5}'
    sent = Record(URLS, 0, 0, b"k-gone", value, [("trace", b"t-1")])
    again = Record(URLS, 0, 1, b"k-again", value, [])  # sent again while it waits
    ruled_processor.process({TopicPartition(URLS, 0): [sent, again]}, threading.Event())
    assert producer.on("urls.keep") == []
    missing = page(ORIGIN + "extra/gone.html", "", status=404)
    ruled_processor.process(batch(PAGES, [missing], first_offset=2), threading.Event())
    assert producer.on("urls.keep") == [(b"k-gone", value, [("trace", b"t-1")])]
    assert ruled_processor.dedup.deferred_records([COPY + "extra/gone.html"]) == {}


class _SlowSettling:
    """A filter whose every settle pass takes ``pass_s`` on ``clock`` (pure pacing logic)."""

    def __init__(self, clock: list[float], pass_s: float) -> None:
        self.clock, self.pass_s, self.passes = clock, pass_s, 0

    def any_deferred(self) -> bool:
        return True

    def settle_deferred(self, max_age_s: float) -> list:
        self.passes += 1
        self.clock[0] += self.pass_s
        return []


def test_short_settle_passes_run_with_every_batch():
    clock = [0.0]
    dedup = _SlowSettling(clock, 0.001)
    frontier = Frontier(dedup, 0, deferred_max_age_s=600.0, clock=lambda: clock[0])
    for _ in range(300):
        frontier.settle()
        clock[0] += 0.1
    assert dedup.passes == 300


def test_long_settle_passes_take_a_tenth_of_the_time_at_most():
    clock = [0.0]
    dedup = _SlowSettling(clock, 1.0)  # 10,000 waiting URLs or so
    frontier = Frontier(dedup, 0, deferred_max_age_s=600.0, clock=lambda: clock[0])
    for _ in range(300):  # a batch every 0.1 s
        frontier.settle()
        clock[0] += 0.1
    assert 2 <= dedup.passes <= 0.1 * clock[0] + 1
