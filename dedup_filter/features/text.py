"""Bodies to token sequences, as Henzinger's §2 prescribes, without ever raising on bad input.

Markup becomes white space except formatting tags, which are ignored (``Hel<b>lo</b>`` is one
term), ``script``/``style`` vanish, every maximal run of Unicode letters and
digits is a lower-cased term (so a URL in the text falls apart at ``/`` and ``.``), and the URL of
an ``IMG`` is one term: the whole URL for another host, the file name alone for the page's own
host, so that a page and its mirror on another host produce the same tokens.
"""

from __future__ import annotations

import codecs
import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, overload
from urllib.parse import urljoin, urlsplit

import numpy as np
import numpy.typing as npt
from selectolax.lexbor import LexborHTMLParser

from dedup_filter.features import kernels
from dedup_filter.features.attributes import MAX_ATTRIBUTES, cap_attributes
from dedup_filter.features.hashing import I64, U32, U64
from dedup_filter.references import plain_file_name
from dedup_filter.urls import host_of

_MARK = "\ue000"  # private-use character: brackets an image term inside the extracted text
_MARK_UTF8 = _MARK.encode()
_UNMAPPED = 0xFFFFFFFF  # no code point: ``_lower_table``'s value where str.lower is needed
_ALPHANUMERIC = re.compile(r"[^\W_]")
_LETTERS = re.compile(r"[^\W\d_]+")
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I
)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{1,40})", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# void and implicitly-closed elements: they never open a level of nesting
_FLAT_TAGS = (
    "area", "base", "br", "col", "dd", "dt", "embed", "hr", "img", "input", "li", "link", "meta",
    "option", "p", "param", "source", "td", "th", "tr", "track", "wbr",
)  # fmt: skip
_NAME_BYTES = 8  # longer than any name in _FLAT_TAGS
_SCAN_FACTOR = 4
_INVISIBLE_TAGS = ["script", "style", "noscript", "template"]
# Henzinger §2: formatting instructions are ignored rather than turned into white space
_FORMATTING_TAGS = [
    "b",
    "big",
    "em",
    "font",
    "i",
    "mark",
    "s",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "tt",
    "u",
    "wbr",
]
_IMAGE_TAGS = ("img", "image")  # the tree builder makes an img element of <image>
# the tags html_text edits the tree for: the tag census says which a page names
_EDITED_TAGS = (*_FORMATTING_TAGS, *_IMAGE_TAGS, *_INVISIBLE_TAGS)
_SNIFF_BYTES = 4096
# a page's anchors are kept beyond its parse (sent between processes, resolved later): a hostile
# page of 5 MB of "<a href=n>" would give 400,000 of them; its first links are the ones resolved
MAX_ANCHORS = 16_000  # 8 times ``mirrors.links.MAX_LINKS``
# what a page links to; the elements that name a language edition of it (``features.alternates``)
_LINKS = "a[href], area[href], base[href]"
_ALTERNATES = "base[href], [hreflang][href]"
MAX_IMAGE_TERMS = 20_000  # ~10 µs each: a page of 300,000 images took 3.5 s of CPU before
# Python codecs that are no web charset: the escape codecs decode escapes into lone surrogates,
# and warn; ``punycode`` decodes in time that grows with the square of the body (a red team's
# 1 MB page declaring it held a stream partition for 40 s: sixty-seventh session), as ``idna``
# decodes its labels
_NOT_CHARSETS = frozenset({"unicode-escape", "raw-unicode-escape", "punycode", "idna"})
# what a body in one of these holds NUL bytes for (ASCII text in UTF-16 or UTF-32): a header
# naming one is read before NUL bytes call the body binary
_WIDE_CODECS = ("utf-16", "utf-32")
# codecs whose strict decoding ``str.encode("utf-8")`` undoes byte for byte (not utf-8-sig: a BOM)
_UTF8_SUBSETS = frozenset({"utf-8", "ascii"})


@dataclass(frozen=True, slots=True)
class DecodedBody:
    """A body as text, with how it was decoded."""

    text: str | None  # None when the body is binary
    encoding: str
    replaced: bool  # some bytes were undecodable and became U+FFFD


