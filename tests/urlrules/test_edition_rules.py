"""``edition`` rules: a partial translation's untranslated pages, its source's copies, pruned where
the source page's language bar says the URL holds no translation of it."""

from __future__ import annotations

from dedup_filter.features.alternates import declared_editions, language_undeclared, undeclared
from dedup_filter.urlrules.editions import source_elsewhere
from dedup_filter.urlrules.induction import explain
from dedup_filter.urlrules.parts import UrlParts

from .conftest import HOST, Site


def _with_bar(body: bytes, page: int, languages: tuple[str, ...]) -> bytes:
    """The page with a language bar naming its translations, as Apache's manual writes it."""
    bar = "".join(
        f'<a href="../../{language}/mod/p{page}.html" hreflang="{language}" rel="alternate">'
        f"{language}</a> "
        for language in languages
    )
    return body.replace(b"<body>", f"<body><div class='toplang'>{bar}</div>".encode(), 1)


def _fetch(site: Site, path: str, page: int, languages: tuple[str, ...] = ()) -> str:
    body = site.bodies[page]
    decision = site.dedup.check_page(HOST + path, _with_bar(body, page, languages))
    return decision.reason


def _manual(site: Site, pages: range, declared: dict[int, tuple[str, ...]]) -> None:
    """The English edition's pages, each naming the translations ``declared`` gives it."""
    for page in pages:
        languages = declared.get(page, ())
        assert _fetch(site, f"/manual/en/mod/p{page}.html", page, languages) == "unique"


def test_a_partial_translations_copies_of_its_source_become_a_rule_that_spares_translations(site):
    """Japanese pages that are the English pages' bytes, under English pages that name only the
    French translation, teach ``ja>en``; the rule prunes the next such page and keeps the one
    the English page names as translated, and the French translations tell nothing against it."""
    declared = {page: ("fr",) for page in range(6)} | {5: ("fr", "ja")}
    _manual(site, range(6), declared)
    for page in range(2):
        assert _fetch(site, f"/manual/fr/mod/p{page}.html", page + 10, ("ja",)) == "unique"
    for page in range(3):
        copy = _fetch(site, f"/manual/ja/mod/p{page}.html", page, declared[page])
        assert copy == "exact_duplicate"
    assert site.rule("docs.a.test edition ja>en")["state"] == "confirmed"
    pruned = site.check("/manual/ja/mod/p4.html")
    source = HOST + "/manual/en/mod/p4.html"
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", source)
    assert pruned.evidence["url_rule"] == ["docs.a.test edition ja>en"]
    assert pruned.evidence["editions_declared"] == 1
    assert site.check("/manual/ja/mod/p5.html").action == "keep"  # a declared translation
    assert site.check("/manual/ja/mod/p9.html").action == "keep"  # no English page held


def test_copies_under_pages_that_declare_no_editions_teach_nothing(site):
    """Without a language bar nothing says which pages are translated: copies in another
    language's directory support no rule, however many."""
    _manual(site, range(5), {})
    for page in range(5):
        assert _fetch(site, f"/manual/de/mod/p{page}.html", page) == "exact_duplicate"
    assert site.rule("docs.a.test edition de>en") is None
    assert site.check("/manual/de/mod/p4.html").action == "keep"


def test_a_translation_its_source_page_does_not_name_kills_the_rule(site):
    """A page of other content in the translation's directory whose English page does not name
    it (a language bar out of date): the bar is not to be trusted on this host, and the rule
    dies before it prunes anything more."""
    declared = {page: ("fr",) for page in range(6)}
    _manual(site, range(6), declared)
    for page in range(3):
        assert _fetch(site, f"/manual/ja/mod/p{page}.html", page, ("fr",)) == "exact_duplicate"
    assert site.rule("docs.a.test edition ja>en")["state"] == "confirmed"
    assert _fetch(site, "/manual/ja/mod/p3.html", 12, ("en", "fr")) == "unique"
    assert site.rule("docs.a.test edition ja>en")["state"] == "dead"
    assert site.check("/manual/ja/mod/p4.html").action == "keep"


