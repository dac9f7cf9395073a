"""The page message schema, tolerant raw-HTML mode, and the records the processor produces."""

from __future__ import annotations

import base64
import json

import pytest
from dedup_filter.streams.messages import (
    Malformed,
    OutputRecord,
    PageMessage,
    Source,
    dead_letter_record,
    packed_record,
    parse_page,
    parse_url,
    unpacked_record,
    verdict_record,
)

from dedup_filter import Decision

LIMIT = 1_000_000
BODY_REQUIRED = "exactly one of 'body' (text) and 'body_b64' (base64) is required"


def parse(value, key=None, headers=(), tolerant=True):
    return parse_page(key, value, list(headers), tolerant=tolerant, max_bytes=LIMIT)


def test_a_schema_1_message_becomes_a_page():
    value = json.dumps(
        {
            "schema": 1,
            "url": "https://a.example/x",
            "status": 200,
            "fetched_at": 1714564800,
            "headers": {"Content-Type": "text/html", "Content-Length": 12},
            "body_b64": "PHA+aGk8L3A+",
        }
    )
    assert parse(value.encode()) == PageMessage(
        "https://a.example/x",
        b"<p>hi</p>",
        {"Content-Type": "text/html", "Content-Length": "12"},
        200,
        1714564800,
    )


def test_a_text_body_decodes_as_utf8_whatever_charset_the_headers_declare():
    from dedup_filter.features.text import decode_body

    page = parse(
        json.dumps(
            {
                "url": "https://a.example/",
                "body": "café crème",
                "content_type": "text/html; charset=iso-8859-1",
            }
        ).encode()
    )
    assert page.headers == {"Content-Type": "text/html; charset=iso-8859-1"}
    assert decode_body(page.body, page.headers).text == "café crème"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (b"{not json", "not valid JSON: "),
        (b"[1, 2]", "no URL in the record key"),
        (b'{"body": "x"}', "'url' is missing"),
        (b'{"url": 7, "body": "x"}', "'url' must be a string, not a number"),
        (b'{"url": "/relative", "body": "x"}', "not an absolute URL"),
        (b'{"url": "http://a.example/"}', BODY_REQUIRED),
        (b'{"url": "http://a.example/", "body": "x", "body_b64": "eA=="}', BODY_REQUIRED),
        (b'{"url": "http://a.example/", "body_b64": "%%%"}', "'body_b64' is not valid base64: "),
        (b'{"url": "http://a.example/", "body": 1}', "'body' must be a string, not a number"),
        (b'{"url": "http://a.example/", "body": "", "schema": 2}', "unsupported schema 2"),
        (
            b'{"url": "http://a.example/", "body": "", "status": "200"}',
            "'status' must be an integer, not a string",
        ),
        (
            b'{"url": "http://a.example/", "body": "", "headers": ["a"]}',
            "'headers' must be an object, not an array",
        ),
        (
            b'{"url": "http://a.example/", "body": "", "headers": {"a": null}}',
            "header 'a' must be a string, a number or a list of them, not null",
        ),
        (
            b'{"url": "http://a.example/", "body": "", "fetched_at": []}',
            "'fetched_at' must be a string or a number, not an array",
        ),
        (b'{"url": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "not valid JSON: "),
        (b"\xff\xfe{", "no URL in the record key"),
        (None, "tombstone"),
        (b"x" * (LIMIT + 1), "exceeds stream.max_message_bytes"),
    ],
)
def test_bad_messages_are_values_that_say_what_is_wrong(value, problem):
    result = parse(value)
    assert isinstance(result, Malformed)
    assert problem in result.error


SHARED_FIELD_PROBLEMS = [
    b"{not json",
    b'{"body": "x"}',
    b'{"url": ["http://a.example/"], "body": "x"}',
    b'{"url": "http://a.example/"}',
    b'{"url": "http://a.example/", "body": "x", "body_b64": "eA=="}',
    b'{"url": "http://a.example/", "body_b64": "%%%"}',
    b'{"url": "http://a.example/", "body_b64": 3}',
    b'{"url": "http://a.example/", "body": "", "headers": "text/html"}',
    b'{"url": "http://a.example/", "body": "", "headers": {"X": {"nested": 1}}}',
]


@pytest.mark.parametrize("value", SHARED_FIELD_PROBLEMS)
def test_the_stream_and_the_command_line_say_the_same_of_the_same_document(value):
    from dedup_filter.cli.inputs import BadInput, page_from_json

    from_cli = page_from_json(value, "pages.jsonl:1")
    assert isinstance(from_cli, BadInput)
    assert parse(value, tolerant=False) == Malformed(from_cli.problem)


def test_headers_take_lists_and_content_type_fills_in_a_missing_content_type():
    def headers_of(document):
        return parse(
            json.dumps({"url": "https://a.example/", "body": ""} | document).encode()
        ).headers

    assert headers_of({"headers": {"Vary": ["Accept", "Cookie"]}, "content_type": "text/html"}) == {
        "Vary": "Accept, Cookie",
        "Content-Type": "text/html",
    }
    assert headers_of(
        {"headers": {"content-type": ["text/plain"]}, "content_type": "text/html"}
    ) == {"content-type": "text/plain"}
    assert headers_of({"content_type": ""}) is None
    assert parse(b'{"url": "https://a.example/", "body": "", "content_type": 5}') == Malformed(
        "'content_type' must be a string, not a number"
    )


