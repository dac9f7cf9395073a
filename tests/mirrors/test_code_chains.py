"""A rule inside an origin whose pages another rule drops is checked against the pages kept for
them. A holdout crawl (breadth-first, docs/evaluation.md) confirmed a guide's English edition as
a renamed copy of its rpm edition (three identical prose pages sampled) inside a host whose
pages a host rule dropped for its copy's: neither edition's pages arrived there, so no code was
compared, and the rule stood to the end."""

from __future__ import annotations

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.index.page_records import PageRecord
from dedup_filter.mirrors.candidates import CandidateUpdate
from dedup_filter.mirrors.code_checks import CodeBudget, CodeCheck, check_code, check_held_code
from dedup_filter.mirrors.deferrals import Deferrals
from dedup_filter.mirrors.directories import placements
from dedup_filter.mirrors.editions import coded_namesake
from dedup_filter.mirrors.records import OPEN, Candidate, DirEntry, Rule
from dedup_filter.mirrors.sampling import CoordinateSampler
from dedup_filter.mirrors.store import MirrorStore, pair_reference

from .conftest import file_entry

KEPT, PRUNED = "http://kept.test/", "http://pruned.test/"  # a host rule prunes its origin
GUIDE, EDITION = PRUNED + "guide/", PRUNED + "guide-rpm/"  # wrongly paired within it
DEB_CODE, RPM_CODE = 0x0DEB, 0x0123
PAGE = "install.html"
# a guide beside its rpm edition on the kept host, and a library's copy of the guide elsewhere
RPM, BESIDE, LIBRARY = KEPT + "guide-rpm/", KEPT + "guide/", "http://library.test/guide/"
LATER = "purge.html"  # another page where the editions' code differs, met after a revocation
BUDGET = CodeBudget(6, 6)  # coded pairs a rule compares, and where its sides are siblings


def _rules(store: MirrorStore) -> None:
    # the copy held first: the origin's pages are dropped for the copy's
    store.put_rule(Rule(KEPT, PRUNED, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True))
    store.put_rule(Rule(GUIDE, EDITION, "", "", 0.0, "content", 3, 3, 0))


def _arrive(
    store: MirrorStore,
    page_id: int,
    url: str,
    code: int,
    budget: CodeBudget = BUDGET,
    exact: int | None = None,
) -> CodeCheck:
    """Index a page under each of its directories (its text's hash ``exact``, else its id); what
    its code blocks ask and revoke."""
    exact = page_id if exact is None else exact
    store.view.put_page(
        PageRecord(page_id, url, exact, 400, (), b"\0" * 48, 0.0, sketch=b"", code=code)
    )
    places = placements(url, 12)
    for place in places:
        entry = DirEntry(page_id, exact, place.relative)
        file_entry(store, place.directory_key, place.relative_key, entry)
    return check_code(store, places, code, _configured(budget), 1.0)


def _configured(budget: CodeBudget) -> Config:
    """The configuration whose code comparisons have ``budget``."""
    return Config.default().with_overrides(
        {"mirror.code_samples": budget.samples, "mirror.code_samples_siblings": budget.siblings}
    )


def _library_beside_editions(store: MirrorStore, library_origin: str, guide: str = BESIDE) -> None:
    """The guide paired with its rpm edition, the library's copy with ``library_origin`` (the
    edition: a wrong pairing across hosts; the guide: a right one)."""
    store.put_rule(Rule(guide, RPM, "", "", 0.0, "content", 3, 3, 0))
    store.put_rule(Rule(LIBRARY, library_origin, "", "", 0.0, "content", 3, 3, 0))


def _guide_revoked(store: MirrorStore, guide: str = BESIDE) -> CodeCheck:
    """The guide and the library's copy both paired with the rpm edition, whose pages at
    ``PAGE`` and ``LATER`` have code; the guide's page at ``PAGE`` with other code revokes the
    guide's rule: what that page does."""
    _library_beside_editions(store, RPM, guide)
    _arrive(store, 1, RPM + PAGE, RPM_CODE, CodeBudget(0, 0))
    _arrive(store, 2, RPM + LATER, RPM_CODE + 1, CodeBudget(0, 0))
    return _arrive(store, 3, guide + PAGE, DEB_CODE, CodeBudget(0, 0))


