"""The poll → decide → produce → commit loop, with recording fake clients and a real LMDB index."""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from dedup_filter.streams.delivery import DeliveryError
from dedup_filter.streams.frontier import RecentUrls
from kafka.errors import CommitFailedError, KafkaTimeoutError, MessageSizeTooLargeError
from kafka.structs import TopicPartition

from dedup_filter import IndexStoreError

from .conftest import FakeConsumer

PAGES, URLS = "pages-in", "urls-in"


def verdicts(producer):
    return [json.loads(value) for _, value, _ in producer.on("pages.verdicts")]


def test_commit_is_last_offset_plus_one_per_partition(
    make_processor, consumer, batch, page, stdlib_page
):
    records = batch(
        PAGES, [page(f"http://a.example/{i}", stdlib_page("csv")) for i in range(3)], 0, 5
    )
    records |= batch(
        PAGES, [page(f"http://b.example/{i}", stdlib_page("json")) for i in range(2)], 1, 10
    )
    assert make_processor(consumer).process(records, threading.Event())
    assert consumer.commits == [{TopicPartition(PAGES, 0): 8, TopicPartition(PAGES, 1): 12}]


def test_exact_and_near_duplicates_give_verdicts_and_keep_only_originals(
    make_processor, producer, batch, page, stdlib_page, near_copy
):
    html = stdlib_page("difflib")
    values = [
        page("http://a.example/difflib.html", html),
        page("http://b.example/copy.html", html),
        page("http://c.example/stamped.html", near_copy(html)),
        page("http://a.example/csv.html", stdlib_page("csv")),
    ]
    make_processor(producer=producer).process(batch(PAGES, values), threading.Event())
    decided = [(v["url"], v["action"], v["reason"], v["duplicate_of"]) for v in verdicts(producer)]
    assert decided == [
        ("http://a.example/difflib.html", "keep", "unique", None),
        ("http://b.example/copy.html", "drop", "exact_duplicate", "http://a.example/difflib.html"),
        (
            "http://c.example/stamped.html",
            "drop",
            "near_duplicate",
            "http://a.example/difflib.html",
        ),
        ("http://a.example/csv.html", "keep", "unique", None),
    ]
    assert [value for _, value, _ in producer.on("pages.keep")] == [values[0], values[3]]


def test_a_plain_text_page_is_read_as_text(make_processor, producer, batch, page):
    """A ``text/plain`` message (a README) is read as it is: ``<path>`` is a word there, a tag
    in HTML, so the same body typed as HTML is another document."""
    readme = "Copy <path> to the mirror before the release. " * 12
    values = [
        page("http://a.example/README", readme, content_type="text/plain"),
        page("http://b.example/README", readme, content_type="text/plain; charset=utf-8"),
        page("http://c.example/readme.html", readme),
    ]
    make_processor(producer=producer).process(batch(PAGES, values), threading.Event())
    decided = [
        (v["reason"], v["duplicate_of"], v["evidence"]["tokens"]) for v in verdicts(producer)
    ]
    assert decided[:2] == [("unique", None, 96), ("exact_duplicate", "http://a.example/README", 96)]
    assert decided[2][2] == 84  # parsed as HTML: "<path>" is a tag


def test_verdict_names_its_source_record(make_processor, producer, batch, page, stdlib_page):
    make_processor(producer=producer).process(
        batch(
            PAGES,
            [
                page(
                    "http://a.example/x",
                    stdlib_page("csv"),
                    status=200,
                    fetched_at="2024-05-01T12:00:00Z",
                )
            ],
            3,
            41,
        ),
        threading.Event(),
    )
    [verdict] = verdicts(producer)
    assert verdict["source"] == {"topic": PAGES, "partition": 3, "offset": 41}
    assert (verdict["status"], verdict["fetched_at"], verdict["schema"]) == (
        200,
        "2024-05-01T12:00:00Z",
        1,
    )


