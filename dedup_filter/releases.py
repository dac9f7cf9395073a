"""Releases named in URLs are never taken for copies of each other.

Documentation sites serve each release of a project side by side under a name that numbers it
(``/13/``, ``/v2.1/``, ``/en/3.11/``, ``/docs/django-4.2/``). Most pages carry over from one
release to the next, so two release directories, and each pair of their subdirectories, look
like a stale mirror: on LLVM's documentation 13 to 16, nine pages in ten of one release keep
their text in the next but for the release's number and the build date. The rest are new or
rewritten (the release notes every time, a policy page now and then), and a rule prunes the
rewritten ones with the copies: content no other URL holds. Sampling cannot tell them apart
from a stale copy's edits; the names can. So two directories whose paths both name a release,
and no release of one agrees with one of the other (``3.11`` agrees with ``3`` and with
``3.11.2``, not with ``3.12``), are never a mirror candidate. Their pages are fetched and
judged one by one: a page that carried over is still dropped as a near-duplicate after its
fetch, so the cost is those fetches, never a page.

A side that names no release is paired as any directory is: a mirror filing a copy under
``/pub/llvm/docs/``, unless the two index pages name different releases (the copy is of another
release: ``release_left_open``, ``CandidateUpdate._confirm``). A release is a
``-``/``_``-separated part of a segment made of numbers joined by dots (``13``, ``2.1``,
``v2.1``, ``2.1.x``, ``otp-25``) or a name with a dotted number glued to it (``python3.11``);
other glued digits (``html5``, ``utf8``, ``ch01``) name none. The words sites name a moving
release by (``latest``, ``stable``, ``dev``, ...) say no release: ``/latest/`` is the newest
release today, but which one the names do not say, and paired with ``/15/`` a rule pruned the
newest release's rewritten pages in all three of its copies. Against a numbered release's name
(``numbered_against_moving``) such a word is paired only where both index pages name the very
same releases, that release among them (``CandidateUpdate._other_release``): a documentation
archive's ``/latest/`` beside the ``/3.0.22/`` it serves (a helper's web: 607 pages fetched twice
in each of six crawls). Index pages naming the same numbers that are no release (a format's
``7.0`` on LLVM's ``15/PDB/`` and ``latest/PDB/``) pair nothing. Against another such word it is
another release. Debian's suites (``oldstable``, ``testing``) are such words, and the code names
Debian and Ubuntu give their releases (``bullseye``, ``bookworm``, ``jammy``) name releases that
agree only with themselves: Debian's site files its installation guide under
``/releases/bookworm/amd64/`` beside ``/releases/trixie/amd64/``, and 7 of trixie's 84 pages are
rewritten against bookworm's. Only the segments that tell the two paths apart are read: a
section both releases hold under one name (``development/``, a moving word) is no release they
share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dedup_filter.urls import differing_segments

Release = tuple[int | str, ...]

# names of a moving release: each agrees with itself only
_MOVING = frozenset(
    {
        "latest",
        "stable",
        "current",
        "dev",
        "devel",
        "development",
        "master",
        "main",
        "next",
        "nightly",
        "trunk",
        "unstable",
        "alpha",
        "beta",
        "legacy",
        "lts",
        # Debian's suites
        "oldoldstable",
        "oldstable",
        "testing",
        "sid",
        "experimental",
    }
)
# code names of the releases of Debian and Ubuntu, whose sites file manuals under them
# (``/releases/bookworm/amd64/``, ``/ubuntu/jammy/``): each agrees with itself only. Debian's
# ``bo`` is left out, a two-letter word too many paths hold
# fmt: off
_CODE_NAMES = frozenset({
    # Debian
    "buzz", "rex", "hamm", "slink", "potato", "woody", "sarge", "etch", "lenny", "squeeze",
    "wheezy", "jessie", "stretch", "buster", "bullseye", "bookworm", "trixie", "forky", "duke",
    # Ubuntu
    "warty", "hoary", "breezy", "dapper", "edgy", "feisty", "gutsy", "hardy", "intrepid",
    "jaunty", "karmic", "lucid", "maverick", "natty", "oneiric", "precise", "quantal", "raring",
    "saucy", "trusty", "utopic", "vivid", "wily", "xenial", "yakkety", "zesty", "artful",
    "bionic", "cosmic", "disco", "eoan", "focal", "groovy", "hirsute", "impish", "jammy",
    "kinetic", "lunar", "mantic", "noble", "oracular", "plucky", "questing",
})
# fmt: on
_WORDS = _MOVING | _CODE_NAMES

_PARTS = re.compile(r"[-_]")
_NUMBERED = re.compile(r"v?(\d{1,8}(?:\.\d{1,8})*)(?:\.x)?")
_GLUED = re.compile(r"[a-z]+(\d{1,8}(?:\.\d{1,8})+)")


def release_editions(directory: str, other: str) -> bool:
    """Whether two directory URLs name different releases: both name one in the segments that
    tell their paths apart (``urls.differing_segments``), none of one agrees with one of the
    other, and no moving release of one (``latest``) stands against a numbered one of the
    other (``3.0.22``: which release the word names, the names do not say)."""
    return _editions(*_told_apart(directory, other))


def numbered_against_moving(directory: str, other: str) -> frozenset[Release]:
    """The numbered releases one of two directory URLs names where the other names a moving one
    (``3.0.22`` against ``latest``), in the segments that tell their paths apart: only their
    index pages can tell whether the two are one release (empty where none stands so)."""
    releases, other_releases = _told_apart(directory, other)
    return frozenset(
        release if isinstance(release[0], int) else another
        for release in releases
        for another in other_releases
        if _moving_against_number(release, another)
    )


def names_one_of(named: Iterable[tuple[int, ...]], releases: Iterable[Release]) -> bool:
    """Whether a release a page names (``features.versions``) agrees with one of ``releases``
    (``3.0.22`` with ``3.0.22``, ``16.0.6`` with ``16``)."""
    wanted = tuple(releases)
    return any(_agree(release, one) for release in named for one in wanted)


def release_left_open(directory: str, other: str) -> bool:
    """Whether the names of two directory URLs leave open which release each holds, in the
    segments that tell their paths apart: one names a release and the other none (``/15/``
    against ``/pub/llvm/docs/``), or both name releases that may be one, one more narrowly
    (``/openssl-3.0/``, a series, against ``/docs/3.0.17/``), or one by a moving name
    (``/latest/`` against ``/3.0.22/``: ``numbered_against_moving``)."""
    releases, other_releases = _told_apart(directory, other)
    if not (releases and other_releases):
        return bool(releases) != bool(other_releases)
    return set(releases) != set(other_releases) and not _editions(releases, other_releases)


def names_release(segment: str) -> bool:
    """Whether a path segment names a release (``v2``, ``2.0``, ``django-4.2``, ``latest``,
    ``bookworm``)."""
    return bool(_releases([segment.lower()]))


def _told_apart(directory: str, other: str) -> tuple[list[Release], list[Release]]:
    """The releases each of two directory URLs names in the segments that tell their paths
    apart (``urls.differing_segments``)."""
    segments, others = differing_segments(directory, other)
    return _releases(segments), _releases(others)


def _editions(releases: list[Release], other_releases: list[Release]) -> bool:
    """``release_editions`` of the releases two paths name apart."""
    return bool(releases and other_releases) and not any(
        _agree(release, another) or _moving_against_number(release, another)
        for release in releases
        for another in other_releases
    )


def _moving_against_number(release: Release, other: Release) -> bool:
    """Whether one of two releases is a moving word and the other a number."""
    moving, numbered = (release, other) if release[0] in _MOVING else (other, release)
    return moving[0] in _MOVING and isinstance(numbered[0], int)


def _agree(release: Release, other: Release) -> bool:
    """Whether two releases may be one: the shorter is the longer's start (``3`` and ``3.11``;
    ``latest`` and ``latest``)."""
    shorter = min(len(release), len(other))
    return release[:shorter] == other[:shorter]


def _releases(segments: list[str]) -> list[Release]:
    return [
        release
        for segment in segments
        for part in _PARTS.split(segment)
        if (release := _release(part)) is not None
    ]


def _release(part: str) -> Release | None:
    if part in _WORDS:
        return (part,)
    match = _NUMBERED.fullmatch(part) or _GLUED.fullmatch(part)
    return None if match is None else tuple(int(number) for number in match[1].split("."))
