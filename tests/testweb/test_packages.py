"""The package cache of the evaluation webs: a package unpacked by several callers at once."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from testweb.evalweb.packages import unpacked


def _tiny_deb(cache: Path) -> None:
    """A real ``.deb`` (built by ``dpkg-deb``) holding one manual page, as a cached download."""
    root = cache / "build"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: tiny-doc\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t.test>\n"
        "Description: a manual of one page\n"
    )
    page = root / "usr" / "share" / "doc" / "tiny" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("<html><body><p>The manual.</p></body></html>")
    subprocess.run(
        ["dpkg-deb", "--build", str(root), str(cache / "tiny-doc_1.0_all.deb")],
        check=True,
        capture_output=True,
    )


def test_callers_unpacking_one_package_at_once_all_get_it_whole(tmp_path: Path) -> None:
    """A test run and a bench unpacking one package at once shared a scratch directory, and one
    removed the other's files mid-unpack: dpkg failed and the bench died."""
    _tiny_deb(tmp_path)
    with ThreadPoolExecutor(4) as pool:
        targets = list(pool.map(lambda _: unpacked("tiny-doc", tmp_path), range(4)))
    assert {str(target) for target in targets} == {str(tmp_path / "unpacked" / "tiny-doc")}
    page = targets[0] / "usr" / "share" / "doc" / "tiny" / "index.html"
    assert page.read_text().endswith("</html>")
    assert sorted(path.name for path in (tmp_path / "unpacked").iterdir()) == ["tiny-doc"]
