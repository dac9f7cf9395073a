"""The import rule (STYLE.md §1), enforced: each package is imported whole in a fresh interpreter.

Modules are discovered with pkgutil, so a module added later is covered without editing this file.
The core is walked without its integration subpackages (``dedup_filter.scrapy``,
``dedup_filter.streams``), and its source is read too: not even ``importlib`` may reach them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import dedup_filter

INTEGRATIONS = ("dedup_filter.scrapy", "dedup_filter.streams")
CORE_DIR = Path(dedup_filter.__file__).parent

PROBE = """
import importlib, json, pkgutil, sys
package = importlib.import_module(sys.argv[1])
skipped = tuple(sys.argv[2:])
prefix = package.__name__ + "."
names = [package.__name__] + [
    info.name for info in pkgutil.walk_packages(package.__path__, prefix)
    if not info.name.startswith(skipped)
]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "top_level": sorted({m.split(".")[0] for m in sys.modules}),
                  "loaded": sorted(sys.modules)}))
"""


def import_everything(package: str, skipped: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Import ``package`` and every module under it in a subprocess; report what got loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, package, *skipped],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_the_core_never_loads_a_framework_or_its_integrations():
    report = import_everything("dedup_filter", INTEGRATIONS)
    assert "dedup_filter.index.lmdb_index" in report["modules"]
    assert sorted({"scrapy", "twisted", "kafka"}.intersection(report["top_level"])) == []
    assert [name for name in report["loaded"] if name.startswith(INTEGRATIONS)] == []


@pytest.mark.parametrize(
    ("package", "forbidden", "expected_module"),
    [
        ("dedup_filter.streams", {"scrapy", "twisted"}, "dedup_filter.streams.processor"),
        ("dedup_filter.scrapy", {"kafka"}, "dedup_filter.scrapy.middleware"),
    ],
)
def test_integration_never_imports_a_forbidden_framework(package, forbidden, expected_module):
    report = import_everything(package)
    assert expected_module in report["modules"]
    assert sorted(forbidden.intersection(report["top_level"])) == []


@pytest.mark.parametrize(
    ("package", "framework"), [("dedup_filter.scrapy", "scrapy"), ("dedup_filter.streams", "kafka")]
)
def test_probe_sees_the_frameworks_a_package_does_use(package, framework):
    assert framework in import_everything(package)["top_level"]


def _named_modules(source: str) -> set[str]:
    """Every module an import statement names, and every string literal (``importlib`` calls)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def test_no_core_module_names_an_integration_even_through_importlib():
    offenders = {
        str(path.relative_to(CORE_DIR)): sorted(
            name
            for name in _named_modules(path.read_text(encoding="utf-8"))
            if name.startswith((*INTEGRATIONS, "streams", "scrapy_ext"))
        )
        for path in CORE_DIR.rglob("*.py")
    }
    assert {path: names for path, names in offenders.items() if names} == {}