def test_an_edition_rule_is_induced_from_one_language_directory_for_another_only():
    held = HOST + "/manual/en/mod/core.html"
    explained = explain(HOST + "/manual/ja/mod/core.html", held, ())
    assert explained is not None
    assert explained.key.label == "docs.a.test edition ja>en"
    others = ("/manual/v2/mod/core.html", "/manual/ja/mod/other.html", "/manual/ja/x/core.html")
    for other in others:
        assert explain(HOST + other, held, ()) is None


def declared_alternates(page: str, base: str | None, hrefs: list[str]) -> tuple[int, ...]:
    return declared_editions(page, base, hrefs, "en").keys


def test_a_pages_editions_are_its_hreflang_links_resolved():
    page = HOST + "/manual/en/mod/core.html"
    keys = declared_alternates(page, None, ["../../fr/mod/core.html", "../../ja/mod/core.html#x"])
    assert not undeclared(keys, HOST + "/manual/ja/mod/core.html")
    assert undeclared(keys, HOST + "/manual/de/mod/core.html")
    assert not undeclared((), HOST + "/manual/de/mod/core.html")  # declares none: says nothing
    based = declared_alternates(page, HOST + "/manual/en/x/", ["../../de/mod/core.html"])
    assert not undeclared(based, HOST + "/manual/de/mod/core.html")
    many = [f"../../l{number}/mod/core.html" for number in range(100)]
    assert declared_alternates(page, None, many) == ()  # more than a language bar holds


def test_a_bar_names_languages_by_directory_or_by_file_name_suffix():
    """Apache's own manual names a page's translations after its file name (``core.html.fr``),
    Debian's one directory a language: either bar tells which languages the page has."""
    bars = {
        HOST + "/manual/en/mod/core.html": ["../../fr/mod/core.html", "../../pt-br/mod/core.html"],
        HOST + "/manual/mod/core.html.en": ["core.html.fr", "core.html.pt-br"],
        HOST + "/manual/mod/core.html": ["core.html.fr", "core.html.pt-br"],  # negotiated
    }
    for page, hrefs in bars.items():
        editions = declared_editions(page, None, hrefs, "en")
        assert editions.languages == ("fr", "pt"), page
        assert language_undeclared(editions.languages, "de")
        assert not language_undeclared(editions.languages, "fr")
        assert not language_undeclared(editions.languages, "apache-pt")
    assert not language_undeclared((), "de")  # a bar of nothing says nothing
    assert not language_undeclared(("fr",), "mod")  # a directory that names no language
    page = HOST + "/manual/mod/core.html.en"
    for hrefs in (["core.html.fr", "other.html.de"], ["core.html.fr", "core.html.gz"]):
        assert declared_editions(page, None, hrefs, "en").keys == ()


def test_a_bar_that_names_no_sibling_of_the_page_declares_nothing():
    """Debian's Apache manual gives its top-level pages the bar of pages a level deeper: the
    translations it names lie outside the manual, and every translation that exists would be
    taken as untranslated. A bar is read only when each link is the page's URL with one
    directory segment changed."""
    top = HOST + "/docs/2.4/en/new_features_2_0.html"
    assert declared_alternates(top, None, ["../../pt-br/new_features_2_0.html"]) == ()
    index = HOST + "/manual/en/mod/index.html"
    assert declared_alternates(index, None, ["../../de/mod/", "../../fr/mod/index.html"]) == ()
    core = HOST + "/manual/en/mod/core.html"
    assert declared_alternates(core, None, ["#", "core.html"]) == ()  # links cut: names itself
    renamed = HOST + "/apache-de/configuring.html"
    assert declared_alternates(renamed, None, ["../../en/configuring.html"]) == ()
    elsewhere = ["http://de.docs.a.test/manual/en/mod/core.html", "core.html?lang=de"]
    for href in elsewhere:
        assert declared_alternates(HOST + "/manual/en/mod/core.html", None, [href]) == ()


