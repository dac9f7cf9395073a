"""Hostile input, seeded: the shapes of markup, bytes, charsets, URLs and messages that an outside
red-team run used against the filter (issue 10), for the adversarial tests and ``bench/hostile.py``.

Every generator is deterministic for its seed. Markup shapes take a target size in bytes, so the
benchmark can grow them to the body limit while the tests keep them small.
"""

from __future__ import annotations

import base64
import codecs
import encodings.aliases
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Shape = Callable[[int], bytes]


def _repeat(unit: bytes, size: int, prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    return prefix + unit * max((size - len(prefix) - len(suffix)) // len(unit), 1) + suffix


def _numbered(template: bytes, size: int, prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    """``template % i`` for i = 0, 1, ... until ``size`` bytes (distinct names, URLs, values)."""
    parts, total, index = [prefix], len(prefix) + len(suffix), 0
    while total < size:
        part = template % index
        parts.append(part)
        total += len(part)
        index += 1
    return b"".join([*parts, suffix])


def _attributes_per_tag(count: int) -> Shape:
    def shape(size: int) -> bytes:
        tag = b"<div " + b" ".join(b"a%d" % i for i in range(count)) + b">x</div>"
        return _repeat(tag, size)

    return shape


# markup the parser must not pay for more than linearly; every value: size in bytes -> body
MARKUP_SHAPES: dict[str, Shape] = {
    "attributes in one tag": lambda size: _numbered(b" a%d", size, b"<div", b">x</div>"),
    "attributes, 1,000 a tag": _attributes_per_tag(1000),
    "duplicate attributes": lambda size: _repeat(b" a=x", size, b"<div", b">x</div>"),
    "flat tags": lambda size: _repeat(b"<p>x</p>", size),
    "formatting siblings": lambda size: _repeat(b"<span>x</span>", size),
    "images": lambda size: _numbered(b"<img src=i%d.png>", size),
    "anchors": lambda size: _numbered(b'<a href="/p%d">y</a>', size),
    "deep nesting": lambda size: _repeat(b"<div>", size),
    "deep formatting": lambda size: _repeat(b"<b><i>", size),
    "table cells": lambda size: _repeat(b"<tr><td>x", size, b"<table>"),
    "huge comment": lambda size: _repeat(b"x", size, b"<p>a</p><!--", b"-->"),
    "many comments": lambda size: _repeat(b"<!--x-->", size),
    "long attribute value": lambda size: _repeat(b"v", size, b'<div title="', b'">x</div>'),
    "huge token": lambda size: _repeat(b"w", size, b"<p>", b"</p>"),
    "many words": lambda size: _numbered(b"w%d ", size, b"<p>"),
    "entities": lambda size: _repeat(b"&amp;&#x1F600;&bogus;", size),
    "lone less-than": lambda size: _repeat(b"<", size),
    "unterminated script": lambda size: _repeat(b"var a = '<p>';", size, b"<p>t</p><script>"),
    "unclosed quote": lambda size: _numbered(b' a%d="x', size, b"<div", b">x</div>"),
    "data URI image": lambda size: _repeat(b"A", size, b'<img src="data:image/png;base64,', b'">'),
}

_SURROGATE_URLS = ("http://s.test/\ud800x", "http://\udcff.test/", "http://s.test/a\udc80b")
ODD_URLS = (
    *_SURROGATE_URLS,
    "http://[::1/x",
    "http://s.test:99999/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "http://" + "a" * 5000 + ".test/",
    "http://s.test/" + "%" * 300,
    "http://s\x00.test/",
    "http://xn--ls8h.test/\u202e/",
)


def charset_names() -> list[str]:
    """Every codec name Python knows, and names it does not."""
    known = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    return sorted(known | {"undefined", "idna", "punycode", "x-unknown", "utf-99", "unicode-1-1"})


@dataclass(frozen=True, slots=True)
class HostilePage:
    """One input for ``check_page``: its class, URL, body and headers."""

    kind: str
    url: str
    body: bytes
    headers: dict[str, str] | None = None


def flipped(page: bytes, rng: random.Random, flips: int) -> bytes:
    """``page`` with ``flips`` random bytes set to random values (a cut or a corrupted body)."""
    data = bytearray(page)
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def hostile_pages(
    seed: int, count: int, real_pages: list[bytes], max_bytes: int = 20_000
) -> Iterator[HostilePage]:
    """``count`` inputs cycling through every class: markup shapes, bytes, charsets, URLs, and
    random byte flips of ``real_pages``."""
    rng = random.Random(seed)
    makers = [
        *(_markup(name, shape) for name, shape in MARKUP_SHAPES.items()),
        _bytes_page,
        _charset_page,
        _url_page,
    ]
    for number in range(count):
        url = f"http://h{number % 97}.test/p{number}"
        if number % 4 == 0:  # a quarter: real pages with random byte flips
            page = rng.choice(real_pages)
            body = flipped(page, rng, rng.choice((1, 10, 100, 1000)))
            yield HostilePage("byte flips", url, body)
        else:
            yield makers[number % len(makers)](rng, url, max_bytes)


def _markup(name: str, shape: Shape) -> Callable[[random.Random, str, int], HostilePage]:
    def make(rng: random.Random, url: str, max_bytes: int) -> HostilePage:
        return HostilePage(name, url, shape(rng.randrange(16, max_bytes)))

    return make


def _bytes_page(rng: random.Random, url: str, max_bytes: int) -> HostilePage:
    size = rng.randrange(0, max_bytes // 4)
    body = rng.choice(
        [
            lambda: rng.randbytes(size),
            lambda: b"<p>" + rng.randbytes(size).replace(b"\x00", b"") + b"</p>",
            lambda: codecs.BOM_UTF16_LE + rng.randbytes(size),
            lambda: codecs.BOM_UTF8 + b"\xed\xa0\x80" * (size // 3),
            lambda: "<p>\ud800 a\udfff</p>".encode("utf-16-le", "surrogatepass"),
            lambda: b"",
        ]
    )()
    return HostilePage("bytes", url, body)


def _charset_page(rng: random.Random, url: str, max_bytes: int) -> HostilePage:
    charset = rng.choice(charset_names())
    text = b"<p>caf\xc3\xa9 xn--abc- \\ud800 +AGE- \xff\xfe words</p>" * rng.randrange(1, 50)
    if rng.random() < 0.5:
        return HostilePage("charset", url, text, {"Content-Type": f"text/html; charset={charset}"})
    return HostilePage("charset", url, f'<meta charset="{charset}">'.encode() + text)


def _url_page(rng: random.Random, url: str, max_bytes: int) -> HostilePage:
    body = f'<p>odd URL</p><img src="{rng.choice(ODD_URLS)}"><a href="{rng.choice(ODD_URLS)}">'
    return HostilePage("url", rng.choice(ODD_URLS), body.encode("utf-8", "surrogatepass"))


def page_message(page: HostilePage, rng: random.Random) -> bytes:
    """A JSON page document (``dedup-filter check`` line, stream page message) for ``page``."""
    document: dict[str, Any] = {"url": page.url}
    if rng.random() < 0.5:
        document["body_b64"] = base64.b64encode(page.body).decode()
    else:
        document["body"] = page.body.decode("utf-8", "surrogateescape")
    if page.headers:
        document["headers"] = page.headers
    return json.dumps(document).encode()


# JSON lines a producer or a user may send by mistake; each must be one skip or dead letter
BROKEN_MESSAGES = (
    b"not json",
    b"[1, 2, 3]",
    b'{"url": 7, "body": ""}',
    b'{"url": "http://s.test/", "body": ""',
    b'{"url": "http://s.test/", "body_b64": "%%%"}',
    b'{"url": "http://s.test/", "body": "x", "body_b64": "eA=="}',
    b'{"url": "http://s.test/", "body": "x", "headers": {"a": {"b": 1}}}',
    b'{"url": "http://s.test/", "body": "x", "headers": [1]}',
    b'{"url": "http://s.test/\\ud800x", "body": "<p>lone surrogate</p>"}',
    b'{"url": "relative/path", "body": "x"}',
    b'{"url": "", "body": "x"}',
    b"\xff\xfe{\x00",
    b"[" * 100_000,
    b'{"a": ' * 50_000,
)


def hostile_messages(
    seed: int, count: int, real_pages: list[bytes], max_bytes: int = 20_000
) -> Iterator[tuple[str, bytes]]:
    """``count`` JSON lines: hostile pages as documents, with every broken message among them.

    Yields:
        (kind, line): the class, and the line (no newline inside).
    """
    rng = random.Random(seed)
    pages = hostile_pages(seed, count, real_pages, max_bytes)
    for number, page in enumerate(pages):
        if number % 10 == 9:
            yield "broken message", BROKEN_MESSAGES[(number // 10) % len(BROKEN_MESSAGES)]
        else:
            yield page.kind, page_message(page, rng)
