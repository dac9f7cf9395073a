"""The evaluation web of issues 11 and 12, reduced: five small Debian documentation packages
(fetched with apt-get when the cache lacks them), one crawl without the filter and one with it
(breadth-first, one request at a time), scored from the server's request log."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import urljoin, urlsplit
from urllib.request import ProxyHandler, build_opener

import pytest

from dedup_filter.index.lmdb_index import SAMPLE_KEY_VARIABLE
from testweb.crawl import page_links
from testweb.evalweb import hazards
from testweb.evalweb.breakdown import extra_fetches
from testweb.evalweb.builder import EvalWeb, build_eval_web
from testweb.evalweb.crawls import FILTER, UNFILTERED, CrawlRecord, crawl
from testweb.evalweb.packages import unbroken
from testweb.evalweb.pretty import prettified, section_prettified
from testweb.evalweb.redirects import redirected
from testweb.evalweb.retemplated import READER, build_retemplated_web
from testweb.evalweb.scorer import Score, canonical_directory, score
from testweb.evalweb.shingles import jaccard, near_pairs, page_shingles
from testweb.evalweb.truth import OWN_PAGES, GroundTruth
from testweb.server import LoggedRequest, serve

ONE_AT_A_TIME = {"CONCURRENT_REQUESTS": 1}  # the same order in every run, so the same outcome
pytestmark = pytest.mark.skipif(shutil.which("apt-get") is None, reason="needs apt-get and dpkg")


@pytest.fixture(scope="module")
def web() -> EvalWeb:
    return build_eval_web("small")


@pytest.fixture(scope="module")
def crawls(web: EvalWeb, tmp_path_factory: pytest.TempPathFactory) -> dict[str, CrawlRecord]:
    """Without the filter every reachable page is fetched whatever the order: only the filtered
    crawl needs the one order."""
    return _crawled(web, tmp_path_factory.mktemp("eval-web"))


def _crawled(web: EvalWeb, workdir: Path) -> dict[str, CrawlRecord]:
    """``web`` crawled breadth-first without the filter and with it (one request at a time)."""
    with serve(web.test_web()) as server:
        return {
            UNFILTERED: crawl(server, web, workdir, UNFILTERED, "breadth_first", timeout_s=120),
            FILTER: crawl(
                server, web, workdir, FILTER, "breadth_first", timeout_s=120, settings=ONE_AT_A_TIME
            ),
        }


def _crawled_losing_nothing(served: EvalWeb, workdir: Path) -> tuple[CrawlRecord, Score]:
    """``served`` crawled as ``_crawled`` crawls it, and scored: no content lost, no newer text
    hidden; the filtered crawl and its score."""
    crawls = _crawled(served, workdir)
    result = score(served.truth, served.served(), crawls[UNFILTERED], crawls[FILTER])
    assert result.lost == []
    assert result.newer_lost == []
    return crawls[FILTER], result


@pytest.fixture(scope="module")
def result(web: EvalWeb, crawls: dict[str, CrawlRecord]) -> Score:
    return score(web.truth, web.pages, crawls[UNFILTERED], crawls[FILTER])


def test_every_served_url_has_its_truth_and_traps_hold_content_of_their_own(
    web: EvalWeb, tmp_path: Path
) -> None:
    truth = GroundTruth.load(web.save_truth(tmp_path))
    assert truth == web.truth
    assert set(web.pages) == set(truth.contents)
    traps = [url for url, kind in truth.kinds.items() if kind.startswith("trap")]
    assert {urlsplit(url).query.split("=")[0] for url in traps} == set(truth.trap_parameters)
    for url in traps:
        base = url.split("?")[0]
        assert truth.contents[url] != truth.contents.get(base), url
    for url in truth.aliases():  # an alias holds the content of another URL on its host
        host = urlsplit(url).hostname
        assert any(
            other != url and urlsplit(other).hostname == host and content == truth.contents[url]
            for other, content in truth.contents.items()
        ), url


def test_replicas_hold_copies_of_their_source_pages(web: EvalWeb) -> None:
    """Every page of a replica is a copy of its source's, but a code edition's recoded pages and
    a partial translation's translated ones (some, not all)."""
    truth = web.truth
    assert len(truth.replicas) == 10
    for replica in truth.replicas:
        copied = [
            url for url in web.pages if url.startswith(replica.copy) and truth.kinds[url] != "front"
        ]
        assert copied, replica
        if replica.kind in OWN_PAGES:
            same = [
                truth.contents[url]
                == truth.contents[replica.source + url.split("?")[0][len(replica.copy) :]]
                for url in copied
            ]
            assert any(same), replica
            assert not all(same), replica
        else:
            for url in copied:  # the page it copies, replica after replica, holds the same content
                source = canonical_directory(truth, url.split("?")[0], OWN_PAGES)
                assert truth.contents[url] == truth.contents[source], url


