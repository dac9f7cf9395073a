"""Session parameters learnt from a page's links: what counts as a session id or a stamp written
into every link, and what is a parameter that selects content."""

from __future__ import annotations

import pytest

from dedup_filter.mirrors.sessions import (
    MAX_NAMES,
    SessionParameters,
    id_like,
    propagated,
    stamp_like,
)
from dedup_filter.mirrors.store import MirrorStore

from .conftest import ORIGIN, OnlineCrawl, breadth_first, copy_tree
from .test_systematic import LEARNT_SESSION, with_session_ids

PAGE = "http://shop.test/docs/"
PATHS = ("intro.html", "usage.html", "files.html", "faq.html")


def links(query: str, paths: tuple[str, ...] = PATHS) -> list[str]:
    return [f"{PAGE}{path}?{query}" for path in paths]


def test_a_visitor_id_on_every_link_to_its_own_host_is_learnt():
    found = propagated(PAGE, [*links("vid=0c5e7d1b94"), "http://elsewhere.test/?ref=a1b2c3d4e5"])
    assert found == {"vid=0c5e7d1b94"}


def test_the_id_is_learnt_beside_a_parameter_that_selects_content():
    own = [f"{PAGE}{path}?vid=0c5e7d1b94&part={n}" for n, path in enumerate(PATHS)]
    assert propagated(PAGE, own) == {"vid=0c5e7d1b94"}


@pytest.mark.parametrize(
    "page_links",
    [
        links("lang=de"),  # a word: a language, a theme
        links("v=311"),  # a short number: a version
        [f"{PAGE}{path}?vid=0c5e7d1b9{n}" for n, path in enumerate(PATHS)],  # a value a link
        links("doc=a1b2c3d4e5", ("viewer",) * 4),  # one path: a viewer's pages of one document
        links("vid=0c5e7d1b94", PATHS[:2]),  # too few links to tell
        links("vid=0c5e7d1b94") + [f"{PAGE}{path}" for path in PATHS],  # half the links only
    ],
    ids=["word", "number", "value_a_link", "one_path", "few_links", "half_the_links"],
)
def test_what_is_no_session_id_is_not_learnt(page_links):
    assert propagated(PAGE, page_links) == frozenset()


def test_an_id_looks_like_one():
    assert id_like("vid=0c5e7d1b94")
    assert id_like("s=Ab_3-xyz99")
    assert not any(map(id_like, ["vid=0c5e7d", "v=20231104", "theme=darkmode", "=0c5e7d1b94"]))


def test_a_stamp_looks_like_one():
    assert stamp_like("v=20231104")
    assert stamp_like("_=1700000000")
    assert not any(map(stamp_like, ["v=2023110", "v=2023-11-04", "v=0c5e7d1b94", "=20231104"]))


def test_a_stamp_on_every_link_is_learnt_and_stripped_with_its_value_alone(open_filter):
    """A number may name what it selects (a tenant, a dated snapshot): only the value met on
    every link is stripped, and a URL carrying another stays apart. An id is stripped whatever
    its value (each visitor has another)."""
    dedup = open_filter()

    def learn(view):
        sessions = SessionParameters(()).of(MirrorStore(view))
        assert propagated(PAGE, links("V=20231104")) == {"V=20231104"}
        return sessions.learn(PAGE, links("V=20231104"))

    assert dedup.index.transact(learn)
    with dedup.index.read() as view:
        sessions = SessionParameters(()).of(MirrorStore(view))
        assert sessions.strip(f"{PAGE}faq.html?v=20231104&x=1") == f"{PAGE}faq.html?x=1"
        later = f"{PAGE}faq.html?v=20250101"
        assert sessions.strip(later) == later
        assert not sessions.carries(later)
        assert sessions.carried(f"{PAGE}faq.html?x=1&V=20231104") == "V=20231104"
        assert sessions.filed(f"{PAGE}faq.html") == "V=20231104"  # what its probes carry
    assert dedup.session_hosts() == [{"host": "shop.test", "session": ["V=20231104"]}]


