"""What real webs do to a page besides copying it: listings, banners, stamps, edits, session ids,
print views, code editions, another site's layout.

Each function takes a page's HTML and returns another page's HTML; ``builder`` decides which
host gets which and records in the ground truth whether the result still shares the page's
content (a banner, a session id, a print view) or is content of its own (an edition, a listing
page 2, a search result).
"""

from __future__ import annotations

import html
import posixpath
import re
from random import Random

from selectolax.lexbor import LexborHTMLParser

from testweb.pages import rewrite_hrefs

SORT_VIEWS = ("C=N;O=D", "C=M;O=A", "C=S;O=A", "C=D;O=A")  # Apache autoindex column sorts
_BODY_OPEN = re.compile(r"<body[^>]*>", re.I)
_BODY_CLOSE = re.compile(r"</body>", re.I)
_PARAGRAPH = re.compile(r"<p>[^<]{150,1500}</p>")
_PRE = re.compile(r"(<pre[^>]*>)(.*?)(</pre>)", re.S | re.I)
# where a documentation theme puts a page's own content (Sphinx, MkDocs, HTML5, many others)
_MAIN_CONTENT = ('[role="main"]', "main", "div.body", "div#content", "article")
_TITLE = re.compile(r"<title>(.*?)</title>", re.S | re.I)
_SORT_KEYS = {
    "N": lambda entry: entry[0],
    "M": lambda entry: entry[2],
    "S": lambda entry: entry[1],
    "D": lambda entry: entry[0].rsplit(".", 1)[-1],
}


def listing(url_path: str, entries: list[tuple[str, int, str]], sort: str = "C=N;O=A") -> str:
    """An Apache autoindex page of ``entries`` (name, size, date) sorted as ``sort`` says, with the
    column links every such page carries (each a sorted view of the same directory)."""
    column, order = sort[2], sort[-1]
    rows = sorted(entries, key=_SORT_KEYS[column], reverse=order == "D")
    header = "".join(f'<th><a href="?{view}">{view[2]}</a></th>' for view in SORT_VIEWS)
    body = "".join(
        f'<tr><td><a href="{html.escape(name)}">{html.escape(name)}</a></td>'
        f'<td align="right">{date}</td><td align="right">{size}</td></tr>\n'
        for name, size, date in rows
    )
    return (
        f"<!DOCTYPE html>\n<html><head><title>Index of {url_path}</title></head>\n<body>\n"
        f"<h1>Index of {url_path}</h1>\n<table>\n<tr>{header}</tr>\n"
        f"{body}</table>\n"
        f"<address>Apache/2.4.57 (Debian) Server at localhost Port 80</address>\n</body></html>\n"
    )


def entry_of(name: str, body: str, rng: Random) -> tuple[str, int, str]:
    """A listing row for a page: its name, size and a modification date."""
    return name, len(body), f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} 10:00"


def with_banner_and_footer(body: str, host: str) -> str:
    """A mirror's banner at the top and its footer at the bottom of every page."""
    banner = f'<div class="mirror-banner">You are reading a mirror hosted by {host}.</div>'
    footer = f'<div class="mirror-footer">Mirrored nightly by {host}; report problems.</div>'
    body = _BODY_OPEN.sub(lambda match: match.group() + banner, body, count=1)
    return _BODY_CLOSE.sub(footer + "</body>", body, count=1)


def with_version(body: str, version: str) -> str:
    """The site's footer naming the manual's version: a stale copy names an older one."""
    return _BODY_CLOSE.sub(f'<p class="doc-version">Manual version {version}</p></body>', body, 1)


def edited(body: str, rng: Random) -> str | None:
    """The page before an edit: one paragraph of 150-1500 characters fewer (None: none found)."""
    paragraphs = list(_PARAGRAPH.finditer(body))
    if not paragraphs:
        return None
    removed = rng.choice(paragraphs)
    return body[: removed.start()] + body[removed.end() :]


def with_query(body: str, parameter: str) -> str:
    """Every link that stays on the host carries ``parameter`` (``sid=...``)."""
    return rewrite_hrefs(body, lambda href: add_query(href, parameter) if _local(href) else href)


def add_query(href: str, parameter: str) -> str:
    """``href`` with ``parameter`` appended to its query (its fragment kept last)."""
    address, hash_mark, fragment = href.partition("#")
    joiner = "&" if "?" in address else "?"
    return f"{address}{joiner}{parameter}{hash_mark}{fragment}"


def unlinked(body: str, page_path: str, targets: set[str]) -> str:
    """The page as a copy made before ``targets`` (paths on its host) existed serves it: its
    links to them lead nowhere (``#``), their words stay."""
    directory = posixpath.dirname(page_path)

    def dead(href: str) -> str:
        address = href.partition("#")[0]
        if not address or "?" in address or not _local(href):
            return href
        target = posixpath.normpath(posixpath.join(directory, address))
        return "#" if target in targets else href

    return rewrite_hrefs(body, dead)


def with_greeting(body: str, session: str) -> str:
    """A session's page as a portal serves it: a greeting line above the content."""
    greeting = f'<p class="greeting">Welcome back! Your session {session} is active.</p>'
    return _BODY_OPEN.sub(lambda match: match.group() + greeting, body, count=1)


def print_view(body: str) -> str:
    """The printer-friendly copy: the page's content without links around it, one line added."""
    plain = rewrite_hrefs(body, lambda href: href if href.startswith("#") else "#")
    note = '<p class="print-note">Printer-friendly version.</p>'
    return _BODY_OPEN.sub(lambda match: match.group() + note, plain, count=1)


def code_edition(body: str, replacements: dict[str, str]) -> str:
    """The same prose with other code: every word of ``replacements`` swapped inside ``<pre>``."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, replacements)) + r")\b")

    def recode(match: re.Match[str]) -> str:
        code = pattern.sub(lambda word: replacements[word.group()], match.group(2))
        return match.group(1) + code + match.group(3)

    return _PRE.sub(recode, body)


def in_layout(body: str, site: str, navigation: str) -> str:
    """The page's main content (what a theme marks as such, else its whole body) in another
    site's layout, as a reader site or a re-themed mirror serves a manual: the original's
    navigation, sidebars and footer gone, the site's header, ``navigation`` (HTML) and footer
    around it, the site's name in the title."""
    tree = LexborHTMLParser(body)
    main = next(filter(None, map(tree.css_first, _MAIN_CONTENT)), None) or tree.body
    content = main.html if main is not None else ""
    title = html.escape(f"{html.unescape(title_of(body))} | {site}")
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head>\n'
        f'<body>\n<header class="site"><a href="/">{html.escape(site)}</a>: the manuals you use, '
        f"in one place, offline and searchable.</header>\n{navigation}\n"
        f'<main class="page">{content}</main>\n<footer class="site">Served by '
        f"{html.escape(site)}. Content under the licence of its authors; layout and search by "
        "the site's volunteers.</footer>\n</body></html>\n"
    )


def title_of(body: str) -> str:
    match = _TITLE.search(body)
    return " ".join(match.group(1).split()) if match else ""


def plain_page(title: str, content: str) -> str:
    """A page of the builder's own (a host's front page, a search result)."""
    return (
        f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head>\n"
        f"<body>\n<h1>{html.escape(title)}</h1>\n{content}</body></html>\n"
    )


def _local(href: str) -> bool:
    return not (href.startswith(("#", "mailto:", "javascript:")) or "://" in href)