def test_a_partial_translation_holds_its_source_pages_and_its_own() -> None:
    """The Apache manual's German edition installs its untranslated pages as links to the
    English ones: copies in the truth; its translated pages are content of their own."""
    web = build_eval_web("holdout5")
    truth, guides = web.truth, "http://httpd.project.test/"
    german = {
        url: truth.contents[url]
        for url in web.pages
        if url.startswith(guides + "apache-de/") and url.endswith(".html")
    }
    copies = {url for url, content in german.items() if content.startswith("apache-en:")}
    own = {url for url, content in german.items() if content.startswith("apache-de:")}
    assert len(copies) > 4 * len(own) > 0
    assert copies | own == german.keys()
    for url in copies:
        assert web.pages[url] == web.pages[url.replace("/apache-de/", "/apache-en/")]
    assert any(r.kind == "partial_translation" for r in truth.replicas)


@pytest.mark.parametrize(
    "scale",
    [
        "small",
        "holdout",
        "holdout5",
        "holdout6",
        "holdout7",
        "holdout8",
        "holdout9",
        "holdout10",
        "holdout11",
        "holdout12",
        "holdout13",
        "holdout14",
        "holdout15",
        "holdout16",
        "holdout17",
        "holdout18",
        "holdout19",
        "holdout20",
        "holdout21",
        "holdout22",
        "holdout23",
        "holdout24",
        "holdout25",
    ],
)
def test_no_link_names_a_directory_whose_index_page_is_not_served_there(scale: str) -> None:
    """The test server maps no directory URL to its ``index.html``: a link naming the directory
    is a 404, and a copy reached only through it is never crawled (the holdout's copier and
    partial copy were not, in any order)."""
    pages = build_eval_web(scale).pages
    dangling = {
        target
        for url, body in pages.items()
        for href in re.findall(rb'href="([^"#]+)', body)
        if (target := urljoin(url, href.decode("utf-8", "replace"))).endswith("/")
        and target not in pages
        and target + "index.html" in pages
    }
    assert dangling == set()


def test_a_doxygen_chain_whose_index_page_links_nothing_is_crawled_from_its_entry() -> None:
    """SDL2's Doxygen index page writes its menu in JavaScript and its pages lie in hashed
    directories: read as one directory from the index page, the twenty-fourth holdout web's
    chain reached 1 page of 157 on each host, so its two boundaries could not be found."""
    web = build_eval_web("holdout24")
    reached, queue = set(web.start_urls), list(web.start_urls)
    while queue:
        url = queue.pop()
        for link in page_links(url, web.pages.get(url, b"")):
            if link not in reached:
                reached.add(link)
                queue.append(link)
    origin = [url for url in web.pages if url.startswith("http://wiki.libsdl.test/")]
    documents = [url for url in origin if url.endswith(".html")]
    assert len(documents) > 400
    assert len(reached.intersection(documents)) > len(documents) / 2


def test_the_sources_web_serves_the_plain_text_sources_its_pages_link() -> None:
    """``--scale sources``: Tornado's pages link ``_sources/NAME.rst.txt`` ("Show Source"); the
    other webs turn such links into ``#``, this one serves the files, and copies them."""
    web = build_eval_web("sources")
    sources = [url for url in web.pages if url.endswith(".rst.txt")]
    linked = {link for url in web.pages for link in page_links(url, web.pages[url])}
    assert len(sources) > 200
    assert len(linked.intersection(sources)) > len(sources) * 0.9
    assert {web.truth.kinds[url] for url in sources} == {"original", "copy"}


