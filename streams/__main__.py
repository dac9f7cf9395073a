"""``python -m dedup_filter.streams`` (``dedup-filter stream``): the stream processor as a service.

SIGTERM and SIGINT set a stop event: the batch in hand is finished and committed, then the clients,
the worker processes and the index are closed. Exit codes: 0 clean stop, 1 fatal error (index,
broker or a worker process; a broker unreachable for ``stream.connect_timeout_s`` at start-up),
2 bad configuration.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence

from dedup_filter import ConfigError, DedupError, IndexMismatchError

from .options import add_arguments, configs_from_args

logger = logging.getLogger("dedup_filter.streams")

MISSING_EXTRA = "the stream processor needs kafka-python: pip install 'dedup-filter[kafka]'"


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Kafka stream processor: pages and frontier URLs through the duplicate filter.",
    )
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run until SIGTERM/SIGINT; the exit code."""
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger().setLevel(args.log_level)
    logging.getLogger("kafka").setLevel(max(logging.WARNING, logging.getLogger().level))
    try:
        stream_config, config = configs_from_args(args)
    except ConfigError as error:
        print(f"configuration error: {error}", file=sys.stderr)
        return 2
    # kafka-python is imported only once the configuration is known good
    try:
        from kafka.errors import KafkaError
    except ImportError:
        print(MISSING_EXTRA, file=sys.stderr)
        return 2

    from .delivery import DeliveryError
    from .service import BrokerUnreachableError, serve
    from .workers import WorkerPoolError

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda received, frame: stop.set())
    try:
        serve(stream_config, config, stop)
    except (ConfigError, IndexMismatchError) as error:
        print(f"configuration error: {error}", file=sys.stderr)
        return 2
    except BrokerUnreachableError as error:
        logger.error("%s", error)  # one line, no traceback: the message says why
        return 1
    except (DedupError, DeliveryError, KafkaError, WorkerPoolError, OSError) as error:
        logger.exception("stopping on a fatal error: %s", error)
        return 1
    return 0


def main(argv: Sequence[str] | None = None, prog: str = "python -m dedup_filter.streams") -> int:
    return run(build_parser(prog).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
