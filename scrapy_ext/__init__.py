"""dedup-filter for Scrapy: a downloader middleware, a scheduler dupefilter and an add-on.

    ADDONS = {"scrapy_ext.DedupAddon": 0}

or, component by component::

    DOWNLOADER_MIDDLEWARES = {"scrapy_ext.DedupMiddleware": 540}
    DUPEFILTER_CLASS = "scrapy_ext.DedupDupeFilter"
"""

from __future__ import annotations

from .addon import DedupAddon
from .dupefilter import DedupDupeFilter
from .middleware import DedupMiddleware

__all__ = ["DedupAddon", "DedupDupeFilter", "DedupMiddleware"]
