"""``dedup-filter check`` over files, directories and JSON lines, including broken input."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys

import pytest

from dedup_filter.cli import main

RUSSIAN = "модуль читает и записывает табличные данные: строки, столбцы, кавычки, разделители"


def feed_stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def decisions(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def check_json_lines(monkeypatch, capsys, records: list[dict]) -> list[dict]:
    """The decisions of ``dedup-filter check - --json`` for these records as JSON lines."""
    feed_stdin(monkeypatch, "\n".join(json.dumps(record) for record in records).encode())
    assert main(["check", "-", "--json"]) == 0
    return decisions(capsys.readouterr().out)


def test_directory_drops_near_and_exact_duplicates_with_their_originals(site, capsys):
    assert main(["check", str(site), "--base-url", "http://docs.example/"]) == 0
    out = capsys.readouterr().out
    docs = "http://docs.example"
    assert f"drop exact_duplicate {docs}/mirror/json.html  of {docs}/docs/json.html" in out
    assert f"drop near_duplicate  {docs}/stamped/csv.html  of {docs}/docs/csv.html" in out
    assert out.splitlines()[-1] == (
        "checked 7 pages: kept 3 (unique 3), dropped 4 (exact_duplicate 1, near_duplicate 3)"
    )


def test_json_output_is_one_decision_per_page_and_summary_goes_to_stderr(site, capsys):
    assert main(["check", str(site / "docs"), "--json"]) == 0
    captured = capsys.readouterr()
    lines = decisions(captured.out)
    assert [line["action"] for line in lines] == ["keep"] * 3
    assert all(line["url"].startswith("file:///") for line in lines)
    assert "checked 3 pages" in captured.err


def test_batches_smaller_than_the_input_give_the_same_decisions(site, capsys):
    main(["check", str(site), "--json"])
    whole = capsys.readouterr().out
    main(["check", str(site), "--json", "--batch-size", "2"])
    assert capsys.readouterr().out == whole


def test_a_persistent_index_sees_the_same_pages_again_as_unchanged(site, tmp_path, capsys):
    index = tmp_path / "index"
    main(["check", str(site / "docs"), "--index", str(index)])
    capsys.readouterr()
    assert main(["check", str(site / "docs"), "--index", str(index), "--json"]) == 0
    assert {line["reason"] for line in decisions(capsys.readouterr().out)} == {"unchanged"}


def test_json_lines_on_stdin_with_text_and_base64_bodies(monkeypatch, capsys, stdlib_page):
    html = stdlib_page("csv")
    records = [
        {"url": "http://a.example/csv.html", "body": html},
        {"url": "http://b.example/csv.html", "body_b64": base64.b64encode(html.encode()).decode()},
    ]
    first, second = check_json_lines(monkeypatch, capsys, records)
    assert first["reason"] == "unique"
    assert (second["reason"], second["duplicate_of"]) == (
        "exact_duplicate",
        "http://a.example/csv.html",
    )


def test_a_text_body_is_not_decoded_again_with_the_charset_its_headers_declare(monkeypatch, capsys):
    """A text body is already text: its words are the page's words, as the fetched bytes are."""
    text = (
        "<html><body><p>"
        + " ".join(f"{word} {number}" for number, word in enumerate(RUSSIAN.split() * 3))
        + "</p></body></html>"
    )
    koi8 = {"Content-Type": "text/html; charset=koi8-r"}
    records = [
        {
            "url": "http://a.example/ru.html",
            "body_b64": base64.b64encode(text.encode("koi8-r")).decode(),
            "headers": koi8,
        },
        {"url": "http://b.example/ru.html", "body": text, "headers": koi8},
    ]
    fetched, as_text = check_json_lines(monkeypatch, capsys, records)
    assert fetched["reason"] == "unique"
    assert (as_text["reason"], as_text["duplicate_of"]) == (
        "exact_duplicate",
        "http://a.example/ru.html",
    )


BAD_LINES = [
    (b"not json", "not valid JSON: "),
    (b"[1, 2]", "expected a JSON object, not an array"),
    (b'{"body": "x"}', "'url' is missing"),
    (b'{"url": 7, "body": "x"}', "'url' must be a string, not a number"),
    (b'{"url": "http://x/"}', "exactly one of 'body' (text) and 'body_b64' (base64) is required"),
    (
        b'{"url": "http://x/", "body": "x", "body_b64": "eA=="}',
        "exactly one of 'body' (text) and 'body_b64' (base64) is required",
    ),
    (b'{"url": "http://x/", "body_b64": "%%%"}', "'body_b64' is not valid base64: "),
    (
        b'{"url": "http://x/", "body": "x", "headers": [1]}',
        "'headers' must be an object, not an array",
    ),
    (
        b'{"url": "http://x/", "body": "x", "headers": {"a": null}}',
        "header 'a' must be a string, a number or a list of them, not null",
    ),
    (b"[" * 100_000, "not valid JSON: "),
    (b"\xff\xfe\xfa{", "not valid JSON: "),
]


