"""Seeded hostile input (``testweb.hostile``) and the real pages whose bytes it flips."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import pytest

REAL_MODULES = ("bisect", "fnmatch", "glob", "heapq", "shlex", "textwrap")  # 4 to 15 KB each
SEED = 10
T = TypeVar("T")


@pytest.fixture(scope="session")
def real_pages(stdlib_page: Callable[[str], str]) -> list[bytes]:
    return [stdlib_page(name).encode() for name in REAL_MODULES]


def batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Lists of up to ``size`` items (``itertools.batched`` is Python 3.12)."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