def test_the_edition_page_kept_for_the_pruned_host_probes_the_renamed_copy_dropped_for_it(
    tmp_index,
):
    def settle(view):
        store = MirrorStore(view)
        _rules(store)
        return _arrive(store, 1, KEPT + "guide-rpm/" + PAGE, RPM_CODE).probes

    assert GUIDE + PAGE in tmp_index.transact(settle)


def test_the_renamed_copy_with_other_code_than_the_page_kept_for_its_origin_is_revoked(tmp_index):
    def settle(view):
        store = MirrorStore(view)
        _rules(store)
        _arrive(store, 1, KEPT + "guide-rpm/" + PAGE, RPM_CODE)
        _arrive(store, 2, GUIDE + PAGE, DEB_CODE)  # the probe's answer
        return [rule.mirror for rule in store.rules_under()]

    assert tmp_index.transact(settle) == [KEPT]


def test_the_renamed_copy_with_the_same_code_stays(tmp_index):
    def settle(view):
        store = MirrorStore(view)
        _rules(store)
        _arrive(store, 1, KEPT + "guide-rpm/" + PAGE, RPM_CODE)
        _arrive(store, 2, GUIDE + PAGE, RPM_CODE)
        return sorted(rule.mirror for rule in store.rules_under())

    assert tmp_index.transact(settle) == sorted([KEPT, GUIDE])


@pytest.mark.parametrize("copy_code", [RPM_CODE, DEB_CODE], ids=["same_code", "other_code"])
def test_the_renamed_copy_is_compared_with_its_copy_held_first_instead_of_probed(
    tmp_index, copy_code
):
    """The kept host's own page at the renamed copy's path (``KEPT + "guide/"``), held before the
    edition page arrives, stands for the pruned host's page: compared, never probed (that
    probe fetches a page the kept host holds), counted as a comparison against the rule's
    budget; other code revokes the rule as the page's own would."""

    def settle(view):
        store = MirrorStore(view)
        _rules(store)
        _arrive(store, 1, KEPT + "guide/" + PAGE, copy_code)
        probes = _arrive(store, 2, KEPT + "guide-rpm/" + PAGE, RPM_CODE).probes
        rule = store.rule(GUIDE)
        return probes, rule.code_probes if rule is not None else None

    probes, compared = tmp_index.transact(settle)
    assert GUIDE + PAGE not in probes
    assert compared == (1 if copy_code == RPM_CODE else None)


def test_a_rule_between_siblings_compares_more_coded_pages_than_other_rules(tmp_index):
    """Six coded pairs compared already: a rule across hosts, or within one host between
    directories of different parents (a renamed archive), asks for no more; a rule between
    sibling directories (a project's editions side by side) goes on up to
    ``code_samples_siblings``. On the
    second holdout web an edition differing in the code of 4 of its 44 coded pages escaped six
    comparisons, and the crawl never met its 4 pages. Two host roots are no siblings: taken for
    siblings, a host mirror's rule probed 62 of its pages in one holdout crawl."""
    budget, copy, archive = CodeBudget(6, 64), "http://copy.test/guide/", KEPT + "old/guide/"
    host_copy, spent = "http://host-copy.test/", {"code_probes": 6}

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(EDITION, GUIDE, "", "", 0.0, "content", 3, 3, 0, **spent))
        store.put_rule(Rule(copy, KEPT + "guide/", "", "", 0.0, "content", 3, 3, 0, **spent))
        store.put_rule(Rule(archive, KEPT + "guide/", "", "", 0.0, "content", 3, 3, 0, **spent))
        store.put_rule(Rule(host_copy, KEPT, "", "", 0.0, "content", 3, 3, 0, **spent))
        siblings = _arrive(store, 1, GUIDE + PAGE, DEB_CODE, budget).probes
        others = _arrive(store, 2, KEPT + "guide/" + PAGE, DEB_CODE, budget).probes
        return siblings, others, _arrive(store, 3, KEPT + "other.html", DEB_CODE, budget).probes

    assert tmp_index.transact(settle) == ([EDITION + PAGE], [], [])


