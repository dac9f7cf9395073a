"""Tokens as Henzinger §2 defines them, charsets, and hostile bodies that must never raise."""

from __future__ import annotations

import codecs
import encodings
import encodings.aliases
import pkgutil
import re
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dedup_filter import Config
from dedup_filter.features.attributes import MAX_ATTRIBUTES, cap_attributes
from dedup_filter.features.fingerprint import Fingerprinter
from dedup_filter.features.text import (
    _FLAT_TAGS,
    _SCAN_FACTOR,
    MAX_IMAGE_TERMS,
    _cut_deep_nesting,
    decode_body,
    html_anchors,
    html_text,
    html_tokens,
    tokenize,
)

PAGE_URL = "http://www.example.com/docs/page.html"
CAFE_LATIN1 = "café".encode("latin-1")
PRIVET_KOI8 = "привет".encode("koi8-r")


def tokens(html: str, url: str = PAGE_URL) -> list[str]:
    return html_tokens(html, url)[0]


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>one</p><p>two</p>", ["one", "two"]),
        ("one<br>two<hr>three", ["one", "two", "three"]),
        ("<table><tr><td>cell</td><td>next</td></tr></table>", ["cell", "next"]),
        ("Hel<b>lo</b> wor<i>ld</i>", ["hello", "world"]),
        ("<script>var hidden = 1;</script><style>p { color: red }</style>Shown", ["shown"]),
        ("<p>Head</p><noscript>fallback</noscript>Body", ["head", "body"]),
        ("one<script>hidden()</script>two", ["one", "two"]),
        ("a<b>x<script>hidden()</script>y</b>", ["ax", "y"]),
        ('<b>bold<img src="/i/a.png">text</b>', ["bold", "a.png", "text"]),
        ("<!-- a comment -->Visible", ["visible"]),
        ("ÜBER Straße 東京 ٣٤ Ελλάδα", ["über", "straße", "東京", "٣٤", "ελλάδα"]),
        ("snake_case x-y a.b (c) 3.14", ["snake", "case", "x", "y", "a", "b", "c", "3", "14"]),
        ("AT&amp;T caf&eacute;", ["at", "t", "café"]),
    ],
)
def test_markup_is_white_space_and_terms_are_lower_cased_alphanumeric_runs(html, expected):
    assert tokens(html) == expected


def test_url_in_text_is_broken_at_slashes_and_dots():
    assert tokens("see http://www.cs.berkeley.edu/~joe/index.html now") == [
        "see",
        "http",
        "www",
        "cs",
        "berkeley",
        "edu",
        "joe",
        "index",
        "html",
        "now",
    ]


@pytest.mark.parametrize(
    ("src", "term"),
    [
        ("http://images.other.org/pics/Logo.png", "http://images.other.org/pics/logo.png"),
        ("//cdn.other.org/a.gif", "http://cdn.other.org/a.gif"),
        ("/static/img/logo.png", "logo.png"),
        ("logo.png", "logo.png"),
        ("http://www.example.com/elsewhere/logo.png", "logo.png"),
        ("HTTP://WWW.EXAMPLE.COM/x/Photo.JPG", "photo.jpg"),
    ],
)
def test_img_url_is_one_term_whole_for_another_host_file_name_for_own_host(src, term):
    assert tokens(f'before <img src="{src}" alt="ignored"> after') == ["before", term, "after"]


def test_mirror_on_another_host_gets_the_same_image_terms():
    html = '<p>Manual</p><img src="/icons/next.png"><img src="pics/up.gif">'
    assert tokens(html, "http://mirror.example.org/manual/") == tokens(html, PAGE_URL)


@pytest.mark.parametrize(
    "variant",
    [
        "<html><body>\n  <p>The quick brown fox</p>\n\t<p>jumps over</p>\n</body></html>",
        "<P CLASS='x'>The   quick brown fox</P><P>jumps\nover</P>",
        "<p>The <b>quick</b> <i>brown</i> fox</p><p>jumps <em>over</em></p>",
        "<p>The quick brown <span style='color:red'>fox</span></p><!-- c --><p>jumps over</p>",
        "<div><p>The quick brown fox<p>jumps over</div>",
    ],
)
def test_formatting_only_differences_give_identical_tokens_and_exact_hash(variant):
    reference = "<p>The quick brown fox</p><p>jumps over</p>"
    fingerprinter = Fingerprinter(Config.default())
    assert tokens(variant) == tokens(reference)
    assert fingerprinter.fingerprint(PAGE_URL, variant.encode()).exact == (
        fingerprinter.fingerprint(PAGE_URL, reference.encode()).exact
    )


