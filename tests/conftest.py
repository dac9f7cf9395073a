"""Shared fixtures: real HTML rendered offline by pydoc, and real LMDB indexes in ``tmp_path``."""

from __future__ import annotations

import functools
import importlib
import os
import pydoc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.index.lmdb_index import SAMPLE_KEY_VARIABLE, LmdbIndex

# every index the tests make, in this process or a crawl's, draws its mirror samples in the plain
# hash order: scenarios stay reproducible (tests/mirrors/test_sample_key.py tests the secret order)
os.environ.setdefault(SAMPLE_KEY_VARIABLE, "0")

# stdlib modules whose pydoc pages are a few hundred to a few thousand tokens each
CORPUS_MODULES = (
    "bisect",
    "calendar",
    "colorsys",
    "csv",
    "difflib",
    "fnmatch",
    "glob",
    "heapq",
    "json",
    "keyword",
    "shlex",
    "string",
    "textwrap",
    "uuid",
    "wave",
    "zipimport",
)


@functools.cache
def _pydoc_html(module_name: str) -> str:
    renderer = pydoc.HTMLDoc()
    module = importlib.import_module(module_name)
    return renderer.page(f"Python: module {module_name}", renderer.docmodule(module))


@pytest.fixture(scope="session")
def stdlib_page() -> Callable[[str], str]:
    """The pydoc HTML page of a standard-library module (real text, rendered offline)."""
    return _pydoc_html


@pytest.fixture(scope="session")
def corpus() -> dict[str, str]:
    """Module name -> pydoc HTML for every module of ``CORPUS_MODULES``."""
    return {name: _pydoc_html(name) for name in CORPUS_MODULES}


@pytest.fixture
def config() -> Config:
    return Config.default()


@pytest.fixture
def tmp_index(tmp_path: Path, config: Config) -> Iterator[LmdbIndex]:
    """A fresh LMDB index under the default configuration, closed after the test."""
    index = LmdbIndex.open(tmp_path / "index", config)
    yield index
    index.close()


@pytest.fixture
def dedup(tmp_path: Path, config: Config) -> Iterator[DedupFilter]:
    """A DedupFilter over a fresh LMDB index, closed after the test."""
    with DedupFilter.open(tmp_path / "dedup-index", config) as dedup_filter:
        yield dedup_filter
