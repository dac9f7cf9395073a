"""Session parameters learnt from a page's links: what counts as a session id written into every
link, and what is a parameter that selects content."""

from __future__ import annotations

import pytest

from dedup_filter.mirrors.sessions import SessionParameters, id_like, propagated
from dedup_filter.mirrors.store import MirrorStore

PAGE = "http://shop.test/docs/"
PATHS = ("intro.html", "usage.html", "files.html", "faq.html")


def links(query: str, paths: tuple[str, ...] = PATHS) -> list[str]:
    return [f"{PAGE}{path}?{query}" for path in paths]


def test_a_visitor_id_on_every_link_to_its_own_host_is_learnt():
    found = propagated(PAGE, [*links("vid=0c5e7d1b94"), "http://elsewhere.test/?ref=a1b2c3d4e5"])
    assert found == {"vid"}


def test_the_id_is_learnt_beside_a_parameter_that_selects_content():
    own = [f"{PAGE}{path}?vid=0c5e7d1b94&part={n}" for n, path in enumerate(PATHS)]
    assert propagated(PAGE, own) == {"vid"}


@pytest.mark.parametrize(
    "page_links",
    [
        links("lang=de"),  # a word: a language, a theme
        links("v=20231104"),  # a number: a date, a version
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


def test_learnt_names_are_filed_per_host_in_the_index(open_filter):
    dedup = open_filter()

    def learn(view):
        sessions = SessionParameters(()).of(MirrorStore(view))
        return sessions.learn(PAGE, links("vid=0c5e7d1b94")), sessions.learn(
            PAGE, links("vid=0c5e7d1b94")
        )

    assert dedup.index.transact(learn) == (True, False)  # the second time it is known
    with dedup.index.read() as view:
        sessions = SessionParameters(()).of(MirrorStore(view))
        assert sessions.strip(f"{PAGE}faq.html?vid=77aa88bb99&x=1") == f"{PAGE}faq.html?x=1"
        other_host = "http://docs.test/faq.html?vid=77aa88bb99"
        assert sessions.strip(other_host) == other_host
    unbound = SessionParameters(()).strip(f"{PAGE}faq.html?vid=77aa88bb99")
    assert unbound.endswith("?vid=77aa88bb99")
