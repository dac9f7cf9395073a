"""A cap on the attributes of one tag, applied before the HTML parser sees a document.

Lexbor compares each new attribute of an element with every earlier one, so a start tag with
100,000 distinct attributes costs the square of that (44 s in a 890 KB page; docs/hostile.md).
Start tags with more than ``MAX_ATTRIBUTES`` attributes keep their first ``MAX_ATTRIBUTES``; the
rest are cut out. No page of the real corpora comes near the cap, so their terms are unchanged;
a tag found with a regex that follows the tokenizer's start-tag states, without backtracking,
costs about 3 ms a megabyte of markup.
"""

from __future__ import annotations

import re

MAX_ATTRIBUTES = 64  # ~2,000 comparisons a tag: a 5 MB page of such tags parses in ~0.1 s

_SPACE = r"\t\n\f\r "
_NAME = rf"<[A-Za-z][^{_SPACE}/>]*+"
_ATTRIBUTE = (
    rf"[{_SPACE}/]*+[^{_SPACE}/>][^{_SPACE}/=>]*+"
    rf"""(?:[{_SPACE}]*+=[{_SPACE}]*+(?:"[^"]*+"|'[^']*+'|[^{_SPACE}>]*+))?+"""
)
# group 1: the tag name and the attributes kept; then at least one more attribute
_CROWDED_TAG = re.compile(rf"({_NAME}(?:{_ATTRIBUTE}){{{MAX_ATTRIBUTES}}}+)(?:{_ATTRIBUTE})++")


def cap_attributes(html: str) -> tuple[str, bool]:
    """``html`` with no start tag holding more than ``MAX_ATTRIBUTES`` attributes; whether any
    was cut."""
    parts: list[str] = []
    done = 0
    for crowded in _CROWDED_TAG.finditer(html):
        parts.append(html[done : crowded.end(1)])
        done = crowded.end()
    if not parts:
        return html, False
    return "".join([*parts, html[done:]]), True