def _edition_revoked(store: MirrorStore) -> CodeCheck:
    """The rule edition -> guide, the guide's two coded pages and a prose page held, then the
    edition's page with other code: what that page does."""
    store.put_rule(Rule(EDITION, GUIDE, "", "", 0.0, "content", 3, 3, 0))
    _arrive(store, 1, GUIDE + PAGE, DEB_CODE)
    _arrive(store, 2, GUIDE + "remove.html", DEB_CODE)
    _arrive(store, 3, GUIDE + "intro.html", 0)
    return _arrive(store, 4, EDITION + PAGE, RPM_CODE)


def test_a_revoked_rule_fetches_back_its_pruned_pages_whose_kept_pages_have_code(tmp_index):
    """An edition's page with other code revokes the rule that pruned the edition. The guide's
    other coded page has its edition page fetched back (the edition may differ there, and the
    rule dropped that URL or the pages that link it); its prose page, and the coded page the
    edition already holds, do not. A coded page of the guide that arrives after the revocation
    has its edition page fetched back too: nothing else would request it."""

    def settle(view):
        store = MirrorStore(view)
        revoking = _edition_revoked(store)
        later = _arrive(store, 5, GUIDE + "purge.html", DEB_CODE)
        return revoking.revoked, revoking.fetch_back, later.fetch_back

    assert tmp_index.transact(settle) == (
        [EDITION],
        [EDITION + "remove.html"],
        [EDITION + "purge.html"],
    )


def test_the_path_that_revokes_an_edition_rule_is_compared_under_the_rules_sharing_its_sides(
    tmp_index,
):
    """A guide and its rpm edition on one host, and a library's copy of the guide paired across
    hosts with the rpm edition (their shared pages alike). The guide's page with other code
    revokes its own rule; the library's copy of that page is asked for (no budget left to
    sample it), and revokes the library's rule when it arrives. On the second holdout web such
    cross-host rules stood after the same-host one was revoked."""
    no_budget = CodeBudget(0, 0)

    def settle(view):
        store = MirrorStore(view)
        _library_beside_editions(store, RPM)
        _arrive(store, 1, RPM + PAGE, RPM_CODE, no_budget)
        revoking = _arrive(store, 2, BESIDE + PAGE, DEB_CODE, no_budget)
        answer = _arrive(store, 3, LIBRARY + PAGE, DEB_CODE, no_budget)
        return revoking.revoked, revoking.probes, answer.revoked

    assert tmp_index.transact(settle) == ([BESIDE], [LIBRARY + PAGE], [LIBRARY])


def test_a_page_that_tells_revoked_editions_apart_later_is_compared_under_the_rules_sharing_them(
    tmp_index,
):
    """The library's partial copy of the guide lacks the page that revoked the guide's rule with
    its rpm edition, so the library's rule with the edition learns nothing from it (its probe
    answers 404). Another coded page that arrives later on the guide, with other code than the
    edition's page there, tells the two apart again: the library's copy of it is asked for and
    revokes the library's rule when it arrives. On the second holdout web (seed 4, random
    order) the library's rule with the edition stood to the end."""
    no_budget = CodeBudget(0, 0)

    def settle(view):
        store = MirrorStore(view)
        revoking = _guide_revoked(store)
        Deferrals(view).mark_absent(LIBRARY + PAGE, 404)  # the partial copy lacks it
        telling = _arrive(store, 4, BESIDE + LATER, DEB_CODE + 1, no_budget)
        answer = _arrive(store, 5, LIBRARY + LATER, DEB_CODE + 1, no_budget)
        same = _arrive(store, 6, BESIDE + "intro.html", DEB_CODE + 2, no_budget)
        return revoking.revoked, telling.probes, answer.revoked, same.probes

    assert tmp_index.transact(settle) == (
        [BESIDE],
        [LIBRARY + LATER],
        [LIBRARY],
        [],
    )


