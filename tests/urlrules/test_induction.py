"""Which rule a duplicate pair supports, and what each rule does to a URL."""

from __future__ import annotations

import pytest

from dedup_filter.config import DEFAULT_DOCUMENTS
from dedup_filter.urlrules.induction import explain
from dedup_filter.urlrules.parts import UrlParts
from dedup_filter.urlrules.rewrite import ANY, RuleKey, Scope, inverse, rewrite

H = "http://docs.a.test"


@pytest.mark.parametrize(
    ("dropped", "held", "label", "canonical"),
    [
        (f"{H}/x.html?sessionid=S1", f"{H}/x.html", "docs.a.test drop sessionid", f"{H}/x.html"),
        (f"{H}/x.html", f"{H}/x.html?sid=9", "docs.a.test drop sid", f"{H}/x.html"),
        (f"{H}/d/?C=N;O=D", f"{H}/d/", "docs.a.test drop C&O", f"{H}/d/"),
        (f"{H}/d/?C=N;O=D", f"{H}/d/?C=M;O=A", "docs.a.test ignore C&O", f"{H}/d/?C=&O="),
        (f"{H}/x?b=2&ref=a", f"{H}/x?ref=b&b=2", "docs.a.test ignore ref", f"{H}/x?b=2&ref="),
        (f"{H}/d/index.html", f"{H}/d/", "docs.a.test index index.html", f"{H}/d/"),
        (f"{H}/d/", f"{H}/d/default.aspx", "docs.a.test index default.aspx", f"{H}/d/"),
        (f"{H}/Docs/A.html", f"{H}/docs/a.html", "docs.a.test case", f"{H}/docs/a.html"),
        (f"{H}/print/a/b.html", f"{H}/a/b.html", "docs.a.test marker print", f"{H}/a/b.html"),
        (f"{H}/d/core.html.en", f"{H}/d/core.html", "docs.a.test suffix .en", f"{H}/d/core.html"),
        (f"{H}/core.html", f"{H}/core.html.en", "docs.a.test suffix .en", f"{H}/core.html"),
    ],
)
def test_a_pair_supports_the_rule_that_explains_it(dropped, held, label, canonical):
    explanation = explain(dropped, held, DEFAULT_DOCUMENTS, ("en",))
    assert explanation is not None
    assert (explanation.key.label, explanation.canonical) == (label, canonical)


@pytest.mark.parametrize(
    ("dropped", "held"),
    [
        (f"{H}/x?a=1", f"{H}/x?b=1"),  # one name on each side: no single rule
        (f"{H}/x?a=1&b=2&c=3&d=4", f"{H}/x"),  # more parameters than a rule names
        (f"{H}/d/index.html?sid=1", f"{H}/d/"),  # two differences at once
        (f"{H}/a.html", f"{H}/b.html"),  # two documents
        (f"{H}/d/faq.html", f"{H}/d/"),  # not a default document
        (f"{H}/x", "http://other.test/x"),  # another host
        (f"{H}/x", f"{H}/x"),
        # a language: an untranslated page repeats its source, a translated one does not
        (f"{H}/de/a/b.html", f"{H}/a/b.html"),
        (f"{H}/docs/pt-br/b.html", f"{H}/docs/b.html"),
        (f"{H}/x?lang=de", f"{H}/x"),
        (f"{H}/x?hl=de&sid=1", f"{H}/x?hl=fr&sid=1"),
        (f"{H}/x?uselang=ja", f"{H}/x"),
        (f"{H}/x?locale=de_DE&sid=2", f"{H}/x"),
        # a language the crawler does not ask for: the page's bare name serves another variant
        (f"{H}/mod/core.html.fr", f"{H}/mod/core.html"),
        (f"{H}/mod/core.en", f"{H}/mod/core"),  # no file name the language follows
        (f"{H}/mod/.en", f"{H}/mod/"),
        # an edition: most pages of a release or a platform repeat another's, the rest do not
        (f"{H}/docs/v2/x.html", f"{H}/docs/x.html"),
        (f"{H}/docs/2.0/x.html", f"{H}/docs/x.html"),
        (f"{H}/docs/latest/x.html", f"{H}/docs/x.html"),
        (f"{H}/docs/beta/x.html", f"{H}/docs/x.html"),
        (f"{H}/windows/x.html", f"{H}/x.html"),
        (f"{H}/docs/linux-arm64/x.html", f"{H}/docs/x.html"),
        (f"{H}/x?v=2", f"{H}/x"),
        (f"{H}/x?version=2.0&sid=1", f"{H}/x?version=1.9&sid=1"),
        (f"{H}/x?view=sql-server-ver16", f"{H}/x"),
        (f"{H}/x?OS=windows", f"{H}/x"),
    ],
)
def test_pairs_no_rule_explains_support_nothing(dropped, held):
    assert explain(dropped, held, DEFAULT_DOCUMENTS, ("en",)) is None


