"""The public names: ``__all__`` is sorted, complete and importable, and the fixed names exist."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ("dedup_filter", "dedup_filter.scrapy", "dedup_filter.streams")


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_and_unique(package):
    names = importlib.import_module(package).__all__
    assert names == sorted(set(names))


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_is_importable(package):
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_every_public_class_and_function_defined_in_the_package(package):
    module = importlib.import_module(package)
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and getattr(value, "__module__", "").startswith(package)
        and callable(value)
    }
    assert sorted(public - set(module.__all__)) == []


def test_fixed_names_of_the_core():
    from dedup_filter import Config, Decision, DedupFilter

    assert callable(DedupFilter.open)
    assert callable(Config.load)
    assert callable(Config.default)
    assert {"check_page", "check_pages", "check_url", "close"} <= set(dir(DedupFilter))
    fields = {"action", "reason", "duplicate_of", "evidence", "probes", "to_json"}
    assert fields <= set(dir(Decision))


def test_version_is_a_string():
    import dedup_filter

    assert isinstance(dedup_filter.__version__, str)
    assert dedup_filter.__version__.count(".") >= 2
