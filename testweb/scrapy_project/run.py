"""Run the test-web spider as a real ``scrapy crawl`` in a subprocess and read back what happened.

The working directory becomes a Scrapy project (a ``scrapy.cfg`` naming this package's settings),
so the index lands in its ``.scrapy/`` data dir by default, as in a user's project. Every host of
the test web is reached through the server's HTTP proxy (``http_proxy``, honoured by Scrapy).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPIDER = "testweb"
PROJECT_SETTINGS = "testweb.scrapy_project.settings"
ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
DEFAULT_REACTOR = "twisted.internet.selectreactor.SelectReactor"
CHECKOUT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class CrawlRun:
    """One finished crawl: exit status, the pages its callback parsed, the drops its errback
    saw, its stats and its log."""

    name: str
    returncode: int
    parsed: list[str]
    dropped: list[dict[str, Any]]
    stats: dict[str, Any]
    log: str
    seconds: float

    def stat(self, key: str) -> int:
        return int(self.stats.get(key, 0))

    def dedup_stats(self) -> dict[str, int]:
        return {
            key: int(value) for key, value in sorted(self.stats.items()) if key.startswith("dedup/")
        }


@dataclass(slots=True)
class RunningCrawl:
    """A crawl started by ``start_crawl``; ``wait()`` collects it."""

    name: str
    workdir: Path
    process: subprocess.Popen[bytes]
    started: float

    def pause_after(self, answered: Callable[[], int], requests: int, timeout_s: float) -> bool:
        """Send SIGINT once ``answered()`` (the server's count) reaches ``requests``, as Ctrl-C
        pauses a crawl: Scrapy closes the spider and a ``JOBDIR`` keeps the rest for the same
        command to resume. False when the crawl ended (or ``timeout_s`` passed) before."""
        deadline = time.monotonic() + timeout_s
        while self.process.poll() is None and time.monotonic() < deadline:
            if answered() >= requests:
                self.process.send_signal(signal.SIGINT)
                return True
            time.sleep(0.02)
        return False

    def wait(self, timeout_s: float = 120.0) -> CrawlRun:
        try:
            self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        files = _files(self.workdir, self.name)
        items = _items(files["items"])
        return CrawlRun(
            name=self.name,
            returncode=self.process.returncode,
            parsed=[item["url"] for item in items if "url" in item],
            dropped=[item for item in items if "dropped" in item],
            stats=json.loads(files["stats"].read_text()) if files["stats"].exists() else {},
            log=files["log"].read_text(errors="replace") if files["log"].exists() else "",
            seconds=time.monotonic() - self.started,
        )


def make_project(workdir: Path) -> Path:
    """Turn ``workdir`` into a Scrapy project directory using this package's settings."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "scrapy.cfg").write_text(f"[settings]\ndefault = {PROJECT_SETTINGS}\n")
    return workdir


def start_crawl(
    workdir: Path,
    proxy_url: str,
    start_urls: Iterable[str],
    *,
    name: str = "crawl",
    settings: Mapping[str, Any] | None = None,
    checkout: Path = CHECKOUT,
    spider_arguments: Mapping[str, str] | None = None,
) -> RunningCrawl:
    """Start ``scrapy crawl testweb`` in ``workdir`` with ``-s`` settings (dicts as JSON) and
    ``-a`` spider arguments, importing the test web and the filter from ``checkout`` first
    (another checkout's filter: one whose ``dedup_filter/scrapy`` and ``dedup_filter/streams``
    import, as in the wheel)."""
    workdir = make_project(workdir.resolve())
    files = _files(workdir, name)
    files["start"].write_text("\n".join(start_urls) + "\n")
    for key in ("items", "stats"):
        files[key].unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        SPIDER,
        "-a",
        f"start_file={files['start']}",
        "-a",
        f"stats_file={files['stats']}",
        "-o",
        f"{files['items']}:jsonlines",
        "-s",
        f"LOG_FILE={files['log']}",
    ]
    for key, value in (settings or {}).items():
        command += ["-s", f"{key}={_setting(value)}"]
    for key, value in (spider_arguments or {}).items():
        command += ["-a", f"{key}={value}"]
    process = subprocess.Popen(command, cwd=workdir, env=_environment(proxy_url, checkout))
    return RunningCrawl(name, workdir, process, time.monotonic())


def scrapy_crawl(
    workdir: Path,
    proxy_url: str,
    start_urls: Iterable[str],
    *,
    name: str = "crawl",
    settings: Mapping[str, Any] | None = None,
    timeout_s: float = 120.0,
    checkout: Path = CHECKOUT,
    spider_arguments: Mapping[str, str] | None = None,
) -> CrawlRun:
    """Run one crawl to its end (see ``start_crawl``)."""
    running = start_crawl(
        workdir,
        proxy_url,
        start_urls,
        name=name,
        settings=settings,
        checkout=checkout,
        spider_arguments=spider_arguments,
    )
    return running.wait(timeout_s)


def _files(workdir: Path, name: str) -> dict[str, Path]:
    return {
        kind: workdir / f"{name}.{suffix}"
        for kind, suffix in (
            ("start", "start.txt"),
            ("items", "items.jsonl"),
            ("stats", "stats.json"),
            ("log", "log"),
        )
    }


def _setting(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def _environment(proxy_url: str, checkout: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key.lower() not in {"no_proxy", "https_proxy", "scrapy_settings_module"}
    }
    env["http_proxy"] = proxy_url
    # the test web stays out of the wheel: the crawl imports it from the checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")]))
    return env


def _items(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    # a line cut short by a killed crawl is left out
    return [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
