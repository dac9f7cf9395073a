"""Hostile records through a processor on a real broker: the partition is committed to its end,
every record is a verdict or a dead letter, and poison pills sit among the dead letters."""

from __future__ import annotations

import json

from testweb.hostile import hostile_messages

MESSAGES = 2_000
SEED = 11


def poison_pills(html: str) -> list[bytes]:
    """The records that once blocked a partition for good (issue 10, findings 1 and 2)."""
    undefined = {"Content-Type": "text/html; charset=undefined"}
    documents = [
        {"url": "http://s.test/\ud800x", "body": html},
        {"url": "http://s.test/a", "body": html, "fetched_at": "\udc80"},
        {"url": "http://s.test/b", "body": html, "headers": undefined},
        {"url": "http://s.test/c", "body": '<meta charset="undefined">' + html},
        {"url": "http://s.test/\ud800x", "body": html},  # a copy of the first
    ]
    return [json.dumps(document).encode() for document in documents]


def test_a_partition_of_hostile_records_is_committed_to_its_end(
    kafka, stream_config, processor_thread, stdlib_page
):
    real = [stdlib_page(name).encode() for name in ("csv", "json")]
    values = poison_pills(stdlib_page("heapq"))
    values += [line for _, line in hostile_messages(SEED, MESSAGES, real, max_bytes=3_000)]
    values += [None]  # a tombstone, which needs a key
    keys: list[bytes | None] = [None] * (len(values) - 1) + [b"http://s.test/gone"]
    kafka.create_topics(stream_config)
    with processor_thread(stream_config):
        kafka.produce(stream_config.pages_in, values, keys)
        kafka.wait_committed(stream_config.group_id, stream_config.pages_in, len(values), 120)
    verdicts = {v["source"]["offset"]: v for v in kafka.json_values(stream_config.verdicts)}
    dead = {
        int(dict(record.headers)["dedup.source"].rsplit(b"/", 1)[1]): dict(record.headers)
        for record in kafka.read_all(stream_config.dead_letters)
    }
    assert set(verdicts) | set(dead) == set(range(len(values)))
    assert not set(verdicts) & set(dead)
    assert b"lone surrogate" in dead[0]["dedup.error"]
    assert 4 in dead
    assert verdicts[1]["fetched_at"] == "\udc80"
    assert [verdicts[offset]["reason"] for offset in (1, 2, 3)] == [
        "unique",
        "exact_duplicate",
        "exact_duplicate",  # a <meta> gives no terms
    ]


def test_a_record_whose_key_and_headers_no_output_can_carry_is_one_dead_letter(
    kafka, stream_config, processor_thread, stdlib_page
):
    """Outputs carry their input's key and headers beside a value of up to max_message_bytes: a
    100 KB key (or headers) made them larger than the producer takes, and the processor stopped
    at the record on every restart (a red team's run, sixty-seventh session)."""
    html = stdlib_page("csv")
    values = [
        json.dumps({"url": "http://s.test/keyed", "body": html}).encode(),
        b"not a page",
        json.dumps({"url": "http://s.test/after", "body": stdlib_page("json")}).encode(),
    ]
    keys: list[bytes | None] = [b"k" * 100_000, None, None]
    headers = [[], [("note", b"h" * 100_000)], []]
    kafka.create_topics(stream_config)
    with processor_thread(stream_config):
        kafka.produce(stream_config.pages_in, values, keys, headers)
        kafka.wait_committed(stream_config.group_id, stream_config.pages_in, len(values), 60)
    dead = kafka.read_all(stream_config.dead_letters)
    assert [dict(record.headers)["dedup.source"] for record in dead] == [
        f"{stream_config.pages_in}/0/{offset}".encode() for offset in (0, 1)
    ]
    assert all(record.key is None for record in dead)
    assert [dict(record.headers)["dedup.original_envelope_bytes"] for record in dead] == [
        b"100000",
        b"100004",
    ]
    assert [verdict["url"] for verdict in kafka.json_values(stream_config.verdicts)] == [
        "http://s.test/after"
    ]
