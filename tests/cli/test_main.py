"""The command line as a whole: usage errors, configuration errors, and the installed script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dedup_filter.cli import COMMANDS, main


def test_no_command_is_a_usage_error(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_registered_command_has_help(command, capsys):
    assert main([command, "--help"]) == 0
    assert f"dedup-filter {command}" in capsys.readouterr().out


def test_configuration_file_is_used(tmp_path, capsys):
    config = tmp_path / "dedup.toml"
    config.write_text("[dedup.minhash]\nnum_perm = 60\nfeatures = 4\nmin_shared_features = 3\n")
    assert main(["curve", "--config", str(config)]) == 0
    assert "P(k=4, s=15, r=3)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--set", "minhash.num_perm=85"], "dedup.minhash.num_perm: must be a positive multiple"),
        (["--set", "simhash.colour=1"], "dedup.simhash.colour: unknown key"),
        (["--set", "simhash.bits"], "expected SECTION.KEY=VALUE"),
        (["--set", "text.min_tokens=ten"], "dedup.text.min_tokens: must be a number"),
        (["--config", "/nonexistent/dedup.toml"], "cannot read the configuration file"),
    ],
)
def test_configuration_errors_exit_2_naming_the_key(arguments, message, capsys):
    assert main(["curve", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_invalid_toml_file_exits_2(tmp_path, capsys):
    config = tmp_path / "broken.toml"
    config.write_text("[dedup.minhash\n")
    assert main(["curve", "--config", str(config)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_installed_console_script_checks_json_lines_from_stdin(stdlib_page):
    script = Path(sys.executable).with_name("dedup-filter")
    page = json.dumps({"url": "http://a.example/csv", "body": stdlib_page("csv")})
    copy = json.dumps({"url": "http://b.example/csv", "body": stdlib_page("csv")})
    result = subprocess.run(
        [str(script), "check", "-", "--json"],
        input=f"{page}\n{copy}\nnot json\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert (first["reason"], second["reason"]) == ("unique", "exact_duplicate")
    assert "<stdin>:3: not valid JSON" in result.stderr
    assert "1 bad input skipped" in result.stderr
