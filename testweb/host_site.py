"""A host under construction: its template, its way of naming directory index pages, its pages.

The page makers here give every host the same kinds of pages (manuals, listings, prose, a
generated guide), each drawn from the real text the caller names.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from random import Random

from .docs_tree import Manual, SiteMap, manual_pages
from .pages import Page, directory_of, link_list, relative_href
from .pydoc_source import builtin_function_html, module_doc, prose
from .templates import ListingEntry, SiteStyle, directory_listing, generator_page, site_page

DOWNLOADS = (
    ("docs-html.tar.bz2", "6.1M"),
    ("docs-html.zip", "8.4M"),
    ("docs-pdf-a4.zip", "17M"),
    ("docs-pdf-letter.zip", "17M"),
    ("docs-text.tar.bz2", "1.9M"),
    ("SHA256SUMS", "1K"),
)
GUIDE_CHAPTERS = (
    "introduction.html",
    "installation.html",
    "tutorial.html",
    "reference.html",
    "faq.html",
)
_GENERATOR_WELCOME = (
    "<p>Welcome! This is the documentation of the project. Add your content using "
    "reStructuredText syntax.</p>\n"
)


@dataclass
class HostSite:
    """One host under construction: its template, its directory-index style and its pages."""

    host: str
    style: SiteStyle
    index_name: str  # "" links directories with a trailing slash, "index.html" by file name
    seed: int
    pages: dict[str, Page] = field(default_factory=dict)

    def add(self, *pages: Page) -> None:
        for page in pages:
            self.pages[page.path] = page

    def index_of(self, directory: str) -> str:
        return directory + self.index_name

    def render(self) -> dict[str, str]:
        index_pages = {_directory_indexed(path): path for path in self.pages if _is_index(path)}
        return {
            path: site_page(self.style, page, index_pages) if page.templated else page.content
            for path, page in self.pages.items()
        }

    def listing(self, directory: str, names: list[str]) -> Page:
        """An Apache directory listing of ``directory`` (its entries' dates depend on the seed)."""
        entries = [
            ListingEntry(name, _stamp(self.seed, name), "-" if name.endswith("/") else "4K")
            for name in names
        ]
        content = directory_listing("/" + directory, entries, self.host, "../" + self.index_name)
        return Page(directory, f"Index of /{directory}", content, templated=False)

    def downloads(self) -> Page:
        """The look-alike listing: the same file names, sizes and dates on every host."""
        entries = [ListingEntry(name, _stamp(self.seed, name), size) for name, size in DOWNLOADS]
        content = directory_listing("/downloads/", entries, self.host, "../" + self.index_name)
        return Page("downloads/", "Index of /downloads/", content, templated=False)

    def manuals(self, manuals: list[Manual]) -> None:
        site_map = SiteMap(manuals, self.index_name)
        for manual in manuals:
            self.add(*manual_pages(manual, site_map))

    def manual_index(self, directory: str, title: str, manuals: list[Manual]) -> Page:
        path = self.index_of(directory)
        entries = [
            (self.index_of(m.root), m.package, module_doc(m.package).summary) for m in manuals
        ]
        return Page(path, title, f"<h1>{html.escape(title)}</h1>\n{link_list(path, entries)}")

    def prose_page(
        self, path: str, title: str, source: str, links: list[tuple[str, str, str]] | None = None
    ) -> Page:
        """A page of real paragraphs, optionally followed by a list of (path, label, note) links."""
        listed = link_list(path, links) if links else ""
        return Page(path, title, f"<h1>{html.escape(title)}</h1>\n{_paragraphs(source)}{listed}")

    def guide(self, project: str, sources: tuple[str, ...]) -> None:
        """The generator-skeleton trap: the same index page and chapter names, other chapters."""
        contents = [(name, name.removesuffix(".html").capitalize()) for name in GUIDE_CHAPTERS]
        toc = "".join(f'<p><a href="{href}">{label}</a></p>\n' for href, label in contents)
        index_page = generator_page(project, "Welcome", _GENERATOR_WELCOME + toc, contents)
        self.add(Page(self.index_of("guide/"), "Welcome", index_page, templated=False))
        for (name, label), source in zip(contents, sources, strict=True):
            chapter = generator_page(project, label, _paragraphs(source), contents)
            self.add(Page(f"guide/{name}", label, chapter, templated=False))


def builtin_function_pages(site: HostSite, names: list[str]) -> list[Page]:
    """The boilerplate trap: a short page per built-in function inside the heavy site template."""
    index_path = site.index_of("functions/")
    entries = [(f"functions/{name}.html", f"{name}()", "") for name in names]
    pages = [
        Page(
            index_path,
            "Built-in functions",
            f"<h1>Built-in functions</h1>\n{link_list(index_path, entries)}",
        )
    ]
    for position, name in enumerate(names):
        neighbours = [names[i] for i in (position - 1, position + 1) if 0 <= i < len(names)]
        path = f"functions/{name}.html"
        related = " &middot; ".join(f'<a href="{other}.html">{other}()</a>' for other in neighbours)
        content = (
            f"<h1>Built-in function <code>{name}</code></h1>\n{builtin_function_html(name)}\n"
            f'<p class="related">See also: {related} &middot; '
            f'<a href="{relative_href(path, index_path)}">all functions</a></p>\n'
        )
        pages.append(Page(path, f"{name}()", content))
    return pages


def prose_slice(source: str) -> tuple[str, ...]:
    """``module[:attribute]`` or ``module@first:last`` (a range of paragraphs)."""
    name, _, span = source.partition("@")
    paragraphs = prose(name)
    if not span:
        return paragraphs
    first, last = (int(number) for number in span.split(":"))
    return paragraphs[first:last]


def _paragraphs(source: str) -> str:
    return "".join(f"<p>{html.escape(text)}</p>\n" for text in prose_slice(source))


def _is_index(path: str) -> bool:
    return path == "" or path.endswith("/") or path.rsplit("/", 1)[-1] == "index.html"


def _directory_indexed(path: str) -> str:
    return path if path == "" or path.endswith("/") else directory_of(path)


def _stamp(seed: int, name: str) -> str:
    rng = Random(f"{seed}:{name}")
    month, day, hour, minute = (
        rng.randint(1, 12),
        rng.randint(1, 28),
        rng.randint(0, 23),
        rng.randint(0, 59),
    )
    return f"2024-{month:02d}-{day:02d} {hour:02d}:{minute:02d}"