@pytest.mark.parametrize(("line", "message"), BAD_LINES)
def test_bad_lines_are_reported_with_their_line_number_and_counted(
    monkeypatch, capsys, line, message
):
    feed_stdin(monkeypatch, b'{"url": "http://x/ok", "body": "fine"}\n' + line + b"\n")
    assert main(["check", "-"]) == 0
    captured = capsys.readouterr()
    assert f"<stdin>:2: {message}" in captured.err
    assert "Traceback" not in captured.err
    assert captured.out.splitlines()[-1] == (
        "checked 1 page: kept 1 (unique 1), dropped 0; 1 bad input skipped"
    )


def test_hostile_files_get_decisions_not_tracebacks(tmp_path, capsys):
    (tmp_path / "binary.html").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "empty.html").write_bytes(b"")
    (tmp_path / "latin1.htm").write_bytes("<p>caf\xe9 cr\xe8me br\xfbl\xe9e</p>".encode("latin-1"))
    (tmp_path / "nested.html").write_bytes(b"<div>" * 50_000 + b"deep")
    (tmp_path / "notes.txt").write_bytes(b"not a page")
    assert main(["check", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    by_name = {line["url"].rsplit("/", 1)[1]: line for line in decisions(captured.out)}
    assert sorted(by_name) == ["binary.html", "empty.html", "latin1.htm", "nested.html"]
    assert by_name["binary.html"]["evidence"]["encoding"] == "binary"
    assert by_name["empty.html"]["reason"] == "empty"


def test_missing_source_exits_1_without_creating_an_index(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nowhere"), "--index", str(tmp_path / "index")]) == 1
    assert "no such file or directory" in capsys.readouterr().err
    assert not (tmp_path / "index").exists()


def test_unknown_suffix_is_sniffed_as_json_lines_or_html(tmp_path, capsys):
    (tmp_path / "pages.log").write_text('{"url": "http://x/1", "body": "one two three"}\n')
    (tmp_path / "page.txt").write_text("<html><body>one two three</body></html>")
    main(["check", str(tmp_path / "pages.log"), "--json"])
    assert decisions(capsys.readouterr().out)[0]["url"] == "http://x/1"
    main(["check", str(tmp_path / "page.txt"), "--json"])
    assert decisions(capsys.readouterr().out)[0]["url"].endswith("/page.txt")


def run_check(*args: str, encoding: str = "utf-8") -> subprocess.CompletedProcess[bytes]:
    """``dedup-filter check`` in a process of its own, writing in ``encoding``."""
    script = "from dedup_filter.cli import main; raise SystemExit(main())"
    return subprocess.run(
        [sys.executable, "-c", script, "check", *args],
        capture_output=True,
        env=os.environ | {"PYTHONIOENCODING": encoding},
        check=False,
    )


@pytest.fixture
def unencodable_site(tmp_path):
    """A file under an undecodable name; JSON lines with a lone-surrogate and a non-ASCII URL."""
    root = tmp_path / "site"
    root.mkdir()
    (root / os.fsdecode(b"caf\xe9.html")).write_text("<p>a page under an undecodable name</p>")
    lines = [
        {"url": "http://s.test/\ud800x", "body": "<p>lone surrogate</p>"},
        {"url": "http://s.test/caf\u00e9", "body": f"<p>{RUSSIAN}</p>"},
    ]
    (root / "pages.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    return root


def test_text_output_escapes_what_the_terminal_cannot_show(unencodable_site):
    done = run_check(str(unencodable_site), encoding="ascii")  # not even é can be written as is
    assert (done.returncode, b"Traceback" in done.stderr) == (0, False)
    assert b"'url' holds a lone surrogate" in done.stderr
    assert b"caf%E9.html" in done.stdout
    assert b"http://s.test/caf\\xe9" in done.stdout
    summary = b"checked 2 pages: kept 2 (unique 2), dropped 0; 1 bad input skipped\n"
    assert done.stdout.endswith(summary)


def test_json_output_of_unencodable_input_is_json(unencodable_site):
    done = run_check(str(unencodable_site), "--json")
    assert (done.returncode, b"Traceback" in done.stderr) == (0, False)
    urls = [json.loads(line)["url"] for line in done.stdout.splitlines()]
    assert urls[1:] == ["http://s.test/caf\u00e9"]
    assert b"1 bad input skipped" in done.stderr
