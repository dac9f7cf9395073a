"""dedup-filter for Scrapy: a downloader middleware, a scheduler dupefilter and an add-on.

    ADDONS = {"dedup_filter.scrapy.DedupAddon": 0}

or, component by component::

    DOWNLOADER_MIDDLEWARES = {"dedup_filter.scrapy.DedupMiddleware": 540}
    DUPEFILTER_CLASS = "dedup_filter.scrapy.DedupDupeFilter"

A dropped request reaches its errback as a ``DedupIgnoreRequest`` (an ``IgnoreRequest``) carrying
the ``Decision``.
"""

from __future__ import annotations

from .addon import DedupAddon
from .dupefilter import DedupDupeFilter
from .exceptions import DedupIgnoreRequest
from .middleware import DedupMiddleware

__all__ = ["DedupAddon", "DedupDupeFilter", "DedupIgnoreRequest", "DedupMiddleware"]
