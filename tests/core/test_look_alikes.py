"""Pages of one template that resemble each other about equally are none's copies: a page is
dropped for its best match only when it stands out from the other documents it resembles."""

from __future__ import annotations

import re

from dedup_filter import DedupFilter


def test_a_page_between_two_kept_pages_is_kept_as_their_look_alike(tmp_path, corpus):
    """One template and two passages of 40 words: the third page holds both passages, each kept
    page one of them and another passage, so the third resembles both about equally (0.88 and
    0.86 estimated) and the two each other less (0.78)."""
    template = _words(corpus["csv"], 0, 600)
    first, second = _words(corpus["json"], 100, 40), _words(corpus["heapq"], 100, 40)
    other, another = _words(corpus["string"], 100, 40), _words(corpus["glob"], 100, 40)
    pages = [
        f"<html><head><title>Notes</title></head><body><p>{template}</p><p>{one}</p><p>{two}</p>"
        "</body></html>"
        for one, two in ((first, other), (another, second), (first, second))
    ]
    with DedupFilter.open(tmp_path / "index") as dedup:
        decisions = dedup.check_pages(
            [(f"http://notes.test/{n}.html", page.encode()) for n, page in enumerate(pages)]
        )
    assert [decision.action for decision in decisions] == ["keep"] * 3
    evidence = decisions[2].evidence["look_alikes"]
    assert evidence["pages"] == ["http://notes.test/0.html", "http://notes.test/1.html"]
    nearest, rival = evidence["resemblances"]
    assert 1 - nearest > (1 - rival) / 2


def _words(page: str, start: int, count: int) -> str:
    """``count`` words of a pydoc page from ``start``, tags and entities left out."""
    return " ".join(re.sub(r"<[^>]+>|&\w+;", " ", page).split()[start : start + count])
