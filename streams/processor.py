"""The consume → decide → produce → commit loop, one poll batch at a time.

Offsets are committed only after every output record of the batch is acknowledged by the broker
and the batch's LMDB write transaction is committed. ``run`` polls and stages the next batch
(parsed, its pages' preparation started in the worker processes) before it finishes the batch in
hand (``staged.py``); a revocation finishes the batch in hand first, so nothing is in flight when
a rebalance starts. A crash between those steps replays the
batch, and the replay is harmless because the filter never takes a page for a duplicate of itself.
Outputs may therefore hold replayed records: delivery is at-least-once, never at-most-once.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from threading import Event
from typing import Any, TypeVar

from kafka.errors import CommitFailedError, KafkaError, RebalanceInProgressError
from kafka.structs import OffsetAndMetadata, TopicPartition

from dedup_filter import Decision, DedupFilter, IndexStoreError
from dedup_filter.decision import Reason
from dedup_filter.isolation import Failed, guarded, isolated
from dedup_filter.prepare import PreparedPage
from dedup_filter.statuses import REDIRECT_STATUSES

from .config import StreamConfig
from .delivery import Backoff, deliver
from .frontier import Frontier
from .messages import (
    Malformed,
    OutputRecord,
    PageMessage,
    Source,
    dead_letter_record,
    oversized_envelope,
    packed_record,
    parse_page,
    parse_url,
    probe_record,
    unpacked_record,
    verdict_record,
)
from .metrics import StreamMetrics
from .staged import InBackground, Staged
from .workers import PreparationPool, WorkerPoolError

logger = logging.getLogger(__name__)

Batch = Mapping[TopicPartition, Sequence[Any]]  # kafka-python ConsumerRecords by partition
# what stops a batch uncommitted; any other failure is one record's, and becomes its dead letter
BATCH_FAILURES = (IndexStoreError, WorkerPoolError, KafkaError)
T = TypeVar("T")
# Reading a page's anchors while it is prepared costs about 8 % of its preparation; a dropped page
# whose links are followed without them is parsed again (about half a preparation). They are
# kept while at least this share of the last batch's pages needed them.
KEEP_ANCHORS_FROM = 0.15


class Processor:
    """Pages in → verdicts, kept pages and probes; URLs in → kept URLs; bad records → dead letters.

    The consumer must be subscribed with ``on_partitions_revoked``/``on_partitions_assigned`` as
    its rebalance callbacks (``kafka_io.subscribe``). Consumer and producer are passed in, so
    tests can pass recording fakes. With a ``pool``, pages are prepared in its worker processes
    (the decisions are the same: they are still taken here, in order). Whatever goes wrong with
    one record (its parsing, its preparation, its decision, its outputs) makes it a dead letter;
    only ``BATCH_FAILURES`` stop a batch, and then nothing of it is committed.
    """

    def __init__(
        self,
        consumer: Any,
        producer: Any,
        dedup: DedupFilter,
        config: StreamConfig,
        metrics: StreamMetrics | None = None,
        pool: PreparationPool | None = None,
    ) -> None:
        self.consumer = consumer
        self.producer = producer
        self.dedup = dedup
        self.config = config
        self.metrics = metrics or StreamMetrics()
        self.pool = pool
        self._frontier = Frontier(
            dedup,
            config.url_dedup_cache_size,
            config.deferred_max_age_s,
            config.followed_links_memory,
        )
        self._uncommitted: dict[TopicPartition, OffsetAndMetadata] = {}
        self._next_offsets: dict[TopicPartition, int] = {}
        self._bad_partitions_logged: set[TopicPartition] = set()
        self._staged: Staged | None = None
        self._stop = Event()  # run's, for a batch finished on revocation
        self._failed_on_revocation: BaseException | None = None
        self._keep_anchors = False  # whether pages are prepared with their anchors

    def run(self, stop: Event) -> None:
        """Process batches until ``stop`` is set; the batch in hand is finished first.

        Raises:
            IndexStoreError: the index failed; the batch is not committed and will be redelivered.
            WorkerPoolError: a worker process died or hung; the batch is not committed either.
            DeliveryError: the broker refused an output record for good.
            KafkaError: a non-retriable consumer error.
        """
        backoff, self._stop = self._backoff(), stop
        while not stop.is_set():
            try:
                batch = self.consumer.poll(
                    # a batch in hand is finished at once when no records are waiting
                    timeout_ms=0 if self._staged else self.config.poll_timeout_ms,
                    max_records=self.config.max_poll_records,
                )
            except KafkaError as error:
                if not error.retriable:
                    raise
                delay = backoff.next()
                logger.warning("poll failed (%s); retrying in %.1f s", error, delay)
                stop.wait(delay)
                continue
            if self._failed_on_revocation is not None:
                raise self._failed_on_revocation
            if batch or self._staged or self._frontier.deferring:
                self.advance(batch, stop)
                backoff = self._backoff()
            self._update_lag()
            self.metrics.maybe_log(self.config.log_interval_s)
        self.drain(stop)

    def process(self, batch: Batch, stop: Event) -> bool:
        """Decide on one batch, deliver its outputs, then commit its offsets. True if committed.
        (Not overlapped with any other batch: not for use between ``advance`` and ``drain``.)"""
        return self._finish(self._stage(batch), stop)

    def advance(self, batch: Batch, stop: Event) -> bool:
        """Stage ``batch`` (its pages' preparation starts), then finish the batch staged before
        it. Whether that one was committed (True if there was none to finish)."""
        previous = self._staged
        self._staged = self._stage(batch, previous) if batch else None
        if previous is not None:
            return self._finish(previous, stop)
        if not batch and self._frontier.deferring:  # idle: deferred URLs may still settle
            return self._finish(self._stage(batch), stop)
        return True

    def drain(self, stop: Event) -> bool:
        """Finish the batch in hand, if any; whether it was committed."""
        staged, self._staged = self._staged, None
        return staged is None or self._finish(staged, stop)

    def _finish(self, staged: Staged, stop: Event) -> bool:
        batch = staged.batch
        outputs, settled = self._decide(staged)
        with self.metrics.timed("deliver"):
            delivered = self._deliver(outputs, stop)
        if not delivered:
            logger.warning("stopped before the batch was acknowledged: it will be redelivered")
            return False
        with self.metrics.timed("index"):
            self._frontier.release(settled)
        offsets = {
            tp: OffsetAndMetadata(records[-1].offset + 1, "", -1)
            for tp, records in batch.items()
            if records
        }
        if not offsets and not self._uncommitted:
            return True  # an idle pass that only released deferred URLs
        with self.metrics.timed("commit"):
            committed = self._commit(offsets, stop)
        self.metrics.batch_done(time.monotonic() - staged.started)
        return committed

    def on_partitions_revoked(self, revoked: Iterable[TopicPartition]) -> None:
        """Finish the batch in hand, then commit what was acknowledged but not yet committed on
        the partitions leaving us. (kafka-python logs and drops a callback's exception: a batch
        that fails here fails ``run`` when the poll returns.)"""
        try:
            self.drain(self._stop)
        except BaseException as error:
            self._failed_on_revocation = error
            return
        revoked = set(revoked)
        pending = {tp: offset for tp, offset in self._uncommitted.items() if tp in revoked}
        if pending:
            try:
                self.consumer.commit(pending, timeout_ms=int(self.config.flush_timeout_s * 1000))
                self.metrics.event("commit")
            except KafkaError as error:
                logger.warning(
                    "commit on revocation failed (%s): those records will be redelivered", error
                )
        for tp in revoked:
            self._uncommitted.pop(tp, None)
            self._next_offsets.pop(tp, None)
            self.metrics.forget_lag(tp.topic, tp.partition)
        logger.info("partitions revoked: %s", _names(revoked))

    def on_partitions_assigned(self, assigned: Iterable[TopicPartition]) -> None:
        logger.info("partitions assigned: %s", _names(assigned))
        self._frontier.look_for_deferred()

    def _stage(self, batch: Batch, previous: Staged | None = None) -> Staged:
        """``batch`` parsed, its pages' preparation started with workers (once the ``previous``
        batch's is done: the pool prepares one batch at a time)."""
        started = time.monotonic()
        with self.metrics.timed("messages"):
            staged = self._parse(batch, started)
        if self.pool is not None and staged.pages:
            pool, inputs = self.pool, _inputs(staged.pages, self._keep_anchors)
            before = previous.prepared if previous is not None else None
            staged.prepared = InBackground(lambda: _after(before, lambda: pool.prepare(inputs)))
        return staged

    def _decide(self, staged: Staged) -> tuple[list[OutputRecord], list[Decision]]:
        """Every output of the batch and of the deferred URLs that settle after it (given too, to
        be released once delivered); its pages are checked in one write transaction, in order."""
        outputs, pages, urls = staged.dead_letters, staged.pages, staged.urls
        with self.metrics.timed("index"):
            for record, page in staged.failed_fetches:
                outputs += self._outputs_or_dead_letter(
                    record,
                    functools.partial(self._failed_fetch_outputs, record, page),
                    guarded(functools.partial(self._probe_failed, page), BATCH_FAILURES),
                )
            url_decisions = isolated([url for _, url in urls], self._frontier.check, BATCH_FAILURES)
            self._keep_deferred_records(urls, url_decisions)
        prepared, page_decisions = self._check_pages(staged)
        with self.metrics.timed("index"):
            settled = self._frontier.settle()
        outputs += self._kept_urls(settled, as_they_came=True)
        with self.metrics.timed("messages"):
            for (record, _), url_decision in zip(urls, url_decisions, strict=True):
                outputs += self._outputs_or_dead_letter(
                    record, functools.partial(self._url_outputs, record), url_decision
                )
            for (record, page), ready, decision in zip(
                pages, prepared, page_decisions, strict=True
            ):
                page_outputs = functools.partial(
                    self._page_outputs, record, page, prepared=_ready(ready)
                )
                outputs += self._outputs_or_dead_letter(record, page_outputs, decision)
        return outputs, settled

    def _outputs_or_dead_letter(
        self,
        record: Any,
        outputs_of: Callable[[Decision], list[OutputRecord]],
        decision: Decision | Failed,
    ) -> list[OutputRecord]:
        """A decided record's outputs; its dead letter when it could not be decided or they fail."""
        outputs = (
            decision
            if isinstance(decision, Failed)
            else guarded(functools.partial(outputs_of, decision), BATCH_FAILURES)
        )
        return self._dead_letter(record, outputs.error) if isinstance(outputs, Failed) else outputs

    def _parse(self, batch: Batch, started: float) -> Staged:
        """The batch's pages and URLs to decide on, and the dead letters of the rest."""
        staged = Staged(batch, started, [], [], [], [])
        for tp, records in batch.items():
            self.metrics.consumed(tp.topic, len(records))
            if records:
                self._next_offsets[tp] = records[-1].offset + 1
            for record in records:
                parsed = guarded(functools.partial(self._parse_record, record), BATCH_FAILURES)
                if isinstance(parsed, (Malformed, Failed)):
                    staged.dead_letters += self._dead_letter(record, parsed.error)
                elif isinstance(parsed, str):
                    staged.urls.append((record, parsed))
                elif not parsed.fetched:
                    staged.failed_fetches.append((record, parsed))
                else:
                    staged.pages.append((record, parsed))
        return staged

    def _parse_record(self, record: Any) -> PageMessage | str | Malformed:
        oversized = oversized_envelope(record.key, list(record.headers or ()))
        if oversized is not None:
            return oversized
        if record.topic == self.config.pages_in:
            return parse_page(
                record.key,
                record.value,
                list(record.headers or ()),
                tolerant=self.config.tolerant,
                max_bytes=self.config.max_message_bytes,
            )
        return parse_url(record.value, max_bytes=self.config.max_message_bytes)

    def _check_pages(
        self, staged: Staged
    ) -> tuple[list[PreparedPage | Failed], list[Decision | Failed]]:
        """The pages prepared here or by the pool's workers, and their decisions, taken here, in
        order, in one transaction (pages that fail are then decided alone, so only they fail)."""
        with self.metrics.timed("prepare"):
            if staged.prepared is not None:
                prepared = staged.prepared.result()
            else:
                prepare = self.dedup.preparer.prepare
                inputs = _inputs(staged.pages, self._keep_anchors)
                prepared = [guarded(functools.partial(prepare, *page)) for page in inputs]
        ready = [page for page in prepared if isinstance(page, PreparedPage)]
        with self.metrics.timed("index"):
            decided = list(isolated(ready, self.dedup.check_prepared, BATCH_FAILURES))
        self._choose_anchors(decided)
        decisions = iter(decided)
        return prepared, [
            page if isinstance(page, Failed) else next(decisions) for page in prepared
        ]

    def _choose_anchors(self, decided: Sequence[Decision | Failed]) -> None:
        """Whether the pages staged from now on are prepared with their anchors
        (``KEEP_ANCHORS_FROM``), by the share of ``decided`` whose links are followed."""
        share = _links_followed_share(decided)
        if (share >= KEEP_ANCHORS_FROM) != self._keep_anchors:
            self._keep_anchors = not self._keep_anchors
            logger.debug(
                "%.0f %% of a batch's pages had their links followed: pages are now prepared %s",
                100 * share,
                "with their anchors" if self._keep_anchors else "without anchors",
            )

    def _page_outputs(
        self,
        record: Any,
        page: PageMessage,
        decision: Decision,
        prepared: PreparedPage | None = None,
    ) -> list[OutputRecord]:
        self.metrics.page_decided(decision)
        config = self.config
        outputs = []
        if config.verdicts:
            outputs.append(verdict_record(config.verdicts, decision, _source(record), page))
        if config.pages_keep and not decision.dropped:
            outputs.append(_forward(config.pages_keep, record))
        if config.probes:
            outputs += [probe_record(config.probes, url, decision.url) for url in decision.probes]
        fetch_back = decision.evidence.get("fetch_back") or ()
        unpruned = [
            url
            for mirror in decision.evidence.get("mirrors_origin_lacking") or ()
            for url in self.dedup.unpruned(mirror)
        ]
        unpruned_checked = self._frontier.check(unpruned) if unpruned else []
        # last: the frontier remembers the links it follows, so nothing after may fail and
        # leave them remembered but never written (a record whose outputs fail is a dead letter)
        followed = self._frontier.follow(decision, page, prepared)
        return outputs + self._kept_urls(
            [Decision(url, "keep", Reason.FETCHED_BACK) for url in fetch_back]
            + followed
            + unpruned_checked
        )

    def _failed_fetch_outputs(
        self, record: Any, page: PageMessage, decision: Decision
    ) -> list[OutputRecord]:
        """A non-2xx answer's outputs, and the URLs to fetch in its place: where a mirror rule's
        kept side lacks the page, its counterpart on the pruned side (``fetch_failed``). A probe's
        answer stands in for nothing: the mirror detector asked for it (the URL a rule's origin is
        asked for to learn what it answers for a page it lacks names no page at all)."""
        outputs = self._page_outputs(record, page, decision)
        if decision.reason == Reason.PROBE_FAILED:
            return outputs
        return outputs + self._kept_urls(self.dedup.fetch_failed(page.url, page.status))

    def _probe_failed(self, page: PageMessage) -> Decision:
        """A non-2xx answer is not checked (as in the Scrapy middleware); if it answers a probe, the
        mirror detector counts that sample as "could not be checked" and may ask for another. A
        redirect teaches the redirect rules of its host (``DedupFilter.redirected``)."""
        if page.location and page.status is not None and 300 <= page.status < 400:
            self.dedup.redirected(page.url, page.location, page.status)
        reported = self.dedup.probe_failed(page.url, page.status, page.location)
        if reported.evidence.get("outstanding_probe"):
            return reported
        return Decision(reported.url, "keep", "not_checked", evidence={"status": page.status})

    def reissue_pending_probes(self, stop: Event) -> bool:
        """Probes asked for before a restart and never answered, produced again."""
        if not self.config.probes:
            return True
        pending = self.dedup.pending_probes()
        records = [probe_record(self.config.probes, url, None) for url in pending]
        return self._deliver(records, stop)

    def _deliver(self, records: Sequence[OutputRecord], stop: Event) -> bool:
        """Produce ``records`` and wait for the broker's acknowledgements (False: stopped first)."""
        return deliver(
            self.producer,
            records,
            flush_timeout_s=self.config.flush_timeout_s,
            backoff=self._backoff(),
            stop=stop,
            metrics=self.metrics,
        )

    def _url_outputs(self, record: Any, decision: Decision) -> list[OutputRecord]:
        self.metrics.url_decided(decision)
        config = self.config
        outputs = []
        if config.probes and decision.deferred:  # the URL its fate waits for
            outputs = [probe_record(config.probes, url, decision.url) for url in decision.probes]
        if decision.dropped:
            return outputs + self._kept_urls(self._landings([decision]))
        if decision.action != "keep" or not config.urls_keep:
            return outputs  # a deferred URL is forwarded when it settles (``_kept_urls``)
        return [*outputs, _forward(config.urls_keep, record)]

    def _kept_urls(
        self, decisions: list[Decision], as_they_came: bool = False
    ) -> list[OutputRecord]:
        """The kept ones of URL ``decisions`` as URL records on the kept-URLs topic: deferred URLs
        whose fate is known (``as_they_came``: the records they came in, kept in the index
        beside them, or else their URL; forgotten by the index once delivered: a crash before
        gives them again), the pages to fetch in place of a failed fetch, those a revoked rule
        may have dropped (``fetch_back``), and the links of a dropped page that its kept twin
        may not have (``links_to_follow``), and those a rule that stopped pruning its mirror side
        may have dropped (``unpruned``); these two are checked as frontier URLs first."""
        topic, outputs = self.config.urls_keep, []
        kept = [decision for decision in decisions if decision.action == "keep"]
        came = self.dedup.deferred_records(d.url for d in kept) if as_they_came and topic else {}
        for decision in decisions + self._landings(decisions):
            self.metrics.url_decided(decision)
            if decision.action != "keep" or not topic:
                continue
            if decision.url in came:
                outputs.append(unpacked_record(topic, came[decision.url]))
            else:
                url = decision.url.encode("utf-8", "backslashreplace")
                outputs.append(OutputRecord(topic, url, url, []))
        return outputs

    def _keep_deferred_records(
        self, urls: list[tuple[Any, str]], decisions: Sequence[Decision | Failed]
    ) -> None:
        """Keep the records of the URLs deferred beside them in the index, to forward them as
        they came (key, value, headers) when they settle as keeps; before, a released URL went
        out as its normalised URL alone, keyed by it (a red team's frontier record lost its
        JSON fields, key and headers)."""
        if not self.config.urls_keep:  # nothing is forwarded
            return
        records: dict[str, bytes] = {}
        for (record, _), decision in zip(urls, decisions, strict=True):
            if isinstance(decision, Decision) and decision.deferred:
                headers = list(record.headers or ())
                records.setdefault(decision.url, packed_record(record.key, record.value, headers))
        self.dedup.keep_deferred_records(records)

    def _landings(self, decisions: list[Decision]) -> list[Decision]:
        """The frontier's checks of the URLs that lead where dropped URLs would have (their
        ``crawl_instead``): where a learnt redirect rule sends them, not held yet, and the
        canonical URL of an alias dropped because that URL redirects (its probe, fetched
        without following, reached no page; the fleet follows it from there, as it would have
        from the alias). A probe's page that another drop names to crawl instead came in as a
        page, and the frontier followed its links already."""
        wanted = [
            decision.evidence["crawl_instead"]
            for decision in decisions
            if decision.dropped
            and decision.evidence.get("crawl_instead")
            and (
                "redirect_rule" in decision.evidence
                or decision.evidence.get("status") in REDIRECT_STATUSES
            )
        ]
        return self._frontier.check(wanted) if wanted else []

    def _dead_letter(self, record: Any, error: str) -> list[OutputRecord]:
        tp = TopicPartition(record.topic, record.partition)
        self.metrics.dead_letter(record.topic)
        first = tp not in self._bad_partitions_logged
        self._bad_partitions_logged.add(tp)
        (logger.warning if first else logger.debug)(
            "unusable record at %s/%d offset %d: %s%s",
            record.topic,
            record.partition,
            record.offset,
            error,
            " (further ones on this partition: DEBUG)" if first else "",
        )
        if not self.config.dead_letters:
            return []
        return [
            dead_letter_record(
                self.config.dead_letters,
                record.key,
                record.value,
                list(record.headers or ()),
                error,
                _source(record),
                self.config.max_message_bytes,
            )
        ]

    def _commit(self, offsets: dict[TopicPartition, OffsetAndMetadata], stop: Event) -> bool:
        """Commit, retrying while the broker is away; after a rebalance, the revocation hook's."""
        offsets = self._uncommitted | offsets
        backoff = self._backoff()
        while True:
            try:
                self.consumer.commit(offsets, timeout_ms=int(self.config.flush_timeout_s * 1000))
            except (CommitFailedError, RebalanceInProgressError) as error:
                logger.warning("offset commit refused (%s): the group is rebalancing", error)
                self.metrics.event("commit_failed")
                self._uncommitted = offsets
                return False
            except KafkaError as error:
                if not error.retriable:
                    raise
                self.metrics.event("commit_retry")
                delay = backoff.next()
                logger.warning("offset commit failed (%s); retrying in %.1f s", error, delay)
                if stop.wait(delay):
                    self._uncommitted = offsets
                    return False
            else:
                self._uncommitted = {}
                self.metrics.event("commit")
                return True

    def _update_lag(self) -> None:
        for tp, next_offset in self._next_offsets.items():
            highwater = self.consumer.highwater(tp)
            if highwater is not None:
                self.metrics.set_lag(tp.topic, tp.partition, max(highwater - next_offset, 0))

    def _backoff(self) -> Backoff:
        return Backoff(self.config.retry_backoff_s, self.config.max_retry_backoff_s)


def _inputs(
    pages: list[tuple[Any, PageMessage]], keep_anchors: bool
) -> list[tuple[str, bytes, Any, bool]]:
    """``PagePreparer.prepare``'s arguments for each page."""
    return [(page.url, page.body, page.headers, keep_anchors) for _, page in pages]


def _ready(prepared: PreparedPage | Failed) -> PreparedPage | None:
    return prepared if isinstance(prepared, PreparedPage) else None


def _links_followed_share(decisions: Sequence[Decision | Failed]) -> float:
    """The share of pages decided whose links are to be followed (``links_to_follow``)."""
    decided = [decision for decision in decisions if isinstance(decision, Decision)]
    return sum(decision.links_may_differ for decision in decided) / max(len(decided), 1)


def _after(before: InBackground[Any] | None, work: Callable[[], T]) -> T:
    """``work()`` once ``before`` is done, however it ended (its caller sees its failure)."""
    if before is not None:
        with contextlib.suppress(BaseException):
            before.result()
    return work()


def _source(record: Any) -> Source:
    return Source(record.topic, record.partition, record.offset)


def _forward(topic: str, record: Any) -> OutputRecord:
    """The input record, untouched, onto an output topic."""
    return OutputRecord(topic, record.key, record.value, list(record.headers or ()))


def _names(partitions: Iterable[TopicPartition]) -> str:
    return ", ".join(sorted(f"{tp.topic}/{tp.partition}" for tp in partitions)) or "none"