def test_a_page_telling_revoked_editions_apart_on_their_host_mirror_is_compared_under_them(
    tmp_index,
):
    """The same, with the guide's later coded page arriving on a host mirror held first (its
    guide's page never arrives: the host rule drops it for the mirror's), against the edition's
    page held on the guide's own host: the mirror's page stands for the guide's, and tells the
    editions apart. On the second holdout web (seed 4, breadth-first) the pages that told them
    apart after the revocation all arrived on the partner's host."""
    partner = "http://partner.test/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(partner, KEPT, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True))
        revoking = _guide_revoked(store)
        telling = _arrive(store, 4, partner + "guide/" + LATER, DEB_CODE + 1, CodeBudget(0, 0))
        return revoking.revoked, telling.probes

    revoked, asked = tmp_index.transact(settle)
    assert revoked == [BESIDE]
    assert LIBRARY + LATER in asked


@pytest.mark.parametrize("guide_under_host_rule", [False, True])
def test_a_revoked_copy_is_named_the_edition_whose_code_its_page_shares(
    tmp_index, guide_under_host_rule
):
    """The library's rule with the rpm edition revoked by the library's page (which duplicates
    no held page: the guide's copy of it met a host mirror's, with a banner): its code is the
    guide's at that path, so the guide is the edition it copies (through the host rule, the
    guide's page on the rule's origin), and nothing where no revoked edition shares it."""
    no_budget, mirror_host = CodeBudget(0, 0), "http://partner.test/"
    guide = mirror_host + "guide/" if guide_under_host_rule else BESIDE

    def settle(view):
        store = MirrorStore(view)
        _guide_revoked(store, guide)
        _arrive(store, 4, guide + LATER, DEB_CODE + 1, no_budget)
        if guide_under_host_rule:  # the partner found a host mirror of the kept host since
            store.put_rule(Rule(mirror_host, KEPT, "", "", 0.0, "content", 4, 4, 0))
        revoking = _arrive(store, 5, LIBRARY + LATER, DEB_CODE + 1, no_budget)
        named = coded_namesake(store, placements(LIBRARY + LATER, 12), DEB_CODE + 1, 12)
        unnamed = coded_namesake(store, placements(LIBRARY + LATER, 12), DEB_CODE + 7, 12)
        prose = coded_namesake(store, placements(LIBRARY + "intro.html", 12), 0, 12)
        return revoking.revoked, named, unnamed, prose

    revoked, named, unnamed, prose = tmp_index.transact(settle)
    assert revoked == [LIBRARY]
    assert named == BESIDE + LATER
    assert unnamed is None
    assert prose is None  # no page of the guide there either: "no code" is no namesake


def test_a_right_rule_beside_revoked_editions_is_asked_a_bounded_number_of_later_paths(
    tmp_index,
):
    """The library's copy paired with the guide itself (a right rule): every page found later
    to tell the guide from its revoked edition would ask for the library's copy of it. The
    rule's budget (2) went on the first two while the edition's pages arrived (through the
    guide's rule, then standing); four such probes more, and no further."""
    budget = CodeBudget(2, 2)

    def settle(view):
        store = MirrorStore(view)
        _library_beside_editions(store, BESIDE)
        pages = [f"page{number}.html" for number in range(10)]
        for number, page in enumerate(pages):
            _arrive(store, 10 + number, RPM + page, RPM_CODE + number, budget)
        _arrive(store, 1, RPM + PAGE, RPM_CODE, budget)
        _arrive(store, 2, BESIDE + PAGE, DEB_CODE, budget)  # revokes the guide's rule
        asked = []
        for number, page in enumerate(pages):
            asked += _arrive(store, 30 + number, BESIDE + page, DEB_CODE + number, budget).probes
        return asked

    asked = tmp_index.transact(settle)
    assert asked == [LIBRARY + f"page{number}.html" for number in range(2, 6)]


def _edition_revoked_beside_prose(store: MirrorStore, edition_prose: int) -> CodeCheck:
    """``_edition_revoked``, then a page without code held in both editions, the guide's text
    hashed 50, the edition's ``edition_prose``."""
    revoking = _edition_revoked(store)
    _arrive(store, 5, GUIDE + "about.html", 0, exact=50)
    _arrive(store, 6, EDITION + "about.html", 0, exact=edition_prose)
    return revoking


