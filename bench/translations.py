"""The whole Apache manual, every language edition as Debian installs it, on a host and a mirror.

    PYTHONPATH=. python bench/translations.py [--layout paths|source-unnamed|subdomains|negotiated]

Debian's apache2-doc installs the manual in eleven languages; a page nobody translated is a
symbolic link to the English page, so each edition but the English and the French holds mostly
English pages (the German 90 %). The web serves every edition (pages <= 100 KB) and a copy of all
of it on a mirror host, laid out as ``--layout`` says:

- ``paths`` (as installed): ``httpd.test/docs/2.4/de/mod/core.html``, the copy under
  ``mirror.test/apache/docs/2.4/``;
- ``source-unnamed``: the English edition at the manual's top (``docs/2.4/mod/core.html``
  beside ``docs/2.4/de/mod/core.html``), as most sites serve their source language;
- ``subdomains``: one host an edition (``docs.test/manual/`` for English,
  ``de.docs.test/manual/``, ...), and no copy: the editions alone;
- ``negotiated``: the manual as installed on the host, and on the mirror as Apache lays it out
  itself (``mirror.test/apache/docs/2.4/mod/core.html.de``, English bare), which holds the
  translated pages only (no copy of the English in an untranslated page's place) and whose
  language bars name its own URLs: each translation is served twice, the language moved
  between a directory and the file's name (a ``layout`` rule's case).

Each crawl runs in memory through the core API (``testweb.online.crawl``), following links, from
dropped pages too as the Scrapy middleware does, in each of its orders, with
``mirror.language_editions_apart`` on (the default) and off. A page's content is the file it is
installed as (a link: its target), so *lost* counts the contents the crawl reached without the
filter and never fetched under any URL: translated pages, or English ones pruned for a
translation taken for their origin. The pages' links between editions (``../de/...``) name URLs
that only the ``paths`` layout serves: elsewhere they are answered 404 (*not served*).
"""

from __future__ import annotations

import argparse
import re
from urllib.parse import urljoin, urlsplit

from dedup_filter import Config
from testweb.evalweb.packages import unpacked
from testweb.online import ORDERS, crawl, crawl_filtered
from testweb.site import TestWeb

LAYOUTS = ("paths", "source-unnamed", "subdomains", "negotiated")
ORIGIN, MIRROR = "http://httpd.test/docs/2.4/", "http://mirror.test/apache/docs/2.4/"
_MAX_PAGE_BYTES = 100_000
_SOURCE = "en"
_HREF = re.compile(rb'href="([^"#:]+)"')


def manual() -> tuple[dict[str, bytes], dict[str, str]]:
    """The pages of every edition by their path under the manual's top (``de/mod/core.html``),
    and each one's content: the path of the file it is installed as."""
    top = unpacked("apache2-doc") / "usr/share/doc/apache2-doc/manual"
    pages, contents = {}, {}
    for edition in sorted(path for path in top.iterdir() if (path / "index.html").is_file()):
        for file in sorted(edition.rglob("*.html")):
            if file.stat().st_size <= _MAX_PAGE_BYTES:
                path = file.relative_to(top).as_posix()
                pages[path] = file.read_bytes()
                contents[path] = file.resolve().relative_to(top.resolve()).as_posix()
    return pages, contents


def url_of(path: str, layout: str, mirrored: bool) -> str:
    """Where ``layout`` serves the page installed at ``path``, or its copy (``mirrored``; the
    ``subdomains`` layout has none)."""
    edition, _, rest = path.partition("/")
    if layout == "subdomains":
        return f"http://{'' if edition == _SOURCE else edition + '.'}docs.test/manual/{rest}"
    base = MIRROR if mirrored else ORIGIN
    if layout == "negotiated" and mirrored:
        return base + rest + ("" if edition == _SOURCE else f".{edition}")
    return base + rest if layout == "source-unnamed" and edition == _SOURCE else base + path


def _negotiated(body: bytes, path: str, pages: dict[str, bytes]) -> bytes:
    """The page installed at ``path`` as the negotiated mirror serves it: each link to a page of
    the manual written as that page's URL there."""

    def moved(match: re.Match[bytes]) -> bytes:
        target = urlsplit(urljoin(f"http://m/{path}", match[1].decode())).path.lstrip("/")
        if target not in pages:
            return match[0]
        return f'href="{url_of(target, "negotiated", True)}"'.encode()

    return _HREF.sub(moved, body)


def web(pages: dict[str, bytes], layout: str, installed: dict[str, str]) -> TestWeb:
    """Both sides of ``layout``, each host from a front page linking every edition's top (the
    negotiated mirror: the pages ``installed`` as themselves only)."""
    tops = sorted(path for path in pages if path.count("/") == 1 and path.endswith("/index.html"))
    served: dict[str, bytes] = {}
    for mirrored in (False, True) if layout != "subdomains" else (False,):
        links = "".join(
            f'<li><a href="{url_of(top, layout, mirrored)}">{top}</a></li>' for top in tops
        )
        front = f"<html><body><h1>Manual</h1><ul>{links}</ul></body></html>".encode()
        urls = {path: url_of(path, layout, mirrored) for path in pages}
        served |= {f"http://{urlsplit(url).netloc}/": front for url in urls.values()}
        if layout == "negotiated" and mirrored:
            served |= {
                url: _negotiated(pages[path], path, pages)
                for path, url in urls.items()
                if installed[path] == path
            }
            continue
        served |= {url: pages[path] for path, url in urls.items()}
    starts = [url for url in served if url.count("/") == 3]
    return TestWeb(0, "apache", served, {}, starts, [], [], set(), {}, {})


def main() -> None:
    parser = argparse.ArgumentParser(prog="python bench/translations.py", description=__doc__)
    parser.add_argument("--layout", choices=LAYOUTS, default="paths")
    layout = parser.parse_args().layout
    pages, installed = manual()
    served = web(pages, layout, installed)
    contents = {
        url_of(path, layout, mirrored): content
        for path, content in installed.items()
        for mirrored in (False, True)
    }
    translated = {
        content
        for path, content in installed.items()
        if path == content and not path.startswith(f"{_SOURCE}/")
    }
    reached = {contents.get(url) for url in crawl(served, None).fetched} - {None}
    print(f"{len(served.pages)} URLs, {len(reached)} contents reached without the filter")
    print(
        "| order | language_editions_apart | fetches | of them not served | contents lost "
        "| of them translated pages |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for order in ORDERS:
        for apart in (True, False):
            config = Config.default().with_overrides({"mirror.language_editions_apart": apart})
            log = crawl_filtered(served, order, config)
            lost = reached - {contents.get(url) for url in log.fetched}
            print(
                f"| {order} | {apart} | {len(log.fetched)} | "
                f"{sum(url not in served.pages for url in log.fetched)} | {len(lost)} | "
                f"{len(lost & translated)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