def decode_body(
    body: bytes, headers: Mapping[Any, Any] | None, fallback: str = "cp1252"
) -> DecodedBody:
    """Decode with the BOM, the HTTP charset, ``<meta charset>``, UTF-8, then the fallback.

    A body with NUL bytes near its start is binary (``text`` is None), unless a UTF-16 BOM or a
    UTF-16 or UTF-32 charset in its header decodes it. Never raises, whatever charset is
    declared: Python's codecs fail on bad input in several ways (the ``undefined`` codec raises a
    plain ``UnicodeError``, codecs that are not text encodings a ``LookupError``), and any such
    failure means "try the next candidate"; codecs that are no web charset are passed over.
    """
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return DecodedBody(body.decode(encoding, errors="replace"), encoding, False)
    if b"\x00" in body[:_SNIFF_BYTES]:
        wide = _header_charset(headers)
        if wide and _is_wide(wide) and (text := _decoded(body, wide)) is not None:
            return DecodedBody(text, wide, False)
        return DecodedBody(None, "binary", False)
    for encoding in [*_declared_encodings(body, headers), "utf-8", fallback]:
        text = _decoded(body, encoding)
        if text is not None:
            return DecodedBody(text, encoding, False)
    return DecodedBody(body.decode("utf-8", errors="replace"), "utf-8", True)


def utf8_body(body: bytes, decoded: DecodedBody) -> bytes | None:
    """``body`` when it is ``decoded.text`` encoded as UTF-8 (decoded strictly as UTF-8 or
    ASCII, which round-trip byte for byte), else None: ``html_text`` need not encode it again."""
    if decoded.text is None or decoded.replaced:
        return None
    return body if codecs.lookup(decoded.encoding).name in _UTF8_SUBSETS else None


def _decoded(body: bytes, encoding: str) -> str | None:
    """``body`` decoded strictly, or None when the codec fails or is not a charset."""
    try:
        if codecs.lookup(encoding).name in _NOT_CHARSETS:
            return None
        return body.decode(encoding)
    except (ValueError, LookupError):  # UnicodeError is a ValueError
        return None


def _is_wide(encoding: str) -> bool:
    """Whether a charset names UTF-16 or UTF-32 (``utf-16le``, ``UTF-32``)."""
    try:
        return codecs.lookup(encoding).name.startswith(_WIDE_CODECS)
    except LookupError:
        return False


def _declared_encodings(body: bytes, headers: Mapping[Any, Any] | None) -> list[str]:
    declared = [_header_charset(headers), _meta_charset(body)]
    return [name for name in declared if name]


def _header_charset(headers: Mapping[Any, Any] | None) -> str | None:
    match = _HEADER_CHARSET.search(_content_type(headers))
    return match.group(1) if match else None


def is_plain_text(headers: Mapping[Any, Any] | None) -> bool:
    """Whether the response says its body is plain text (``text/plain``: an RFC, a README, a
    Sphinx page's ``_sources/*.txt``), which is read as it is, not parsed as HTML."""
    return _content_type(headers).partition(";")[0].strip().lower() == "text/plain"


def _content_type(headers: Mapping[Any, Any] | None) -> str:
    """The ``Content-Type`` header's value ("" without one)."""
    for key, value in (headers or {}).items():
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        if name.lower() != "content-type":
            continue
        if isinstance(value, (list, tuple)):
            value = value[0] if value else b""
        return value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return ""


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:_SNIFF_BYTES])
    return match.group(1).decode("ascii") if match else None


@dataclass(frozen=True, slots=True)
class Anchors:
    """Where a document links to, as written: its ``<base href>`` and every ``a``/``area`` href."""

    base: str | None  # None without a <base href> element
    hrefs: tuple[str, ...]


@overload
def html_tokens(
    html: str, page_url: str, max_depth: int = ..., *, anchors: Literal[False] = False
) -> tuple[list[str], bool]: ...


@overload
def html_tokens(
    html: str, page_url: str, max_depth: int = ..., *, anchors: Literal[True]
) -> tuple[list[str], bool, Anchors]: ...


def html_tokens(
    html: str, page_url: str, max_depth: int = 1_000, *, anchors: bool = False
) -> tuple[list[str], bool] | tuple[list[str], bool, Anchors]:
    """The term sequence of an HTML document (image URLs included in document order).

    ``html_text`` followed by ``tokenize``: see there.
    """
    page = html_text(html, page_url, max_depth, anchors=anchors)
    tokens = tokenize(page.text)
    if page.anchors is None:
        return tokens, page.truncated
    return tokens, page.truncated, page.anchors