def test_notes_read_from_a_tree_name_no_page_the_web_does_not_serve() -> None:
    """The thirteenth holdout web reads its notes from GRASS's module reference, whose pages link
    the other modules: as notes they linked 404s, 2,482 of a crawl's fetches, every one scored
    avoidable. A note stands alone; and the reference's contents page is no note (named
    ``index``, it was filed as its news series' directory page, its content at no URL)."""
    web = build_eval_web("holdout13")
    notes = [url for url, content in web.truth.contents.items() if content.startswith("grass:")]
    assert len(notes) > 200
    assert "grass:index.html" not in web.truth.contents.values()
    broken = {
        target
        for url in notes
        for href in re.findall(rb'href="([^"#]+)', web.pages[url])
        if (target := urljoin(url, href.decode("utf-8", "replace"))).startswith("http://")
        and urlsplit(target).hostname == urlsplit(url).hostname
        and target not in web.pages
    }
    assert broken == set()


def test_a_link_to_a_page_left_out_is_unlinked_whatever_the_case_of_its_attribute() -> None:
    """vim's help pages write ``HREF``: links to its pages over 100 kB were 404s in every copy."""
    body = '<A HREF="autocmd.html#x">a</A> <a href="kept.html">k</a>'
    repaired = unbroken("doc/index.html", body, {"doc/index.html", "doc/kept.html"})
    assert "autocmd" not in repaired
    assert 'href="kept.html"' in repaired


def test_near_pairs_agree_with_every_pair_compared(web: EvalWeb) -> None:
    shingles = {url: page_shingles(body) for url, body in sorted(web.pages.items())[:80]}
    found = {(first, second) for first, second, _ in near_pairs(shingles)}
    urls = list(shingles)
    every = {
        (urls[i], urls[j])
        for i in range(len(urls))
        for j in range(i + 1, len(urls))
        if jaccard(shingles[urls[i]], shingles[urls[j]]) >= 0.8
    }
    assert found == every
    assert every  # the web has near-duplicates to find


def test_the_scorer_counts_a_lost_page_and_a_saved_fetch(web: EvalWeb) -> None:
    """A crawl that fetched a host but one must-keep page: one fetch saved, one page lost."""
    urls = sorted(url for url in web.pages if url.startswith("http://portal.test/"))
    lost = sorted(web.truth.must_keep() & set(urls))[0]
    everything = _record(UNFILTERED, urls)
    all_but_one = _record(FILTER, [url for url in urls if url != lost])
    result = score(web.truth, web.pages, everything, all_but_one)
    assert result.lost == [web.truth.contents[lost]]
    assert result.must_keep_lost == 1
    assert result.unfiltered_fetches - result.fetches == 1
    assert result.trap_rules is None  # no URL-rules listing in this record


def test_the_crawl_is_scored_from_the_request_log(
    web: EvalWeb, crawls: dict[str, CrawlRecord], result: Score
) -> None:
    reached = set(crawls[UNFILTERED].fetched())
    assert web.truth.aliases() & reached
    assert len(reached) > 300
    assert 0 < result.fetches < result.unfiltered_fetches
    assert result.page_drops > 0
    assert result.near_pairs > 0
    assert result.boundaries == 8
    assert 0 <= result.boundaries_found <= 8


def test_no_content_is_lost(result: Score) -> None:
    assert result.lost == []
    assert result.newer_lost == []


def test_a_crawl_paused_and_resumed_loses_nothing_and_fetches_nothing_twice(
    web: EvalWeb, crawls: dict[str, CrawlRecord], tmp_path: Path
) -> None:
    """Paused (SIGINT, ``JOBDIR``) every third of the filtered crawl's requests, and resumed."""
    every = len(crawls[FILTER].requests) // 3
    with serve(web.test_web()) as server:
        paused = crawl(
            server,
            web,
            tmp_path,
            FILTER,
            "breadth_first",
            timeout_s=120,
            settings=ONE_AT_A_TIME,
            pause_every=every,
        )
    result = score(web.truth, web.pages, crawls[UNFILTERED], paused)
    assert result.lost == []
    assert result.newer_lost == []
    # no second fetch unpaused (the canonical URL of an alias, dropped as a duplicate of its
    # directory before any alias waited for it, is probed later: judged again unfetched); at
    # most one a pause (one clean-clone run fetched a page twice across a pause, undiagnosed:
    # maybe a request in flight as the crawl closed), where the start code fetched several
    assert not _fetched_twice(crawls[FILTER])
    assert len(_fetched_twice(paused)) <= 2, _fetched_twice(paused)
    unpaused = score(web.truth, web.pages, crawls[UNFILTERED], crawls[FILTER])
    assert result.saved >= unpaused.saved - 0.03, (result.saved, unpaused.saved)