def test_a_copy_whose_source_page_was_itself_dropped_as_a_copy_names_the_page_held(site):
    """The English page met as a copy of another host's (a mirror crawled first) still tells its
    translations: the untranslated Japanese page is dropped for the page that holds the text."""
    mirror = "http://mirror.b.test/manual/en/mod/p4.html"
    assert site.dedup.check_page(mirror, _with_bar(site.bodies[4], 4, ("fr",))).reason == "unique"
    _manual(site, range(4), {page: ("fr",) for page in range(4)})
    assert _fetch(site, "/manual/en/mod/p4.html", 4, ("fr",)) == "exact_duplicate"
    for page in range(3):
        assert _fetch(site, f"/manual/ja/mod/p{page}.html", page, ("fr",)) == "exact_duplicate"
    pruned = site.check("/manual/ja/mod/p4.html")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", mirror)
    assert site.check("/manual/ja/mod/p5.html").action == "keep"  # never fetched in English


def test_copies_of_another_hosts_pages_on_one_host_are_pairs_of_each_other(site):
    """Another host's manual crawled first: the English pages and their untranslated Japanese
    copies are all dropped for its pages, and no page of the host is held; two copies of one
    page on the host are a pair, and teach ``ja>en`` as held pages would."""
    mirror = "http://mirror.b.test/manual/mod/p{}.html"
    for page in range(5):
        body = _with_bar(site.bodies[page], page, ("fr",))
        assert site.dedup.check_page(mirror.format(page), body).reason == "unique"
    for page in range(5):
        assert _fetch(site, f"/manual/en/mod/p{page}.html", page, ("fr",)) == "exact_duplicate"
    for page in range(3):
        assert _fetch(site, f"/manual/ja/mod/p{page}.html", page, ("fr",)) == "exact_duplicate"
    assert site.rule("docs.a.test edition ja>en")["state"] == "confirmed"
    pruned = site.check("/manual/ja/mod/p4.html")
    assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", mirror.format(4))


def test_a_translation_that_does_not_name_its_source_never_stands_for_it(site):
    """``en>de`` learnt where the German directory's English copies were met first: a German
    translation whose bar names its other translations but not its source declares German,
    not the English its rule's pairs declared, and the English page is fetched."""
    for page in range(3):
        assert _fetch(site, f"/manual/de/mod/p{page}.html", page, ("fr",)) == "unique"
        assert _fetch(site, f"/manual/en/mod/p{page}.html", page, ("fr",)) == "exact_duplicate"
    assert site.rule("docs.a.test edition en>de")["values"] == ["en"]
    german = _with_bar(site.bodies[12], 3, ("fr",)).replace(b'lang="en"', b'lang="de"', 1)
    assert site.dedup.check_page(HOST + "/manual/de/mod/p3.html", german).reason == "unique"
    assert _fetch(site, "/manual/de/mod/p4.html", 4, ("fr",)) == "unique"
    assert site.check("/manual/en/mod/p3.html").action == "keep"
    assert site.check("/manual/en/mod/p4.html").reason == "duplicate_url"


DEBIAN = "http://deb.b.test"
EDITION = "deb.b.test edition de>en"


def _negotiated_manual(
    site: Site,
    german: tuple[int, ...],
    untranslated: tuple[int, ...] = (0, 1, 2),
    lead: int = 4,
) -> None:
    """Apache's manual, its languages after the file's name: English pages whose bars name the
    French translations, and the German ones of pages ``german``; beside it (``lead`` pages
    ahead), a host that lays it out one directory a language, which holds a French translation,
    and whose English pages 0-2 and untranslated German pages ``untranslated`` are met as copies
    of Apache's (a ``layout`` rule, an ``edition`` rule)."""

    def apache(page: int) -> None:
        languages = ("fr", "de") if page in german else ("fr",)
        links = (f'<a href="p{page}.html.{tag}" hreflang="{tag}">{tag}</a>' for tag in languages)
        body = site.bodies[page].replace(b"<body>", f"<body>{''.join(links)}".encode(), 1)
        url = f"{HOST}/manual/mod/p{page}.html.en"
        assert site.dedup.check_page(url, body).reason == "unique"

    def debian(language: str, page: int) -> None:
        url = f"{DEBIAN}/manual/{language}/mod/p{page}.html"
        body = _with_bar(site.bodies[page], page, ("fr",))
        assert site.dedup.check_page(url, body).reason == "exact_duplicate"

    for page in range(lead):
        apache(page)
    french = site.dedup.check_page(f"{DEBIAN}/manual/fr/mod/p0.html", site.bodies[13])
    assert french.reason == "unique"  # a translation: the host holds a page of its own
    debian("en", 0)
    for page in range(lead, 12):
        apache(page)
    met = [("en", 1), ("en", 2)] + [("de", page) for page in untranslated]
    for language, page in sorted(met, key=lambda pair: pair[1]):
        debian(language, page)
    assert site.rule(EDITION)["state"] == "confirmed"


