"""A real tree and a copy of it in one of the forms copies take on real servers, crawled in memory.

    PYTHONPATH=. python bench/copy_forms.py [--tree sqlite] [--forms same,upper,...]

The tree (``testweb.evalweb.packages.TREES``, fetched when missing) is served at
``http://docs.test/manual/`` and a copy of it at ``http://mirror.test/pub/manual/``, each host
from a front page linking its top. The copy's forms:

- ``same``: byte for byte;
- ``absolute``: its links to its own pages written as absolute URLs (a copy made by a CMS);
- ``latin1``: re-encoded as ISO 8859-1, its ``<meta charset>`` changed (an old mirror);
- ``slash``: its links to index pages written as directory URLs (``c3ref/`` for
  ``c3ref/index.html``), which the server answers with the same page;
- ``upper``: its file and directory names upper-cased, links too (a copy kept on a server that
  changed its names);
- ``htm``: ``.html`` renamed ``.htm``, links too;
- ``subdirectories``: every subdirectory under a name of the copy's own, links too;
- ``pretty``: ``.html`` dropped from its page names and index pages served as their
  directory's URL, links too (a static-site host's "pretty" URLs);
- ``partial``: a third of the pages left out, their links dangling (an interrupted transfer);
- ``extra``: every page, and one in ten again under a name of the copy's own with a note only
  it holds (a mirror's local notes), linked from its top page;
- ``wget``: ``partial`` as ``wget --convert-links`` leaves it: a link to a page left out points
  at the origin's page;
- ``hotlinked``: its images left on the origin's server (each ``<img src>`` the origin's URL);
- ``retitled``: the mirror's name after every page's title;
- ``minified``: the white space beside block elements' tags removed;
- forms joined by ``+``, made one after another (``partial+upper``).

Each crawl runs through the core API (``testweb.online.crawl``, following links, from dropped
pages too as the Scrapy middleware does) in both of its orders, with either host's front page
first. *requests* counts every fetch, probes and 404s included, against the crawl without the
filter; *lost* counts the contents (the tree's pages, the copy's own) that the crawl without
the filter reached and no fetched URL holds. A filter that makes
a crawl send more requests than it sends without the filter costs more than it saves.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import posixpath
import re
from collections.abc import Callable

from testweb.evalweb.packages import read_tree
from testweb.online import ORDERS, crawl, crawl_filtered
from testweb.pages import rewrite_hrefs
from testweb.site import TestWeb

ORIGIN, COPY = "http://docs.test/manual/", "http://mirror.test/pub/manual/"
_INDEX = "index.html"
_HTML = re.compile(r"\.html(?=$|[#?])")
_CHARSET = re.compile(rb"""charset=["']?utf-8""", re.IGNORECASE)
# a copy: its path -> (the tree's path of the page it copies, None if only the copy holds it,
# its body as served)
Copy = dict[str, tuple[str | None, bytes]]


def _local(href: str) -> bool:
    return bool(href) and "://" not in href and not href.startswith(("#", "mailto:"))


def _utf8(body: str) -> bytes:
    return body.encode("utf-8", "surrogateescape")  # the tree's bytes as the package has them


def _each(rename: Callable[[str], str], rewrite: Callable[[str, str], str]) -> Callable:
    """A form that renames each page's path and rewrites its local links (``rewrite(path,
    href)``)."""

    def form(tree: dict[str, str]) -> Copy:
        return {
            rename(path): (
                path,
                _utf8(rewrite_hrefs(body, functools.partial(_local_only, rewrite, path))),
            )
            for path, body in tree.items()
        }

    return form


def _local_only(rewrite: Callable[[str, str], str], path: str, href: str) -> str:
    return rewrite(path, href) if _local(href) else href


def _absolute(path: str, href: str) -> str:
    target, mark, fragment = href.partition("#")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return COPY + joined + mark + fragment


def _slash_link(path: str, href: str) -> str:
    return re.sub(r"(^|/)index\.html(?=$|#)", r"\1", href) or "./"


def _upper(path: str, href: str) -> str:
    target, mark, fragment = href.partition("#")
    return target.upper() + mark + fragment


def _htm(path: str, href: str) -> str:
    return _HTML.sub(".htm", href)


def _same(tree: dict[str, str]) -> Copy:
    return {path: (path, _utf8(body)) for path, body in tree.items()}


def _latin1(tree: dict[str, str]) -> Copy:
    """Re-encoded as ISO 8859-1 (characters beyond it as references), its charset declared so;
    a page that is not UTF-8 to begin with is served as it is."""
    copy = _same(tree)
    for path, (source, data) in copy.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        encoded = text.encode("latin-1", "xmlcharrefreplace")
        copy[path] = (source, _CHARSET.sub(b"charset=iso-8859-1", encoded))
    return copy