@dataclass(frozen=True, slots=True)
class PageText:
    """What the tokenizer reads of a document."""

    text: str  # the visible text, image terms marked for ``token_spans``
    title: str  # the text of its <title> ("" without one)
    code: str  # the text of its <pre> blocks, joined ("" without one)
    truncated: bool  # not read whole: see ``html_text``
    anchors: Anchors | None  # only when asked for
    language: str = ""  # what its <html> element's ``lang`` (or ``xml:lang``) says, as written
    alternates: Anchors = Anchors(None, ())  # its ``hreflang`` links (``features.alternates``)


def plain_text(text: str) -> PageText:
    """What the tokenizer reads of a plain-text document: all of it (no title, no code block,
    no link), ``_MARK`` kept out."""
    return PageText(text.replace(_MARK, " "), "", "", False, None)


def html_text(
    html: str,
    page_url: str,
    max_depth: int = 1_000,
    *,
    anchors: bool = False,
    utf8: bytes | None = None,
) -> PageText:
    """The visible text of an HTML document and its title, from one parse.

    A document is parsed only up to where its tags nest deeper than ``max_depth``: the parser's
    cost grows with the square of the nesting depth, so a hostile page of nested tags would
    otherwise stall the crawl. The cut depends on nesting alone, never on length, so a page and
    its reformatted copy are cut alike. For the same reason a start tag keeps only its first
    ``attributes.MAX_ATTRIBUTES`` attributes, and only the first ``MAX_IMAGE_TERMS`` images give
    terms (each costs a URL parse and a tree edit). Any of these cuts marks the text ``truncated``;
    no page of the real corpora comes near them (docs/hostile.md).

    Args:
        anchors: also read the document's ``Anchors`` (the default pays nothing for them).
        utf8: ``html`` encoded as UTF-8, when the caller holds it (``utf8_body``): the parser is
            given it instead of encoding ``html`` again.
    """
    if utf8 is None or _holds_mark(utf8):
        html, utf8 = html.replace(_MARK, " "), None
    declares = b"hreflang" in utf8 if utf8 is not None else "hreflang" in html
    html, truncated, named = _bounded(html, max_depth, utf8)
    tree = LexborHTMLParser(html)
    found = _anchors(tree) if anchors else None  # before the tree is edited below
    alternates = _anchors(tree, _ALTERNATES) if declares else Anchors(None, ())
    title = next(iter(tree.tags("title")), None)  # a name lookup: no selector to compile
    # merge before anything else is removed: a stripped script still separates its neighbours;
    # a name lookup for each formatting tag the page names (1.5x faster than one selector list)
    for name in (name for name in _FORMATTING_TAGS if name in named):
        for node in tree.tags(name):
            node.unwrap()
    tree.merge_text_nodes()
    page_host = host_of(page_url)
    images = tree.css("img[src]") if not named.isdisjoint(_IMAGE_TAGS) else []
    for image in images[:MAX_IMAGE_TERMS]:
        term = _well_formed(image_term(image.attributes.get("src") or "", page_url, page_host))
        image.replace_with(f" {_MARK}{term}{_MARK} " if term else " ")
    tree.strip_tags([name for name in _INVISIBLE_TAGS if name in named])
    root = tree.root
    text, language = "", ""
    if root is not None:
        text = root.text(separator=" ")
        attributes = root.attributes
        language = attributes.get("lang") or attributes.get("xml:lang") or ""
    code = " ".join(block.text(separator=" ") for block in tree.tags("pre"))
    cut = truncated or len(images) > MAX_IMAGE_TERMS
    title_text = "" if title is None else title.text()
    return PageText(text, title_text, code, cut, found, language, alternates)


def _holds_mark(utf8: bytes) -> bool:
    """Whether UTF-8 text holds ``_MARK``, its lead byte looked for first: a search for the whole
    mark stalls on its continuation bytes, which text beyond ASCII is full of (4x slower)."""
    return _MARK_UTF8[:1] in utf8 and _MARK_UTF8 in utf8


def title_words(title: str) -> str:
    """A title's words, lower-cased, without digits: what two copies of one document share
    although a counter or a date in the title differs."""
    return " ".join(_LETTERS.findall(title.lower()))


def html_anchors(html: str, max_depth: int = 1_000) -> Anchors:
    """The anchors of a document that is not tokenized (``html_text`` reads them in passing),
    parsed within the same bounds."""
    return _anchors(LexborHTMLParser(_bounded(html, max_depth)[0]))


