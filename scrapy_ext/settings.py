"""The ``DEDUP_*`` Scrapy settings, read once per crawler into a frozen ``DedupSettings``.

Every mistake a user can make here fails when the crawler is built, with the setting (and, for
parameters of the core, the dotted key) in the message; a typo never falls back to a default.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy.utils.project import data_path

from dedup_filter import Config, ConfigError

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

DEFAULTS: dict[str, Any] = {
    # the component that reads them is the opt-in; this switches them off (e.g. -s DEDUP_ENABLED=0)
    "DEDUP_ENABLED": True,
    # relative paths (index and decision log) live in the project's .scrapy/ data dir, like
    # HTTPCACHE_DIR
    "DEDUP_INDEX_PATH": "dedup-index",
    "DEDUP_CONFIG": None,
    "DEDUP_OVERRIDES": {},
    "DEDUP_DECISION_LOG": None,
    # probe responses kept for the spider's own later request of the same URL (a probe of an
    # origin's page may come thousands of requests before the crawl's own: at 256, 48-56 pages
    # of the evaluation web were fetched twice; about 16 kB each for documentation pages)
    "DEDUP_PROBE_CACHE_SIZE": 2048,
    # processes that prepare pages (parse, terms, hashes) on other cores; 0: the index's thread
    "DEDUP_PREPARE_PROCESSES": 1,
    # times a URL whose mirror counterpart is not known yet goes back to the scheduler, behind
    # other work, before it is fetched anyway (a fetch never costs content; a drop might)
    "DEDUP_MAX_DEFERRALS": 5,
    # how far a directory's index page moves ahead of the requests queued with it: listings pair
    # mirrors, so met first, a mirror is sampled and ruled before the documents it would prune
    # are fetched (a crawl in random order met them late: on the holdout evaluation web a host
    # copy was ruled after 72 % of the crawl); 0 keeps the crawl's own order
    "DEDUP_INDEX_PRIORITY": 1000,
}


@dataclass(frozen=True, slots=True)
class DedupSettings:
    """What a crawl needs from the ``DEDUP_*`` settings."""

    index_path: Path
    config: Config
    decision_log: Path | None
    probe_cache_size: int
    prepare_processes: int
    max_deferrals: int
    index_priority: int


def is_enabled(settings: BaseSettings) -> bool:
    return settings.getbool("DEDUP_ENABLED", DEFAULTS["DEDUP_ENABLED"])


def read_settings(settings: BaseSettings) -> DedupSettings:
    """Resolve paths and build the core's ``Config`` (TOML file, then ``DEDUP_OVERRIDES``).

    Raises:
        ConfigError: a setting or a configuration key is invalid; the message names it.
    """
    index_path = settings.get("DEDUP_INDEX_PATH") or DEFAULTS["DEDUP_INDEX_PATH"]
    decision_log = settings.get("DEDUP_DECISION_LOG")
    return DedupSettings(
        index_path=_in_data_dir(index_path),
        config=_config(settings),
        decision_log=_in_data_dir(decision_log) if decision_log else None,
        probe_cache_size=_count(settings, "DEDUP_PROBE_CACHE_SIZE"),
        prepare_processes=_count(settings, "DEDUP_PREPARE_PROCESSES"),
        max_deferrals=_count(settings, "DEDUP_MAX_DEFERRALS"),
        index_priority=_count(settings, "DEDUP_INDEX_PRIORITY"),
    )


def _in_data_dir(path: str) -> Path:
    """``path`` under the project's data dir (Scrapy's ``data_path``). Scrapy creates that dir
    after finding it absent, so of two crawls started at once in a new project, both may find it
    absent and one fails to create it (``FileExistsError``; it happened in CI): asked again, the
    dir exists."""
    try:
        return Path(data_path(path))
    except FileExistsError:
        return Path(data_path(path))


def _config(settings: BaseSettings) -> Config:
    path = settings.get("DEDUP_CONFIG")
    try:
        config = Config.load(path) if path else Config.default()
    except OSError as error:
        msg = f"DEDUP_CONFIG: cannot read {path}: {error.strerror or error}"
        raise ConfigError(msg) from error
    overrides = _overrides(settings)
    try:
        return config.with_overrides(overrides)
    except ConfigError as error:
        msg = f"DEDUP_OVERRIDES: {error}"
        raise ConfigError(msg) from error


def _overrides(settings: BaseSettings) -> dict[str, Any]:
    raw = settings.get("DEDUP_OVERRIDES") or {}
    try:
        overrides = json.loads(raw) if isinstance(raw, str) else dict(raw)
    except (ValueError, TypeError) as error:
        example = '{"mirror.samples": 2}'
        msg = f"DEDUP_OVERRIDES: expected a dict of dotted keys, e.g. {example}: {error}"
        raise ConfigError(msg) from error
    if not isinstance(overrides, dict):
        msg = f"DEDUP_OVERRIDES: expected a dict of dotted keys, got {type(overrides).__name__}"
        raise ConfigError(msg)
    return overrides


def _count(settings: BaseSettings, name: str) -> int:
    raw = settings.get(name, DEFAULTS[name])
    try:
        count = int(raw)
    except (TypeError, ValueError):
        count = -1
    if count < 0:
        msg = f"{name}: expected an integer >= 0, got {raw!r}"
        raise ConfigError(msg)
    return count