def _slash(tree: dict[str, str]) -> Copy:
    """Links to index pages written as directory URLs, which answer with the index page."""
    copy = _each(str, _slash_link)(tree)
    directories = {
        path[: -len(_INDEX)]: entry
        for path, entry in copy.items()
        if posixpath.basename(path) == _INDEX
    }
    return copy | directories


_IMG_SRC = re.compile(r'(<img\b[^>]*?\bsrc=")([^"]*)(")', re.IGNORECASE)
_TITLE_END = re.compile(r"</title>", re.IGNORECASE)
_BLOCK = (
    r"(?:html|head|body|title|meta|link|script|style|div|p|table|thead|tbody|tr|td|th|ul|ol|li"
    r"|dl|dt|dd|h[1-6]|hr|br|nav|header|footer|section|colgroup|col)\b"
)
# white space beside a block element's tag, as minifiers remove it (inline elements keep theirs)
_BESIDE_BLOCK = re.compile(rf"(</?{_BLOCK}[^>]*>)\s+(?=<)|(?<=>)\s+(</?{_BLOCK})", re.IGNORECASE)


def _hotlinked(tree: dict[str, str]) -> Copy:
    """Its images left on the origin's server: each ``<img src>`` the origin's absolute URL."""

    def hotlink(path: str, match: re.Match[str]) -> str:
        src = match.group(2)
        if not _local(src):
            return match.group()
        return match.group(1) + ORIGIN + _absolute(path, src)[len(COPY) :] + match.group(3)

    return {
        path: (path, _utf8(_IMG_SRC.sub(functools.partial(hotlink, path), body)))
        for path, body in tree.items()
    }


def _retitled(tree: dict[str, str]) -> Copy:
    """The mirror's name after every page's title."""
    return {
        path: (path, _utf8(_TITLE_END.sub(" - mirrored by Mirror Net</title>", body, count=1)))
        for path, body in tree.items()
    }


def _minified(tree: dict[str, str]) -> Copy:
    """Markup minified: the white space beside block elements' tags removed, as minifiers do."""
    return {
        path: (path, _utf8(_BESIDE_BLOCK.sub(lambda match: match.group(1) or match.group(2), body)))
        for path, body in tree.items()
    }


def _subdirectories_renamed(tree: dict[str, str]) -> Copy:
    """Every subdirectory renamed (``c3ref/`` as ``c3ref-pages/``), links too: a copy that
    filed the sections under names of its own."""

    def rename(path: str) -> str:
        head, slash, rest = path.partition("/")
        return f"{head}-pages/{rest}" if slash else path

    return _each(rename, _relinked(rename))(tree)


def _pretty(tree: dict[str, str]) -> Copy:
    """Served under "pretty" URLs, links too: ``.html`` dropped from page names and index pages
    served as their directory's URL (``c3ref/intro`` for ``c3ref/intro.html``, ``c3ref/`` for
    ``c3ref/index.html``), as static-site hosts serve them."""

    def rename(path: str) -> str:
        directory, name = posixpath.split(path)
        if name == _INDEX:
            return directory + "/" if directory else ""
        return _HTML.sub("", path)

    return _each(rename, _relinked(rename))(tree)


def _relinked(rename: Callable[[str], str]) -> Callable[[str, str], str]:
    """The link rewriting of a form that renames every path with ``rename``: a link is resolved
    against its page (a directory's URL as its index page), renamed, and written relative to
    the page's new place (a name ``rename`` makes a directory's URL keeps its slash)."""

    def relink(path: str, href: str) -> str:
        target, mark, fragment = href.partition("#")
        if not target:
            return href
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        if target.endswith("/"):  # a directory's URL: its index page's
            joined = posixpath.join(joined, _INDEX) if joined != "." else _INDEX
        renamed = rename(joined)
        moved = posixpath.relpath(renamed or ".", posixpath.dirname(rename(path)) or ".")
        if renamed.endswith("/") or not renamed:
            moved = "./" if moved == "." else moved + "/"
        return moved + mark + fragment

    return relink


def _partial(tree: dict[str, str]) -> Copy:
    """A third of the pages left out (each page's hash decides), their links left dangling, as
    a copy made by an interrupted transfer."""
    top = _top(tree)
    return {path: entry for path, entry in _same(tree).items() if _hash(path) % 3 or path == top}


def _fetched_by_wget(tree: dict[str, str]) -> Copy:
    """``partial``'s pages, made as ``wget --convert-links`` makes them: a link to a page left
    out points at the origin's page."""
    kept = _partial(tree)

    def convert(path: str, href: str) -> str:
        target = _absolute(path, href)[len(COPY) :]
        return href if target.partition("#")[0] in kept else ORIGIN + target

    return {
        path: (
            path,
            _utf8(rewrite_hrefs(tree[path], functools.partial(_local_only, convert, path))),
        )
        for path in kept
    }


