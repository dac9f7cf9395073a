"""Near-duplicates made with the differences Henzinger's raters accepted, and hard negatives.

Henzinger (2006, §3.1) calls two pages correct near-duplicates when their text differs only by a
session id, a time stamp, an execution time, a message id, a visitor count, a server name, all or
part of their URL, or a combination of these. Each such difference is a *dynamic field* here: a
``<span class="FIELD">`` that a site template shows (``render_field``) and that a variant rewrites
with a fresh value, or inserts when the page has none. Formatting-only changes keep the token
sequence, so they are exact duplicates by the tokenizer's definition.

The hard negatives are the two failure modes the paper names: the same boilerplate around another
main item, and database records that differ in 10-30 consecutive tokens. Both replace a marked
region with *real* text from the corpus, so a negative is never a near-copy of lorem ipsum.

Every variant takes HTML bytes and a ``random.Random`` and returns HTML bytes (``served_at``, the
page as another URL's server renders it, takes the two URLs instead).
"""

from __future__ import annotations

import functools
import html as html_escaping
import random
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from .corpus import documentation_pages

Variant = Callable[[bytes, random.Random], bytes]

_FIELD_LABELS = {
    "timestamp": "Page generated",
    "execution_time": "Rendered in",
    "visitor_count": "You are visitor number",
    "session_id": "Your session",
    "message_id": "Message-ID:",
    "server_name": "Served by",
}
FIELDS = tuple(_FIELD_LABELS)
_SESSION_PARAMETER = re.compile(rb"sid=[0-9a-f]+")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_ENTRY = re.compile(r'<dl><dt><a name="[^"]*">.*?</dd></dl>', re.S)
_TAG = re.compile(r"<[^>]*>")
_MAIN_ITEM_WORDS = (40, 150)
_RECORD_WORDS = (10, 30)


def field_value(name: str, rng: random.Random) -> str:
    """A plausible fresh value of dynamic field ``name`` (plain text, not yet escaped)."""
    moment = _EPOCH + timedelta(seconds=rng.randrange(366 * 86_400))
    values = {
        "timestamp": lambda: moment.strftime("%a, %d %b %Y %H:%M:%S GMT"),
        "execution_time": lambda: f"{rng.uniform(0.004, 2.5):.3f} seconds",
        "visitor_count": lambda: f"{rng.randrange(1_000, 2_000_000):,}",
        "session_id": lambda: f"{rng.getrandbits(64):016x}",
        "message_id": lambda: (
            f"<{moment:%Y%m%d%H%M%S}.GA{rng.randrange(10_000)}@lists.example.org>"
        ),
        "server_name": lambda: f"web{rng.randrange(1, 48):02d}.rack{rng.randrange(1, 9)}",
    }
    return values[name]()


def render_field(name: str, value: str) -> str:
    """The HTML a template shows for one dynamic field."""
    value_html = f'<span class="{name}">{html_escaping.escape(value)}</span>'
    return f'<p class="dynamic">{_FIELD_LABELS[name]} {value_html}</p>'


def change_field(name: str) -> Variant:
    """A variant that gives dynamic field ``name`` a new value wherever the page shows it."""

    def variant(page: bytes, rng: random.Random) -> bytes:
        value = field_value(name, rng)
        pattern = re.compile(rb'(<span class="' + name.encode() + rb'">)[^<]*(</span>)')
        changed, count = pattern.subn(
            lambda match: match.group(1) + html_escaping.escape(value).encode() + match.group(2),
            page,
        )
        if count == 0:
            changed = _insert_before_body_end(page, render_field(name, value).encode())
        if name == "session_id":
            changed = _SESSION_PARAMETER.sub(b"sid=" + value.encode(), changed)
        return changed

    variant.__name__ = f"change_{name}"
    return variant


def combination(page: bytes, rng: random.Random) -> bytes:
    """Two or three dynamic fields changed at once."""
    for name in rng.sample(FIELDS, rng.randint(2, 3)):
        page = change_field(name)(page, rng)
    return page


def url_only(page: bytes, rng: random.Random) -> bytes:
    """The same bytes: the copy differs only by the URL it is served at."""
    return page


