"""Pages of one template that resemble each other about equally are none's copies: Tornado's
release notes, a short page a release under a sidebar that lists every release, titled alike
but for the release's number. Estimated without the super-shingle groups that proposed them
(sixty-seventh session), none reaches the drop's bar; before, some did and were kept as look-
alikes of two releases (``matching._rival``, tested in tests/core/test_look_alikes.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dedup_filter import DedupFilter
from testweb.evalweb.packages import read_tree

pytestmark = pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs apt-get and dpkg")
SITE = "http://www.tornadoweb.test/"


def test_release_notes_under_one_sidebar_are_kept_apart(tmp_path: Path) -> None:
    pages = read_tree("tornado")
    releases = sorted(path for path in pages if path.startswith("releases/v"))
    dedup = DedupFilter.open(tmp_path / "index")
    try:
        decisions = dedup.check_pages(
            [(SITE + path, pages[path].encode("utf-8", "surrogateescape")) for path in releases]
        )
    finally:
        dedup.close()
    assert [decision.url for decision in decisions if decision.dropped] == []
