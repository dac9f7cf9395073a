"""DedupFilter decisions on real text (pydoc pages): exact, site-aware near-duplicates, hard
negatives, recrawls, replays, tiny and empty pages, batches and the decision log format."""

from __future__ import annotations

import json
import re

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.features.simhash import agreement
from dedup_filter.features.text import html_tokens

SITE = "http://docs.example.com"
OTHER_SITE = "http://mirror.example.org"

# Henzinger's correct near-duplicates differ by URL, time stamps, execution times, visitor counts,
# session ids, message ids, or a combination of these
DIFFERENCES = {
    "url": "This page: {url}",
    "timestamp": "Page generated Mon, 01 Jan 2024 10:{minute:02d}:00 GMT",
    "execution_time": "Rendered in 0.{minute:03d} seconds",
    "visitor_count": "You are visitor number 1,2{minute:02d},345",
    "session_id": "Your session 9f8e7d6c5b4a{minute:04d}",
    "message_id": "Message-ID: <2024010110{minute:02d}.GA{minute}@lists.example.org>",
    "combination": "Page generated 10:{minute:02d}; visitor 4{minute:02d}; session ab{minute:04d}",
}


def with_line(html: str, text: str) -> bytes:
    return html.replace("</body>", f"<p>{text}</p>\n</body>").encode()


def variant(html: str, difference: str, url: str, minute: int) -> bytes:
    return with_line(html, DIFFERENCES[difference].format(url=url, minute=minute))


def reformatted(html: str) -> bytes:
    """Formatting-only changes: line breaks, indentation, a comment, emphasis in the text."""
    changed = html.replace("\n", "\r\n    ").replace("<body", "<!-- copied --><body", 1)
    return changed.replace("<dl>", "<dl><i>", 1).replace("</dl>", "</i></dl>", 1).encode()


def reversed_words(html: str) -> bytes:
    """The same multiset of terms in reverse order: simhash identical, no shingle in common."""
    words = html_tokens(html, SITE)[0]
    return f"<html><body><p>{' '.join(reversed(words))}</p></body></html>".encode()


def page_count(dedup: DedupFilter) -> int:
    with dedup.index.read() as view:
        return view.count("pages")


@pytest.fixture
def textwrap_page(stdlib_page) -> str:
    return stdlib_page("textwrap")


def test_formatting_only_copy_is_an_exact_duplicate(dedup, textwrap_page):
    dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode())
    decision = dedup.check_page(f"{SITE}/copy/textwrap.html", reformatted(textwrap_page))
    assert (decision.action, decision.reason) == ("drop", "exact_duplicate")
    assert decision.duplicate_of == f"{SITE}/textwrap.html"
    assert decision.evidence["rule"] == "exact"


@pytest.mark.parametrize("difference", sorted(DIFFERENCES))
def test_same_site_near_duplicate_is_dropped_by_the_combined_rule(dedup, textwrap_page, difference):
    first, second = f"{SITE}/a/textwrap.html", f"{SITE}/b/textwrap.html"
    dedup.check_page(first, variant(textwrap_page, difference, first, 1))
    decision = dedup.check_page(second, variant(textwrap_page, difference, second, 2))
    assert (decision.reason, decision.duplicate_of) == ("near_duplicate", first)
    assert decision.evidence["rule"] == "combined"
    assert decision.evidence["site_relation"] == "same_site"
    assert decision.evidence["b_shared"] >= 2
    assert decision.evidence["c_agree_bits"] >= 355


@pytest.mark.parametrize("difference", sorted(DIFFERENCES))
def test_cross_site_near_duplicate_is_dropped(dedup, textwrap_page, difference):
    first, second = f"{SITE}/textwrap.html", f"{OTHER_SITE}/python/textwrap.html"
    dedup.check_page(first, variant(textwrap_page, difference, first, 1))
    decision = dedup.check_page(second, variant(textwrap_page, difference, second, 2))
    assert (decision.action, decision.duplicate_of) == ("drop", first)
    assert decision.evidence["site_relation"] == "cross_site"


def test_same_site_needs_b_similarity_too(dedup, textwrap_page):
    dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode())
    decision = dedup.check_page(f"{SITE}/reversed.html", reversed_words(textwrap_page))
    assert (decision.action, decision.reason) == ("keep", "unique")