def test_the_scorer_counts_a_newer_text_lost_that_a_stale_copy_hides(web: EvalWeb) -> None:
    """A stale copy's edited page shares its origin's content key: a crawl that fetched only
    the older text loses no content by that key, and the newer text is counted lost."""
    edited = sorted(url for url, kind in web.truth.kinds.items() if kind == "copy_edited")[0]
    key = web.truth.contents[edited]
    newer = sorted(url for url, held in web.truth.contents.items() if held == key)
    everything = _record(UNFILTERED, newer)
    stale_only = score(web.truth, web.pages, everything, _record(FILTER, [edited]))
    assert (stale_only.lost, stale_only.newer_lost) == ([], [key])
    assert score(web.truth, web.pages, everything, everything).newer_lost == []


def test_the_scorer_counts_an_origin_pruned_where_the_log_drops_its_urls(web: EvalWeb) -> None:
    """A rule may name the victim its mirror and prune its origin side, the copier: read from
    the drops, that is no origin pruned; a drop under the victim is one."""
    copier = next(replica for replica in web.truth.replicas if replica.kind == "copier")
    rule = {"kind": "mirror", "mirror": copier.source, "origin": copier.copy}
    victim_page, copier_page = (
        sorted(url for url in web.pages if url.startswith(side) and url != side)[0]
        for side in (copier.source, copier.copy)
    )
    everything = _record(UNFILTERED, [victim_page, copier_page])

    def dropped(url: str) -> CrawlRecord:
        decision = {
            "url": url,
            "action": "drop",
            "reason": "mirrored_directory",
            "duplicate_of": None,
        }
        decision["evidence"] = {"mirror_rule": rule}
        return replace(_record(FILTER, []), decisions=[decision], rules=[rule])

    pruned = [
        score(web.truth, web.pages, everything, dropped(url)).origins_pruned
        for url in (copier_page, victim_page)
    ]
    assert pruned == [0, 1]


def test_the_scorer_names_a_wrong_rule_that_pruned_and_was_gone_by_the_end(web: EvalWeb) -> None:
    """The listing at a crawl's end shows the rules left: one turned or revoked after it pruned
    is read from the drops under it, and named when it is wrong."""
    replica = web.truth.replicas[0]
    elsewhere = next(other for other in web.truth.replicas if other.group != replica.group)
    wrong = {"mirror": replica.copy, "origin": elsewhere.source}  # copies of other packages
    right = {"mirror": replica.copy, "origin": replica.source}
    page = sorted(url for url in web.pages if url.startswith(replica.copy))[1]
    drops = [
        {
            "url": page,
            "action": "drop",
            "reason": "mirrored_directory",
            "duplicate_of": None,
            "evidence": {"mirror_rule": rule},
        }
        for rule in (wrong, right)
    ]
    record = replace(_record(FILTER, []), decisions=drops, rules=[])
    result = score(web.truth, web.pages, _record(UNFILTERED, [page]), record)
    assert result.wrong_rules_gone == [f"{wrong['mirror']} -> {wrong['origin']} (1 pruned)"]
    still = replace(record, rules=[{"kind": "mirror"} | wrong])
    assert score(web.truth, web.pages, _record(UNFILTERED, [page]), still).wrong_rules_gone == []


def _record(variant: str, urls: list[str]) -> CrawlRecord:
    requests = [LoggedRequest("GET", url, 200, 0, False, 0.0) for url in urls]
    return CrawlRecord(variant, "breadth_first", requests, [], [], False, 0.0)


