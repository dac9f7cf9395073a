"""A loopback HTTP server for a test web: an HTTP proxy for ``*.test`` hosts and a plain server.

A proxy client (``http_proxy=http://127.0.0.1:PORT``, honoured by Scrapy) sends absolute-URI
requests; a direct client sends the path with a ``Host`` header. Either way the server answers from
the web's pages and assets, 301 where the web redirects a URL, 404 for anything else (200 with
its "not found" page on a host the web says answers soft 404s; a query-blind web answers a URL
with a query it has no page for with its path's page), gzip when
the client accepts it, and records every request (method, URL, status, body bytes sent) in a
thread-safe log: tests read the log to know exactly what a crawler fetched. A response the client
hung up on before it was written (a crawler cancelling its downloads as it pauses) is marked
undelivered: the crawler never got it.

Run it as a process for subprocess crawls (it stops on SIGTERM or SIGINT)::

    python -m testweb.server --seed 0 --scale small --port-file PATH --log PATH
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .site import page_served

if TYPE_CHECKING:
    from .site import TestWeb

_HTML = "text/html; charset=utf-8"
_PLAIN = "text/plain; charset=utf-8"
_NOT_FOUND = (
    b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n"
    b"<body><h1>Not Found</h1></body></html>\n"
)
_MOVED = (
    b"<!DOCTYPE html>\n<html><head><title>301 Moved Permanently</title></head>\n"
    b"<body><h1>Moved Permanently</h1></body></html>\n"
)


@dataclass(frozen=True, slots=True)
class LoggedRequest:
    method: str
    url: str
    status: int
    bytes_sent: int  # body bytes on the wire (after gzip)
    gzip: bool
    time: float  # seconds since the epoch
    delivered: bool = True  # False: the client hung up before the response was written

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


class RequestLog:
    """Every request the server answered, in order; safe to read while the server runs."""

    def __init__(self, sink: Callable[[LoggedRequest], None] | None = None) -> None:
        self._entries: list[LoggedRequest] = []
        self._lock = threading.Lock()
        self._sink = sink

    def append(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._entries.append(entry)
            if self._sink is not None:
                self._sink(entry)

    def mark_undelivered(self, entry: LoggedRequest) -> None:
        """``entry``'s response never reached its client (the file sink keeps the request)."""
        with self._lock:
            for position in range(len(self._entries) - 1, -1, -1):
                if self._entries[position] is entry:
                    self._entries[position] = replace(entry, delivered=False)
                    return

    def entries(self) -> list[LoggedRequest]:
        with self._lock:
            return list(self._entries)

    def urls(self, status: int | None = None, method: str = "GET") -> list[str]:
        """Requested URLs in order, optionally only those answered with ``status``."""
        return [e.url for e in self.entries() if e.method == method and status in (None, e.status)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def fetched_again(entries: Iterable[LoggedRequest], status: int | None = None) -> dict[str, int]:
    """The URLs whose response was delivered more than once (only those answered ``status``,
    if given), with how many times."""
    delivered = Counter(
        entry.url for entry in entries if entry.delivered and status in (None, entry.status)
    )
    return {url: count for url, count in delivered.items() if count > 1}


class _WebServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops connects from a crawler's 16 parallel requests

    def __init__(self, address: tuple[str, int], web: TestWeb, log: RequestLog) -> None:
        super().__init__(address, _Handler)
        self.web = web
        self.request_log = log


class _Handler(BaseHTTPRequestHandler):
    server: _WebServer
    protocol_version = "HTTP/1.1"
    # headers and body leave in two writes; with Nagle on, every keep-alive response stalls ~40 ms
    disable_nagle_algorithm = True

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def log_message(self, format: str, *args: object) -> None:
        """Silent: the request log is the record."""

    def _answer(self, send_body: bool) -> None:
        url = self._requested_url()
        status, content_type, body, location = self._lookup(url)
        compressed = "gzip" in _accepted_codings(self.headers.get("Accept-Encoding", ""))
        if compressed:
            body = gzip.compress(body, mtime=0)
        sent = len(body) if send_body else 0
        # logged before the response leaves, so a client that has its response finds it logged
        entry = LoggedRequest(self.command, url, status, sent, compressed, time.time())
        self.server.request_log.append(entry)
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Vary", "Accept-Encoding")
            if location is not None:
                self.send_header("Location", location)
            if compressed:
                self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            if send_body:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.server.request_log.mark_undelivered(entry)

    def _requested_url(self) -> str:
        """The absolute URL: as sent to a proxy, or rebuilt from the Host header."""
        target = self.path
        if "://" not in target:
            target = f"http://{self.headers.get('Host', '')}{target}"
        try:
            parts = urlsplit(target)
            host = (parts.hostname or "").lower()
            port = parts.port
        except ValueError:
            return target
        authority = host if port in (None, 80) else f"{host}:{port}"
        query = f"?{parts.query}" if parts.query else ""
        return f"{parts.scheme.lower()}://{authority}{parts.path or '/'}{query}"

    def _lookup(self, url: str) -> tuple[int, str, bytes, str | None]:
        """Status, content type, body and where a redirect sends the client."""
        web = self.server.web
        location = web.redirects.get(url)
        if location is not None:
            return 301, _HTML, _MOVED, location
        asset = web.assets.get(url)
        if asset is not None:
            return 200, *asset, None
        page = page_served(web.pages, url, web.query_blind)
        if page is not None:
            plain = urlsplit(url).path.endswith(".txt")  # as static servers type it
            return 200, _PLAIN if plain else _HTML, page, None
        soft_404 = web.soft_404_hosts.get(urlsplit(url).hostname or "")
        if soft_404 is not None:  # a server that sends its "not found" page with status 200
            return 200, _HTML, soft_404, None
        return 404, _HTML, _NOT_FOUND, None


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A started server: ``proxy_url`` for a client's proxy, ``base_url`` with Host headers."""

    port: int
    request_log: RequestLog

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"


@contextmanager
def serve(web: TestWeb, port: int = 0, log: RequestLog | None = None) -> Iterator[RunningServer]:
    """Serve ``web`` on 127.0.0.1 (a free port unless given) until the block ends.

    Example:
        >>> with serve(build_web()) as server:
        ...     proxy = urllib.request.ProxyHandler({"http": server.proxy_url})
        ...     urllib.request.build_opener(proxy).open("http://docs.alpha.test/").status
        200
    """
    httpd = _WebServer(("127.0.0.1", port), web, log if log is not None else RequestLog())
    thread = threading.Thread(target=httpd.serve_forever, name="testweb-server", daemon=True)
    thread.start()
    try:
        yield RunningServer(httpd.server_address[1], httpd.request_log)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _accepted_codings(header: str) -> set[str]:
    """Content codings the client accepts (``q=0`` refuses one)."""
    accepted = set()
    for item in header.split(","):
        coding, *parameters = (part.strip() for part in item.split(";"))
        quality = next(
            (parameter[2:] for parameter in parameters if parameter.startswith("q=")), "1"
        )
        try:
            if float(quality) > 0:
                accepted.add(coding.lower())
        except ValueError:
            continue
    return accepted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m testweb.server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scale", default="small", choices=("small", "demo"))
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", type=Path, help="where to write the port once serving")
    parser.add_argument("--log", type=Path, help="append one JSON line per request to this file")
    options = parser.parse_args(argv)
    from .site import build_web  # deferred: --help must not build the web

    stop = threading.Event()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signal_number, lambda *_: stop.set())
    with (
        _log_file(options.log) as sink,
        serve(build_web(options.seed, options.scale), options.port, RequestLog(sink)) as server,
    ):
        if options.port_file is not None:
            _write_atomically(options.port_file, f"{server.port}\n")
        while not stop.wait(timeout=0.5):
            pass
    return 0


@contextmanager
def _log_file(path: Path | None) -> Iterator[Callable[[LoggedRequest], None] | None]:
    if path is None:
        yield None
        return
    with path.open("a", encoding="utf-8") as stream:

        def write(entry: LoggedRequest) -> None:
            stream.write(entry.to_json() + "\n")
            stream.flush()

        yield write


def _write_atomically(path: Path, text: str) -> None:
    """Readers polling for the file never see it half written."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


if __name__ == "__main__":
    raise SystemExit(main())
