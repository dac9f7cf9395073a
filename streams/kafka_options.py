"""The ``[stream.kafka]`` table (and ``--kafka-option``): kafka-python settings passed through.

Security protocols, SASL, SSL and client tuning need no key of their own: every setting that
kafka-python's ``KafkaConsumer`` or ``KafkaProducer`` accepts may be given and goes to the client
(or both clients) that accepts it, overriding the processor's own choice. Checked at start-up, so
a typo stops the processor with exit code 2 and the dotted key instead of a kafka-python error
later. Refused: settings that have a ``[stream]`` key of their own, those the processor's
at-least-once delivery depends on, and those whose value is a Python object (a file cannot
hold one).
"""

from __future__ import annotations

from typing import Any

from kafka import KafkaConsumer, KafkaProducer
from kafka.conn import BrokerConnection
from kafka.sasl import SASL_MECHANISMS

from dedup_filter.config import require

from .config import StreamConfig

_STREAM_KEY = "use stream.{name}"
_REFUSED = {
    "bootstrap_servers": _STREAM_KEY,
    "client_id": _STREAM_KEY,
    "group_id": _STREAM_KEY,
    "auto_offset_reset": _STREAM_KEY,
    "max_poll_records": _STREAM_KEY,
    "session_timeout_ms": _STREAM_KEY,
    "enable_auto_commit": "the processor commits offsets itself, once its outputs are acknowledged",
    "acks": "every output waits for all in-sync replicas (at-least-once delivery)",
    "transactional_id": "the processor does not use transactions",
    "key_deserializer": "records are handled as bytes",
    "value_deserializer": "records are handled as bytes",
    "key_serializer": "records are handled as bytes",
    "value_serializer": "records are handled as bytes",
    "ssl_context": "a Python object: use ssl_cafile, ssl_certfile, ssl_keyfile and ssl_password",
    "sasl_oauth_token_provider": "a Python object; not settable from a configuration file",
}
_CHOICES = {
    "security_protocol": BrokerConnection.SECURITY_PROTOCOLS,
    "sasl_mechanism": tuple(SASL_MECHANISMS),
    "compression_type": ("gzip", "snappy", "lz4", "zstd"),
}
_PLAIN = (bool, int, float, str)


def client_options(config: StreamConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """The settings of ``config.kafka`` for the consumer and for the producer.

    Raises:
        ConfigError: a setting kafka-python does not know, one the processor owns, or a value of
            the wrong type; the message names ``stream.kafka.<setting>``.
    """
    consumer: dict[str, Any] = {}
    producer: dict[str, Any] = {}
    for name, value in config.kafka.items():
        checked = _checked(name, value)
        if name in KafkaConsumer.DEFAULT_CONFIG:
            consumer[name] = checked
        if name in KafkaProducer.DEFAULT_CONFIG:
            producer[name] = checked
    return consumer, producer


def _checked(name: str, value: Any) -> Any:
    key = f"stream.kafka.{name}"
    defaults = KafkaConsumer.DEFAULT_CONFIG | KafkaProducer.DEFAULT_CONFIG
    require(name in defaults, key, "not a kafka-python consumer or producer setting")
    refused = _REFUSED.get(name)
    require(refused is None, key, (refused or "").format(name=name))
    default = defaults[name]
    if name == "api_version":  # "2.8.0" or [2, 8, 0]; kafka-python wants a tuple of ints
        parts = value.split(".") if isinstance(value, str) else value
        numbers = isinstance(parts, list) and all(str(part).isdigit() for part in parts)
        require(numbers and bool(parts), key, 'must be a version such as "2.8.0"')
        return tuple(int(part) for part in parts)
    if default is None:
        require(isinstance(value, _PLAIN), key, "must be a string, a number or a boolean")
    else:
        require(isinstance(default, _PLAIN), key, "a Python object; not settable from a file")
        _require_type(key, default, value)
    choices = _CHOICES.get(name)
    require(choices is None or value in choices, key, f"must be one of {choices}")
    return value


def _require_type(key: str, default: Any, value: Any) -> None:
    """``value`` of the type of kafka-python's default (any number where that is a float)."""
    if isinstance(default, (bool, str)):
        require(type(value) is type(default), key, f"must be a {type(default).__name__}")
        return
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    require(numeric, key, "must be a number")
    require(isinstance(default, float) or isinstance(value, int), key, "must be an integer")
