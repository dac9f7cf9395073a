"""The compiled tag census against the regexes it stands in for: it must see a crowded tag
exactly when ``cap_attributes``' regex finds one, or a hostile page would reach the parser."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from dedup_filter.features import attributes, kernels, text

PIECES = ["<", "<a", "<IMG", "</", "</b", " ", "\t", "x", "=", '"', "'", ">", "/", "\u00e9"]
PIECES += ['y="1"', "z='>'"]
SOUP = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


def census(html: str, limit: int) -> tuple[bool, int]:
    data = np.frombuffer(html.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    crowded, unclosed, _ = kernels.tag_census(data, limit, np.zeros(0, dtype=np.uint64))
    return crowded, unclosed


def crowded_tag(limit: int) -> re.Pattern[str]:
    """``attributes._CROWDED_TAG`` with another cap, so that short soups reach it."""
    pattern = attributes._CROWDED_TAG.pattern
    return re.compile(pattern.replace(f"{{{attributes.MAX_ATTRIBUTES}}}", f"{{{limit}}}"))


@pytest.mark.parametrize("limit", [1, 2, 3])
@settings(max_examples=400, deadline=None)
@given(html=SOUP)
def test_census_sees_a_crowded_tag_exactly_when_the_regex_does(limit: int, html: str) -> None:
    crowded, unclosed = census(html, limit)
    assert crowded == bool(crowded_tag(limit).search(html))
    assert unclosed == html.count("<") - html.count("</")


def test_census_counts_attributes_to_the_shipped_cap() -> None:
    names = [f"a{number}" for number in range(attributes.MAX_ATTRIBUTES)]
    at_cap = "<img " + " ".join(names) + ">"
    beyond = '<img x=">" ' + " ".join(names) + ">"  # a quoted '>' does not end the tag
    assert census(at_cap, attributes.MAX_ATTRIBUTES) == (False, 1)
    assert census(beyond, attributes.MAX_ATTRIBUTES) == (True, 1)
    assert attributes.cap_attributes(beyond)[1]


TAGS = ["<b>", "<B ", "</b>", "<bx>", "<image src=x>", "<IMG src=y>", "<script>", "</script>"]
OTHERS = ["<p>", "x", " ", ">", "<table>", "<span/>", "<font color=red>", "<svg>", "<i", '"']
MARKUP = st.lists(st.sampled_from(TAGS + OTHERS), max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(html=MARKUP)
def test_census_names_every_element_html_text_edits(html: str) -> None:
    """html_text skips the tree edits for tags the census did not see: it must see them all."""
    _, _, named = text._bounded(html, 1_000)
    tree = LexborHTMLParser(html)
    for name in text._EDITED_TAGS:
        if tree.tags(name):
            assert name in named or (name == "img" and "image" in named)
