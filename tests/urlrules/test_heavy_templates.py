"""A parameter that selects content on pages whose template outweighs their content (a listing's
next page inside a large site template) never becomes a rule, whatever pairs come first."""

from __future__ import annotations

import pytest

from dedup_filter import DedupFilter

HOST = "http://shop.a.test"
LISTS = 6


def _words(seed: int, count: int) -> str:
    return " ".join(f"w{(seed * 7919 + n * 104729) % 100003}" for n in range(count))


def _listing(number: int, page: int) -> bytes:
    """One site template (navigation, sidebar, footer: about 70 % of the words) around the items
    of page ``page`` of listing ``number``."""
    nav = "".join(f"<li>{_words(n, 6)}</li>" for n in range(25))
    items = "".join(f"<li>item {_words(1000 * number + 10 * page + n, 6)}</li>" for n in range(10))
    footer = f"<footer>{_words(999, 60)}</footer>"
    title = f"Catalogue {number}"
    return (
        f"<html><head><title>{title}</title></head><body><ul>{nav}</ul>"
        f"<h1>{title}</h1><ol>{items}</ol>{footer}</body></html>"
    ).encode()


@pytest.mark.parametrize("next_pages_first", [False, True])
def test_a_next_page_under_a_heavy_template_is_never_an_alias(tmp_path, next_pages_first):
    with DedupFilter.open(tmp_path / "index") as dedup:
        for number in range(LISTS):
            assert (
                dedup.check_page(f"{HOST}/l{number}.html", _listing(number, 1)).reason == "unique"
            )
        first_pages = [(f"{HOST}/l{n}.html?page=1", _listing(n, 1)) for n in range(4)]
        next_pages = [(f"{HOST}/l{n}.html?page=2", _listing(n, 2)) for n in range(4)]
        order = next_pages + first_pages if next_pages_first else first_pages + next_pages
        decisions = {url: dedup.check_page(url, body) for url, body in order}
        assert all(decisions[url].dropped for url, _ in first_pages)  # page 1 repeats the list
        assert not any(decisions[url].dropped for url, _ in next_pages)  # other items
        for n in (4, 5):
            assert dedup.check_url(f"{HOST}/l{n}.html?page=3").action == "keep"
            assert dedup.check_url(f"{HOST}/l{n}.html?page=2").action == "keep"
        live = [rule for rule in dedup.url_rules() if rule["name"] == "page" and rule["any_value"]]
        assert live == []