def test_learnt_pairs_are_filed_per_host_in_the_index(open_filter):
    dedup = open_filter()

    def learn(view):
        sessions = SessionParameters(()).of(MirrorStore(view))
        first = sessions.learn(PAGE, links("vid=0c5e7d1b94"))
        return first, sessions.learn(PAGE, links("vid=99ff00ee11"))  # another visitor's id

    assert dedup.index.transact(learn) == (True, False)  # the name is known: the first value stays
    with dedup.index.read() as view:
        sessions = SessionParameters(()).of(MirrorStore(view))
        assert sessions.strip(f"{PAGE}faq.html?vid=77aa88bb99&x=1") == f"{PAGE}faq.html?x=1"
        assert sessions.filed(f"{PAGE}faq.html") == "vid=0c5e7d1b94"  # what its probes carry
        other_host = "http://docs.test/faq.html?vid=77aa88bb99"
        assert sessions.strip(other_host) == other_host
        assert sessions.filed(other_host) == ""
    unbound = SessionParameters(()).strip(f"{PAGE}faq.html?vid=77aa88bb99")
    assert unbound.endswith("?vid=77aa88bb99")


def test_a_copy_under_learnt_session_ids_met_second_is_named_the_copy(open_filter, origin_tree):
    """The origin crawled first, its copy under a session id no list holds met after it: the
    copy's index page is dropped as a duplicate (no record of its own carries the id), yet its
    host writes the id into its links, so the rule names it the copy (order-free evidence) and
    its probes carry the id the copy is served under."""
    dedup = open_filter()
    copy = "http://docs.copy.test/"
    served = with_session_ids(copy_tree(origin_tree, ORIGIN, copy), LEARNT_SESSION)
    served = {url: body for url, body in served.items() if LEARNT_SESSION in url}
    pages = origin_tree | served
    copy_urls = [
        url for url in breadth_first(pages, copy + LEARNT_SESSION) if LEARNT_SESSION in url
    ]
    crawl = OnlineCrawl(dedup, pages).visit(breadth_first(origin_tree, ORIGIN) + copy_urls)
    rules = dedup.mirror_rules()
    assert [(rule["mirror"], rule["origin"], rule["copy_named"]) for rule in rules] == [
        (copy, ORIGIN, True)
    ]
    probed = [url for url in crawl.probes if url.startswith(copy)]
    assert all(url.endswith(LEARNT_SESSION) for url in probed)
    assert not any(url.startswith(copy) for url in crawl.failed_probes)
    learnt = [d.url for d in crawl.decisions.values() if d.evidence.get("session_learnt")]
    assert learnt == [copy + LEARNT_SESSION]  # the decision that taught it says so


def test_learning_can_be_turned_off(open_filter, origin_tree):
    dedup = open_filter(learn_session_parameters=False)
    copy = "http://docs.copy.test/"
    served = with_session_ids(copy_tree(origin_tree, ORIGIN, copy), LEARNT_SESSION)
    pages = origin_tree | {url: body for url, body in served.items() if LEARNT_SESSION in url}
    OnlineCrawl(dedup, pages).visit([copy + LEARNT_SESSION, *breadth_first(origin_tree, ORIGIN)])
    assert dedup.session_hosts() == []


def test_a_host_files_a_few_names_at_most(open_filter):
    dedup = open_filter()
    query = "&".join(f"p{n}=0c5e7d1b9{n}" for n in range(10))  # ten ids on every link

    def learn(view):
        sessions = SessionParameters(()).of(MirrorStore(view))
        return sessions.learn(PAGE, links(query)), sessions.filed(PAGE)

    learnt, filed = dedup.index.transact(learn)
    assert learnt
    assert len(filed.split("&")) == MAX_NAMES


def test_a_tracking_parameter_is_stripped_and_is_no_session():
    sessions = SessionParameters(("sid",), tracking=("utm_*", "fbclid"))
    url = f"{PAGE}faq.html?utm_source=feed&part=2&UTM_Medium=mail&fbclid=IwAR0x"
    assert sessions.strip(url) == f"{PAGE}faq.html?part=2"
    assert not sessions.carries(url)
    assert sessions.carried(url) == ""  # no probe is asked for with it
    assert sessions.carries(f"{PAGE}faq.html?sid=8f14e45fceea167a&utm_source=feed")
