"""Directories of URLs: the coordinates that coordinate sampling compares pages by.

A directory is scheme://host[:port]/path-up-to-its-last-slash/ of the normalised URL (the query
never counts). A page lives under every ancestor directory from its host root down to its own;
its *relative path* under one of them is the rest of the URL, path and query. Directories and
relative paths compare lower-cased: Zhang, Jia & Li found that 95 % of replicated directories keep
identical relative paths compared that way, and the rest rename only their top directory. A
file's ``.htm`` compares as ``.html`` too, and so does a name without it (``intro`` for
``intro.html``, as static-site hosts serve "pretty" URLs) (``relative_key``); a side is asked for
a path as its index page says it names its files (``spelled_as``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Directories longer than this are left out of mirror detection: their names are LMDB keys
# (511 bytes at most, and a candidate key holds two), and such depths are crawler traps anyway.
MAX_DIRECTORY_BYTES = 240
# a language tag in a negotiated file name: en, fr, pt-br, zh_TW
_LANGUAGE = r"[a-z]{2,3}(?:[-_][a-z]{2,4})?"
# a host label or path segment that names a copy: mirror, mirrors, mirror2, docs-mirror, mirrored
_COPY_NAME = re.compile(r"(?<![a-z])mirror(?:s|ed)?\d*(?![a-z])")
_HTML_SUFFIX = re.compile(r"\.html?$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a URL sits under one of its ancestor directories (original case kept for fetching)."""

    directory: str
    relative: str

    @property
    def directory_key(self) -> str:
        return self.directory.lower()

    @property
    def relative_key(self) -> str:
        return relative_key(self.relative)

    @property
    def url(self) -> str:
        return self.directory + self.relative

    @property
    def is_own(self) -> bool:
        """Whether this is the URL's own directory (no further slash before the query)."""
        return "/" not in self.relative.split("?", 1)[0]


def placements(url: str, max_depth: int) -> list[Placement]:
    """The places of a normalised URL under its ancestor directories, host root first.

    Only the host root and ``max_depth`` levels below it are listed: deeper directories take no
    part in mirror detection (an unbounded path is the classic crawler trap).
    """
    path = _path(url)
    if path is None:
        return []
    head, rest, position, path_end = path
    places: list[Placement] = []
    while 0 <= position < path_end and len(places) <= max_depth:
        places.append(Placement(head + rest[: position + 1], rest[position + 1 :]))
        position = rest.find("/", position + 1, path_end)
    return places


def own_placement(url: str, max_depth: int) -> Placement | None:
    """The URL's place in its own directory, or None beyond ``max_depth`` levels (the last of
    ``placements``, found without listing the others)."""
    path = _path(url)
    if path is None:
        return None
    head, rest, slash, path_end = path
    if rest.count("/", slash, path_end) > max_depth + 1:
        return None
    last = rest.rfind("/", slash, path_end)
    return Placement(head + rest[: last + 1], rest[last + 1 :])


def _path(url: str) -> tuple[str, str, int, int] | None:
    """``scheme://``, the rest of the URL, and where its path starts (its first slash) and ends
    (its query, or the end); None without a scheme and a host."""
    scheme, separator, rest = url.partition("://")
    slash = rest.find("/")
    if not separator or not scheme or slash <= 0:
        return None
    query = rest.find("?", slash)
    return f"{scheme}://", rest, slash, len(rest) if query < 0 else query


def authority(url: str) -> str:
    """The host[:port] of a normalised URL (lower-cased by normalisation)."""
    return url.partition("://")[2].split("/", 1)[0]


def parent_directory(directory: str) -> str | None:
    """``https://h/a/b/`` -> ``https://h/a/``; None for a host root."""
    scheme, separator, rest = directory.partition("://")
    trimmed = rest.rstrip("/")
    cut = trimmed.rfind("/")
    if not separator or cut <= 0:
        return None
    return f"{scheme}://{trimmed[: cut + 1]}"


def side_by_side(first: str, second: str) -> bool:
    """Whether two directories lie side by side under one parent, where a project keeps the
    editions and versions of a guide (two host roots have no parent: two hosts are no such
    pair)."""
    parent = parent_directory(first)
    return parent is not None and parent == parent_directory(second)


def directory_name(directory: str) -> str:
    """The last path segment, lower-cased (``https://h/a/B/`` -> ``b``; a host root -> ``""``)."""
    if parent_directory(directory) is None:
        return ""
    return directory.rstrip("/").rsplit("/", 1)[-1].lower()


def relative_key(relative: str) -> str:
    """How a relative path compares: lower-cased, a file's ``.htm`` read as ``.html`` (a copy kept
    where names carry three-letter extensions has every page and every link renamed so), and a
    name without a query that does not end in ``.html`` as that name with ``.html`` (a copy on a
    host serving "pretty" URLs names ``intro.html`` and ``class.Pixbuf.html`` ``intro`` and
    ``class.Pixbuf``, links too; ``x.pdf`` keys as ``x.pdf.html``, which no copy confuses)."""
    key = relative.lower()
    path, mark, query = key.partition("?")
    if path.endswith(".htm"):
        return f"{path}l{mark}{query}"
    return f"{key}.html" if named_bare(key) else key


