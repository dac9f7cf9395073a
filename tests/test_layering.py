"""The import rule (STYLE.md §1), enforced: each package is imported whole in a fresh interpreter.

Modules are discovered with pkgutil, so a module added later is covered without editing this file.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import importlib, json, pkgutil, sys
package = importlib.import_module(sys.argv[1])
prefix = package.__name__ + "."
names = [package.__name__] + [info.name for info in pkgutil.walk_packages(package.__path__, prefix)]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "top_level": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def import_everything(package: str) -> dict[str, list[str]]:
    """Import ``package`` and every module under it in a subprocess; report what got loaded."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, package],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    ("package", "forbidden", "expected_module"),
    [
        ("dedup_filter", {"scrapy", "twisted", "kafka"}, "dedup_filter.lmdb_index"),
        ("streams", {"scrapy", "twisted"}, "streams.processor"),
        ("scrapy_ext", {"kafka"}, "scrapy_ext.middleware"),
    ],
)
def test_package_never_imports_a_forbidden_framework(package, forbidden, expected_module):
    report = import_everything(package)
    assert expected_module in report["modules"]
    assert sorted(forbidden.intersection(report["top_level"])) == []


@pytest.mark.parametrize(("package", "framework"), [("scrapy_ext", "scrapy"), ("streams", "kafka")])
def test_probe_sees_the_frameworks_a_package_does_use(package, framework):
    assert framework in import_everything(package)["top_level"]