def test_a_soft_404_holds_no_document_and_identical_pages_share_one() -> None:
    """The twelfth holdout's copy of a copy answers its one "not found" page, status 200, where
    it lacks a page of the chain: no crawl needs it, so the scorer neither asks for it nor counts
    it lost; and an edition's page byte for byte another's is one document under two URLs."""
    holdout = build_eval_web("holdout12")
    truth = holdout.truth
    soft = sorted(url for url, kind in truth.kinds.items() if kind == "soft_404")
    copy_of_copy = next(r for r in truth.replicas if r.kind == "copy_of_copy_partial")
    assert len(soft) > 100
    assert len({holdout.pages[url] for url in soft}) == 1
    assert all(url.startswith(copy_of_copy.copy) for url in soft)
    origin = canonical_directory(truth, copy_of_copy.copy, OWN_PAGES)
    lacked = soft[0].replace(copy_of_copy.copy, origin)
    assert truth.kinds[lacked] == "original"
    everything = _record(UNFILTERED, [lacked, *soft])
    without_soft = score(truth, holdout.pages, everything, _record(FILTER, [lacked]))
    assert (without_soft.lost, without_soft.avoidable) == ([], len(soft))
    listings = [url for url, kind in truth.kinds.items() if kind == "listing"]
    assert not any(b"Page not found" in holdout.pages[url] for url in listings)
    c_page, cxx_page = (
        f"http://www.sleepycat.test/gsg/{edition}/concepts.html" for edition in ("C", "CXX")
    )
    assert holdout.pages[c_page] == holdout.pages[cxx_page]
    assert truth.contents[c_page] == truth.contents[cxx_page]
    assert (
        truth.contents[c_page.replace("concepts", "index")]
        != truth.contents[cxx_page.replace("concepts", "index")]
    )
    assert "soft_404" not in set(build_eval_web("holdout11").truth.kinds.values())
    absent = copy_of_copy.copy + "no-such-page.html"
    with serve(holdout.test_web()) as server:
        opener = build_opener(ProxyHandler({"http": server.proxy_url}))
        with opener.open(absent) as answer:  # the server answers it: 200, the same page
            assert (answer.status, answer.read()) == (200, holdout.pages[soft[0]])
        with pytest.raises(HTTPError):
            opener.open(origin + "no-such-page.html")
    # a drop of such an answer (the filter's own probe for an absent URL) is judged by the page
    # the server sent
    drop = {"url": absent, "action": "drop", "reason": "exact_duplicate", "duplicate_of": soft[0]}
    record = replace(_record(FILTER, [soft[0], absent]), decisions=[drop])
    judged = score(truth, holdout.served(), everything, record)
    assert (judged.page_drops, judged.page_drops_right) == (1, 1)
    assert absent in holdout.served()
    assert absent not in holdout.pages


def test_the_scorer_counts_the_aliases_fetched_before_their_page(web: EvalWeb) -> None:
    """An alias fetched before any other URL of its content is one no filter could avoid."""
    alias = sorted(url for url in web.truth.aliases() if "?format=print" in url)[0]
    page = alias.removesuffix("?format=print")
    everything = _record(UNFILTERED, [page, alias])
    alias_first = score(web.truth, web.pages, everything, _record(FILTER, [alias, page]))
    page_first = score(web.truth, web.pages, everything, _record(FILTER, [page, alias]))
    assert (alias_first.aliases_first, page_first.aliases_first) == (1, 0)


def test_the_breakdown_names_the_verdict_a_url_had_when_it_was_fetched(web: EvalWeb) -> None:
    """A URL kept, fetched as the first of its content, fetched again (a second request),
    then pruned: the second fetch is the extra one, and it went with the verdict before it."""
    url = sorted(web.truth.must_keep())[0]
    verdicts = [
        (100.0, "not_mirrored"),
        (102.0, "already_held"),
        (104.0, "mirrored_directory"),  # a later request, never fetched
    ]
    decisions = [
        {"time": datetime.fromtimestamp(when, UTC).isoformat(), "url": url, "reason": reason}
        for when, reason in verdicts
    ]
    requests = [LoggedRequest("GET", url, 200, 0, False, when) for when in (101.0, 103.0)]
    record = CrawlRecord(FILTER, "breadth_first", requests, decisions, [], False, 0.0)
    [extra] = extra_fetches(web.truth, record)
    assert extra.url_reason == "already_held"


