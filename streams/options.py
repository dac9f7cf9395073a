"""Command-line options of the processor (``python -m dedup_filter.streams``).

This module imports no Kafka client, so the core's command line can build its parser from it.
Precedence: built-in defaults < the TOML file (``[stream]``, ``[stream.kafka]``, ``[dedup.*]``)
< the environment (``KAFKA_BOOTSTRAP_SERVERS``) < ``--set`` < flags (``--kafka-option`` too).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from dedup_filter import Config, ConfigError
from dedup_filter.config import parse_override

from .config import StreamConfig, load_stream_config

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
BOOTSTRAP_ENVIRONMENT = "KAFKA_BOOTSTRAP_SERVERS"
KAFKA_PREFIX = "kafka."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="TOML",
        help="configuration file: its [stream] and [dedup.*] tables (default: built-in defaults)",
    )
    parser.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help='override one key, TOML value syntax: stream.group_id="g2" or '
        "simhash.bits=256; repeatable",
    )
    parser.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT[,HOST:PORT]",
        help=f"Kafka brokers (default: ${BOOTSTRAP_ENVIRONMENT}, else stream.bootstrap_servers)",
    )
    parser.add_argument(
        "--kafka-option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="kafka_options",
        help="a kafka-python client setting, TOML value syntax: security_protocol=SASL_SSL "
        "(as in [stream.kafka]); repeatable",
    )
    parser.add_argument("--group-id", metavar="NAME", help="consumer group (stream.group_id)")
    parser.add_argument("--index", metavar="DIR", help="LMDB index directory (stream.index_dir)")
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="processes that prepare pages (stream.workers; 1: the processor's own)",
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        metavar="PORT",
        help="serve Prometheus metrics on this port (stream.metrics_port; 0: off)",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="INFO",
        help="log level (default INFO: start, stop, rebalances, a summary line a minute)",
    )


def configs_from_args(args: argparse.Namespace) -> tuple[StreamConfig, Config]:
    """Both configurations, with ``--set`` and the named flags applied.

    Raises:
        ConfigError: the file or an override is invalid; the message names the key.
    """
    stream_config, config = load_stream_config(args.config)
    stream_overrides: dict[str, Any] = {}
    core_overrides: dict[str, Any] = {}
    kafka_settings = dict(stream_config.kafka)
    if os.environ.get(BOOTSTRAP_ENVIRONMENT):
        stream_overrides["bootstrap_servers"] = os.environ[BOOTSTRAP_ENVIRONMENT]
    for item in args.overrides:
        key, value = parse_override(item)
        if key.startswith("stream." + KAFKA_PREFIX):
            kafka_settings[key.removeprefix("stream." + KAFKA_PREFIX)] = value
        elif key == "stream.kafka":  # an inline table: --set 'stream.kafka={linger_ms=20}'
            kafka_settings |= stream_config.with_overrides({"kafka": value}).kafka
        elif key.startswith("stream."):
            stream_overrides[key.removeprefix("stream.")] = value
        else:
            core_overrides[key] = value
    for item in args.kafka_options:
        if "=" not in item:
            msg = f"--kafka-option {item!r}: expected KEY=VALUE, e.g. security_protocol=SSL"
            raise ConfigError(msg)
        key, value = parse_override(item)
        kafka_settings[key.removeprefix("stream." + KAFKA_PREFIX)] = value
    stream_overrides["kafka"] = kafka_settings
    flags = {
        "bootstrap_servers": args.bootstrap_servers,
        "group_id": args.group_id,
        "index_dir": args.index,
        "metrics_port": args.metrics_port,
        "workers": args.workers,
    }
    stream_overrides |= {key: value for key, value in flags.items() if value is not None}
    if core_overrides:
        config = config.with_overrides(core_overrides)
    return stream_config.with_overrides(stream_overrides), config
