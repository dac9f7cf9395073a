"""The test-web project's settings: Scrapy defaults plus the snippet of docs/scrapy.md."""

from __future__ import annotations

BOT_NAME = "testweb"
SPIDER_MODULES = ["testweb.scrapy_project.spider"]
ROBOTSTXT_OBEY = False  # the test web has no robots.txt; the server's request log stays page-only
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"

# breadth-first, the order the mirror detector is measured in (Scrapy's "BFO" recipe)
DEPTH_PRIORITY = 1
SCHEDULER_DISK_QUEUE = "scrapy.squeues.PickleFifoDiskQueue"
SCHEDULER_MEMORY_QUEUE = "scrapy.squeues.FifoMemoryQueue"

# --- dedup-filter (docs/scrapy.md) ---
DOWNLOADER_MIDDLEWARES = {"dedup_filter.scrapy.DedupMiddleware": 540}
DUPEFILTER_CLASS = "dedup_filter.scrapy.DedupDupeFilter"
DEDUP_ENABLED = True  # -s DEDUP_ENABLED=0 crawls without the filter
DEDUP_INDEX_PATH = "dedup-index"  # under .scrapy/, like HTTPCACHE_DIR
DEDUP_CONFIG = None  # a TOML file with [dedup.*] tables; None: the embedded defaults
DEDUP_OVERRIDES: dict[str, object] = {}  # e.g. {"mirror.samples": 4}
DEDUP_DECISION_LOG = None  # a JSON-lines file (under .scrapy/): one time-stamped line per decision
DEDUP_PREPARE_PROCESSES = 1  # processes that decide and prepare pages; 0: a thread of the crawl's