def _fetched_twice(record: CrawlRecord) -> set[str]:
    return set(record.fetched_again())


def test_a_redirected_web_files_each_moved_content_under_its_new_url(web: EvalWeb) -> None:
    served = redirected(web)
    assert set(served.pages) == set(served.truth.contents)  # a moved page's old URL only redirects
    assert set(served.redirects).isdisjoint(served.pages)
    assert set(served.redirects.values()) <= set(served.pages)
    assert len(served.truth.must_keep()) == len(web.truth.must_keep())
    slashless = [url for url, target in served.redirects.items() if target == url + "/"]
    aliased = [
        url
        for url, target in served.redirects.items()
        if urlsplit(url).hostname == f"www.{urlsplit(target).hostname}"
    ]
    moved = [
        url
        for url, target in served.redirects.items()
        if target.endswith(".v2.html") and url not in aliased
    ]
    assert slashless
    assert moved
    assert aliased
    assert all(
        served.truth.contents[served.redirects[url]] == web.truth.contents[url] for url in moved
    )


def test_a_crawl_of_the_web_served_with_redirects_loses_nothing(
    web: EvalWeb, tmp_path: Path
) -> None:
    """The reduced evaluation with 301s (``bench/eval_web.py --redirects``): a redirect lands
    the crawler on a URL other than the one asked for, which neither a deferral nor a probe
    names."""
    served = redirected(web)
    filtered, result = _crawled_losing_nothing(served, tmp_path)
    redirected_urls = {entry.url for entry in filtered.requests if entry.status == 301}
    assert redirected_urls, "the crawl met no redirect"
    assert not _fetched_twice(filtered) - redirected_urls, _fetched_twice(filtered)
    assert result.saved > 0.5


def test_a_copy_with_session_ids_in_its_links_keeps_the_text_of_its_code_examples() -> None:
    """A server rewriting links rewrites tags, not a code example that shows one: lxml's
    ``lxmlhtml.html`` copied with session ids read three more terms than its origin in its
    ``<pre>`` blocks, and the copy's rule was revoked as holding other code (holdout20)."""
    body = '<p><a href="a.html">a</a></p><pre>&lt;a href="b.html"&gt;link&lt;/a&gt;</pre>'
    assert hazards.with_query(body, "sid=1") == body.replace("a.html", "a.html?sid=1")


def test_a_crawl_of_the_web_served_query_blind_loses_nothing(
    web: EvalWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reduced evaluation with servers that answer an unknown query with the path's page
    (``bench/eval_web.py --query-blind``): a probe built with a parameter is answered, so a
    rule's evidence and an alias's canonical URL may come from a page the query did not select;
    the scorer judges such URLs by what they were answered with. Its index draws its mirror
    samples in the order of a random key, as a user's does (the tests' other crawls draw in the
    public order: tests/conftest.py)."""
    monkeypatch.delenv(SAMPLE_KEY_VARIABLE)
    served = replace(web, query_blind=True)
    page = next(url for url in web.pages if "?" not in url)
    assert served.served()[page + "?lang=zz"] == web.pages[page]
    assert page + "?lang=zz" not in web.served()
    _, result = _crawled_losing_nothing(served, tmp_path)
    assert result.saved > 0.5
    assert result.near_precision == 1.0


def test_a_pretty_web_serves_the_chains_copy_without_page_names_and_links_it_so(
    web: EvalWeb,
) -> None:
    """``bench/eval_web.py --pretty``: the chain's whole copy under "pretty" URLs, its links
    too; every served URL keeps its truth, and the copy's links reach what they reached."""
    served = prettified(web)
    copy = web.truth.replicas[0].copy
    under = [url for url in served.pages if url.startswith(copy) and "?" not in url]
    assert set(served.pages) == set(served.truth.contents)
    assert sorted(served.truth.contents.values()) == sorted(web.truth.contents.values())
    assert under
    assert not [url for url in under if url.endswith(".html")]
    assert copy in served.pages  # its index page, as its directory's URL
    assert _reached(served, copy) == _reached(web, copy)