def test_cross_site_simhash_agreement_without_resemblance_is_kept(dedup, textwrap_page):
    """The same terms in another order: simhash agrees on every bit, no shingle is shared."""
    dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode())
    reordered = reversed_words(textwrap_page)
    pages = ((f"{SITE}/textwrap.html", textwrap_page.encode()), (OTHER_SITE, reordered))
    simhashes = [dedup.fingerprint(url, body).simhash for url, body in pages]
    assert agreement(*simhashes) >= 372  # the cross-site simhash rule alone would drop it
    decision = dedup.check_page(f"{OTHER_SITE}/reversed.html", reordered)
    assert (decision.action, decision.reason) == ("keep", "unique")


def test_same_boilerplate_with_different_main_content_is_kept(dedup, corpus):
    """Henzinger's same-site failure mode: a 300-token template around a 40-token main item."""
    template = html_tokens(corpus["difflib"], SITE)[0][:300]
    pages = []
    for name in sorted(set(corpus) - {"difflib"}):
        item = " ".join(html_tokens(corpus[name], SITE)[0][20:60])
        body = f"<nav>{' '.join(template[:150])}</nav><main>{item}</main>{' '.join(template[150:])}"
        pages.append((f"{SITE}/item/{name}.html", f"<html><body>{body}</body></html>".encode()))
    simhashes = [dedup.fingerprint(url, body).simhash for url, body in pages]
    assert max(agreement(simhashes[0], other) for other in simhashes[1:]) >= 355  # C alone: dropped
    assert [decision.reason for decision in dedup.check_pages(pages)] == ["unique"] * len(pages)


def test_recrawl_unchanged_is_never_a_duplicate_of_itself(dedup, textwrap_page):
    url = f"{SITE}/textwrap.html"
    dedup.check_page(url, textwrap_page.encode())
    decision = dedup.check_page(url, reformatted(textwrap_page))
    assert (decision.action, decision.reason, decision.duplicate_of) == ("keep", "unchanged", None)
    assert page_count(dedup) == 1


def test_recrawl_changed_replaces_its_own_record(dedup, textwrap_page, stdlib_page):
    url = f"{SITE}/textwrap.html"
    dedup.check_page(url, textwrap_page.encode())
    near = dedup.check_page(url, variant(textwrap_page, "timestamp", url, 5))
    rewritten = dedup.check_page(url, stdlib_page("heapq").encode())
    assert [(d.action, d.reason) for d in (near, rewritten)] == [("keep", "changed")] * 2
    assert page_count(dedup) == 1
    again = dedup.check_page(f"{SITE}/old-copy.html", textwrap_page.encode())
    assert again.reason == "unique"


def test_replaying_the_same_input_gives_the_same_actions(dedup, textwrap_page, stdlib_page):
    pages = [
        (f"{SITE}/textwrap.html", textwrap_page.encode()),
        (f"{SITE}/copy.html", reformatted(textwrap_page)),
        (f"{SITE}/stamped.html", variant(textwrap_page, "timestamp", "", 3)),
        (f"{OTHER_SITE}/heapq.html", stdlib_page("heapq").encode()),
        (f"{SITE}/heapq.html", stdlib_page("heapq").encode()),
    ]
    first = [dedup.check_page(url, body) for url, body in pages]
    replay = dedup.check_pages(pages)
    assert [(d.action, d.duplicate_of) for d in replay] == [
        (d.action, d.duplicate_of) for d in first
    ]
    assert [d.action for d in first] == ["keep", "drop", "drop", "keep", "drop"]


def test_same_input_into_a_fresh_index_gives_identical_decision_lines(tmp_path, corpus):
    pages = [(f"{SITE}/{name}.html", html.encode()) for name, html in sorted(corpus.items())]
    pages += [(f"{OTHER_SITE}/{name}.html", reformatted(html)) for name, html in corpus.items()]
    lines = []
    for run in ("one", "two"):
        with DedupFilter.open(tmp_path / run, Config.default()) as dedup:
            lines.append([decision.to_json() for decision in dedup.check_pages(pages)])
    assert lines[0] == lines[1]


