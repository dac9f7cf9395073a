"""Which HTML parser the core should use: time from HTML to terms, on the real corpus, one core.

    python bench/parsers.py [--pages N] [--seed S]

Each candidate parses a page, drops ``script``/``style``/``noscript``/``template``, joins the text
nodes with spaces, and the core's ``tokenize`` turns that into terms (its cost is in every row),
so the parsers are compared on the terms they yield as well as on time. The core's own
``html_tokens`` (lexbor plus its image terms and formatting-tag merging) is the last row. A hostile
page (tags nested 5,000 deep) shows how each copes with depth. (selectolax's older Modest engine
is left out: selectolax 1.0 refuses to import it.)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from html.parser import HTMLParser

import lxml.html
import numpy as np
from selectolax.lexbor import LexborHTMLParser

from dedup_filter.features.text import decode_body, html_tokens, tokenize
from testweb.labelled import labelled_corpus

INVISIBLE = ("script", "style", "noscript", "template")
DEEP_NESTING = 5_000


def lexbor_text(html: str) -> str:
    tree = LexborHTMLParser(html)
    tree.strip_tags(list(INVISIBLE))
    return tree.root.text(separator=" ") if tree.root is not None else ""


def lxml_text(html: str) -> str:
    root = lxml.html.document_fromstring(html)
    for element in list(root.iter(*INVISIBLE)):
        element.drop_tree()
    return " ".join(root.itertext())


class _TextCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._hidden += tag in INVISIBLE

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in INVISIBLE and self._hidden > 0

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def stdlib_text(html: str) -> str:
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    return " ".join(collector.parts)


PARSERS: dict[str, Callable[[str], str]] = {
    "selectolax lexbor": lexbor_text,
    "lxml": lxml_text,
    "html.parser (stdlib)": stdlib_text,
}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=0, help="pages of the corpus (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the labelled corpus")
    args = parser.parse_args(argv)
    cpu = max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    pages = [
        (page.url, decode_body(page.body, None).text or "")
        for page in labelled_corpus(args.seed, 10_000)
    ]
    pages = pages[: args.pages] if args.pages else pages
    candidates: dict[str, Callable[[str, str], list[str]]] = {
        name: lambda _url, html, extract=extract: tokenize(extract(html))
        for name, extract in PARSERS.items()
    }
    candidates["core html_tokens (lexbor, as shipped)"] = lambda url, html: html_tokens(html, url)[
        0
    ]
    reference = [candidates["selectolax lexbor"](url, html) for url, html in pages]
    deep = "<div>" * DEEP_NESTING + "deep" + "</div>" * DEEP_NESTING
    print(f"# bench/parsers.py --pages {len(pages)} --seed {args.seed} (pinned to CPU {cpu})\n")
    print(
        "| parser (+ tokenize) | mean ms/page | p99 ms/page | pages with lexbor's terms "
        f"| {DEEP_NESTING:,} nested tags, ms |"
    )
    print("|---|---:|---:|---:|---:|")
    for name, terms_of in candidates.items():
        times, same = _measure(terms_of, pages, reference)
        deep_ms = _once(lambda terms_of=terms_of: terms_of("http://deep.example/", deep))
        print(
            f"| {name} | {times.mean():.3f} | {np.percentile(times, 99):.3f} | {same:.1%} "
            f"| {deep_ms:.1f} |"
        )


def _measure(
    terms_of: Callable[[str, str], list[str]],
    pages: list[tuple[str, str]],
    reference: list[list[str]],
) -> tuple[np.ndarray, float]:
    times, same = [], 0
    for (url, html), expected in zip(pages, reference, strict=True):
        start = time.perf_counter()
        terms = terms_of(url, html)
        times.append(time.perf_counter() - start)
        same += terms == expected
    return np.array(times) * 1000, same / len(pages)


def _once(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) * 1000


if __name__ == "__main__":
    sys.exit(main())
