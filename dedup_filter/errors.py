"""Errors the core raises on purpose.

Expected outcomes (a duplicate, a tiny page, a mirror) are ``Decision`` values, never exceptions::

    DedupError                      base of everything below
    ├── ConfigError (ValueError)    a bad or unknown configuration key, named with its dotted path
    └── IndexStoreError             the LMDB index failed (path and operation in the message)
        ├── IndexFullError          the map could not grow within ``dedup.index.max_map_size_mb``
        └── IndexMismatchError      the index was built with other feature parameters
"""

from __future__ import annotations


class DedupError(Exception):
    """Base class of the errors dedup-filter raises on purpose."""


class ConfigError(DedupError, ValueError):
    """A configuration key is unknown or its value is invalid."""


class IndexStoreError(DedupError):
    """The LMDB index could not be opened, read or written."""


class IndexFullError(IndexStoreError):
    """The LMDB map is full and may not grow any further."""


class IndexMismatchError(IndexStoreError):
    """The index on disk was built with feature parameters other than the current ones."""
