"""The stream processor's settings: the ``[stream]`` table of the same TOML file as the core's.

Unknown keys and invalid values fail at start-up with the dotted key (``stream.poll_timeout_ms``),
so a typo never falls back to a default. The core's ``[dedup.*]`` tables are read by the core;
``[stream.kafka]`` holds kafka-python settings, checked against kafka-python by ``kafka_options``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from dedup_filter import Config, ConfigError
from dedup_filter.config import coerce_value, require

OFFSET_RESETS = ("earliest", "latest")
MAX_WORKERS = 64


def _require(condition: bool, key: str, problem: str) -> None:
    require(condition, f"stream.{key}", problem)


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamConfig:
    """Broker, topics, batching and retry of the processor. An empty topic name disables it."""

    bootstrap_servers: tuple[str, ...] = ("127.0.0.1:9092",)
    group_id: str = "dedup-filter"
    client_id: str = "dedup-filter"
    index_dir: str = "dedup-index"
    pages_in: str = "pages"
    pages_keep: str = "pages.keep"
    verdicts: str = "pages.verdicts"
    urls_in: str = "urls"
    urls_keep: str = "urls.keep"
    probes: str = "urls.probes"
    dead_letters: str = "dedup.dead-letters"
    tolerant: bool = True
    url_dedup_cache_size: int = 0
    followed_links_memory: int = 100_000
    deferred_max_age_s: float = 600.0
    auto_offset_reset: str = "earliest"
    poll_timeout_ms: int = 500
    max_poll_records: int = 500
    max_message_bytes: int = 1_000_000
    workers: int = 1
    worker_timeout_s: float = 60.0
    flush_timeout_s: float = 30.0
    session_timeout_ms: int = 10_000
    retry_backoff_s: float = 0.5
    max_retry_backoff_s: float = 30.0
    metrics_port: int = 0
    metrics_address: str = "127.0.0.1"
    log_interval_s: float = 60.0
    connect_timeout_s: float = 60.0
    # kafka-python settings passed through to the clients (security, SASL, SSL, tuning): checked
    # against what kafka-python accepts when the clients are built (``kafka_options``)
    kafka: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _require(
            bool(self.bootstrap_servers), "bootstrap_servers", "must name at least one host:port"
        )
        _require(
            all(":" in server for server in self.bootstrap_servers),
            "bootstrap_servers",
            "every entry must be host:port",
        )
        _require(bool(self.group_id), "group_id", "must not be empty")
        _require(bool(self.pages_in or self.urls_in), "pages_in", "pages_in or urls_in must be set")
        _require(
            self.auto_offset_reset in OFFSET_RESETS,
            "auto_offset_reset",
            f"must be one of {OFFSET_RESETS}",
        )
        _require(self.url_dedup_cache_size >= 0, "url_dedup_cache_size", "must be >= 0 (0: off)")
        _require(self.followed_links_memory >= 0, "followed_links_memory", "must be >= 0 (0: off)")
        _require(self.deferred_max_age_s >= 0, "deferred_max_age_s", "must be >= 0")
        _require(self.poll_timeout_ms >= 1, "poll_timeout_ms", "must be >= 1")
        _require(self.max_poll_records >= 1, "max_poll_records", "must be >= 1")
        _require(self.max_message_bytes >= 1024, "max_message_bytes", "must be >= 1024")
        _require(1 <= self.workers <= MAX_WORKERS, "workers", f"must lie in 1..{MAX_WORKERS}")
        _require(self.worker_timeout_s > 0, "worker_timeout_s", "must be > 0")
        _require(self.flush_timeout_s > 0, "flush_timeout_s", "must be > 0")
        _require(self.session_timeout_ms >= 1000, "session_timeout_ms", "must be >= 1000")
        _require(self.retry_backoff_s > 0, "retry_backoff_s", "must be > 0")
        _require(
            self.max_retry_backoff_s >= self.retry_backoff_s,
            "max_retry_backoff_s",
            "must be >= stream.retry_backoff_s",
        )
        _require(0 <= self.metrics_port <= 65535, "metrics_port", "must lie in 0..65535 (0: off)")
        _require(self.log_interval_s > 0, "log_interval_s", "must be > 0")
        _require(self.connect_timeout_s >= 0, "connect_timeout_s", "must be >= 0 (0: wait forever)")

    @property
    def input_topics(self) -> tuple[str, ...]:
        return tuple(topic for topic in (self.pages_in, self.urls_in) if topic)

    @classmethod
    def from_dict(cls, table: dict[str, Any]) -> StreamConfig:
        """Build from a mapping shaped like the ``[stream]`` table (unknown keys fail)."""
        _require(isinstance(table, dict), "", "must be a table")
        return cls(**{key: _checked(key, value) for key, value in table.items()})

    def with_overrides(self, overrides: dict[str, Any]) -> StreamConfig:
        """A copy with keys replaced, e.g. ``{"group_id": "g2"}``, validated as in ``from_dict``."""
        return replace(self, **{key: _checked(key, value) for key, value in overrides.items()})


_FIELDS = {spec.name: spec for spec in fields(StreamConfig)}


def _checked(key: str, value: Any) -> Any:
    """``value`` converted to the type of the field's default, or ``ConfigError`` naming the key."""
    _require(key in _FIELDS, key, f"unknown key (known: {sorted(_FIELDS)})")
    if key == "kafka":
        return _kafka_table(value)
    default = _FIELDS[key].default
    if isinstance(default, tuple) and isinstance(value, str):  # a CLI flag: comma-separated
        value = [part.strip() for part in value.split(",") if part.strip()]
    return coerce_value(f"stream.{key}", default, value)


def _kafka_table(table: Any) -> dict[str, Any]:
    """``[stream.kafka]``: setting names to plain values (``kafka_options`` checks the rest)."""
    _require(isinstance(table, dict), "kafka", "must be a table of kafka-python settings")
    for name, value in table.items():
        _require(
            not isinstance(value, dict),
            f"kafka.{name}",
            "must be a value, not a table (kafka-python settings are flat)",
        )
    return dict(table)


def load_stream_config(path: str | Path | None) -> tuple[StreamConfig, Config]:
    """The ``[stream]`` and ``[dedup.*]`` tables of one TOML file (defaults if ``path`` is None).

    Raises:
        ConfigError: the file cannot be read, is not TOML, or holds an unknown or invalid key.
    """
    if path is None:
        return StreamConfig(), Config.default()
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        msg = f"{path}: cannot read the configuration file: {error.strerror}"
        raise ConfigError(msg) from error
    except tomllib.TOMLDecodeError as error:
        msg = f"{path}: not valid TOML: {error}"
        raise ConfigError(msg) from error
    return StreamConfig.from_dict(document.get("stream", {})), Config.from_dict(
        document.get("dedup", {})
    )
