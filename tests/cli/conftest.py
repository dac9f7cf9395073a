"""Fixtures for the command line: pydoc pages with near-duplicate and exact copies on disk."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

STAMP = "<p>Generated 2024-03-01 12:00:07 in 0.031 s, visitor 48213, session a81f3c</p></body>"


def near_copy(html: str) -> str:
    """The page with a time stamp, an execution time, a visitor count and a session id added."""
    return html.replace("</body>", STAMP)


@pytest.fixture
def site(tmp_path: Path, stdlib_page: Callable[[str], str]) -> Path:
    """docs/{csv,heapq,json}.html, mirror/json.html an exact copy, stamped/ near-duplicates.

    Directories are walked in name order, so the originals in docs/ are checked first.
    """
    root = tmp_path / "site"
    for directory in ("docs", "mirror", "stamped"):
        (root / directory).mkdir(parents=True)
    for name in ("csv", "heapq", "json"):
        html = stdlib_page(name)
        (root / "docs" / f"{name}.html").write_text(html, encoding="utf-8")
        (root / "stamped" / f"{name}.html").write_text(near_copy(html), encoding="utf-8")
    (root / "mirror" / "json.html").write_text(stdlib_page("json"), encoding="utf-8")
    return root