def test_an_untranslated_page_is_dropped_by_the_bar_of_its_source_page_held_on_another_host(site):
    """The English page of an untranslated German one never fetched here, dropped for Apache's
    (a layout rule): that page's bar, which names no German translation, drops the German URL
    before its fetch; one naming German has it fetched, and so is a page held nowhere."""
    _negotiated_manual(site, german=(8,))
    dropped = site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p5.html")
    source = HOST + "/manual/mod/p5.html.en"
    assert (dropped.reason, dropped.duplicate_of) == ("duplicate_url", source)
    assert dropped.evidence["url_rule"] == [EDITION]
    assert dropped.evidence["editions_of"] == source
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p8.html").action == "keep"
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p20.html").action == "keep"


def test_a_translation_the_other_hosts_bar_does_not_name_kills_the_rule(site):
    """A German page of its own text whose source page, held on another host, does not name it
    (another release, translated since): that host's bars do not tell this one's translations."""
    _negotiated_manual(site, german=(9,))
    german = site.bodies[12].replace(b'lang="en"', b'lang="de"', 1)
    kept = site.dedup.check_page(f"{DEBIAN}/manual/de/mod/p6.html", german)
    assert kept.reason == "unique"
    assert kept.evidence["url_rules_killed"] == [EDITION]
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p5.html").action == "keep"


def test_untranslated_copies_pair_with_their_source_held_on_another_host(site):
    """The English pages fetched here only for the layout rule (0-2); the German pages 3-5,
    copies of Apache's pages whose English URL here was never fetched: the bar of Apache's page,
    naming no German edition, makes each a pair with that URL, and they teach ``de>en``."""
    _negotiated_manual(site, german=(8,), untranslated=(3, 4, 5))
    dropped = site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p7.html")
    assert dropped.reason == "duplicate_url"
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p8.html").action == "keep"


def test_the_bars_of_a_host_crawled_well_before_drop_nothing(site):
    """A copier crawled first may have cut a translation from its bars: the translations it does
    not hold are fetched, as a mirror rule never prunes a page its copy lacks."""
    _negotiated_manual(site, german=(8,), lead=12)
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p5.html").action == "keep"


def test_the_bars_of_a_host_that_never_named_a_language_drop_nothing_of_it(site):
    """A copier crawled beside its victim, German cut from every bar: its bars' silence says
    nothing of the victim's German pages, which are fetched."""
    _negotiated_manual(site, german=())
    assert site.dedup.check_url(f"{DEBIAN}/manual/de/mod/p5.html").action == "keep"
    assert site.dedup.check_url(f"{DEBIAN}/manual/fr/mod/p5.html").action == "keep"


def test_a_copy_under_a_thousand_language_directories_tries_two_of_them(site):
    """A hostile URL naming a language in each of a thousand directories: its source is sought
    in two of them, each try asking the mirror and layout rules of the other hosts."""
    _negotiated_manual(site, german=())
    asked: list[str] = []

    def held_elsewhere(url: str) -> None:
        asked.append(url)

    parts = UrlParts.parse(f"{DEBIAN}/{'de/' * 1000}p0.html")
    with site.dedup.index.read() as view:
        held = f"{HOST}/manual/mod/p0.html.en"
        assert source_elsewhere(view, parts, held, held_elsewhere) is None
    assert len(asked) == 2