def test_tokenize_keeps_only_alphanumeric_runs():
    assert tokenize("Hello, World! 42x -- _") == ["hello", "world", "42x"]


@pytest.mark.parametrize(
    ("body", "headers", "text", "encoding"),
    [
        (CAFE_LATIN1, {"Content-Type": "text/html; charset=ISO-8859-1"}, "café", "ISO-8859-1"),
        (CAFE_LATIN1, {b"Content-Type": [b"text/html; charset=latin-1"]}, "café", "latin-1"),
        (PRIVET_KOI8, {"content-type": 'text/html; charset="KOI8-R"'}, "привет", "KOI8-R"),
        (
            '<meta charset="koi8-r"><p>привет'.encode("koi8-r"),
            None,
            '<meta charset="koi8-r"><p>привет',
            "koi8-r",
        ),
        (
            b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">\xef\xf0',
            None,
            '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">пр',
            "windows-1251",
        ),
        (codecs.BOM_UTF8 + "ünï".encode(), None, "ünï", "utf-8-sig"),
        (codecs.BOM_UTF16_LE + "ünï".encode("utf-16-le"), None, "ünï", "utf-16"),
        (codecs.BOM_UTF16_BE + "ünï".encode("utf-16-be"), None, "ünï", "utf-16"),
        ("ünï".encode(), None, "ünï", "utf-8"),
        ("café".encode("cp1252"), None, "café", "cp1252"),
        (CAFE_LATIN1, {"Content-Type": "text/html; charset=no-such-codec"}, "café", "cp1252"),
    ],
)
def test_charset_from_bom_header_meta_then_fallback(body, headers, text, encoding):
    decoded = decode_body(body, headers)
    assert (decoded.text, decoded.encoding, decoded.replaced) == (text, encoding, False)


def test_header_charset_wins_over_meta():
    body = '<meta charset="koi8-r"><p>привет'.encode("windows-1251")
    decoded = decode_body(body, {"Content-Type": "text/html; charset=windows-1251"})
    assert decoded.encoding == "windows-1251"
    assert "привет" in decoded.text


def test_configured_fallback_encoding_is_used():
    assert decode_body("ПРИВЕТ".encode("cp866"), None, fallback="cp866").text == "ПРИВЕТ"


def test_undecodable_body_is_replaced_not_raised():
    decoded = decode_body(b"\x81\x8d\x8f\x90\x9d abc \xff", None)
    assert decoded.replaced
    assert decoded.text.endswith(" abc \ufffd")


def test_body_with_nul_bytes_near_the_start_is_binary():
    assert decode_body(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None).text is None


def test_a_utf_16_body_its_header_names_is_text_not_binary():
    body = "<p>Caf\u00e9 au lait</p>".encode("utf-16-le")
    decoded = decode_body(body, {"Content-Type": "text/html; charset=UTF-16LE"})
    assert (decoded.text, decoded.encoding) == ("<p>Caf\u00e9 au lait</p>", "UTF-16LE")
    assert decode_body(body, None).text is None


@pytest.mark.parametrize("charset", ["punycode", "idna"])
@pytest.mark.parametrize("where", ["header", "meta"])
def test_codecs_that_are_no_web_charset_are_passed_over(charset, where):
    """Python's punycode decoder takes time growing with the square of the body: a 1 MB page
    declaring it held a stream partition for 40 s (a red team's run, sixty-seventh session)."""
    body = b"x-" + b"a" * 2_000
    headers = {"Content-Type": f"text/html; charset={charset}"} if where == "header" else None
    if where == "meta":
        body = f'<meta charset="{charset}">'.encode() + body
    assert decode_body(body, headers).encoding == "utf-8"


def _codec_names() -> list[str]:
    aliases = encodings.aliases.aliases
    modules = {module.name for module in pkgutil.iter_modules(encodings.__path__)}
    return sorted(set(aliases) | set(aliases.values()) | modules)


@pytest.mark.parametrize("where", ["header", "meta"])
@pytest.mark.parametrize(
    "charset", ["undefined", "idna", "punycode", "rot13", "base64", "no-such-codec"]
)
def test_any_declared_charset_decodes_without_raising(charset, where):
    body = b"<p>caf\xc3\xa9 xn--abc- \\ud800 +AGE-</p>"
    headers = {"Content-Type": f"text/html; charset={charset}"} if where == "header" else None
    if where == "meta":
        body = f'<meta charset="{charset}">'.encode() + body
    assert "caf" in decode_body(body, headers).text


def test_every_codec_python_knows_decodes_without_raising():
    bodies = [bytes(range(1, 256)), b"xn--abc-", b"abc\\", b"+AGE-x+2D-", b"\xed\xa0\x80"]
    for charset in _codec_names():
        for body in bodies:
            decoded = decode_body(body, {"Content-Type": f"text/html; charset={charset}"})
            assert decoded.text is not None, charset


FINGERPRINTER = Fingerprinter(Config.default())

HOSTILE_BODIES = {
    "empty": b"",
    "white space": b" \n\t\r ",
    "binary": bytes(range(256)) * 64,
    "invalid utf-8": b"<p>caf\xc3 \xff\xfe\xed\xa0\x80 ok</p>" * 20,
    "broken markup": b"<html><p <b>unclosed <a href='x>y</div></td></tr>&#xZZZ; &bogus; <!-- <<>>",
    "only markup": b"<html><head></head><body><div></div></body></html>",
    "lone lt": b"<" * 200_000,
    "nul late": b"<p>" + b"a " * 3000 + b"\x00 after nul</p>",
    "nul early": b"<p>\x00text\x00</p>",
    "unterminated comment": b"<p>text</p><!--" + b"x" * 100_000,
    "unterminated script": b"<p>text</p><script>" + b"var a = 1;" * 10_000,
    "huge attribute": b'<div title="' + b"a" * 1_000_000 + b'">x</div>',
    "utf-16 lone surrogate": codecs.BOM_UTF16_LE + "a\ud800b".encode("utf-16-le", "surrogatepass"),
    "bogus meta charset": b'<meta charset="\xff\xfe"><p>text</p>',
    "nested formatting": b"<b><i><u>" * 60_000 + b"deep",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BODIES))
def test_hostile_bodies_never_raise(name):
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, HOSTILE_BODIES[name])
    assert fingerprint.token_count >= 0
    assert 0 <= fingerprint.exact < 1 << 64


@pytest.mark.parametrize(
    ("headers"),
    [
        {"Content-Type": None},
        {"Content-Type": []},
        {b"Content-Type": [b"text/html; charset=\xff"]},
        {"Content-Type": "text/html; charset=utf-32"},
        {"X-Other": "charset=koi8-r"},
        {},
    ],
)
def test_odd_headers_never_raise(headers):
    decoded = decode_body("café".encode(), headers)
    assert decoded.text is not None


@pytest.mark.parametrize(
    "url",
    ["http://www.example.com/\udc80/page", "http://\ud800host/x", "http://[::1/x", "not a url", ""],
)
def test_lone_surrogates_and_malformed_page_urls_never_raise(url):
    html = '<p>text</p><img src="/a\udcff.png"><img src="http://\udcfe/b"><img src="http://[x/c">'
    assert tokens(html, url)[0] == "text"


def test_fifty_megabyte_body_is_cut_at_max_body_bytes_and_reported():
    body = b"<p>hello world</p>" * (50_000_000 // 18)
    started = time.monotonic()
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, body)
    assert fingerprint.truncated
    assert fingerprint.has_features
    assert time.monotonic() - started < 30


def test_fifty_megabytes_of_plain_text_finish():
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, b"word " * 10_000_000)
    assert fingerprint.truncated
    assert fingerprint.token_count == Config.default().text.max_body_bytes // len(b"word ")


@pytest.mark.parametrize("tag", [b"div", b"b", b"table", b"a"])
def test_two_hundred_thousand_nested_tags_are_bounded_by_max_depth(tag):
    body = b"<" + tag + b">x" + (b"<" + tag + b">") * 200_000 + b"deep"
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, body)
    assert fingerprint.truncated
    assert fingerprint.token_count >= 1


def test_implicitly_closed_tags_do_not_nest_and_are_parsed_whole():
    body = b"<ul>" + b"<li>x" * 200_000 + b"<li>last"
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, body)
    assert not fingerprint.truncated
    assert fingerprint.token_count == 200_001


def test_a_reformatted_copy_is_cut_at_the_same_depth():
    nested = b"<div>" * 5000 + b"deep text here"
    reformatted = b"<div>\n  " * 5000 + b"deep text here"
    first = FINGERPRINTER.fingerprint(PAGE_URL, nested)
    second = FINGERPRINTER.fingerprint(PAGE_URL, reformatted)
    assert first.truncated
    assert second.truncated
    assert first.exact == second.exact


def test_pages_under_max_depth_are_not_truncated(stdlib_page):
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, stdlib_page("textwrap").encode())
    assert not fingerprint.truncated
    assert fingerprint.token_count > 500


# the depth scan's definition as a regex: tag names outside _FLAT_TAGS nest when opened
NESTING_TAG = re.compile(rf"<(/?)(?!(?:{'|'.join(_FLAT_TAGS)})\b)[a-z]", re.IGNORECASE)
MARKUP = st.lists(
    st.sampled_from(
        ["<div>", "</div>", "<P>", "<pre>", "</p>", "<td>", "<p_x>", "<tdx>", "<b >", "</B>",
         "<param>", "<a-b>", "<br/>", "<!--", "< ", "<1>", "x", "é", "<li>", "</span>", "<"]
    ),
    max_size=200,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(MARKUP, st.integers(min_value=1, max_value=6))
def test_the_depth_scan_follows_its_regex_definition(parts, max_depth):
    html = "".join(parts)
    cut, truncated = _cut_deep_nesting(html, max_depth)
    if html.count("<") - html.count("</") <= _SCAN_FACTOR * max_depth:
        assert (cut, truncated) == (html, False)
        return
    tags = list(NESTING_TAG.finditer(html))
    depth = np.cumsum([-1 if tag.group(1) else 1 for tag in tags])
    deeper = np.flatnonzero(depth > max_depth)
    expected = html[: tags[deeper[0]].start()] if len(deeper) else html
    assert (cut, truncated) == (expected, len(deeper) > 0)


def test_a_tag_with_125_000_attributes_keeps_its_first_64_and_is_truncated():
    names = " ".join(f"a{i}" for i in range(125_000))
    fingerprint = FINGERPRINTER.fingerprint(PAGE_URL, f"<div {names}>kept text</div>".encode())
    assert (fingerprint.token_count, fingerprint.truncated) == (2, True)
    html, capped = cap_attributes(f'<img {names} src="late.png"><img a="x>" src="on.png">')
    assert capped
    assert html == f'<img {" ".join(names.split()[:MAX_ATTRIBUTES])}><img a="x>" src="on.png">'


def test_tags_under_the_attribute_cap_are_left_as_they_are():
    html = "<div " + " ".join(f'a{i}="v>{i}"' for i in range(MAX_ATTRIBUTES)) + ">x</div>"
    assert cap_attributes(html) == (html, False)


def test_only_the_first_images_give_terms():
    images = "".join(f'<img src="i{i}.png">' for i in range(MAX_IMAGE_TERMS + 5))
    page = html_text(f"<p>text</p>{images}", PAGE_URL)
    assert page.truncated
    assert tokenize(page.text)[-1] == f"i{MAX_IMAGE_TERMS - 1}.png"


def test_anchors_of_an_untokenized_page_are_read_within_the_same_bounds():
    names = " ".join(f"a{i}" for i in range(100_000))
    html = f'<a href="/first">x</a><div {names}>y</div><a {names} href="/late">z</a>'
    assert html_anchors(html).hrefs == ("/first",)  # "/late" was the 100,001st attribute


@pytest.mark.parametrize(
    "html",
    ["<p>caf\u00e9 \ue000x\ue000</p><img src=a.png>", "<p>\ue001 caf\u00e9</p><img src=a.png>"],
)
def test_a_page_given_as_its_utf8_reads_as_its_text_does(html):
    """``utf8`` spares an encoding; a private-use mark in the page is a separator either way."""
    assert html_text(html, PAGE_URL, utf8=html.encode()) == html_text(html, PAGE_URL)


@pytest.mark.parametrize("content_type", ["text/plain", "TEXT/PLAIN; charset=utf-8"])
def test_a_plain_text_body_is_read_as_it_is_not_parsed_as_html(content_type):
    """A README or an RFC says ``<path>`` and ``a < b``: parsed as HTML, ``<path>`` is a tag and
    its word is lost; served ``text/plain``, every word is read. HTML is read as before."""
    body = b"Copy <path> to the mirror when a < b &amp; c. " * 10
    fingerprinter = Fingerprinter(Config.default())
    url = "http://a.test/README.txt"
    plain = fingerprinter.fingerprint(url, body, {"Content-Type": content_type})
    html = fingerprinter.fingerprint(url, body)
    assert plain.token_count == html.token_count + 20  # "path" and "amp" in each sentence
    assert plain.exact != html.exact
    same = fingerprinter.fingerprint("http://b.test/README", body, {"content-type": content_type})
    assert same.exact == plain.exact


@pytest.mark.parametrize(
    ("html", "language"),
    [
        ('<html lang="en-US"><body>x</body></html>', "en"),
        ('<html xml:lang="de" xmlns="http://www.w3.org/1999/xhtml"><p>x', "de"),
        ('<html lang="fr" xml:lang="de"><p>x', "fr"),
        ("<p>no html element written", ""),
        ('<html lang="x-pig-latin"><p>x', ""),
    ],
)
def test_an_index_page_declares_its_language_by_its_html_elements_lang(html, language):
    """Read with the releases (an index page's): it tells what edition an unnamed directory
    holds (``languages.language_editions``); other pages' fingerprints say none."""
    fingerprinter = Fingerprinter(Config.default())
    url = "http://docs.example/manual/"
    indexed, _ = fingerprinter.fingerprint_with_anchors(url, html.encode(), with_releases=True)
    assert indexed.language == language
    assert fingerprinter.fingerprint(url, html.encode()).language == ""


_AUTOCONF_PROSE = (
    "In Autoconf 2.60 the set of directory variables changed, and the defaults of some of them "
    "are now expressed in terms of others. Packages that substitute them in makefiles should "
    "let make expand them, since a configure script cannot know what the user will pass on the "
    "command line when installing the package into a staging area or a different prefix. "
) * 3


@pytest.mark.parametrize(
    ("title", "body", "apart"),
    [
        # a copier's page of other text under the title of the node it stands in for
        ("1.2 Suppressing Differences in Blank and Tab Spacing", _AUTOCONF_PROSE, True),
        # the node itself: its heading says its title
        (
            "1.2 Suppressing Differences in Blank and Tab Spacing",
            "<h2>1.2 Suppressing Differences in Blank and Tab Spacing</h2>" + _AUTOCONF_PROSE,
            False,
        ),
        # pydoc names its module in its text, though never "module statistics"
        ("Python: module statistics", "Basic statistics module. This module provides " * 8, False),
        # two title words in a row are enough
        ("Changed Directory Variables (Autoconf)", _AUTOCONF_PROSE + "directory variables", False),
        ("Top: Home", _AUTOCONF_PROSE, False),  # no word long enough to name a subject
        ("", _AUTOCONF_PROSE, False),
    ],
)
def test_a_title_its_text_does_not_bear_out(title, body, apart):
    """A document's text says what its title names; a copier's page of other text under the
    title of the page it stands in for does not (both helpers' independent webs)."""
    html = f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>"
    fingerprint = Fingerprinter(Config.default()).fingerprint(PAGE_URL, html.encode())
    assert fingerprint.has_features
    assert fingerprint.title_apart is apart