def test_dropped_pages_are_not_indexed_and_the_original_stays_representative(dedup, textwrap_page):
    original, dropped = f"{SITE}/textwrap.html", f"{SITE}/stamped-1.html"
    dedup.check_page(original, textwrap_page.encode())
    dedup.check_page(dropped, variant(textwrap_page, "timestamp", "", 1))
    later = dedup.check_page(f"{SITE}/stamped-2.html", variant(textwrap_page, "timestamp", "", 1))
    assert later.duplicate_of == original
    assert page_count(dedup) == 1
    with dedup.index.read() as view:
        assert view.page_id_for_url(dropped) is None


TINY = "<html><body><h1>Not Found</h1><p>The requested URL /{path} was not found.</p></body></html>"


def test_tiny_pages_are_compared_by_exact_fingerprint_only(dedup):
    first = dedup.check_page(f"{SITE}/a", TINY.format(path="a").encode())
    other = dedup.check_page(f"{SITE}/b", TINY.format(path="b").encode())
    copy = dedup.check_page(f"{OTHER_SITE}/a", TINY.format(path="a").encode())
    assert [d.reason for d in (first, other, copy)] == ["unique", "unique", "exact_duplicate"]
    assert first.evidence["below_token_floor"] is True
    assert copy.duplicate_of == f"{SITE}/a"


@pytest.mark.parametrize("body", [b"", b"   \n", b"<html><head></head><body></body></html>"])
def test_empty_body_is_kept_with_reason_empty_and_not_indexed(dedup, body):
    decisions = [dedup.check_page(f"{SITE}/{n}", body) for n in range(2)]
    assert [(d.action, d.reason) for d in decisions] == [("keep", "empty")] * 2
    assert page_count(dedup) == 0


def test_binary_body_gets_a_decision(dedup):
    decision = dedup.check_page(f"{SITE}/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 50)
    assert (decision.action, decision.evidence["encoding"]) == ("keep", "binary")


def test_check_pages_sees_duplicates_within_one_batch(dedup, textwrap_page):
    stamped = variant(textwrap_page, "timestamp", "", 9)
    decisions = dedup.check_pages(
        [
            (f"{SITE}/textwrap.html", textwrap_page.encode(), None),
            (f"{OTHER_SITE}/textwrap.html", reformatted(textwrap_page)),
            (f"{SITE}/stamped.html", stamped, {"Content-Type": "text/html"}),
        ]
    )
    assert [d.reason for d in decisions] == ["unique", "exact_duplicate", "near_duplicate"]
    assert {d.duplicate_of for d in decisions[1:]} == {f"{SITE}/textwrap.html"}


def test_charset_from_headers_reaches_the_decision(dedup):
    body = ("<p>" + " ".join(["caf\u00e9 cr\u00e8me"] * 40) + "</p>").encode("latin-1")
    headers = {"Content-Type": "text/html; charset=latin-1"}
    decision = dedup.check_page(f"{SITE}/latin", body, headers)
    assert decision.evidence["encoding"] == "latin-1"


@pytest.mark.parametrize("bits", [64, 128, 256, 384])
def test_thresholds_scale_with_the_simhash_width(tmp_path, textwrap_page, bits):
    config = Config.default().with_overrides({"simhash.bits": bits, "simhash.bands": 4})
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode())
        near = dedup.check_page(f"{SITE}/b.html", variant(textwrap_page, "timestamp", "", 2))
        copy = variant(textwrap_page, "session_id", "", 3)
        elsewhere = dedup.check_page(f"{OTHER_SITE}/s.html", copy)
        reordered = dedup.check_page(f"{OTHER_SITE}/r.html", reversed_words(textwrap_page))
    assert [d.reason for d in (near, elsewhere)] == ["near_duplicate"] * 2
    assert reordered.reason == "unique"
    assert near.evidence["c_agree_bits"] <= bits


def test_counters_count_every_decision(dedup, textwrap_page):
    dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode())
    dedup.check_page(f"{SITE}/copy.html", reformatted(textwrap_page))
    dedup.check_page(f"{SITE}/empty.html", b"")
    assert dedup.counters["pages_checked"] == 3
    assert dedup.counters["keep/unique"] == dedup.counters["drop/exact_duplicate"] == 1
    assert dedup.counters["keep/empty"] == 1