def _reached(web: EvalWeb, directory: str) -> tuple[int, int]:
    """How many links of the pages under ``directory`` into it name a served page, and how
    many name none."""
    served = dangling = 0
    for url, body in web.pages.items():
        if not url.startswith(directory) or "?" in url:
            continue
        for href in re.findall(r'href="([^"#?]+)', body.decode("utf-8", "replace")):
            target = urljoin(url, href)
            if target.startswith(directory):
                served += target in web.pages
                dangling += target not in web.pages
    return served, dangling


def test_a_crawl_of_the_web_served_under_pretty_urls_loses_nothing_and_rules_the_copy(
    web: EvalWeb, tmp_path: Path
) -> None:
    """The reduced evaluation with the chain's copy under "pretty" URLs: its pages are asked
    as it names them, so it is ruled a copy of its origin (before, every sample was a 404 and
    the copy was crawled whole)."""
    served = prettified(web)
    filtered, result = _crawled_losing_nothing(served, tmp_path)
    mirrors = {rule["mirror"] for rule in filtered.rules if rule["kind"] == "mirror"}
    assert served.truth.replicas[0].copy in mirrors
    assert result.saved > 0.5


def test_a_web_with_a_pretty_section_renames_that_section_of_the_origin_alone() -> None:
    """``bench/eval_web.py --pretty-section``: one section of the chain's origin under "pretty"
    URLs, linked so from the origin's top; the origin's other pages keep ``.html``. (The
    reduced web's chain origin has no section: it is refused.)"""
    with pytest.raises(ValueError, match="no section"):
        section_prettified(build_eval_web("small"))
    web = build_eval_web("holdout13")
    served = section_prettified(web)
    origin = web.truth.replicas[0].source
    renamed = set(web.pages) - set(served.pages)
    sections = {url[len(origin) :].partition("/")[0] for url in renamed}
    assert renamed
    assert all(url.startswith(origin) for url in renamed)
    assert len(sections) == 1
    section = f"{origin}{sections.pop()}/"
    assert section in served.pages  # its index page, as its directory's URL
    kept = [url for url in served.pages if url.startswith(origin) and not url.startswith(section)]
    assert any(url.endswith(".html") for url in kept)
    assert sorted(served.truth.contents.values()) == sorted(web.truth.contents.values())
    assert _reached(served, origin) == _reached(web, origin)


@pytest.fixture(scope="module")
def retemplated() -> EvalWeb:
    return build_retemplated_web()


def test_a_copy_in_another_layout_keeps_the_pages_content_without_its_theme(
    retemplated: EvalWeb,
) -> None:
    """``bench/eval_web.py --scale retemplated``: a reader site's copy holds the page's own
    content in the site's layout, filed as the source page's document; the source's theme
    (its sidebar, its footer) is gone."""
    source = "http://docs.pyproj.test/babel/dates.html"
    copy = source.replace("docs.pyproj.test", READER)
    original, copied = (retemplated.pages[url].decode() for url in (source, copy))
    assert "Quick search" in original
    assert "Quick search" not in copied
    assert "DevDocs Reader" in copied
    assert "DevDocs Reader" not in original
    assert retemplated.truth.contents[copy] == retemplated.truth.contents[source]
    assert jaccard(page_shingles(original.encode()), page_shingles(copied.encode())) > 0.8
    kinds = {replica.kind for replica in retemplated.truth.replicas}
    assert kinds == {"retemplated", "retemplated_toc"}


def test_a_crawl_of_copies_in_other_layouts_loses_nothing_and_rules_one(
    retemplated: EvalWeb, tmp_path: Path
) -> None:
    """The reader site's copies are crawled before their source; their index pages list most
    of the source's entries (the theme's index and search pages gone), which pairs them."""
    filtered, result = _crawled_losing_nothing(retemplated, tmp_path)
    mirrors = {rule["mirror"] for rule in filtered.rules if rule["kind"] == "mirror"}
    assert {url for url in mirrors if url.startswith(f"http://{READER}/")}
    assert result.saved > 0.3
