"""The distribution as a user installs it: one import name, the defaults inside, no test web, and a
core that works with no extra installed (a hidden hard dependency on Scrapy or Kafka fails here)."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from dedup_filter.config import DEFAULT_TOML

CHECKOUT = Path(__file__).resolve().parents[1]

CORE_SMOKE = """
import sys
from dedup_filter import Config, DedupFilter
page = b"<html><title>t</title><body>" + b" ".join(b"word%d" % i for i in range(200)) + b"</body>"
with DedupFilter.open(sys.argv[1], Config.default()) as dedup:
    first = dedup.check_page("http://a.test/x.html", page)
    second = dedup.check_page("http://b.test/y.html", page)
print(first.reason, second.reason, second.duplicate_of)
for name in ("scrapy", "twisted", "kafka"):
    assert name not in sys.modules, name
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(CHECKOUT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("dedup_filter-*.whl")
    return built


def test_the_wheel_installs_one_import_name_with_its_defaults_and_no_test_web(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if ".dist-info" not in name}
    assert top_level == {"dedup_filter"}
    assert "dedup_filter/default.toml" in names
    assert "dedup_filter/scrapy/middleware.py" in names
    assert "dedup_filter/streams/processor.py" in names
    assert not [name for name in names if "testweb" in name or "broker" in name]


def test_configs_default_toml_is_the_packaged_file_not_a_second_source():
    shown = CHECKOUT / "configs" / "default.toml"
    assert shown.resolve() == DEFAULT_TOML.resolve()


def test_config_command_prints_the_packaged_defaults():
    script = Path(sys.executable).with_name("dedup-filter")
    result = subprocess.run([script, "config"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout == DEFAULT_TOML.read_text(encoding="utf-8")


def test_the_core_runs_from_the_wheel_without_extras(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
        env=environment,
    )
    result = subprocess.run(
        [python, "-c", CORE_SMOKE, str(tmp_path / "index")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["unique", "exact_duplicate", "http://a.test/x.html"]
    stream = subprocess.run(
        [env_dir / "bin" / "dedup-filter", "stream", "--index", str(tmp_path / "index")],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        cwd=tmp_path,
    )
    assert stream.returncode == 2
    assert "pip install 'dedup-filter[kafka]'" in stream.stderr
