"""dedup-filter: a crawler-side filter for mirrored directories, exact and near-duplicate pages."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from dedup_filter.config import Config
from dedup_filter.decision import Decision
from dedup_filter.errors import (
    ConfigError,
    DedupError,
    IndexFullError,
    IndexMismatchError,
    IndexStoreError,
)
from dedup_filter.filter import DedupFilter

try:
    __version__ = version("dedup-filter")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "Config",
    "ConfigError",
    "Decision",
    "DedupError",
    "DedupFilter",
    "IndexFullError",
    "IndexMismatchError",
    "IndexStoreError",
    "__version__",
]