def test_a_failed_fetch_needs_no_body_but_a_body_it_has_must_be_good():
    failed = parse(b'{"url": "https://a.example/", "status": 404}')
    assert (failed.body, failed.fetched) == (b"", False)
    assert parse(b'{"url": "https://a.example/", "status": 404, "body": 1}') == Malformed(
        "'body' must be a string, not a number"
    )
    assert parse(b'{"url": "https://a.example/", "status": 200}') == Malformed(BODY_REQUIRED)


def test_a_redirect_says_where_it_sends_when_its_headers_carry_a_location():
    moved = parse(
        b'{"url": "https://a.example/a.html", "status": 301,'
        b' "headers": {"LOCATION": "/b.html", "Content-Type": "text/html"}}'
    )
    assert (moved.fetched, moved.location) == (False, "/b.html")
    assert parse(b'{"url": "https://a.example/", "status": 404}').location is None


def test_tolerant_mode_takes_raw_html_with_the_url_in_the_key_or_a_header():
    by_key = parse(b"<html>hi</html>", key=b"https://a.example/k")
    by_header = parse(
        b"<html>hi</html>",
        headers=[("URL", b"https://a.example/h"), ("content-type", b"text/html")],
    )
    assert (by_key.url, by_key.body, by_key.headers) == (
        "https://a.example/k",
        b"<html>hi</html>",
        None,
    )
    assert (by_header.url, by_header.headers) == (
        "https://a.example/h",
        {"Content-Type": "text/html"},
    )


def test_strict_mode_refuses_raw_html():
    assert isinstance(
        parse(b"<html>hi</html>", key=b"https://a.example/k", tolerant=False), Malformed
    )


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (b"https://a.example/x\n", "https://a.example/x"),
        (b'{"url": "https://a.example/y", "depth": 2}', "https://a.example/y"),
    ],
)
def test_frontier_urls_come_bare_or_as_json(value, url):
    assert parse_url(value, max_bytes=LIMIT) == url


@pytest.mark.parametrize("value", [b"not a url", b'{"href": "https://a.example/"}', b"\xff", None])
def test_bad_frontier_urls_are_malformed(value):
    assert isinstance(parse_url(value, max_bytes=LIMIT), Malformed)


def test_a_verdict_is_the_decision_with_its_source():
    decision = Decision(
        "https://b.example/x", "drop", "exact_duplicate", "https://a.example/x", {"rule": "exact"}
    )
    page = PageMessage("https://b.example/x", b"", None, 200, "2024-05-01T12:00:00Z")
    record = verdict_record("verdicts", decision, Source("pages", 2, 17), page)
    assert json.loads(record.value) == decision.to_dict() | {
        "schema": 1,
        "source": {"topic": "pages", "partition": 2, "offset": 17},
        "status": 200,
        "fetched_at": "2024-05-01T12:00:00Z",
    }
    assert record.key == b"https://b.example/x"


def test_a_dead_letter_keeps_the_original_bytes_cut_to_the_limit():
    record = dead_letter_record(
        "dead", b"k", b"x" * 5000, [("trace", b"1")], "too big", Source("pages", 0, 3), 4096
    )
    assert (record.key, record.value) == (b"k", b"x" * 4096)
    assert record.headers == [
        ("trace", b"1"),
        ("dedup.error", b"too big"),
        ("dedup.source", b"pages/0/3"),
        ("dedup.original_bytes", b"5000"),
    ]


def test_base64_bodies_round_trip_binary_bytes():
    body = bytes(range(256))
    value = json.dumps(
        {"url": "https://a.example/bin", "body_b64": base64.b64encode(body).decode()}
    ).encode()
    assert parse(value).body == body


def test_strict_mode_names_a_json_value_that_is_not_an_object():
    assert parse(b"[1, 2]", tolerant=False) == Malformed("expected a JSON object, not an array")


def test_a_dead_letter_names_the_size_of_a_key_and_headers_too_large_to_carry():
    source = Source("pages.in", 0, 7)
    small = dead_letter_record("dead", b"k", b"v", [("h", b"x")], "bad", source, LIMIT)
    assert (small.key, small.headers[0]) == (b"k", ("h", b"x"))
    large = dead_letter_record("dead", b"k" * 40_000, b"v", [("h", b"x")], "bad", source, LIMIT)
    assert large.key is None
    assert dict(large.headers)["dedup.original_envelope_bytes"] == b"40002"
    assert "h" not in dict(large.headers)


@pytest.mark.parametrize(
    ("key", "headers"),
    [(None, []), (b"", [("trace", b"t")]), (b"k\x00", [("a", b""), ("\udcff", b"\xff" * 3)])],
)
def test_a_packed_record_unpacks_as_it_came(key, headers):
    value = b'{"url": "http://a.test/x", "depth": 1}'
    record = unpacked_record("urls.keep", packed_record(key, value, headers))
    assert record == OutputRecord("urls.keep", key, value, headers)
