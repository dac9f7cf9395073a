"""The package cache of the evaluation webs: a package unpacked by several callers at once; a
package of another Debian suite fetched from its pool."""

from __future__ import annotations

import functools
import lzma
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from testweb.evalweb import packages
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


def test_a_package_of_another_suite_is_fetched_from_its_pool(tmp_path: Path, monkeypatch) -> None:
    """``PACKAGE@SUITE`` is looked up in the suite's ``binary-all`` index and fetched from the
    pool it names (an archive served on loopback, laid out as deb.debian.org's), then cached
    apart from the machine's own release of the package."""
    archive = tmp_path / "archive"
    _tiny_deb(tmp_path)
    pool = archive / "pool" / "main" / "t" / "tiny"
    pool.mkdir(parents=True)
    shutil.move(tmp_path / "tiny-doc_1.0_all.deb", pool / "tiny-doc_1.0_all.deb")
    index = archive / "dists" / "trixie" / "main" / "binary-all" / "Packages.xz"
    index.parent.mkdir(parents=True)
    stanzas = [
        "Package: other-doc\nVersion: 2.0\nFilename: pool/main/o/other/other-doc_2.0_all.deb",
        "Package: tiny-doc\nVersion: 1:1.0\nFilename: pool/main/t/tiny/tiny-doc_1.0_all.deb",
    ]
    index.write_bytes(lzma.compress("\n\n".join(stanzas).encode() + b"\n"))
    handler = functools.partial(_QuietHandler, directory=str(archive))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        monkeypatch.setattr(packages, "_ARCHIVE", f"http://127.0.0.1:{server.server_port}/")
        cache = tmp_path / "cache"
        cache.mkdir()
        try:
            target = unpacked("tiny-doc@trixie", cache)
            with pytest.raises(LookupError, match="absent-doc"):
                unpacked("absent-doc@trixie", cache)
        finally:
            server.shutdown()
            thread.join(timeout=5)
    assert (target / "usr" / "share" / "doc" / "tiny" / "index.html").is_file()
    assert [path.name for path in cache.glob("*.deb")] == ["tiny-doc@trixie_1%3a1.0_all.deb"]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass
