"""Distinct pages that simhash takes for copies are kept; Henzinger's near-duplicates still go.

The pages are real text (testweb.editions): one guide's language editions (the same docstrings
around Python, C and C++ code of the sources installed here) and one reference page per function
from one template; the copies are a mirror's, with a time stamp, counter, session id ... changed.
"""

from __future__ import annotations

import functools

from dedup_filter import Config, DedupFilter
from testweb.editions import code_samples, editions_web
from testweb.labelled import LabelledPage, page_jaccard

SIMHASH_ALONE = {
    "minhash.min_resemblance": 0.0,
    "minhash.short_page_resemblance": 0.0,
    "minhash.unshared_resemblance": 0.0,
    "minhash.drop_resemblance": 0.0,
    "text.code_blocks_apart": False,
}


@functools.cache
def web() -> tuple[LabelledPage, ...]:
    return tuple(editions_web(seed=0))


def decide(tmp_path, config: Config) -> list[tuple[LabelledPage, str, str | None]]:
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        decisions = dedup.check_pages([(page.url, page.body) for page in web()])
    return [(page, d.reason, d.duplicate_of) for page, d in zip(web(), decisions, strict=True)]


def test_the_web_has_editions_in_two_languages_at_least():
    assert {"python", "c"} <= set(code_samples())
    kinds = {page.kind for page in web() if page.duplicate_of is None}
    assert kinds == {"edition", "reference"}


def test_simhash_alone_drops_distinct_pages_of_this_web(tmp_path):
    """The failure of issue 11: without the resemblance check some editions or reference pages
    are dropped, each sharing less than 0.8 of its shingles with the page it is dropped for."""
    by_url = {page.url: page for page in web()}
    wrong = [
        (page, named)
        for page, reason, named in decide(tmp_path, Config.default().with_overrides(SIMHASH_ALONE))
        if page.duplicate_of is None and reason == "near_duplicate"
    ]
    assert wrong
    assert all(page_jaccard(page, by_url[named]) < 0.8 for page, named in wrong if named)


def test_editions_and_reference_pages_are_kept(tmp_path):
    kept = [reason for page, reason, _ in decide(tmp_path, Config.default())]
    distinct = [reason for page, reason in zip(web(), kept, strict=True) if not page.duplicate_of]
    assert distinct == ["unique"] * len(distinct)


def test_copies_with_a_changed_field_are_still_dropped(tmp_path):
    """Every copy resembling its original at 0.9 or more that the rules without the resemblance
    check drop for its original is still dropped for it."""
    by_url = {page.url: page for page in web()}
    before = decide(tmp_path / "alone", Config.default().with_overrides(SIMHASH_ALONE))
    after = decide(tmp_path / "checked", Config.default())
    close = [
        number
        for number, (page, reason, named) in enumerate(before)
        if page.duplicate_of
        and (reason, named) == ("near_duplicate", page.duplicate_of)
        and page_jaccard(page, by_url[page.duplicate_of]) >= 0.9
    ]
    assert len(close) >= 30
    assert [after[number] for number in close] == [before[number] for number in close]


def guide_page(corpus: dict[str, str], manager: str) -> bytes:
    """A long page of prose (a pydoc page) with two blocks of commands for ``manager``."""
    commands = "\n".join(f"$ sudo {manager} install tool-{n}.pkg" for n in range(6))
    block = f"<pre>{commands}</pre>"
    body = corpus["json"].replace("</body>", f"{block}<p>Then check it.</p>{block}</body>")
    return body.encode()


def test_editions_with_other_commands_in_their_code_are_kept_and_copies_dropped(tmp_path, corpus):
    """The same prose over other commands shares nearly every shingle, yet is other content; a
    copy with the same code and a banner added is still a near-duplicate."""
    guide, edition = guide_page(corpus, "apt"), guide_page(corpus, "dnf")
    copy = guide.replace(b"<body>", b"<body><p>Mirrored nightly by the copy network.</p>", 1)
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        decisions = dedup.check_pages(
            [
                ("http://docs.example/guide/json.html", guide),
                ("http://docs.example/guide-rpm/json.html", edition),
                ("http://copy.example/guide/json.html", copy),
            ]
        )
    assert [d.reason for d in decisions] == ["unique", "unique", "near_duplicate"]
    assert decisions[2].duplicate_of == "http://docs.example/guide/json.html"
    without = Config.default().with_overrides({"text.code_blocks_apart": False})
    with DedupFilter.open(tmp_path / "other", without) as dedup:
        _, second = dedup.check_pages(
            [
                ("http://a.example/guide/json.html", guide),
                ("http://b.example/rpm/json.html", edition),
            ]
        )
    assert second.reason == "near_duplicate"  # what the code blocks keep apart


def test_a_copy_whose_links_were_made_absolute_in_its_code_too_is_a_copy(tmp_path, corpus):
    """A copier that makes links absolute by rewriting the HTML's text rewrites the examples in
    its code blocks as well (``&lt;image href="linus.gif"/&gt;``): the code is the same, the page
    a near-duplicate, where an example of other words is another edition."""
    example = b'<body><pre>&lt;image href="%s"/&gt; convert linus.gif</pre>'
    guide = guide_page(corpus, "apt").replace(b"<body>", example % b"linus.gif", 1)
    absolute = b"http://copy.example/guide/linus.gif"
    copy = guide.replace(b'href="linus.gif"', b'href="' + absolute + b'"')
    other = guide.replace(b"convert linus.gif", b"display linus.gif")
    with DedupFilter.open(tmp_path / "index", Config.default()) as dedup:
        decisions = dedup.check_pages(
            [
                ("http://docs.example/guide/json.html", guide),
                ("http://copy.example/guide/json.html", copy),
                ("http://docs.example/guide-rpm/json.html", other),
            ]
        )
    assert [d.reason for d in decisions] == ["unique", "near_duplicate", "unique"]


_GERMAN = (
    "<p>Dieses Modul bricht lange Absätze in Zeilen einer festen Breite um und füllt sie wieder"
    " auf, wobei Einrückungen am Anfang jeder Zeile erhalten bleiben und Leerzeichen zwischen den"
    " Wörtern nach Bedarf zusammengefasst werden, damit der Text gut lesbar bleibt.</p>"
)


def _partly_translated(english: str) -> str:
    """The page of a partial translation: the source's text with German paragraphs added."""
    return english.replace("</body>", _GERMAN * 2 + "</body>", 1)


def test_a_partial_translation_is_no_near_duplicate_of_its_source_edition(tmp_path, stdlib_page):
    """A page and its partial translation share the untranslated paragraphs (the eighth holdout
    web's German GIMP help: 0.78 of their shingles); where their URLs name two languages the
    translation is kept, under names that tell no language apart it is a near-duplicate."""
    english = stdlib_page("textwrap")
    german = _partly_translated(english)
    pairs = {
        "apart": ("http://docs.test/en/textwrap.html", "http://docs.test/de/textwrap.html"),
        "suffixes": ("http://docs.test/textwrap.en.html", "http://docs.test/textwrap.de.html"),
        "unnamed": ("http://one.test/docs/textwrap.html", "http://two.test/docs/textwrap.html"),
    }
    for number, (name, (source, translation)) in enumerate(pairs.items()):
        with DedupFilter.open(tmp_path / str(number), Config.default()) as dedup:
            first, second = dedup.check_pages(
                [(source, english.encode()), (translation, german.encode())]
            )
        assert first.reason == "unique"
        expected = "near_duplicate" if name == "unnamed" else "unique"
        assert (name, second.reason) == (name, expected)
    off = Config.default().with_overrides({"text.language_editions_apart": False})
    with DedupFilter.open(tmp_path / "off", off) as dedup:
        _, second = dedup.check_pages(
            [(pairs["apart"][0], english.encode()), (pairs["apart"][1], german.encode())]
        )
    assert second.reason == "near_duplicate"