def test_after_a_revocation_an_edition_page_is_dropped_only_for_a_crawled_page_without_code(
    tmp_path,
):
    """The rpm edition's rule, revoked by a coded page: the edition's prose page is dropped for
    the guide's, crawled and without code blocks (editions differ in their code), where the page
    without code both editions hold is the same page; its coded page, and a page whose guide
    counterpart was never crawled, are fetched."""
    with DedupFilter.open(tmp_path / "index") as dedup:
        revoking = dedup.index.transact(
            lambda view: _edition_revoked_beside_prose(MirrorStore(view), 50)
        )
        assert revoking.revoked == [EDITION]
        prose = dedup.check_url(EDITION + "intro.html")
        assert (prose.action, prose.reason, prose.duplicate_of) == (
            "drop",
            "edition_prose",
            GUIDE + "intro.html",
        )
        assert dedup.check_url(EDITION + "remove.html").action == "keep"
        assert dedup.check_url(EDITION + "unknown.html").action == "keep"


@pytest.mark.parametrize("edition_prose", [None, 51])
def test_editions_whose_prose_is_not_shown_alike_drop_no_page_for_each_other(
    tmp_path, edition_prose
):
    """The same, but no page without code held in both editions (None), or one of other text in
    each (a C++ edition names its API inline, where the C edition names its own): the edition's
    prose page is fetched."""
    with DedupFilter.open(tmp_path / "index") as dedup:

        def revoke(view):
            store = MirrorStore(view)
            if edition_prose is None:
                return _edition_revoked(store)
            return _edition_revoked_beside_prose(store, edition_prose)

        assert dedup.index.transact(revoke).revoked == [EDITION]
        assert dedup.check_url(EDITION + "intro.html").action == "keep"


def test_a_revocation_asks_a_bounded_number_of_related_rules(tmp_index):
    """An origin with many mirrors (a popular guide): the revoking path is asked of at most 16
    of the rules that share a side with the revoked one, so one revocation costs a bounded
    number of probes."""
    rpm, guide = KEPT + "guide-rpm/", KEPT + "guide/"
    copies = [f"http://copy{number}.test/guide/" for number in range(20)]

    def settle(view):
        store = MirrorStore(view)
        for mirror in (guide, *copies):
            store.put_rule(Rule(mirror, rpm, "", "", 0.0, "content", 3, 3, 0))
        _arrive(store, 1, rpm + PAGE, RPM_CODE, CodeBudget(0, 0))
        return _arrive(store, 2, guide + PAGE, DEB_CODE, CodeBudget(0, 0))

    revoking = tmp_index.transact(settle)
    assert revoking.revoked == [guide]
    assert len(revoking.probes) == 16


def test_a_rule_revoked_as_it_is_made_revokes_a_related_rule_that_pruned_and_fetches_back(
    tmp_index,
):
    """A copy of the guide confirmed against the rpm edition and revoked at once by a coded page
    both hold (it pruned nothing, so fetches nothing back); the guide's own rule with the rpm
    edition, which did prune, holds the same page apart and is revoked with it: its pruned
    side's coded page is fetched back."""
    rpm, guide, copy = KEPT + "guide-rpm/", KEPT + "guide/", "http://copy.test/guide/"

    def settle(view):
        store = MirrorStore(view)
        no_budget = CodeBudget(0, 0)
        for page_id, url, code in (
            (1, rpm + PAGE, RPM_CODE),
            (2, rpm + "remove.html", RPM_CODE),
            (3, guide + PAGE, DEB_CODE),  # held before the guide's rule came
            (4, copy + PAGE, DEB_CODE),
        ):
            _arrive(store, page_id, url, code, no_budget)
        store.put_rule(Rule(guide, rpm, "", "", 0.0, "content", 3, 3, 0))
        new = Rule(copy, rpm, "", "", 0.0, "content", 3, 3, 0)
        store.put_rule(new)
        return check_held_code(store, new, _configured(no_budget), 1.0)

    held = tmp_index.transact(settle)
    assert held.revoked == [copy, guide]
    assert held.fetch_back == [guide + "remove.html"]


