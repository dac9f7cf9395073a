"""Rules live in the index: they survive a restart, are listed with their evidence and removable."""

from __future__ import annotations

import json

import pytest

from dedup_filter import Config, DedupFilter
from dedup_filter.cli import main
from dedup_filter.urlrules.records import CONFIRMED, UrlRule
from dedup_filter.urlrules.rewrite import DROP, RuleKey

from .conftest import HOST, hold

LABEL = "docs.a.test drop sessionid"


@pytest.fixture
def learnt(site, tmp_path):
    """An index (closed) holding a confirmed session-id rule and a dead lang candidate."""
    hold(site, range(4))
    for page in range(2):
        site.fetch(f"/p{page}.html?sessionid=S{page}", page)
    site.fetch("/p2.html?lang=fr", 12)
    site.dedup.close()
    return tmp_path / "index"


def test_a_record_reads_back_as_written():
    rule = UrlRule(RuleKey("docs.a.test", DROP, "sid"), CONFIRMED, created_at=2.5)
    rule = rule.supported(f"{HOST}/x?sid=é\udc80", f"{HOST}/x", f"{HOST}/x", ("é\udc80",))
    assert UrlRule.decode(rule.encode()) == rule
    assert rule.supported(f"{HOST}/x?sid=é\udc80", f"{HOST}/x", f"{HOST}/x", ()) is rule


def test_rules_survive_a_restart(learnt):
    with DedupFilter.open(learnt) as reopened:
        [rule] = reopened.url_rules()
        assert (rule["rule"], rule["state"], rule["support"]) == (LABEL, "confirmed", 2)
        assert rule["example"]["held"] == f"{HOST}/p1.html"
        pruned = reopened.check_url(f"{HOST}/p3.html?sessionid=NEW")
        assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/p3.html")


def test_the_rules_command_lists_url_and_mirror_rules(learnt, capsys):
    assert main(["rules", "--index", str(learnt)]) == 0
    out = capsys.readouterr().out
    assert f"{LABEL} (any value): confirmed" in out
    assert "2 duplicate pairs over 2 classes (needs 2), 0 counterexamples" in out
    assert out.splitlines()[-1] == "0 mirror rules, 1 URL rule"


def test_the_rules_command_shows_dead_candidates_as_json(learnt, capsys):
    assert main(["rules", "--index", str(learnt), "--json", "--candidates", "--kind", "url"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(rule["type"], rule["rule"], rule["state"]) for rule in listed} == {
        ("url", LABEL, "confirmed"),
        ("url", "docs.a.test drop lang", "dead"),
    }


def test_a_removed_rule_prunes_nothing_and_is_not_learnt_again(learnt, corpus, capsys):
    assert main(["rules", "--index", str(learnt), "--remove", LABEL]) == 0
    assert capsys.readouterr().out == f"removed {LABEL}\n"
    assert main(["rules", "--index", str(learnt), "--remove", LABEL]) == 1
    with DedupFilter.open(learnt) as reopened:
        assert reopened.url_rules() == []
        assert reopened.check_url(f"{HOST}/p3.html?sessionid=NEW").action == "keep"
        body = list(corpus.values())[3].encode()
        assert reopened.check_page(f"{HOST}/p3.html?sessionid=S3", body).dropped
        assert reopened.url_rules() == []


def test_trusted_parameters_prune_without_evidence(tmp_path, corpus):
    config = Config().with_overrides({"url_rules.trusted_parameters": ["utm_*"]})
    with DedupFilter.open(tmp_path / "index", config) as dedup:
        dedup.check_page(f"{HOST}/x.html", next(iter(corpus.values())).encode())
        pruned = dedup.check_url(f"{HOST}/x.html?utm_source=feed&utm_medium=rss")
        assert (pruned.reason, pruned.duplicate_of) == ("duplicate_url", f"{HOST}/x.html")
        assert dedup.check_url(f"{HOST}/x.html?sessionid=1").action == "keep"


def test_the_rules_command_lists_and_removes_a_redirect_rule(tmp_path, capsys):
    index = tmp_path / "index"
    with DedupFilter.open(index) as dedup:
        for path in ("a", "b", "c"):
            dedup.redirected(f"http://www.a.test/{path}", f"http://a.test/{path}", 301)
    assert main(["rules", "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "www.a.test redirect move: confirmed\n" in out
    assert "3 permanent redirects seen: every URL to the same path on http://a.test" in out
    assert out.splitlines()[-1] == "0 mirror rules, 1 URL rule"
    assert main(["rules", "--index", str(index), "--remove", "www.a.test redirect move"]) == 0
    capsys.readouterr()
    assert main(["rules", "--index", str(index), "--json", "--candidates", "--kind", "url"]) == 0
    (listed,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (listed["rule"], listed["state"]) == ("www.a.test redirect move", "dead")
