"""The same page under another URL: near-duplicates and formatting-only exact duplicates.

Near-duplicates add what dynamic sites add to a page (a session id, a timestamp, a visitor
counter, a scraper's repost header); their text otherwise equals the original's. Exact duplicates
differ only in markup formatting (tag case, attribute quotes, line endings, indentation), so their
text, and every term a tokenizer sees, equals the original's.
"""

from __future__ import annotations

import re
from random import Random

_TAG_NAME = re.compile(r"<(/?)([a-z][a-z0-9]*)")
_DOUBLE_QUOTED = re.compile(r'="([^"\']*)"')


def session_stamp(rng: Random) -> dict[str, str]:
    """A session id, a timestamp and a visitor count, as a dynamic page would print them."""
    day, hour, minute, second = (
        rng.randint(1, 28),
        rng.randint(0, 23),
        rng.randint(0, 59),
        rng.randint(0, 59),
    )
    return {
        "session": f"{rng.getrandbits(64):016x}",
        "time": f"2024-05-{day:02d} {hour:02d}:{minute:02d}:{second:02d} UTC",
        "visitors": f"{rng.randint(1_000, 999_999):,}",
    }


def with_session(body: str, stamp: dict[str, str]) -> str:
    bar = (
        f'<div class="session">Session {stamp["session"]} &middot; page generated {stamp["time"]} '
        f"&middot; visitor number {stamp['visitors']}</div>\n"
    )
    return body.replace("<body>\n", f"<body>\n{bar}", 1)


def reposted(body: str, source_url: str, stamp: dict[str, str]) -> str:
    header = (
        f'<div class="repost">Reposted from {source_url} on {stamp["time"]} &middot; '
        f"{stamp['visitors']} views</div>\n"
    )
    return body.replace("<body>\n", f"<body>\n{header}", 1)


def reformatted(body: str) -> str:
    """Upper-case tag names, single-quoted attributes, CRLF line ends, indented lines."""
    body = _TAG_NAME.sub(lambda match: f"<{match.group(1)}{match.group(2).upper()}", body)
    body = _DOUBLE_QUOTED.sub(lambda match: f"='{match.group(1)}'", body)
    return body.replace("\n", "\r\n  ")
