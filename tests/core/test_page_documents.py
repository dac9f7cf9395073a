"""The JSON page document both readers share: its fields, their decoding, and one word per error."""

from __future__ import annotations

import base64
import codecs
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_filter.features.text import decode_body
from dedup_filter.page_documents import (
    Invalid,
    PageFields,
    body_field,
    headers_field,
    json_object,
    page_fields,
)

RUSSIAN = "Модуль читает и записывает табличные данные: строки, столбцы, кавычки."


def fields(document: dict) -> PageFields | Invalid:
    return page_fields(json_object(json.dumps(document).encode()))


def test_a_text_body_is_the_text_whatever_charset_the_headers_declare():
    page = fields(
        {
            "url": "http://a.example/",
            "body": RUSSIAN,
            "headers": {"Content-Type": "text/html; charset=koi8-r"},
        }
    )
    assert page.body.startswith(codecs.BOM_UTF8)
    assert decode_body(page.body, page.headers).text == RUSSIAN


def test_without_the_bom_the_declared_charset_would_garble_the_text():
    """Why the BOM is there: the same bytes, unmarked, are read as the header says."""
    page = fields(
        {
            "url": "http://a.example/",
            "body": RUSSIAN,
            "headers": {"Content-Type": "text/html; charset=koi8-r"},
        }
    )
    unmarked = page.body.removeprefix(codecs.BOM_UTF8)
    assert decode_body(unmarked, page.headers).text != RUSSIAN


def test_base64_bodies_are_the_bytes_as_fetched():
    fetched = RUSSIAN.encode("koi8-r")
    page = fields(
        {
            "url": "http://a.example/",
            "body_b64": base64.b64encode(fetched).decode(),
            "headers": {"Content-Type": "text/html; charset=koi8-r"},
        }
    )
    assert page.body == fetched
    assert decode_body(page.body, page.headers).text == RUSSIAN


def test_a_lone_surrogate_in_a_text_body_becomes_a_question_mark():
    page = page_fields(json_object(b'{"url": "http://a.example/", "body": "a\\udcffb"}'))
    assert page.body == codecs.BOM_UTF8 + b"a?b"


def test_the_url_is_kept_as_written():
    """Whether it must be absolute is each reader's rule: the CLI takes any, the stream does not."""
    assert fields({"url": " relative/page.html", "body": ""}).url == " relative/page.html"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (None, None),
        ({}, None),
        ({"Content-Type": "text/html"}, {"Content-Type": "text/html"}),
        ({"Content-Length": 12, "Age": 1.5}, {"Content-Length": "12", "Age": "1.5"}),
        ({"Vary": ["Accept", "Cookie"]}, {"Vary": "Accept, Cookie"}),
        (
            {"Content-Type": ["text/html; charset=koi8-r"]},
            {"Content-Type": "text/html; charset=koi8-r"},
        ),
        ({"X-Empty": []}, {"X-Empty": ""}),
    ],
)
def test_header_values_are_strings_numbers_or_lists_of_them(headers, expected):
    assert headers_field(headers) == expected


def test_a_header_sent_as_a_list_still_declares_the_charset():
    headers = headers_field({"Content-Type": ["text/html; charset=koi8-r"]})
    assert decode_body(RUSSIAN.encode("koi8-r"), headers).text == RUSSIAN


def test_a_failed_fetch_may_have_no_body():
    assert body_field(None, None, optional=True) == b""
    assert body_field("x", "eA==", optional=True) == Invalid(
        "exactly one of 'body' (text) and 'body_b64' (base64) is required"
    )


BAD_DOCUMENTS = [
    (b"{not json", "not valid JSON: Expecting property name"),
    (b"\xff\xfe\xfa{", "not valid JSON: "),
    (b"[" * 100_000, "not valid JSON: "),
    (b"[1, 2]", "expected a JSON object, not an array"),
    (b'"page"', "expected a JSON object, not a string"),
    (b"null", "expected a JSON object, not null"),
    (b'{"body": "x"}', "'url' is missing"),
    (b'{"url": null, "body": "x"}', "'url' is missing"),
    (b'{"url": 7, "body": "x"}', "'url' must be a string, not a number"),
    (b'{"url": ["http://a.example/"], "body": "x"}', "'url' must be a string, not an array"),
    (b'{"url": "  ", "body": "x"}', "'url' is empty"),
    (b'{"url": "http://a/"}', "exactly one of 'body' (text) and 'body_b64' (base64) is required"),
    (
        b'{"url": "http://a/", "body": "x", "body_b64": "eA=="}',
        "exactly one of 'body' (text) and 'body_b64' (base64) is required",
    ),
    (b'{"url": "http://a/", "body": 1}', "'body' must be a string, not a number"),
    (b'{"url": "http://a/", "body": true}', "'body' must be a string, not a boolean"),
    (b'{"url": "http://a/", "body_b64": {}}', "'body_b64' must be a base64 string, not an object"),
    (b'{"url": "http://a/", "body_b64": "%%%"}', "'body_b64' is not valid base64: "),
    (b'{"url": "http://a/", "body_b64": "\\u00e9A=="}', "'body_b64' is not valid base64: "),
    (
        b'{"url": "http://a/", "body": "", "headers": ["a"]}',
        "'headers' must be an object, not an array",
    ),
    (
        b'{"url": "http://a/", "body": "", "headers": {"a": null}}',
        "header 'a' must be a string, a number or a list of them, not null",
    ),
    (
        b'{"url": "http://a/", "body": "", "headers": {"a": ["x", {"y": 1}]}}',
        "header 'a' must be a string, a number or a list of them, not an object",
    ),
    (
        b'{"url": "http://a/", "body": "", "headers": {"a": false}}',
        "header 'a' must be a string, a number or a list of them, not a boolean",
    ),
]


@pytest.mark.parametrize(("data", "problem"), BAD_DOCUMENTS)
def test_a_bad_document_is_one_problem_in_words(data, problem):
    document = json_object(data)
    result = document if isinstance(document, Invalid) else page_fields(document)
    assert isinstance(result, Invalid)
    assert result.problem.startswith(problem)


def test_a_parser_message_is_cut_short():
    assert len(json_object(b"{" + b"x" * 10_000).problem) < 300


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
DOCUMENTS = st.fixed_dictionaries(
    {"url": st.text(min_size=1, max_size=20) | JSON_VALUES},
    optional={
        "body": st.text(max_size=20) | JSON_VALUES,
        "body_b64": st.binary(max_size=20).map(lambda data: base64.b64encode(data).decode())
        | JSON_VALUES,
        "headers": st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4) | JSON_VALUES,
    },
)


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS, st.booleans())
def test_any_json_object_is_page_fields_or_a_problem_never_an_exception(document, body_optional):
    result = page_fields(document, body_optional=body_optional)
    if isinstance(result, PageFields):
        assert result.url == document["url"]
        assert result.url.strip()
        assert isinstance(result.body, bytes)
        assert result.headers is None or all(isinstance(v, str) for v in result.headers.values())
    else:
        assert isinstance(result, Invalid)
        assert result.problem