def served_at(page: bytes, old_url: str, new_url: str) -> bytes:
    """The page as its server renders it at ``new_url``: its own address in the text changes too."""
    return page.replace(
        html_escaping.escape(old_url).encode(), html_escaping.escape(new_url).encode()
    )


def reformat(page: bytes, rng: random.Random) -> bytes:
    """Formatting only: other white space between tags, comments and wrappers, upper-case tags.

    Changes are made only where the markup already separates words, so the token sequence stays.
    """
    page = re.sub(
        rb">[ \t\r\n]*<", lambda _: b">" + rng.choice([b"", b"\n", b"\n  ", b" \t"]) + b"<", page
    )
    page = re.sub(
        rb"<(p|table|dl|h[1-6])([ >])",
        lambda match: (
            rng.choice([b"<!-- layout -->", b"<div></div>", b""])
            + b"<"
            + match.group(1).upper()
            + match.group(2)
        ),
        page,
    )
    return page.replace(b"<br>", rng.choice([b"<br/>", b"<BR>", b"<br >"]))


def other_main_item(page: bytes, rng: random.Random) -> bytes:
    """Hard negative: the page's template around another real main item (40-150 words).

    The page must have a ``<div class="main">`` (the testweb templates do).
    """
    return _replace_region(page, "main", rng.choice(main_items()))


def other_record(page: bytes, rng: random.Random) -> bytes:
    """Hard negative: another database record, 10-30 real words in ``<div class="record">``."""
    return _replace_region(page, "record", html_escaping.escape(rng.choice(record_texts())))


VARIANTS: dict[str, Variant] = {
    "url_only": url_only,
    "formatting": reformat,
    **{name: change_field(name) for name in FIELDS},
    "combination": combination,
}
NEGATIVES: dict[str, Variant] = {"boilerplate": other_main_item, "database_record": other_record}
NEGATIVE_REGIONS = {"boilerplate": "main", "database_record": "record"}  # what each one replaces


@functools.cache
def main_items() -> tuple[str, ...]:
    """Distinct documentation entries (signature and docstring) of 40-150 words, in corpus order."""
    low, high = _MAIN_ITEM_WORDS
    return tuple(entry for entry, words in _entries() if low <= len(words) <= high)


@functools.cache
def record_texts() -> tuple[str, ...]:
    """Distinct runs of 10-30 consecutive real words: the start of each documentation entry.

    A run's length follows its entry's own word count, so lengths spread over the whole range.
    """
    low, high = _RECORD_WORDS
    runs = (" ".join(words[: low + len(words) % (high - low + 1)]) for _, words in _entries())
    return tuple(dict.fromkeys(run for run in runs if len(run.split()) >= low))


def entry_words(entry_html: str) -> list[str]:
    """The white-space separated words of an HTML fragment's text."""
    return html_escaping.unescape(_TAG.sub(" ", entry_html)).split()


@functools.cache
def _entries() -> tuple[tuple[str, list[str]], ...]:
    """(entry HTML, its words) for every distinct entry of the corpus, in corpus order."""
    entries: dict[str, list[str]] = {}
    for doc in documentation_pages():
        for entry in _ENTRY.findall(doc.html.decode("utf-8")):
            entries.setdefault(entry, entry_words(entry))
    return tuple(entries.items())


def region(page: bytes, css_class: str) -> str:
    """The inner HTML of the page's ``<div class="CSS_CLASS">`` region ("" if it has none)."""
    match = _region_pattern(css_class).search(page)
    return match.group(2).decode("utf-8") if match else ""


def _replace_region(page: bytes, css_class: str, inner_html: str) -> bytes:
    replaced, count = _region_pattern(css_class).subn(
        lambda match: match.group(1) + inner_html.encode() + match.group(3), page, count=1
    )
    if count == 0:
        msg = f'the page has no <div class="{css_class}"> region to replace'
        raise ValueError(msg)
    return replaced


@functools.cache
def _region_pattern(css_class: str) -> re.Pattern[bytes]:
    name = re.escape(css_class).encode()
    return re.compile(rb'(<div class="' + name + rb'">)(.*?)(</div><!-- /' + name + rb" -->)", re.S)


def _insert_before_body_end(page: bytes, fragment: bytes) -> bytes:
    position = page.rfind(b"</body>")
    return page + fragment if position < 0 else page[:position] + fragment + page[position:]