def test_a_redelivered_batch_gets_the_same_actions_and_never_drops_a_page_as_its_own_duplicate(
    make_processor, producer, batch, page, stdlib_page
):
    html = stdlib_page("heapq")
    records = batch(PAGES, [page("http://a.example/h", html), page("http://b.example/h", html)])
    processor = make_processor(producer=producer)
    processor.process(records, threading.Event())
    processor.process(records, threading.Event())
    first, second = verdicts(producer)[:2], verdicts(producer)[2:]
    assert [v["action"] for v in second] == [v["action"] for v in first] == ["keep", "drop"]
    assert second[0]["duplicate_of"] is None
    assert second[1]["duplicate_of"] == "http://a.example/h"


def test_no_commit_when_a_send_fails_for_good(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    producer.failures = [None, MessageSizeTooLargeError("too big")]
    with pytest.raises(DeliveryError, match="MessageSizeTooLarge"):
        make_processor(consumer, producer).process(
            batch(PAGES, [page("http://a.example/", stdlib_page("csv"))]), threading.Event()
        )
    assert consumer.commits == []


def test_retriable_send_failures_are_resent_then_committed(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    producer.failures = [KafkaTimeoutError("broker away"), KafkaTimeoutError("broker away")]
    processor = make_processor(consumer, producer)
    assert processor.process(
        batch(PAGES, [page("http://a.example/", stdlib_page("csv"))]), threading.Event()
    )
    assert [topic for topic, *_ in producer.sent] == ["pages.verdicts", "pages.keep"]
    assert producer.attempts == 4
    assert processor.metrics.totals["delivery_retry"] == 1
    assert consumer.commits == [{TopicPartition(PAGES, 0): 1}]


def test_stop_during_an_outage_leaves_the_batch_uncommitted(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    producer.failures = [KafkaTimeoutError("broker away")] * 1000
    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    assert not make_processor(consumer, producer).process(
        batch(PAGES, [page("http://a.example/", stdlib_page("csv"))]), stop
    )
    timer.join()
    assert consumer.commits == []
    assert len(producer.failures) < 1000 - 2  # it kept retrying until stopped


def test_store_failure_stops_without_sending_or_committing(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    processor = make_processor(consumer, producer)
    processor.dedup.close()
    with pytest.raises(IndexStoreError):
        processor.process(
            batch(PAGES, [page("http://a.example/", stdlib_page("csv"))]), threading.Event()
        )
    assert (producer.attempts, consumer.commits) == (0, [])


def test_malformed_records_become_dead_letters_and_the_batch_is_committed(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    values = [
        b"not json",
        page("http://a.example/", stdlib_page("csv")),
        b'{"url": 7, "body": ""}',
        None,
    ]
    make_processor(consumer, producer).process(batch(PAGES, values), threading.Event())
    dead = producer.on("dedup.dead-letters")
    assert [value for _, value, _ in dead] == [b"not json", b'{"url": 7, "body": ""}', b""]
    assert [dict(headers)["dedup.source"] for _, _, headers in dead] == [
        b"pages-in/0/0",
        b"pages-in/0/2",
        b"pages-in/0/3",
    ]
    assert b"url" in dict(dead[1][2])["dedup.error"]
    assert len(verdicts(producer)) == 1
    assert consumer.commits == [{TopicPartition(PAGES, 0): 4}]


def test_a_refused_commit_is_retried_when_the_partitions_are_revoked(
    make_processor, consumer, batch, page, stdlib_page
):
    consumer.commit_errors = [CommitFailedError("rebalancing")]
    processor = make_processor(consumer)
    assert not processor.process(
        batch(PAGES, [page("http://a.example/", stdlib_page("csv"))], 2, 9), threading.Event()
    )
    assert consumer.commits == []
    processor.on_partitions_revoked([TopicPartition(PAGES, 2)])
    assert consumer.commits == [{TopicPartition(PAGES, 2): 10}]


def test_a_commit_that_times_out_is_retried(make_processor, consumer, batch, page, stdlib_page):
    consumer.commit_errors = [KafkaTimeoutError("coordinator away")]
    processor = make_processor(consumer)
    assert processor.process(
        batch(PAGES, [page("http://a.example/", stdlib_page("csv"))]), threading.Event()
    )
    assert consumer.commits == [{TopicPartition(PAGES, 0): 1}]
    assert processor.metrics.totals["commit_retry"] == 1


def test_frontier_urls_are_forwarded_untouched(make_processor, producer, batch):
    values = [
        b"https://a.example/docs/x.html",
        b'{"url": "https://a.example/docs/y.html", "depth": 3}',
        b"not a url",
    ]
    make_processor(producer=producer).process(batch(URLS, values), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == values[:2]
    assert [value for _, value, _ in producer.on("dedup.dead-letters")] == [b"not a url"]


def test_exact_url_dedup_drops_repeats_and_fetched_pages(
    make_processor, producer, batch, page, stream_config, stdlib_page
):
    config = stream_config.with_overrides({"url_dedup_cache_size": 100})
    processor = make_processor(producer=producer, config=config)
    processor.process(
        batch(PAGES, [page("https://a.example/fetched.html", stdlib_page("csv"))]),
        threading.Event(),
    )
    urls = [
        b"https://a.example/new.html",
        b"https://a.example/new.html",
        b"https://A.example/fetched.html",
    ]
    processor.process(batch(URLS, urls), threading.Event())
    assert [value for _, value, _ in producer.on("urls.keep")] == [urls[0]]
    assert processor.metrics.totals["urls_drop"] == 2


def test_recent_urls_forget_the_least_recently_met_first():
    recent = RecentUrls(2)
    recent.update(["http://a.test/1", "http://a.test/2"])
    assert "http://a.test/1" in recent  # met again: now the most recent
    recent.update(["http://a.test/3"])
    assert ["http://a.test/1" in recent, "http://a.test/2" in recent] == [True, False]
    assert "http://a.test/3" in recent
    nothing = RecentUrls(0)
    nothing.update(["http://a.test/1"])
    assert "http://a.test/1" not in nothing


def test_run_processes_every_batch_then_stops(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    stop = threading.Event()
    consumer.stop = stop
    consumer.batches = [
        batch(PAGES, [page(f"http://a.example/{i}", stdlib_page("csv"))], 0, i) for i in range(3)
    ]
    consumer.highwaters = {TopicPartition(PAGES, 0): 10}
    processor = make_processor(consumer, producer)
    processor.run(stop)
    assert [commit[TopicPartition(PAGES, 0)] for commit in consumer.commits] == [1, 2, 3]
    assert processor.metrics.lag == 7


def test_a_failed_fetch_is_forwarded_unchecked_and_not_indexed(
    make_processor, producer, batch, page, stdlib_page
):
    html = stdlib_page("csv")
    values = [
        page("http://a.example/missing", html, status=404),
        page("http://b.example/csv", html, status=200),
    ]
    make_processor(producer=producer).process(batch(PAGES, values), threading.Event())
    decided = [(v["reason"], v.get("status")) for v in verdicts(producer)]
    assert decided == [("not_checked", 404), ("unique", 200)]
    assert [value for _, value, _ in producer.on("pages.keep")] == values


def listing(names):
    items = "".join(
        f'<li><a href="{name}.html">{name}</a>: the module {name}</li>' for name in names
    )
    return f"<html><body><h1>Library reference</h1><ul>{items}</ul></body></html>"


def test_probes_are_produced_reissued_after_a_restart_and_failures_reported(
    make_processor, producer, batch, page, stdlib_page
):
    names = ("bisect", "calendar", "csv", "difflib", "heapq")
    values = [page("http://a.example/docs/", listing(names))]
    values += [page(f"http://a.example/docs/{name}.html", stdlib_page(name)) for name in names]
    values += [page("http://b.example/m/docs/", listing(names))]
    first = make_processor(producer=producer)
    first.process(batch(PAGES, values), threading.Event())
    first.dedup.close()
    asked = [json.loads(value)["url"] for _, value, _ in producer.on("urls.probes")]
    assert asked
    assert {json.loads(value)["requested_by"] for _, value, _ in producer.on("urls.probes")} == {
        "http://b.example/m/docs/"
    }
    restarted = type(producer)()
    processor = make_processor(producer=restarted)
    assert processor.reissue_pending_probes(threading.Event())
    assert sorted(
        json.loads(value)["url"] for _, value, _ in restarted.on("urls.probes")
    ) == sorted(asked)
    processor.process(batch(PAGES, [page(asked[0], "", status=404)], 0, 7), threading.Event())
    assert verdicts(restarted)[-1]["reason"] == "probe_failed"


def test_poison_pills_become_dead_letters_or_verdicts_and_the_batch_is_committed(
    make_processor, consumer, producer, batch, page, stdlib_page
):
    html = stdlib_page("csv")
    values = [
        page("http://s.test/\ud800x", html),  # no UTF-8 can carry it: refused before the index
        page("http://s.test/copy", html, fetched_at="2024-05-01\udc80"),
        page("http://s.test/odd", html, headers={"Content-Type": "text/html; charset=undefined"}),
        page("http://s.test/meta", '<meta charset="undefined">' + stdlib_page("json")),
    ]
    make_processor(consumer, producer).process(batch(PAGES, values), threading.Event())
    dead = producer.on("dedup.dead-letters")
    assert [dict(headers)["dedup.source"] for _, _, headers in dead] == [b"pages-in/0/0"]
    assert b"lone surrogate" in dict(dead[0][2])["dedup.error"]
    decided = [(v["url"], v["reason"], v.get("fetched_at")) for v in verdicts(producer)]
    assert decided == [
        ("http://s.test/copy", "unique", "2024-05-01\udc80"),
        ("http://s.test/odd", "exact_duplicate", None),
        ("http://s.test/meta", "unique", None),
    ]
    assert consumer.commits == [{TopicPartition(PAGES, 0): 4}]


@dataclass
class _RevokingConsumer(FakeConsumer):
    """Revokes every partition inside the second poll, as kafka-python calls the rebalance
    listener from inside ``poll`` (and logs and drops what it raises)."""

    processor: Any = None
    polls: int = 0
    commits_by_revocation: int = -1

    def poll(self, timeout_ms=0, max_records=None):
        self.polls += 1
        if self.polls == 2:
            with contextlib.suppress(Exception):
                self.processor.on_partitions_revoked([TopicPartition(PAGES, 0)])
            self.commits_by_revocation = len(self.commits)
        return super().poll(timeout_ms, max_records)


def test_a_revocation_finishes_and_commits_the_batch_in_hand_first(
    make_processor, producer, batch, page, stdlib_page
):
    stop = threading.Event()
    consumer = _RevokingConsumer(batches=[batch(PAGES, [page("http://a.example/", "<p>x</p>")])])
    consumer.stop = stop
    processor = consumer.processor = make_processor(consumer, producer)
    processor.run(stop)
    assert consumer.commits == [{TopicPartition(PAGES, 0): 1}]
    assert consumer.commits_by_revocation == 1
    assert len(verdicts(producer)) == 1


def test_a_batch_that_fails_on_revocation_fails_run_without_a_commit(
    make_processor, producer, batch, page, stdlib_page
):
    stop = threading.Event()
    consumer = _RevokingConsumer(batches=[batch(PAGES, [page("http://a.example/", "<p>x</p>")])])
    consumer.stop = stop
    producer.failures = [MessageSizeTooLargeError("too big")]
    consumer.processor = make_processor(consumer, producer)
    with pytest.raises(DeliveryError, match="MessageSizeTooLarge"):
        consumer.processor.run(stop)
    assert consumer.commits == []
