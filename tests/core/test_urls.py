"""URL normal form, Henzinger's site of a host, and directories."""

from __future__ import annotations

import pytest

from dedup_filter.urls import (
    differing_segments,
    directory_of,
    document_stem_of,
    host_of,
    normalize_url,
    site_of,
)


@pytest.mark.parametrize(
    ("url", "normal"),
    [
        ("HTTP://Example.COM:80/a/B.html#top", "http://example.com/a/B.html"),
        ("https://example.com:443", "https://example.com/"),
        ("http://example.com:8080/x?q=1&r=2", "http://example.com:8080/x?q=1&r=2"),
        ("http://user:secret@example.com/p", "http://example.com/p"),
        ("  http://example.com/padded  ", "http://example.com/padded"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://[2001:DB8::1]/", "http://[2001:db8::1]/"),
        ("http://[::1/broken", "http://[::1/broken"),
        ("http://example.com:99999/", "http://example.com:99999/"),
        ("not a url", "not a url"),
    ],
)
def test_normalize_url(url, normal):
    assert normalize_url(url) == normal


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("http://www.cs.berkeley.edu/~joe/", "cs.berkeley.edu"),
        ("http://berkeley.edu/", "berkeley.edu"),
        ("http://localhost:8000/", "localhost"),
        ("http://192.168.0.1/a", "192.168.0.1"),
        ("http://[::1]/", "::1"),
        ("garbage", ""),
    ],
)
def test_site_is_the_host_minus_its_first_label_beyond_one_dot(url, site):
    assert site_of(url) == site


@pytest.mark.parametrize(
    ("url", "directory"),
    [
        ("http://h.example/a/b/c.html?x=1", "http://h.example/a/b/"),
        ("http://h.example/a/b/", "http://h.example/a/b/"),
        ("http://h.example", "http://h.example/"),
        ("http://h.example:81/a?q=/x/y", "http://h.example:81/"),
    ],
)
def test_directory_is_the_path_up_to_its_last_slash(url, directory):
    assert directory_of(url) == directory


@pytest.mark.parametrize(
    ("url", "stem"),
    [
        ("http://h.example/a/Intro.htm", "intro"),
        ("http://h.example/b/intro.html?sid=1#top", "intro"),
        ("http://h.example/docs/index.fr.html", "index.fr"),
        ("http://h.example/pub/boost/algorithm/?C=N;O=D", "algorithm"),
        ("http://h.example/a/.profile", ".profile"),
        ("http://h.example/", "h.example"),
    ],
)
def test_a_document_stem_is_the_last_segment_without_its_extension(url, stem):
    assert document_stem_of(url) == stem


@pytest.mark.parametrize(
    ("directory", "other", "segments"),
    [
        ("http://a.test/v2/docs/13/dev/", "http://b.test/v2/docs/14/dev/", (["13"], ["14"])),
        ("http://a.test/pub/llvm/docs/", "http://a.test/16/", (["pub", "llvm", "docs"], ["16"])),
        ("http://a.test/Docs/", "http://b.test/docs/", ([], [])),  # lower-cased, nothing apart
        ("http://a.test/", "http://b.test/x/y/", ([], ["x", "y"])),
    ],
)
def test_differing_segments_leave_out_what_both_paths_hold_at_each_end(directory, other, segments):
    assert differing_segments(directory, other) == segments


@pytest.mark.parametrize(
    "url", ["http://\udc80.example/", "http://[x/", "", "::::", "http://h/\x00"]
)
def test_malformed_urls_never_raise(url):
    assert isinstance(normalize_url(url) + site_of(url) + directory_of(url) + host_of(url), str)
    assert isinstance(document_stem_of(url), str)
    assert isinstance(differing_segments(url, "http://h.example/a/"), tuple)
