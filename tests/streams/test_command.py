"""``python -m dedup_filter.streams`` and ``dedup-filter stream``: exit codes, bad configuration."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from dedup_filter.streams.__main__ import main

from dedup_filter.cli import main as cli_main


def test_an_unknown_key_exits_2_naming_it(capsys):
    assert main(["--set", "stream.pol_timeout_ms=5"]) == 2
    assert "stream.pol_timeout_ms: unknown key" in capsys.readouterr().err


def test_the_core_command_line_runs_the_processor_with_the_same_options(capsys):
    assert cli_main(["stream", "--set", "stream.poll_timeout_ms=0"]) == 2
    assert "stream.poll_timeout_ms: must be >= 1" in capsys.readouterr().err


def test_an_index_that_cannot_be_opened_exits_1(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    assert main(["--index", str(blocker / "index"), "--log-level", "ERROR"]) == 1


CONSOLE_SCRIPT = str(Path(sys.executable).with_name("dedup-filter"))


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ([sys.executable, "-m", "dedup_filter.streams"], "python -m dedup_filter.streams"),
        ([CONSOLE_SCRIPT, "stream"], "dedup-filter stream"),
    ],
)
def test_help_names_the_program_and_describes_the_options(command, program):
    result = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.startswith(f"usage: {program} ")
    assert "--bootstrap-servers" in result.stdout
    assert "--kafka-option" in result.stdout
    assert "KAFKA_BOOTSTRAP_SERVERS" in result.stdout
