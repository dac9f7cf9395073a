"""Pages and frontier URLs through a processor on a real broker: outputs are what decisions say."""

from __future__ import annotations

import json
from collections import Counter

from dedup_filter import Config, DedupFilter
from dedup_filter.mirrors.soft404 import absent_url

MODULES = ("bisect", "calendar", "csv", "difflib", "heapq", "json", "shlex", "textwrap")
STAMP = "<p>Generated 2024-03-01 12:00:07 in 0.031 s, visitor 48213, session a81f3c</p></body>"


def index_page(host: str) -> str:
    links = "".join(
        f'<li><a href="{name}.html">{name}</a>: documentation of module {name}</li>'
        for name in MODULES
    )
    intro = f"<h1>Library reference</h1><p>Modules of the standard library on {host}.</p>"
    return f"<html><body>{intro}<ul>{links}</ul></body></html>"


def site_pages(stdlib_page) -> list[tuple[str, str]]:
    """Originals on a.example, a mirrored directory on b.example, near and exact copies."""
    pages = [("http://a.example/docs/", index_page("a.example"))]
    pages += [(f"http://a.example/docs/{name}.html", stdlib_page(name)) for name in MODULES]
    pages += [("http://b.example/mirror/docs/", index_page("a.example"))]
    pages += [
        (f"http://b.example/mirror/docs/{name}.html", stdlib_page(name)) for name in MODULES[:4]
    ]
    pages += [
        (f"http://c.example/stamped/{name}.html", stdlib_page(name).replace("</body>", STAMP))
        for name in MODULES[4:]
    ]
    pages += [("http://d.example/copy/csv.html", stdlib_page("csv"))]
    # the answer to the mirror detector's one outstanding probe: it confirms the mirror
    pages += [("http://b.example/mirror/docs/json.html", stdlib_page("json"))]
    return pages


def test_outputs_match_the_decisions(kafka, stream_config, processor_thread, stdlib_page, tmp_path):
    pages = site_pages(stdlib_page)
    urls = [f"http://b.example/mirror/docs/{name}.html" for name in MODULES] + [
        "http://b.example/mirror/docs/new/page.html",
        "http://e.example/new/page.html",
    ]
    # what the mirror's origin answers for a page it lacks (asked when the rule is made): a 404
    absent = absent_url("http://a.example/docs/")
    kafka.create_topics(stream_config)
    with processor_thread(stream_config):
        values = [
            json.dumps({"url": url, "body": html, "status": 200}).encode() for url, html in pages
        ]
        kafka.produce(stream_config.pages_in, values)
        kafka.wait_committed(stream_config.group_id, stream_config.pages_in, len(values))
        values.append(json.dumps({"url": absent, "status": 404}).encode())  # once it was asked
        kafka.produce(stream_config.pages_in, values[-1:])
        kafka.wait_committed(stream_config.group_id, stream_config.pages_in, len(values))
        kafka.produce(stream_config.urls_in, [url.encode() for url in urls])
        kafka.wait_committed(stream_config.group_id, stream_config.urls_in, len(urls))

    with DedupFilter.open(tmp_path / "reference", Config.default()) as reference:
        expected = reference.check_pages([(url, html.encode(), None) for url, html in pages])
        # the copies elsewhere link their own directories' pages, which their twins do not;
        # the processor writes each once (``followed_links_memory``)
        followed = list(
            dict.fromkeys(
                link
                for (_, html), decision in zip(pages, expected, strict=False)
                for link in reference.links_to_follow(decision, html.encode())
                if reference.check_url(link).action == "keep"
            )
        )
        expected.append(reference.probe_failed(absent, 404))
        expected_urls = [reference.check_url(url) for url in urls]
    verdicts = kafka.json_values(stream_config.verdicts)
    assert [(v["url"], v["action"], v["reason"]) for v in verdicts] == [
        (d.url, d.action, d.reason) for d in expected
    ]
    assert [v["source"]["offset"] for v in verdicts] == list(range(len(values)))
    kept = [record.value for record in kafka.read_all(stream_config.pages_keep)]
    assert kept == [value for value, d in zip(values, expected, strict=True) if not d.dropped]
    assert Counter(v["reason"] for v in verdicts)["exact_duplicate"] >= 5
    assert Counter(v["reason"] for v in verdicts)["near_duplicate"] >= 1
    # new/page.html has no counterpart held under the origin: deferred, not dropped
    assert {d.reason for d in expected_urls} == {
        "mirrored_directory",
        "not_mirrored",
        "counterpart_pending",
    }
    kept_urls = [record.value.decode() for record in kafka.read_all(stream_config.urls_keep)]
    # a deferred URL is held back until its counterpart's fate is known (stream.deferred_max_age_s)
    forwarded = [url for url, d in zip(urls, expected_urls, strict=True) if d.action == "keep"]
    assert followed
    assert kept_urls == followed + forwarded
    assert "http://b.example/mirror/docs/new/page.html" not in kept_urls
    probes = [json.loads(record.value)["url"] for record in kafka.read_all(stream_config.probes)]
    assert probes == [probe for d in expected for probe in d.probes]
    assert probes
    assert kafka.read_all(stream_config.dead_letters) == []
