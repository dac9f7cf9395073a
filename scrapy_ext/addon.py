"""A Scrapy add-on: one ``ADDONS`` entry turns the whole filter on.

    ADDONS = {"dedup_filter.scrapy.DedupAddon": 0}

It places the middleware at 540 (unless the project placed it already) and installs the
dupefilter when the project still uses Scrapy's default one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.misc import load_object

from .dupefilter import DedupDupeFilter
from .middleware import DedupMiddleware

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

MIDDLEWARE_PRIORITY = 540


class DedupAddon:
    """Enables ``DedupMiddleware`` and ``DedupDupeFilter``."""

    def update_settings(self, settings: BaseSettings) -> None:
        settings.setdefault_in_component_priority_dict(
            "DOWNLOADER_MIDDLEWARES", DedupMiddleware, MIDDLEWARE_PRIORITY
        )
        current = load_object(settings["DUPEFILTER_CLASS"])
        if current is RFPDupeFilter:
            settings.set("DUPEFILTER_CLASS", DedupDupeFilter, priority="addon")
        elif not issubclass(current, DedupDupeFilter):
            logger.warning(
                "dedup: DUPEFILTER_CLASS is %s; mirror rules prune URLs at fetch time only",
                settings["DUPEFILTER_CLASS"],
            )
