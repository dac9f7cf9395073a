"""The loopback server: proxy and direct requests, 404, gzip, HEAD, the request log, the process."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from testweb.server import serve
from testweb.site import page_served

ROOT = "http://docs.alpha.test/"


@pytest.fixture(scope="module")
def server(web):
    with serve(web) as running:
        yield running


@pytest.fixture
def fetch(server):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": server.proxy_url}))

    def get(url, **headers):
        try:
            with opener.open(urllib.request.Request(url, headers=headers), timeout=10) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    return get


def test_proxy_requests_get_the_page(web, fetch):
    status, headers, body = fetch(ROOT + "library/")
    assert (status, headers["Content-Type"], body) == (
        200,
        "text/html; charset=utf-8",
        web.pages[ROOT + "library/"],
    )


def test_direct_requests_are_routed_by_host_header(web, server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/library/", headers={"Host": "DOCS.alpha.test:80"})
    response = connection.getresponse()
    assert (response.status, response.read()) == (200, web.pages[ROOT + "library/"])
    connection.close()


def test_unknown_urls_and_hosts_get_404(fetch):
    assert fetch(ROOT + "no/such/page.html")[0] == 404
    assert fetch("http://unknown.test/")[0] == 404
    assert fetch("http://example.com/")[0] == 404


def test_query_strings_address_distinct_pages(web, fetch):
    session_url = next(url for url in web.near_duplicates if "?sid=" in url)
    assert fetch(session_url)[2] == web.pages[session_url]
    assert fetch(session_url.split("?")[0] + "?sid=0")[0] == 404


def test_a_query_blind_web_answers_an_unknown_query_with_its_paths_page(web):
    """As static servers and most CMSes do (``bench/eval_web.py --query-blind``); a query that
    names a page still gets that page."""
    session_url = next(url for url in web.near_duplicates if "?sid=" in url)
    path = session_url.split("?")[0]
    with serve(replace(web, query_blind=True)) as running:
        proxy = urllib.request.ProxyHandler({"http": running.proxy_url})
        opener = urllib.request.build_opener(proxy)
        with opener.open(path + "?lang=fr", timeout=10) as response:
            assert (response.status, response.read()) == (200, web.pages[path])
        with opener.open(session_url, timeout=10) as response:
            assert response.read() == web.pages[session_url]
        with pytest.raises(urllib.error.HTTPError):
            opener.open(ROOT + "no/such/page.html?lang=fr", timeout=10)


def test_a_query_blind_server_ignores_the_last_parameters_it_has_no_page_for():
    """``x?lang=fr&sessionid=S`` is the French edition where ``x?lang=fr`` is served: a probe
    that adds a session id to an edition's URL is answered as a CMS answers it."""
    pages = {"h/x": b"en", "h/x?lang=fr": b"fr"}
    assert page_served(pages, "h/x?lang=fr&sessionid=S", True) == b"fr"
    assert page_served(pages, "h/x?lang=de&sessionid=S", True) == b"en"
    assert page_served(pages, "h/x?lang=de", False) is None
    assert page_served(pages, "h/y?lang=fr", True) is None


def test_a_page_named_txt_is_served_as_plain_text(web):
    """As static servers type it by its name: Sphinx's ``_sources/NAME.rst.txt``."""
    url = ROOT + "_sources/intro.rst.txt"
    with serve(replace(web, pages={**web.pages, url: b"Intro <source>"})) as running:
        proxy = urllib.request.ProxyHandler({"http": running.proxy_url})
        with urllib.request.build_opener(proxy).open(url, timeout=10) as response:
            assert response.headers["Content-Type"] == "text/plain; charset=utf-8"
            assert response.read() == b"Intro <source>"


def test_gzip_only_when_accepted(web, fetch):
    _, headers, body = fetch(ROOT, **{"Accept-Encoding": "gzip, deflate"})
    assert headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(body) == web.pages[ROOT]
    assert fetch(ROOT, **{"Accept-Encoding": "gzip;q=0, identity"})[1]["Content-Encoding"] is None


def test_assets_keep_their_content_type(web, fetch):
    url = "http://www.gamma.test/downloads/docs-html.zip"
    status, headers, body = fetch(url)
    assert (status, headers["Content-Type"], body) == (200, *web.assets[url])


def test_the_log_records_method_url_status_and_bytes(server, fetch):
    url = ROOT + "about.html"
    server.request_log.clear()
    fetch(url)
    fetch(url, **{"Accept-Encoding": "gzip"})
    fetch(ROOT + "missing.html")
    plain, compressed, missing = server.request_log.entries()
    assert (plain.method, plain.url, plain.status, plain.gzip) == ("GET", url, 200, False)
    assert 0 < compressed.bytes_sent < plain.bytes_sent
    assert compressed.gzip
    assert (plain.delivered, compressed.delivered) == (True, True)
    assert (missing.status, server.request_log.urls(status=404)) == (404, [ROOT + "missing.html"])


def test_head_sends_no_body(server):
    server.request_log.clear()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("HEAD", ROOT)
    response = connection.getresponse()
    assert response.status == 200
    assert int(response.headers["Content-Length"]) > 0
    assert response.read() == b""
    connection.close()
    assert [(entry.method, entry.bytes_sent) for entry in server.request_log.entries()] == [
        ("HEAD", 0)
    ]


def test_a_response_the_client_hung_up_on_is_logged_undelivered(web):
    url = ROOT + "large.bin"  # more than socket buffers hold: still being written at the hang-up
    large = replace(web, assets={**web.assets, url: ("application/octet-stream", bytes(32 << 20))})
    with serve(large) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
            client.sendall(f"GET {url} HTTP/1.1\r\nHost: docs.alpha.test\r\n\r\n".encode())
            assert client.recv(64).startswith(b"HTTP/1.1 200")
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        deadline = time.monotonic() + 10
        while server.request_log.entries()[0].delivered and time.monotonic() < deadline:
            time.sleep(0.01)
        [entry] = server.request_log.entries()
    assert (entry.url, entry.status, entry.delivered) == (url, 200, False)


def test_concurrent_requests_are_all_logged(web, server, fetch):
    urls = sorted(web.pages)[:60]
    server.request_log.clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        bodies = list(pool.map(lambda url: fetch(url)[2], urls))
    assert bodies == [web.pages[url] for url in urls]
    assert sorted(server.request_log.urls()) == urls


def test_runs_as_a_process_and_stops_on_sigterm(web, tmp_path):
    port_file, log_file = tmp_path / "port", tmp_path / "requests.jsonl"
    command = [
        sys.executable,
        "-m",
        "testweb.server",
        "--seed",
        "0",
        "--scale",
        "small",
        "--port-file",
        str(port_file),
        "--log",
        str(log_file),
    ]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONHASHSEED": "7"})
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        port = int(port_file.read_text())
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({"http": f"http://127.0.0.1:{port}"})
        )
        for url in web.start_urls:  # another process, another hash seed: the same bytes
            assert opener.open(url, timeout=10).read() == web.pages[url]
    finally:
        process.send_signal(signal.SIGTERM)
        return_code = process.wait(timeout=20)
    logged = [json.loads(line) for line in log_file.read_text().splitlines()]
    assert return_code == 0
    assert [(entry["url"], entry["status"]) for entry in logged] == [
        (url, 200) for url in web.start_urls
    ]
