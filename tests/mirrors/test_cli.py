"""``dedup-filter prune`` and ``dedup-filter mirrors`` (``rules`` of the mirror kind) against an
index holding one mirror rule."""

from __future__ import annotations

import io
import json

import pytest

from dedup_filter import DedupFilter
from dedup_filter.cli import main

from .conftest import MIRROR, ORIGIN, OnlineCrawl, breadth_first, copy_tree
from .test_detection import leaves_in_sample_order
from .test_persistence import whole_host_crawl


@pytest.fixture
def index_with_rule(tmp_path, origin_tree):
    whole_host_crawl(tmp_path / "index", origin_tree | copy_tree(origin_tree, ORIGIN, MIRROR))
    return tmp_path / "index"


def test_prune_writes_the_urls_outside_mirrored_directories(
    index_with_rule, tmp_path, monkeypatch, capsys
):
    urls = [
        ORIGIN + "csv.html",
        MIRROR + "csv.html",
        "# a comment",
        "",
        "http://other.test/x",
        MIRROR,
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(urls)))
    log = tmp_path / "decisions.jsonl"
    assert (
        main(
            ["prune", "-", "--index", str(index_with_rule), "--log", str(log), "--batch-size", "2"]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert out.splitlines() == [ORIGIN + "csv.html", "http://other.test/x"]
    assert "urls kept: 2 (0 deferred: their counterpart is not held); dropped under" in err
    assert "dropped under mirrored directories: 2" in err
    dropped = [json.loads(line) for line in log.read_text().splitlines() if '"drop"' in line]
    assert [(entry["url"], entry["duplicate_of"]) for entry in dropped] == [
        (MIRROR + "csv.html", ORIGIN + "csv.html"),
        (MIRROR, ORIGIN),
    ]


def test_prune_reads_a_file(index_with_rule, tmp_path, capsys):
    frontier = tmp_path / "frontier.txt"
    frontier.write_text(f"{MIRROR}extra/wave.html\n{ORIGIN}extra/wave.html\n")
    assert main(["prune", str(frontier), "--index", str(index_with_rule)]) == 0
    assert capsys.readouterr().out == f"{ORIGIN}extra/wave.html\n"


def test_mirrors_lists_rules_with_their_evidence(index_with_rule, capsys):
    assert main(["mirrors", "--index", str(index_with_rule), "--json"]) == 0
    [rule] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # confirmed once 3 of the 4 samples matched: the fourth could not change the verdict
    assert (rule["mirror"], rule["origin"], rule["samples"], rule["matches"]) == (
        MIRROR,
        ORIGIN,
        3,
        3,
    )
    assert rule["boundary"] == "host_root"
    assert main(["mirrors", "--index", str(index_with_rule)]) == 0
    text = capsys.readouterr().out
    assert f"{MIRROR} -> {ORIGIN}" in text
    assert "3/3 sampled pairs match" in text
    assert text.rstrip().endswith("1 mirror rule, 0 URL rules")


def test_mirrors_remove_deletes_a_rule(index_with_rule, capsys):
    assert main(["mirrors", "--index", str(index_with_rule), "--remove", MIRROR]) == 0
    assert main(["mirrors", "--index", str(index_with_rule), "--remove", MIRROR]) == 1
    assert main(["mirrors", "--index", str(index_with_rule), "--json"]) == 0
    assert capsys.readouterr().out.splitlines() == [f"removed {MIRROR}", f"no rule named {MIRROR}"]


def test_prune_refuses_a_missing_index(tmp_path, capsys):
    assert main(["prune", "-", "--index", str(tmp_path / "nothing")]) == 1
    assert "no index at" in capsys.readouterr().err


def test_mirrors_lists_the_hosts_whose_session_ids_are_stripped(tmp_path, capsys):
    """A host seen writing one id into every link is listed with the id: its URLs are placed
    without it, which changes what its pages are compared with."""
    shop = "http://shop.test/docs/"
    links = "".join(f'<a href="{name}.html?vid=0c5e7d1b94">{name}</a>' for name in "abcd")
    with DedupFilter.open(tmp_path / "index") as dedup:
        dedup.check_page(shop + "?vid=0c5e7d1b94", f"<html><body>{links}</body></html>".encode())
    assert main(["mirrors", "--index", str(tmp_path / "index"), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert listed == [{"type": "session", "host": "shop.test", "session": ["vid=0c5e7d1b94"]}]
    assert main(["mirrors", "--index", str(tmp_path / "index")]) == 0
    text = capsys.readouterr().out
    assert "shop.test: session ids vid=0c5e7d1b94" in text
    assert text.rstrip().endswith("0 mirror rules, 0 URL rules, 1 host with session ids")


def test_mirrors_lists_a_rejected_candidate_with_why(tmp_path, origin_tree, stdlib_page, capsys):
    """A pair sampled apart is listed with its samples and with why it was rejected: its
    sampled page holds another document (``--candidates``)."""
    mirror = copy_tree(origin_tree, ORIGIN, MIRROR)
    rewritten = leaves_in_sample_order(origin_tree, ORIGIN)[0]
    mirror[MIRROR + rewritten] = stdlib_page("fractions").encode()
    with DedupFilter.open(tmp_path / "index") as dedup:
        urls = [*breadth_first(origin_tree, ORIGIN), MIRROR]
        OnlineCrawl(dedup, origin_tree | mirror).visit(urls)
    assert main(["mirrors", "--index", str(tmp_path / "index"), "--candidates"]) == 0
    text = capsys.readouterr().out
    assert f"{MIRROR} -> {ORIGIN}: rejected candidate (other_text)" in text
    assert f"{rewritten} other_text" in text