def test_every_decision_is_json_and_one_line(dedup, textwrap_page):
    decisions = [
        dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode()),
        dedup.check_page(f"{SITE}/textwrap.html", textwrap_page.encode()),
        dedup.check_page(f"{SITE}/copy\n\u00e9\udc80.html", reformatted(textwrap_page)),
        dedup.check_page(f"{SITE}/stamped.html", variant(textwrap_page, "timestamp", "", 4)),
        dedup.check_page(f"{SITE}/empty.html", b""),
        dedup.check_page(f"{SITE}/tiny.html", TINY.format(path="x").encode()),
        dedup.check_page(f"{SITE}/big.html", b"<p>word</p>" * 600_000),
        dedup.check_url(f"{SITE}/dir/"),
    ]
    for decision in decisions:
        line = decision.to_json()
        assert "\n" not in line
        assert json.loads(line)["evidence"] == json.loads(json.dumps(decision.evidence))
        assert json.loads(line)["action"] == decision.action


def retitled(html: str, title: str, line: str = "") -> bytes:
    """The page under another <title>, with one more line of text."""
    titled = re.sub(r"<title>.*?</title>", f"<title>{title}</title>", html, count=1, flags=re.S)
    return with_line(titled, line)


@pytest.mark.parametrize("second_site", [SITE, OTHER_SITE])
def test_pages_titled_apart_under_other_names_are_different_documents(
    dedup, textwrap_page, second_site
):
    """Generated API docs: two items whose pages share a long block of inherited methods, on one
    site or on two (a release's new item beside an older release's)."""
    dedup.check_page(f"{SITE}/env/Vars.html", retitled(textwrap_page, "Vars in std::env"))
    decision = dedup.check_page(
        f"{second_site}/char/DecodeUtf16.html", retitled(textwrap_page, "DecodeUtf16 in std::char")
    )
    assert (decision.action, decision.reason) == ("keep", "unique")


def test_numbers_in_titles_do_not_tell_documents_apart(dedup, textwrap_page):
    first, second = f"{SITE}/a/report.html", f"{SITE}/b/report.html"
    dedup.check_page(first, retitled(textwrap_page, "Report of 2024-01-01 10:01", "visitor 17"))
    decision = dedup.check_page(
        second, retitled(textwrap_page, "Report of 2024-01-02 10:02", "visitor 18")
    )
    assert (decision.reason, decision.duplicate_of) == ("near_duplicate", first)


@pytest.mark.parametrize(
    ("path", "title", "line"),
    [
        ("python/textwrap.html", "textwrap | a mirror of docs", ""),  # retitled
        ("python/text-wrapping.html", "textwrap", "mirrored daily"),  # renamed
        ("python/TextWrap.htm", "textwrap | a mirror of docs", ""),  # retitled, another extension
    ],
)
def test_a_cross_site_copy_keeping_its_title_or_its_name_is_a_near_duplicate(
    dedup, textwrap_page, path, title, line
):
    first = f"{SITE}/textwrap.html"
    dedup.check_page(first, retitled(textwrap_page, "textwrap"))
    decision = dedup.check_page(f"{OTHER_SITE}/{path}", retitled(textwrap_page, title, line))
    assert (decision.reason, decision.duplicate_of) == ("near_duplicate", first)


def test_without_cross_site_titles_pages_titled_apart_are_near_duplicates(tmp_path, textwrap_page):
    config = Config.default().with_overrides({"text.cross_site_titles": False})
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        dedup.check_page(f"{SITE}/api/Vars.html", retitled(textwrap_page, "Vars in std::env"))
        decision = dedup.check_page(
            f"{OTHER_SITE}/api/DecodeUtf16.html",
            retitled(textwrap_page, "DecodeUtf16 in std::char"),
        )
    assert decision.reason == "near_duplicate"


def test_without_title_comparison_titled_apart_pages_are_near_duplicates(tmp_path, textwrap_page):
    config = Config.default().with_overrides({"text.same_site_titles": False})
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        dedup.check_page(f"{SITE}/env/Vars.html", retitled(textwrap_page, "Vars in std::env"))
        decision = dedup.check_page(
            f"{SITE}/char/DecodeUtf16.html", retitled(textwrap_page, "DecodeUtf16 in std::char")
        )
    assert decision.reason == "near_duplicate"
