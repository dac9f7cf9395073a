"""A loopback documentation site full of same-site aliases, and of traps that look like them.

Aliases (the same page under another URL): ``?format=print`` of every document (exact copy), the
next document with ``?sessionid=`` and a greeting line (near copy), ``dir/index.html`` of every
guide section linked beside ``dir/``. Traps: ``?lang=fr`` shows a translation (other text) of four
documents in five and the untranslated page on the fifth; ``?page=1`` of a listing repeats it but
``?page=2`` and on show other items.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from testweb.site import TestWeb
from testweb.variants import main_items

HOST = "http://docs.alias.test"
DOCUMENTS, SECTIONS, LISTS, LIST_PAGES = 72, 20, 4, 4


@dataclass
class AliasWeb:
    web: TestWeb
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> alias -> original
    must_keep: set[str] = field(default_factory=set)  # pages whose content no other URL serves
    trap_parameters: tuple[str, ...] = ("lang", "page")

    def same_page(self, url: str, other: str) -> bool:
        """Whether two URLs serve one page (an alias and its original, or two aliases of it)."""
        originals = {alias: page for kind in self.aliases.values() for alias, page in kind.items()}
        return originals.get(url, url) == originals.get(other, other)

    def lost(self, fetched: set[str], pruned_as: dict[str, str]) -> list[str]:
        """Pages of their own content neither fetched nor pruned for another URL of the same page
        that was fetched (``pruned_as``: URL -> the held URL its rule named)."""
        return sorted(
            url
            for url in self.must_keep - fetched
            if not (pruned_as.get(url) in fetched and self.same_page(url, pruned_as[url]))
        )


def build_alias_web() -> AliasWeb:
    texts = iter(main_items()[::3])  # neighbouring entries of one module can be near copies
    pages: dict[str, bytes] = {}
    site = AliasWeb(TestWeb(0, "aliases", pages, {}, [f"{HOST}/"], [], [], set(), {}, {}))
    docs = [f"{HOST}/docs/p{number}.html" for number in range(DOCUMENTS)]
    sections = [f"{HOST}/guide/s{number}/" for number in range(SECTIONS)]
    lists = [f"{HOST}/lists/l{number}.html" for number in range(LISTS)]
    pages[f"{HOST}/"] = page_html(
        "Home", [next(texts)], [*docs, f"{HOST}/guide/", f"{HOST}/lists/"]
    )
    pages[f"{HOST}/guide/"] = page_html(
        "Guide", [next(texts)], [url for s in sections for url in (s, s + "index.html")]
    )
    pages[f"{HOST}/lists/"] = page_html("Lists", [next(texts)], lists)
    for number, url in enumerate(docs):
        links = [f"{url}?format=print", f"{url}?lang=fr"]
        if number + 1 < DOCUMENTS:
            links.append(f"{docs[number + 1]}?sessionid=S{number:04d}")
        pages[url] = page_html(f"Document {number}", [next(texts) for _ in range(4)], links)
    for number, url in enumerate(sections):
        pages[url] = pages[url + "index.html"] = page_html(
            f"Section {number}", [next(texts) for _ in range(4)], []
        )
    for url in lists:
        items = [url + f"?page={page}" for page in range(1, LIST_PAGES + 1)]
        pages[url] = page_html(f"List {url}", [next(texts) for _ in range(4)], items)
    site.must_keep = set(pages) - {s + "index.html" for s in sections}
    site.aliases = {
        "print": {f"{url}?format=print": url for url in docs},
        "session": {
            f"{docs[number + 1]}?sessionid=S{number:04d}": docs[number + 1]
            for number in range(DOCUMENTS - 1)
        },
        "directory": {s + "index.html": s for s in sections},
    }
    for url in docs:
        pages[f"{url}?format=print"] = pages[url]
    for number in range(DOCUMENTS - 1):
        greeting = f"<p>Welcome back, visitor {number}</p>".encode()
        alias = f"{docs[number + 1]}?sessionid=S{number:04d}"
        pages[alias] = pages[docs[number + 1]].replace(b"<body>", b"<body>" + greeting)
    _add_traps(site, docs, lists, texts)
    return site


def _add_traps(site: AliasWeb, docs: list[str], lists: list[str], texts) -> None:
    pages = site.web.pages
    for number, url in enumerate(docs):
        untranslated = number % 5 == 0
        translated = page_html(f"Document {number} (fr)", [next(texts) for _ in range(4)], [])
        pages[f"{url}?lang=fr"] = pages[url] if untranslated else translated
        if not untranslated:
            site.must_keep.add(f"{url}?lang=fr")
    for url in lists:
        pages[url + "?page=1"] = pages[url]
        for page in range(2, LIST_PAGES + 1):
            pages[url + f"?page={page}"] = page_html(
                f"{url} {page}", [next(texts) for _ in range(4)], []
            )
            site.must_keep.add(url + f"?page={page}")


def page_html(title: str, entries: list[str], links: list[str]) -> bytes:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    body = "".join(f"<div>{entry}</div>" for entry in entries)
    return (
        f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}"
        f"<ul>{anchors}</ul></body></html>"
    ).encode()


def avoided_share(aliases: dict[str, str], fetched: set[str]) -> float:
    """The share of aliases whose page was fetched under one URL only (the alias or the original:
    in some orders the alias comes first and stands for the page)."""
    twice = sum(1 for alias, original in aliases.items() if {alias, original} <= fetched)
    return 1 - twice / len(aliases)
