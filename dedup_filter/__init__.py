"""dedup-filter: a crawler-side filter for mirrored directories, exact and near-duplicate pages."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .config import Config
from .decision import Decision
from .errors import ConfigError, DedupError, IndexFullError, IndexMismatchError, IndexStoreError
from .filter import DedupFilter

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
