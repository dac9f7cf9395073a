"""The whole Apache manual, every language edition as Debian installs it, on a host and a mirror.

    PYTHONPATH=. python bench/translations.py [--source-unnamed]

Debian's apache2-doc installs the manual in eleven languages; a page nobody translated is a
symbolic link to the English page, so each edition but the English and the French holds mostly
English pages (the German 90 %). The web serves every edition (pages <= 100 KB) under
``httpd.test/docs/2.4/`` and a copy of all of it under ``mirror.test/apache/docs/2.4/``. Each crawl
runs in memory through the core API, following links (``testweb.online.crawl``), in each of its
orders, with ``mirror.language_editions_apart`` on (the default) and off. A page's content is the
file it is installed as (a link: its target), so *lost* counts the contents the crawl reached
without the filter and never fetched under any URL: translated pages, or English ones pruned for a
translation taken for their origin.

``--source-unnamed`` lays the English edition at the manual's top (``docs/2.4/mod/core.html``
beside ``docs/2.4/de/mod/core.html``), as most sites serve their source language. The pages'
links to ``en/`` and from the English pages upwards are then answered 404 (*not served*).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from dedup_filter import Config, DedupFilter
from testweb.evalweb.packages import unpacked
from testweb.online import ORDERS, crawl
from testweb.pages import link_list
from testweb.site import TestWeb

ORIGIN, MIRROR = "http://httpd.test/docs/2.4/", "http://mirror.test/apache/docs/2.4/"
_MAX_PAGE_BYTES = 100_000
_SOURCE = "en/"


def manual(source_unnamed: bool = False) -> tuple[dict[str, bytes], dict[str, str], set[str]]:
    """The pages of every edition by path under the manual's top, each one's content (the path
    of the file it is installed as), and the translated pages (the English edition's paths
    without ``en/`` when ``source_unnamed``)."""
    top = unpacked("apache2-doc") / "usr/share/doc/apache2-doc/manual"

    def placed(path: str) -> str:
        return path.removeprefix(_SOURCE) if source_unnamed else path

    pages, contents, translated = {}, {}, set()
    for edition in sorted(path for path in top.iterdir() if (path / "index.html").is_file()):
        for file in sorted(edition.rglob("*.html")):
            if file.stat().st_size <= _MAX_PAGE_BYTES:
                installed = file.relative_to(top).as_posix()
                path = placed(installed)
                pages[path] = file.read_bytes()
                contents[path] = placed(file.resolve().relative_to(top.resolve()).as_posix())
                if contents[path] == path and not installed.startswith(_SOURCE):
                    translated.add(path)
    return pages, contents, translated


def web(pages: dict[str, bytes]) -> TestWeb:
    editions = sorted({path.split("/")[0] + "/" for path in pages if "/" in path})
    tops = [f"{edition}index.html" for edition in editions if edition + "index.html" in pages]
    if "index.html" in pages:  # the source edition, unnamed
        tops.append("index.html")
    front = link_list("", [(top, top.removesuffix("index.html") or "en", "") for top in tops])
    served = {}
    for base in (ORIGIN, MIRROR):
        served[base] = f"<html><body><h1>Manual</h1>{front}</body></html>".encode()
        served |= {base + path: body for path, body in pages.items()}
    return TestWeb(0, "apache", served, {}, [ORIGIN, MIRROR], [], [], set(), {}, {})


def content_of(url: str, contents: dict[str, str]) -> str | None:
    for base in (ORIGIN, MIRROR):
        if url.startswith(base):
            return contents.get(url[len(base) :])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(prog="python bench/translations.py", description=__doc__)
    parser.add_argument(
        "--source-unnamed", action="store_true", help="the English edition at the manual's top"
    )
    args = parser.parse_args()
    pages, contents, translated = manual(args.source_unnamed)
    served = web(pages)
    reached = {content_of(url, contents) for url in crawl(served, None).fetched} - {None}
    print(f"{len(served.pages)} URLs, {len(reached)} contents reached without the filter")
    print(
        "| order | language_editions_apart | fetches | of them not served | contents lost "
        "| of them translated pages |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for order in ORDERS:
        for apart in (True, False):
            config = Config.default().with_overrides({"mirror.language_editions_apart": apart})
            with tempfile.TemporaryDirectory() as directory:
                dedup = DedupFilter.open(Path(directory), config)
                try:
                    log = crawl(served, dedup, order)
                finally:
                    dedup.close()
            held = {content_of(url, contents) for url in log.fetched}
            lost = reached - held
            print(
                f"| {order} | {apart} | {len(log.fetched)} | "
                f"{sum(url not in served.pages for url in log.fetched)} | {len(lost)} | "
                f"{len(lost & translated)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
