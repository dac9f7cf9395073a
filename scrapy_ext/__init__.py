"""dedup-filter for Scrapy: a downloader middleware, a scheduler dupefilter and an add-on.

    ADDONS = {"dedup_filter.scrapy.DedupAddon": 0}

or, component by component::

    DOWNLOADER_MIDDLEWARES = {"dedup_filter.scrapy.DedupMiddleware": 540}
    DUPEFILTER_CLASS = "dedup_filter.scrapy.DedupDupeFilter"

A dropped request reaches its errback as a ``DedupIgnoreRequest`` (an ``IgnoreRequest``) carrying
the ``Decision``.

The components are imported on first use (PEP 562), so a process that prepares pages imports
``dedup_filter.scrapy.preparation`` without Scrapy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .addon import DedupAddon
    from .dupefilter import DedupDupeFilter
    from .exceptions import DedupIgnoreRequest
    from .middleware import DedupMiddleware

__all__ = ["DedupAddon", "DedupDupeFilter", "DedupIgnoreRequest", "DedupMiddleware"]

_MODULES = {
    "DedupAddon": "addon",
    "DedupDupeFilter": "dupefilter",
    "DedupIgnoreRequest": "exceptions",
    "DedupMiddleware": "middleware",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f".{_MODULES[name]}", __name__), name)
