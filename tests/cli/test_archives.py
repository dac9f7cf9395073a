"""``dedup-filter check`` on WARC files and gzip-compressed JSON lines, written here with warcio."""

from __future__ import annotations

import gzip
import io
import json
import re
import sys

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from dedup_filter.cli import main

from .conftest import near_copy


def response(writer, url, body, status="200 OK", content_type="text/html; charset=utf-8"):
    headers = [("Content-Type", content_type)]
    if isinstance(body, str):
        body = body.encode()
    elif content_type == "gzip":  # a gzip-coded HTML answer, as a server may send it
        headers = [("Content-Type", "text/html"), ("Content-Encoding", "gzip")]
    http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
    writer.write_record(
        writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http)
    )


def request_record(writer, url):
    http = StatusAndHeaders("GET / HTTP/1.1", [("Host", "a.example")], is_http_request=True)
    writer.write_record(
        writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=http)
    )


@pytest.fixture(params=[".warc", ".warc.gz"])
def crawl(request, tmp_path, stdlib_page):
    """A small crawl: two originals, an exact and a gzip-coded near copy, a 404, a PNG, requests."""
    path = tmp_path / f"crawl{request.param}"
    csv, json_page = stdlib_page("csv"), stdlib_page("json")
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=path.suffix == ".gz")
        for url, body in [("http://a.example/csv", csv), ("http://a.example/json", json_page)]:
            request_record(writer, url)
            response(writer, url, body)
        response(writer, "http://b.example/csv", csv)
        response(writer, "http://b.example/json", gzip.compress(near_copy(json_page).encode()),
                 content_type="gzip")  # fmt: skip
        response(writer, "http://a.example/gone", "<p>not found</p>", status="404 Not Found")
        response(writer, "http://a.example/logo.png", b"\x89PNG", content_type="image/png")
    return path


def check(capsys, *args):
    code = main(["check", *args, "--json"])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_html_responses_of_a_warc_file_are_checked_in_order(crawl, capsys):
    code, decisions, err = check(capsys, str(crawl))
    assert code == 0
    assert [(d["url"], d["reason"], d["duplicate_of"]) for d in decisions] == [
        ("http://a.example/csv", "unique", None),
        ("http://a.example/json", "unique", None),
        ("http://b.example/csv", "exact_duplicate", "http://a.example/csv"),
        ("http://b.example/json", "near_duplicate", "http://a.example/json"),
    ]
    assert "checked 4 pages" in err


def test_a_cut_warc_file_keeps_its_pages_and_reports_the_rest(crawl, capsys):
    data = crawl.read_bytes()
    crawl.write_bytes(data[: len(data) * 3 // 4])
    code, decisions, err = check(capsys, str(crawl), "--strict")
    assert code == 1
    assert 1 <= len(decisions) < 4
    assert re.search(r"record is cut short|gzip stream ends early|cannot read the rest", err)
    assert re.search(r"\d bad inputs? skipped", err)


def test_gzip_compressed_json_lines_are_read_and_a_cut_stream_reported(tmp_path, capsys):
    lines = [{"url": f"http://a.example/{i}", "body": f"<p>page {i} words</p>"} for i in range(50)]
    data = gzip.compress("\n".join(json.dumps(line) for line in lines).encode())
    (tmp_path / "pages.jsonl.gz").write_bytes(data)
    (tmp_path / "cut.ndjson.gz").write_bytes(data[: len(data) // 2])
    code, decisions, err = check(capsys, str(tmp_path))
    assert code == 0
    assert 50 < len(decisions) < 100  # the lines before the cut, then every line of the whole
    assert "cut.ndjson.gz: cannot read the rest of the gzip stream" in err


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("photo.jpg", b"\xff\xd8\xff\xe0 JFIF"),
        ("notes.txt", b"plain words, no markup"),
        ("page.html.gz", gzip.compress(b"<p>a compressed page</p>")),
    ],
)
def test_a_file_of_unknown_type_is_refused_and_strict_fails_the_run(tmp_path, capsys, name, data):
    (tmp_path / name).write_bytes(data)
    code, decisions, err = check(capsys, str(tmp_path / name))
    assert (code, decisions) == (0, [])
    assert "unknown file type" in err
    assert check(capsys, str(tmp_path / name), "--strict")[0] == 1


def test_unnamed_warc_and_gzip_json_lines_are_known_by_their_first_bytes(crawl, tmp_path, capsys):
    renamed = crawl.rename(tmp_path / "crawl.data")
    assert len(check(capsys, str(renamed))[1]) == 4
    line = json.dumps({"url": "http://a.example/x", "body": "<p>one two</p>"}).encode()
    (tmp_path / "pages.log").write_bytes(gzip.compress(line))
    assert check(capsys, str(tmp_path / "pages.log"))[1][0]["url"] == "http://a.example/x"


def test_without_warcio_the_command_says_what_to_install(crawl, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "warcio.archiveiterator", None)  # as if not installed
    assert main(["check", str(crawl)]) == 1
    assert "pip install 'dedup-filter[warc]'" in capsys.readouterr().err


def test_plain_text_responses_of_a_warc_file_are_checked_as_text(tmp_path, capsys):
    """A README served ``text/plain`` is a page, read as it is (``<path>`` is a word there)."""
    path = tmp_path / "texts.warc"
    readme = b"Copy <path> to the mirror before the release. " * 12
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=False)
        for url in ("http://a.example/README", "http://b.example/README"):
            response(writer, url, readme, content_type="text/plain; charset=utf-8")
    code, decisions, _ = check(capsys, str(path))
    assert code == 0
    assert [(d["reason"], d["duplicate_of"]) for d in decisions] == [
        ("unique", None),
        ("exact_duplicate", "http://a.example/README"),
    ]
    assert decisions[0]["evidence"]["tokens"] == 12 * 8
