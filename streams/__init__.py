"""The Kafka stream processor: pages and frontier URLs through the duplicate filter, at-least-once.

Run it with ``python -m dedup_filter.streams`` or ``dedup-filter stream``;
``dedup_filter.streams.service.serve`` runs it in-process. This package imports kafka-python
only in the modules that talk to a broker.
"""

from __future__ import annotations

from .config import StreamConfig, load_stream_config

__all__ = ["StreamConfig", "load_stream_config"]