def test_a_mirror_page_with_code_asks_for_the_origin_page_nothing_stands_for(tmp_index):
    """A guide paired as a mirror of its rpm edition (siblings, prose alike): the guide's coded
    page arrives (a probe of another rule) while no page of the edition at that path, nor one
    standing for it, is held. The edition's page is asked for, and revokes the rule when it
    arrives with other code. On the holdout web the edition's pages were all dropped through a
    host rule for the guide's, so none ever arrived, and 7 pages existed nowhere else. A page
    the origin is known to lack is not asked for."""
    rpm, guide = KEPT + "guide-rpm/", KEPT + "guide/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(guide, rpm, "", "", 0.0, "content", 3, 3, 0))
        Deferrals(view).mark_absent(rpm + "gone.html", 404)
        lacking = _arrive(store, 1, guide + "gone.html", DEB_CODE).probes
        asking = _arrive(store, 2, guide + PAGE, DEB_CODE).probes
        return lacking, asking, _arrive(store, 3, rpm + PAGE, RPM_CODE).revoked

    assert tmp_index.transact(settle) == ([], [rpm + PAGE], [guide])


def test_a_revoked_rule_fetches_back_its_kept_pages_whose_pruned_pages_have_code(tmp_index):
    """The edition's coded page is held at a path the guide holds no page at (the guide's pages
    that link it were dropped through another rule for the edition's): when a second coded page
    revokes the rule that pruned the edition, the guide's page at that path is fetched back. On
    the second holdout web such a guide page existed nowhere else and was never requested."""

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(EDITION, GUIDE, "", "", 0.0, "content", 3, 3, 0))
        _arrive(store, 1, GUIDE + PAGE, DEB_CODE)
        _arrive(store, 2, EDITION + "remove.html", RPM_CODE, CodeBudget(0, 0))
        return _arrive(store, 3, EDITION + PAGE, RPM_CODE)

    revoking = tmp_index.transact(settle)
    assert (revoking.revoked, revoking.fetch_back) == ([EDITION], [GUIDE + "remove.html"])


def test_a_host_mirrors_edition_page_is_dropped_for_the_page_its_origin_page_is_dropped_for(
    tmp_path,
):
    """A host mirror of the host holding the guide and its rpm edition, whose rule was revoked
    for its code (their page without code the same page): the mirror's rpm prose page is dropped
    for the guide's crawled prose page, which the origin's rpm page would be dropped for (probing
    that page would fetch it), while its coded page waits for the origin's (asked for its code
    already)."""
    host_copy = "http://host-copy.test/"
    with DedupFilter.open(tmp_path / "index") as dedup:

        def settle(view):
            store = MirrorStore(view)
            store.put_rule(Rule(host_copy, PRUNED, "", "", 0.0, "content", 3, 3, 0))
            return _edition_revoked_beside_prose(store, 50)

        assert dedup.index.transact(settle).revoked == [EDITION]
        prose = dedup.check_url(host_copy + "guide-rpm/intro.html")
        assert (prose.action, prose.duplicate_of) == ("drop", GUIDE + "intro.html")
        assert prose.evidence["counterpart_dropped_for"] == GUIDE + "intro.html"
        coded = dedup.check_url(host_copy + "guide-rpm/remove.html")
        assert (coded.action, coded.duplicate_of) == ("defer", EDITION + "remove.html")


def test_a_rule_made_against_a_page_standing_for_its_origins_asks_for_the_origins_own_page(
    tmp_index,
):
    """A library's copy of the guide, paired with the guide while a wrong rule pairs the guide
    with its rpm edition (the guide's pages dropped for the edition's): the library's coded page
    differs from the rpm page standing for the guide's. That alone no longer revokes the new
    rule, which would never be made again: the guide's own page is asked for, and when it
    arrives with the library's code, it revokes the wrong rule and the library's stands. On the
    holdout web (k7, breadth-first) the library's copy lost its rule this way."""
    library, guide, rpm = "http://library.test/guide/", KEPT + "guide/", KEPT + "guide-rpm/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(guide, rpm, "", "", 0.0, "content", 3, 3, 0))
        _arrive(store, 1, rpm + PAGE, RPM_CODE, CodeBudget(0, 0))
        _arrive(store, 2, library + PAGE, DEB_CODE, CodeBudget(0, 0))  # held before its rule
        new = Rule(library, guide, "", "", 0.0, "content", 3, 3, 0)
        store.put_rule(new)
        held = check_held_code(store, new, _configured(BUDGET), 1.0)
        answer = _arrive(store, 3, guide + PAGE, DEB_CODE)
        rules = [rule.mirror for rule in store.rules_under()]
        return held.revoked, held.probes, answer.revoked, rules

    assert tmp_index.transact(settle) == ([], [guide + PAGE], [guide], [library])