def _bounded(
    html: str, max_depth: int, utf8: bytes | None = None
) -> tuple[str | bytes, bool, frozenset[str]]:
    """What the parser is given of ``html`` (``utf8``: its UTF-8, when known): attributes
    capped, nesting cut; whether it was cut; which of ``_EDITED_TAGS`` its start tags name (no
    other tag makes such an element).

    One compiled pass over the bytes tells whether either cut can apply (no real page comes near
    them); only then are they made. Uncut, the parser is given the UTF-8 the pass read, which it
    would otherwise encode again (it drops lone surrogates: text holding any is given as text).
    """
    try:
        encoded = html.encode("utf-8") if utf8 is None else utf8
        document: str | bytes = encoded
    except UnicodeEncodeError:
        encoded, document = html.encode("utf-8", "surrogatepass"), html
    data = np.frombuffer(encoded, dtype=np.uint8)
    crowded, unclosed, found = kernels.tag_census(data, MAX_ATTRIBUTES, _edited_keys())
    named = _edited_names(found)
    if not crowded and unclosed <= _SCAN_FACTOR * max_depth:
        return document, False, named
    html, capped = cap_attributes(html)
    html, truncated = _cut_deep_nesting(html, max_depth)
    return html, capped or truncated, named


@functools.lru_cache(maxsize=256)
def _edited_names(found: int) -> frozenset[str]:
    """The names of ``_EDITED_TAGS`` whose bits ``found`` sets (kept: pages repeat few sets)."""
    return frozenset(name for number, name in enumerate(_EDITED_TAGS) if found >> number & 1)


def _anchors(tree: LexborHTMLParser, selector: str = _LINKS) -> Anchors:
    """The ``<base href>`` and the hrefs of the elements ``selector`` finds (the first
    ``MAX_ANCHORS``): one walk of the tree (a second, for the ``<base>``, cost as much again)."""
    base, hrefs = None, []
    for node in tree.css(selector):
        if node.tag == "base":
            if base is None:  # the first one counts
                base = node.attributes.get("href") or ""
        elif len(hrefs) < MAX_ANCHORS:
            hrefs.append(node.attributes.get("href") or "")
    return Anchors(base, tuple(hrefs))


def _cut_deep_nesting(html: str, max_depth: int) -> tuple[str, bool]:
    """Cut before the first tag that nests deeper than ``max_depth`` (an over-estimate of depth).

    Depth never exceeds the number of unclosed tags, so a page with at most ``_SCAN_FACTOR`` times
    ``max_depth`` of them skips the scan: its worst case (4,000 levels) still parses in ~30 ms.
    The scan reads tag names with array operations: opening tags nest, closing tags unnest, and
    the names of ``_FLAT_TAGS`` (void or implicitly closed elements) do neither.
    """
    if html.count("<") - html.count("</") <= _SCAN_FACTOR * max_depth:
        return html, False
    data = np.frombuffer(html.encode("utf-8", "surrogatepass") + b"\0", dtype=np.uint8)
    opens = np.flatnonzero(data[:-2] == ord("<"))
    closing = data[opens + 1] == ord("/")
    named = _is_ascii_letter(data[opens + 1 + closing])  # only a letter starts a tag name
    opens, closing = opens[named], closing[named]
    nesting = ~np.isin(_name_keys(_tag_names(data, opens + 1 + closing)), _flat_keys())
    depth = np.cumsum(np.where(closing, -1, 1) * nesting)
    too_deep = np.flatnonzero(depth > max_depth)
    if len(too_deep) == 0:
        return html, False
    cut = int(opens[too_deep[0]])
    return data[:cut].tobytes().decode("utf-8", "surrogatepass"), True


def _tag_names(data: npt.NDArray[np.uint8], starts: I64) -> npt.NDArray[np.uint8]:
    """The first ``_NAME_BYTES`` bytes from each start, lower-cased, zero from the first byte that
    ends the name (a name runs through word characters, as the regex ``\\b`` reads them)."""
    padded = np.concatenate([data, np.zeros(_NAME_BYTES, dtype=np.uint8)])
    names = np.lib.stride_tricks.sliding_window_view(padded, _NAME_BYTES)[starts]
    letters = _is_ascii_letter(names)
    digits = (names >= ord("0")) & (names <= ord("9"))
    in_name = letters | digits | (names == ord("_")) | (names >= 0x80)
    lowered = names | (letters * np.uint8(0x20))
    return np.where(np.logical_and.accumulate(in_name, axis=1), lowered, 0).astype(np.uint8)


