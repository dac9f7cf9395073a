"""Hostile files and JSON lines through ``dedup-filter check`` in both output modes: every input
is a decision or a skip report, and no run ends with a traceback (issue 10)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from testweb.hostile import hostile_messages, hostile_pages

from .conftest import SEED

LINES = 2_000
FILES = 200
SUMMARY = re.compile(rb"checked (\d+) pages?: .*?(?:; (\d+) bad inputs? skipped)?\n")


@pytest.fixture(scope="module")
def hostile_source(tmp_path_factory, real_pages):
    """A directory: hostile JSON lines in one file, hostile pages as HTML files, odd file names."""
    root = tmp_path_factory.mktemp("hostile")
    lines = [line for _, line in hostile_messages(SEED, LINES, real_pages, max_bytes=4_000)]
    (root / "messages.jsonl").write_bytes(b"\n".join(lines))
    for number, page in enumerate(hostile_pages(SEED + 1, FILES, real_pages, max_bytes=4_000)):
        name = os.fsdecode(b"page-%d-\xff.html" % number) if number % 7 == 0 else f"p{number}.html"
        (root / name).write_bytes(page.body)
    return root, LINES + FILES


@pytest.mark.parametrize("output", [[], ["--json"]], ids=["text", "json"])
def test_every_hostile_input_is_a_decision_or_a_skip_report(hostile_source, output):
    root, inputs = hostile_source
    script = "from dedup_filter.cli import main; raise SystemExit(main())"
    done = subprocess.run(
        [sys.executable, "-c", script, "check", str(root), "--batch-size", "200", *output],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, b"Traceback" in done.stdout + done.stderr) == (0, False)
    summary = SUMMARY.search(done.stdout + done.stderr)
    checked, skipped = int(summary.group(1)), int(summary.group(2) or 0)
    assert checked + skipped == inputs
    lines = done.stdout.splitlines()
    decisions = [line for line in lines if line and not SUMMARY.match(line + b"\n")]
    reports = [line for line in done.stderr.splitlines() if line.startswith(b"dedup-filter check:")]
    assert (len(decisions), len(reports)) == (checked, skipped)
    if output:
        assert all(json.loads(line)["action"] in {"keep", "drop"} for line in decisions)