def test_a_coded_page_on_a_side_paired_with_a_revoked_rules_side_fetches_back_its_edition_page(
    tmp_index,
):
    """A library's copy of the guide held first (the guide's pages are dropped for its own) and
    the guide's rpm edition rule revoked: a coded page arriving on the library's copy stands for
    the guide's, which never arrives, so the edition's page at its path is fetched back. On the
    second holdout web (random order) such an rpm page was never requested: the one page linking
    it was dropped under the edition's rule before its revocation."""
    library = "http://library.test/guide/"

    def settle(view):
        store = MirrorStore(view)
        _edition_revoked(store)
        store.put_rule(
            Rule(library, GUIDE, "", "", 0.0, "content", 4, 4, 0, mirror_held_first=True)
        )
        return _arrive(store, 5, library + "purge.html", DEB_CODE).fetch_back

    assert tmp_index.transact(settle) == [EDITION + "purge.html"]


def test_a_revoked_rule_fetches_back_the_pages_its_side_holds_on_a_host_mirror(tmp_index):
    """The rpm edition's pages are held on the host mirror held first (the pruned host's are
    dropped for them): when the guide's coded page revokes the rule pairing the guide with the
    edition, the guide's pages at the paths of the edition's coded pages held there are fetched
    back. A second holdout crawl lost an English page so: every page linking it had been dropped
    for the rpm edition's, whose twin of it was held only on the partner's host."""

    def settle(view):
        store = MirrorStore(view)
        _rules(store)
        _arrive(store, 1, KEPT + "guide-rpm/" + PAGE, RPM_CODE)
        _arrive(store, 2, KEPT + "guide-rpm/remove.html", RPM_CODE, CodeBudget(1, 1))
        return _arrive(store, 3, GUIDE + PAGE, DEB_CODE)  # the probe's answer

    revoking = tmp_index.transact(settle)
    assert revoking.revoked == [GUIDE]
    assert GUIDE + "remove.html" in revoking.fetch_back


def test_a_rule_pointed_at_a_new_origin_has_its_held_coded_pages_checked_there(tmp_index):
    """An rpm edition paired with a partial copy of the guide, which lacks the one page where the
    edition's code differs (``install.html``): nothing compared it. The copy is then ruled a
    mirror of the guide, and the edition's rule pointed at the guide: its coded page, held, has
    the guide's page asked for, which revokes the rule. Left unchecked, the guide's page was
    dropped for the edition's (the fifth holdout web, breadth first)."""
    config = Config.default().with_overrides({"mirror.samples": 0})
    partial, guide = "http://library.test/debian/guide/", KEPT + "guide/"

    def settle(view):
        store = MirrorStore(view)
        store.put_rule(Rule(RPM, partial, "", "", 0.0, "content", 3, 3, 0))
        _arrive(store, 1, RPM + PAGE, RPM_CODE, CodeBudget(0, 0))  # nothing to compare it with
        store.put_candidate(Candidate(partial, guide, partial, guide, 0.0, OPEN))
        update = CandidateUpdate(store, config.mirror, CoordinateSampler(config), 1.0)
        update.advance(store.candidate(pair_reference(partial, guide)))
        asked = [
            check_held_code(store, rule, _configured(BUDGET), 1.0).probes
            for rule in update.repointed
        ]
        return [(rule.mirror, rule.origin) for rule in update.repointed], asked

    repointed, asked = tmp_index.transact(settle)
    assert repointed == [(RPM, guide)]
    assert asked == [[guide + PAGE]]