def _is_ascii_letter(codes: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    folded = codes | np.uint8(0x20)
    return (folded >= ord("a")) & (folded <= ord("z"))


def _name_keys(names: npt.NDArray[np.uint8]) -> U64:
    """One integer per name (its bytes, big-endian); a name that fills every byte matches none."""
    keys = np.ascontiguousarray(names).view(">u8")[:, 0].astype(np.uint64)
    return np.where(names[:, -1] != 0, np.uint64(0), keys)


@functools.cache
def _edited_keys() -> U64:
    padded = [name.encode().ljust(_NAME_BYTES, b"\0") for name in _EDITED_TAGS]
    return np.frombuffer(b"".join(padded), dtype=">u8").astype(np.uint64)


@functools.cache
def _flat_keys() -> U64:
    padded = [name.encode().ljust(_NAME_BYTES, b"\0") for name in _FLAT_TAGS]
    return np.frombuffer(b"".join(padded), dtype=">u8").astype(np.uint64)


def tokenize(text: str) -> list[str]:
    """Lower-cased maximal alphanumeric runs; image terms marked by ``html_text`` stay whole."""
    lowered = text.lower()
    _, starts, ends = token_spans(lowered)
    return [lowered[start:end] for start, end in zip(starts.tolist(), ends.tolist(), strict=True)]


def token_spans(lowered: str) -> tuple[U32, I64, I64]:
    """The terms of lower-cased text as spans of its code points: (code points, starts, ends).

    A term is a maximal run of Unicode letters and digits (``str.isalnum``), or everything between
    a pair of image marks (marks come in pairs; an odd last one is a separator). Found in one
    compiled pass over the code points, so a page's terms never become Python objects on the way
    to their hashes.
    """
    codes = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return _spans(codes)


def lowered_token_spans(text: str) -> tuple[U32, I64, I64]:
    """``token_spans(text.lower())``, its code points lower-cased through a table: ``str.lower``
    reads text that is not ASCII (four pages in five of the Debian documentation) through its
    general path, which costs twice the table.

    A code point lower-cases alone into one code point, but for two: U+0130 (into two) and U+03A3
    (final sigma, by its neighbours). Text holding either, text beyond the table (the Basic
    Multilingual Plane) and ASCII text (fast) are lower-cased by ``str.lower``.
    """
    if text.isascii():
        return token_spans(text.lower())
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    lowered, whole = kernels.lowered_codes(codes, _lower_table(), _UNMAPPED)
    if not whole:
        return token_spans(text.lower())
    lowered.flags.writeable = False  # typed as encoded text is: the kernels need no other variant
    return _spans(lowered)  # marks have no case


def _spans(codes: U32) -> tuple[U32, I64, I64]:
    starts, ends = kernels.term_edges(codes, _alphanumeric_table(), ord(_MARK))
    return codes, starts, ends


@functools.cache
def _lower_table() -> U32:
    """Each code point of the Basic Multilingual Plane lower-cased alone, ``_UNMAPPED`` for the
    two that do not lower alone (U+0130, U+03A3), read-only."""
    plane = "".join(map(chr, range(0x10000)))
    lowered = plane[:0x130].lower() + "\u0130" + plane[0x131:].lower()
    table: U32 = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype="<u4").copy()
    table[[0x130, 0x3A3]] = _UNMAPPED
    table.flags.writeable = False
    return table


@functools.cache
def _alphanumeric_table() -> npt.NDArray[np.bool_]:
    """Whether each code point continues a term: the regex class ``[^\\W_]``, read-only."""
    every = "".join(map(chr, range(sys.maxunicode + 1))).replace("\x01", "\x02")
    marked = _ALPHANUMERIC.sub("\x01", every).encode("utf-32-le", "surrogatepass")
    table: npt.NDArray[np.bool_] = np.frombuffer(marked, dtype="<u4") == 1
    table.flags.writeable = False
    return table


def image_term(src: str, page_url: str, page_host: str) -> str:
    """The whole absolute URL for another host, the file name alone for the page's own host."""
    reference = src.strip()
    name = plain_file_name(reference) if page_host else None
    if name is not None:  # a relative path, on the page's own host
        return name
    return image_term_by_urllib(reference, page_url, page_host)


def image_term_by_urllib(reference: str, page_url: str, page_host: str) -> str:
    """``image_term`` for any reference: joined and split by urllib."""
    try:
        absolute = urljoin(page_url, reference)
        parts = urlsplit(absolute)
        host = (parts.hostname or "").lower()
    except ValueError:
        return ""
    if host and host != page_host:
        return absolute
    return parts.path.rsplit("/", 1)[-1]


def _well_formed(text: str) -> str:
    """Lone surrogates (from a malformed page URL) as U+FFFD: the parser accepts only UTF-8."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
