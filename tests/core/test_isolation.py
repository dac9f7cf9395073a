"""A failure is pinned on the input that causes it; the index's own failures stop the batch."""

from __future__ import annotations

import pytest

from dedup_filter import Config, IndexStoreError
from dedup_filter.index.lmdb_index import LmdbIndex
from dedup_filter.isolation import Failed, guarded, isolated


@pytest.fixture
def index(tmp_path):
    with_index = LmdbIndex.open(tmp_path / "index", Config.default())
    yield with_index
    with_index.close()


def writer(index):
    """Each item written under its own key in one transaction; ``bad`` raises half way."""

    def write(items):
        def work(view):
            for item in items:
                if item == "bad":
                    msg = "a bad item"
                    raise ValueError(msg)
                view.put("meta", f"test-{item}".encode(), b"1")
            return [f"wrote {item}" for item in items]

        return index.transact(work)

    return write


def test_a_failing_batch_is_redone_item_by_item_and_only_the_bad_item_fails(index):
    results = isolated(["a", "bad", "b"], writer(index), (IndexStoreError,))
    assert results[0::2] == ["wrote a", "wrote b"]
    assert results[1] == Failed("cannot handle it: ValueError: a bad item")
    with index.read() as view:
        assert [view.get("meta", f"test-{key}".encode()) for key in ("a", "bad", "b")] == [
            b"1",
            None,
            b"1",
        ]


def test_a_batch_failure_propagates_and_nothing_is_written(index):
    index.close()
    with pytest.raises(IndexStoreError):
        isolated(["a", "b"], writer(index), (IndexStoreError,))


def test_guarded_returns_the_failure_of_one_input():
    assert guarded(lambda: 1 / 0) == Failed("cannot handle it: ZeroDivisionError: division by zero")
    with pytest.raises(ZeroDivisionError):
        guarded(lambda: 1 / 0, (ZeroDivisionError,))