def _extra(tree: dict[str, str]) -> Copy:
    """The same pages, and one page in ten copied again under a name of the copy's own with a
    note added that no other page holds (a mirror's local notes), linked from the top page."""
    copy, top, links = _same(tree), _top(tree), []
    for path, body in tree.items():
        if _hash(path) % 10 or path == top:
            continue
        added = posixpath.join(posixpath.dirname(path), "local-" + posixpath.basename(path))
        note = f"<p>Local note {_hash(path):x}, kept by the mirror's staff for {path}.</p>"
        copy[added] = (None, _utf8(_appended(body, note)))
        links.append(
            f'<a href="{posixpath.relpath(added, posixpath.dirname(top) or ".")}">note</a>'
        )
    copy[top] = (top, _utf8(_appended(tree[top], "".join(links))))
    return copy


def _appended(body: str, html: str) -> str:
    """``html`` at the end of the body (before ``</body>`` when there is one)."""
    end = body.lower().rfind("</body>")
    return body + html if end < 0 else body[:end] + html + body[end:]


def _hash(path: str) -> int:
    return int.from_bytes(hashlib.blake2b(path.encode(), digest_size=4).digest(), "big")


def _top(tree: dict[str, str]) -> str:
    return _INDEX if _INDEX in tree else min(tree)


FORMS: dict[str, Callable[[dict[str, str]], Copy]] = {
    "same": _same,
    "absolute": _each(str, _absolute),
    "latin1": _latin1,
    "slash": _slash,
    "upper": _each(str.upper, _upper),
    "htm": _each(lambda path: _HTML.sub(".htm", path), _htm),
    "partial": _partial,
    "subdirectories": _subdirectories_renamed,
    "pretty": _pretty,
    "wget": _fetched_by_wget,
    "hotlinked": _hotlinked,
    "retitled": _retitled,
    "minified": _minified,
    "extra": _extra,
}


def _composed(tree: dict[str, str], forms: list[str]) -> Copy:
    """The copy that the forms make one after another (``partial+upper``: a partial copy, its
    names then upper-cased), each page still naming the tree's page it copies."""
    copy: Copy = {path: (path, _utf8(body)) for path, body in tree.items()}
    for form in forms:
        made = FORMS[form](
            {path: body.decode("utf-8", "surrogateescape") for path, (_, body) in copy.items()}
        )
        copy = {
            path: (copy[source][0] if source is not None else None, body)
            for path, (source, body) in made.items()
        }
    return copy


def web(tree: dict[str, str], form: str) -> tuple[TestWeb, dict[str, str]]:
    """Both hosts, and each URL's content: the tree's path of the page it serves, or its own URL
    for a page only the copy holds. ``form`` may join forms with ``+`` (applied left to right)."""
    served = {ORIGIN + path: _utf8(body) for path, body in tree.items()}
    content = {ORIGIN + path: path for path in tree}
    copy = _composed(tree, form.split("+"))
    for path, (source, body) in copy.items():
        served[COPY + path] = body
        content[COPY + path] = source or COPY + path
    top = _top(tree)
    copy_top = next(path for path, (source, _) in copy.items() if source == top)
    for front, link in (
        ("http://docs.test/", ORIGIN + top),
        ("http://mirror.test/", COPY + copy_top),
    ):
        served[front] = (
            f'<html><body><h1>Manual</h1><a href="{link}">manual</a></body></html>'.encode()
        )
    return TestWeb(0, form, served, {}, [], [], [], set(), {}, {}), content


def main() -> None:
    parser = argparse.ArgumentParser(prog="python bench/copy_forms.py", description=__doc__)
    parser.add_argument("--tree", default="sqlite")
    parser.add_argument("--forms", default=",".join(FORMS))
    args = parser.parse_args()
    tree = read_tree(args.tree)
    print(f"# bench/copy_forms.py --tree {args.tree}: {len(tree)} pages, and a copy\n")
    print("| copy | order | first | requests | without the filter | probes | failed | lost |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for form in args.forms.split(","):
        served, content = web(tree, form)
        for first in ("origin", "copy"):
            fronts = ["http://docs.test/", "http://mirror.test/"]
            served.start_urls = fronts if first == "origin" else fronts[::-1]
            plain = crawl(served, None)
            reached = {content.get(url) for url in plain.fetched} - {None}
            for order in ORDERS:
                log = crawl_filtered(served, order)
                lost = reached - {content.get(url) for url in log.fetched}
                print(
                    f"| {form} | {order} | {first} | {len(log.fetched)} | {len(plain.fetched)} "
                    f"| {len(log.probes)} | {len(log.failed_probes)} | {len(lost)} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