def named_bare(relative: str) -> bool:
    """Whether a relative path without a query ends in a name that does not end in ``.html``
    (``.htm``)."""
    name = relative.rpartition("/")[2]
    return bool(name) and "?" not in relative and _HTML_SUFFIX.search(name) is None


def spellings(url: str) -> tuple[str, str, str]:
    """``url`` lower-cased as it is written, without its page extension (its index file as its
    directory's URL), and with it: the names a page may be held under."""
    lowered = url.lower()
    return lowered, _bared(lowered, "index.html"), _suffixed(lowered, "index.html")


def spelled_as(
    relative: str,
    side_index: str,
    other_index: str,
    *,
    side_bare: bool = False,
    other_bare: bool = False,
    side_htm: bool = False,
    other_htm: bool = False,
) -> str:
    """``relative`` spelled as the side whose index page is ``side_index`` spells its names.
    Paths compare by ``relative_key``, but a server answers a name only as it is written: a
    copy kept on a server that upper-cased every name (``INDEX.HTML`` for ``index.html``), or
    renamed every ``.html`` to ``.htm``, answers no other spelling. Where the two index pages'
    file names differ in that way alone, the side's case and extension decide (applied twice, it
    changes nothing); elsewhere ``relative`` is left as it is. An upper-cased name cannot tell
    the case it had: toward the other side it is lower-cased (right where that side's names are
    all lower-case), and a mixed-case name is taken for that side's own. The query keeps its
    case. A side whose index page names its documents bare (``side_bare``, ``other_bare``:
    ``listings.names_bare``) is asked for ``intro`` and ``sub/`` where the other names
    ``intro.html`` and ``sub/index.html``, and the other the other way round. A side whose
    index page names its documents ``.htm`` (``side_htm``, ``other_htm``:
    ``listings.names_htm``) is asked for ``intro.htm`` where the other names ``intro.html``, and
    the other the other way round: what tells where both index pages are held under their
    directories' URLs, whose names tell nothing."""
    if side_bare != other_bare:
        return _bared(relative, other_index) if side_bare else _suffixed(relative, side_index)
    if side_htm != other_htm:
        relative = _page_suffix_as(relative, ".htm" if side_htm else ".html")
    own, other = side_index.rpartition("/")[2], other_index.rpartition("/")[2]
    if own == other or relative_key(own) != relative_key(other):
        return relative
    path, mark, query = relative.partition("?")
    if own == own.upper() and other != other.upper():
        path = path.upper()  # a side that upper-cased every name: any spelling maps onto it
    elif own == own.lower() and other == other.upper() and path == path.upper():
        path = path.lower()  # back from that spelling, a guess (a mixed-case name is this side's)
    own_suffix, other_suffix = _HTML_SUFFIX.search(own), _HTML_SUFFIX.search(other)
    renamed = own_suffix and other_suffix and len(own_suffix[0]) != len(other_suffix[0])
    if renamed and path.lower().endswith(other_suffix[0].lower()):
        path = path[: -len(other_suffix[0])] + own_suffix[0]
    return path + mark + query


def _page_suffix_as(relative: str, suffix: str) -> str:
    """``relative`` with its page's ``.htm``/``.html`` extension as ``suffix`` (the case of the
    rest kept); a directory's path left as it is."""
    path, mark, query = relative.partition("?")
    name = path.rpartition("/")[2]
    found = _HTML_SUFFIX.search(name)
    if found is None:
        return relative
    return path[: len(path) - len(name) + found.start()] + suffix + mark + query


def _bared(relative: str, other_index: str) -> str:
    """``relative`` with its page extension dropped, its index file (the other side's index
    page's name) as its directory's URL; a query's page is left as it is."""
    head, _, name = relative.rpartition("/")
    suffix = _HTML_SUFFIX.search(name)
    if "?" in relative or suffix is None:
        return relative
    head = f"{head}/" if head else ""
    index_name = other_index.rpartition("/")[2].lower() or "index.html"
    return head if name.lower() == index_name else head + name[: suffix.start()]


def _suffixed(relative: str, side_index: str) -> str:
    """``relative``'s bare name with the page extension of the side's index page (``.html``
    where it names none), a subdirectory's URL as that index page's name under it (a side that
    names its files serves its index pages under them, not always under their directories)."""
    index_name = side_index.rpartition("/")[2]
    suffix = _HTML_SUFFIX.search(index_name)
    if relative.endswith("/") and "?" not in relative and suffix is not None:
        return relative + index_name
    if not named_bare(relative):
        return relative
    return relative + (suffix[0] if suffix is not None else ".html")


def case_guessed(side_index: str, other_index: str) -> bool:
    """Whether ``spelled_as`` can only guess the case of the side's names from the other's: the
    other side upper-cased every name, which cannot tell the case each had."""
    own, other = side_index.rpartition("/")[2], other_index.rpartition("/")[2]
    return (
        own != other
        and relative_key(own) == relative_key(other)
        and own == own.lower()
        and other == other.upper()
    )


