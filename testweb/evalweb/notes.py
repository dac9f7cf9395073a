"""Pages with content of their own behind the look-alike listings and the portal's catalogue.

Release notes of a package where the layout names one; otherwise pages generated from one
template, as reference generators make them (a function's name and a few sentences differ).
"""

from __future__ import annotations

import re
from random import Random

from . import hazards
from .packages import read_tree, unbroken

_SENTENCE_WORDS = 40


def note_pages(tree: str | None, words_tree: str, count: int) -> list[tuple[str, str, str]]:
    """``count`` pages as (content key, name, body): from ``tree``, or generated with words of
    ``words_tree``."""
    if tree is not None:
        # a note stands alone: its links to the tree's pages (most not among the notes, the
        # rest and itself filed under other names) would be broken links of ours; the tree's
        # contents page is no note (one named ``index`` is filed as its series' directory page)
        pages = sorted(item for item in read_tree(tree).items() if item[0] != "index.html")[:count]
        return [
            (f"{tree}:{path}", path.removesuffix(".html"), unbroken(path, body, ()))
            for path, body in pages
        ]
    text = re.sub(r"<[^>]+>", " ", " ".join(read_tree(words_tree).values()))
    words = re.findall(r"[A-Za-z]{3,}", text)
    rng = Random(7)
    notes = []
    for number in range(count):
        name = f"pkg_helper_{number:03d}"
        sentences = " ".join(rng.choice(words) for _ in range(_SENTENCE_WORDS))
        content = (
            f"<p>The function {name} returns the state of one package in the archive.</p>\n"
            "<p>It takes the package name and an options table, and it never blocks.</p>\n"
            f"<p>{sentences}</p>\n<p>See also the other helpers of this module.</p>\n"
        )
        notes.append((f"generated:{name}", name, hazards.plain_page(f"{name}()", content)))
    return notes