def test_a_drop_rule_seen_with_one_value_merges_only_that_value():
    key, scope = RuleKey("docs.a.test", 0, "format"), Scope(("print",), any_value=False)
    printed = rewrite(key, UrlParts.parse(f"{H}/x?format=print"), scope)
    assert printed is not None
    assert printed.url() == f"{H}/x"
    assert rewrite(key, UrlParts.parse(f"{H}/x?format=pdf"), scope) is None
    assert rewrite(key, UrlParts.parse(f"{H}/x?format=pdf"), ANY) is not None


def test_rewrites_keep_the_spelling_of_the_rest_of_the_url():
    parts = UrlParts.parse(f"{H}/d/?C=N;O=D;x=1")
    rewritten = rewrite(RuleKey("docs.a.test", 0, "C&O"), parts)
    assert rewritten is not None
    assert rewritten.url() == f"{H}/d/?x=1"
    assert UrlParts.parse(f"{H}/p?a=1&b").url() == f"{H}/p?a=1&b"


@pytest.mark.parametrize(
    ("key", "values", "url"),
    [
        (RuleKey("docs.a.test", 0, "format"), ("print",), f"{H}/y.html"),
        (RuleKey("docs.a.test", 1, "sort"), ("asc", "desc"), f"{H}/y.html?sort=asc"),
        (RuleKey("docs.a.test", 2, "index.html"), (), f"{H}/d/"),
        (RuleKey("docs.a.test", 2, "index.html"), (), f"{H}/d/index.html"),
        (RuleKey("docs.a.test", 3, "print"), ("0",), f"{H}/a/b.html"),
        (RuleKey("docs.a.test", 5, ".en"), (), f"{H}/a/b.html"),
        (RuleKey("docs.a.test", 5, ".en"), (), f"{H}/a/b.html.en"),
    ],
)
def test_a_probe_is_a_url_the_rule_maps_onto_the_page(key, values, url):
    parts, scope = UrlParts.parse(url), Scope(values, any_value=True)
    built = inverse(key, parts, scope)
    assert built is not None
    assert built.url() != url
    assert _canonical(key, built, scope) == _canonical(key, parts, scope)


def _canonical(key: RuleKey, parts: UrlParts, scope: Scope) -> str:
    return (rewrite(key, parts, scope) or parts).class_key()


def test_a_negotiated_language_is_struck_from_a_file_name_only():
    key = RuleKey("docs.a.test", 5, ".en")
    stripped = rewrite(key, UrlParts.parse(f"{H}/mod/core.html.en"))
    assert stripped is not None
    assert stripped.url() == f"{H}/mod/core.html"
    for url in (f"{H}/mod/core.html", f"{H}/mod/core.html.fr", f"{H}/.en", f"{H}/x.html.en?a=1"):
        assert rewrite(key, UrlParts.parse(url)) is None
    assert explain(f"{H}/core.html.en", f"{H}/core.html", DEFAULT_DOCUMENTS) is None  # none asked