def directory_depth(directory: str) -> int:
    """Path segments below the host root (``https://h/`` -> 0, ``https://h/a/b/`` -> 2)."""
    return directory.partition("://")[2].count("/") - 1


def copier_at_root(origin: str, mirror: str) -> bool:
    """Whether ``origin``, a host's root paired with ``mirror``, a directory below another
    host, may be a copier's copy of it: a copier files its copy at its root, where depth takes
    it for the origin."""
    return (
        not directory_depth(origin)
        and directory_depth(mirror) > 0
        and authority(origin) != authority(mirror)
    )


def named_as_copy(directory: str) -> bool:
    """Whether the host or path of a directory calls it a mirror (``mirror1.example.org/``,
    ``/pub/mirrors/``): the name a copy is filed under, and one an original rarely carries."""
    return _COPY_NAME.search(directory.partition("://")[2].lower()) is not None


def nested(first: str, second: str) -> bool:
    """Whether one directory contains the other (or they are the same), compared lower-cased."""
    first, second = first.lower(), second.lower()
    return first.startswith(second) or second.startswith(first)


def usable_directory(directory: str) -> bool:
    return len(directory.encode("utf-8", "surrogatepass")) <= MAX_DIRECTORY_BYTES


def index_file_name(names: Iterable[str], extensions: Iterable[str]) -> str:
    """The file a directory's index page is asked as when its own URL fails (``index.html``):
    the first configured name with the first extension that is one."""
    suffixes = tuple(extensions)
    return next((f"{name}{suffix}" for name in names for suffix in suffixes if suffix), "")


class IndexPages:
    """Recognises a directory's index page from its URL alone, as Zhang, Jia & Li do.

    An index page is the directory URL itself (trailing slash) or a file whose lower-cased name is
    one of the configured names with one of the configured extensions (``index.html``,
    ``default.aspx``, ``welcome``); a URL with a query is never one.
    """

    def __init__(self, names: Iterable[str], extensions: Iterable[str]) -> None:
        names, suffixes = tuple(names), tuple(extensions)
        self._extensions = frozenset(suffix.lower() for suffix in suffixes)
        self._file_names = frozenset(
            f"{name}{suffix}".lower() for name in names for suffix in suffixes
        ) | {""}
        self._named_files = frozenset(
            f"{name}{suffix}".lower() for name in names for suffix in suffixes if suffix
        )
        self.file_name = index_file_name(names, suffixes)
        stems = "|".join(re.escape(name.lower()) for name in names)
        pages = "|".join(re.escape(suffix.lower()) for suffix in suffixes if suffix)
        self._variant = re.compile(
            rf"(?:{stems})(?:\.{_LANGUAGE}(?:{pages})|(?:{pages})\.{_LANGUAGE})"
            if stems and pages
            else r"(?!)"
        )

    def is_index(self, placement: Placement) -> bool:
        """Whether ``placement`` (a URL in its own directory) is that directory's index page."""
        return placement.relative.lower() in self._file_names

    def stands_for_directory(self, placement: Placement) -> bool:
        """Whether ``placement`` is its directory's index page under its own name or a
        language-negotiated one: a page whose text and listing pair the directory."""
        return self.is_index(placement) or self.is_language_variant(placement)

    def is_language_variant(self, placement: Placement) -> bool:
        """Whether ``placement`` is a language edition of its directory's index page, as
        servers that negotiate the language name them (``index.en.html``, ``index.html.fr``):
        the page a same-named alias (``index.html``) duplicates, when it was fetched first."""
        return self._variant.fullmatch(placement.relative.lower()) is not None

    def entry_key(self, placement: Placement) -> str:
        """The key a page is filed under in one directory: ``""`` for the directory's own index
        page whatever its file name (it stands for the directory), else its relative path."""
        return "" if placement.is_own and self.is_index(placement) else placement.relative_key

    def names_document(self, relative: str) -> bool:
        """Whether a linked relative path may name a document worth a probe: a file with a page
        extension (a listing also links archives, images and extensionless files such as README
        or SHA256SUMS), no query (sort links of generated listings), not an index page."""
        name = relative.rsplit("/", 1)[-1].lower()
        extension = name[name.rfind(".") :] if "." in name else ""
        return (
            bool(extension)
            and "?" not in relative
            and extension in self._extensions
            and name not in self._file_names
        )

    def names_index(self, relative: str) -> bool:
        """Whether a relative path (``a/b/``, ``a/index.html``, ``""``) names an index page."""
        return "?" not in relative and relative.rsplit("/", 1)[-1].lower() in self._file_names

    def names_index_file(self, relative: str) -> bool:
        """Whether a relative path names an index page by a file name with a page extension
        (``a/index.html``; not ``a/index``, nor ``a/``)."""
        return "?" not in relative and relative.rsplit("/", 1)[-1].lower() in self._named_files

    def names_listing(self, relative: str) -> bool:
        """Whether a relative path names an index page or a view of one (a query on it: the sort
        orders of a generated listing, which names its own host like the listing does)."""
        return self.names_index(relative.split("?", 1)[0])
