"""Platforms named in URLs are never taken for copies of each other.

Manuals written for several platforms are served side by side under each platform's name:
Debian's installation guide under ``/releases/bookworm/amd64/``, ``arm64/``, ``s390x/``; a
product's ``install/windows/`` beside ``install/linux/``. Every edition names its pages alike and
most pages carry the same text but for the platform's name, so two such directories look like a
stale mirror. The pages on booting, partitioning and hardware are each platform's own: 21 of
arm64's 82 pages and 30 of s390x's differ from amd64's (8-word shingles' Jaccard under 0.8), yet
sampling matched 3 samples of 3 between amd64 and arm64, and the rule pruned arm64's own
appendix with the copies. So two directories whose paths both name a platform of one kind (a
processor architecture, an operating system), and no platform of that kind the same, are never
a mirror candidate. Their pages are fetched and judged one by one: a page that only names
another platform is still dropped as a near-duplicate after its fetch, so the cost is those
fetches, never a page.

A platform is a ``-``/``_``/``.``-separated part of a path segment among the names below (which
name one platform in several ways: ``amd64``, ``x86_64``, ``x64``); a side that names none of a
kind, or names platforms of other kinds only (a mirror filing the amd64 guide under
``/pub/linux/``), is paired as any directory. Short words that name other things as often
(``arm``, an administrator's reference manual; ``alpha``, a release; ``win``, ``mac``) name
none. Only the segments that tell the two paths apart are read: a section both hold under one
name (``x86/``) is no platform they share.
"""

from __future__ import annotations

import re

from dedup_filter.urls import differing_segments

_ARCHITECTURES = {
    "amd64": ("amd64", "x86_64", "x64", "em64t", "intel64"),
    "i386": ("i386", "i486", "i586", "i686", "x86", "ia32"),
    "arm64": ("arm64", "aarch64", "armv8"),
    "armhf": ("armhf", "armv7", "armv7l", "armv7hl"),
    "armel": ("armel", "armv5", "armv6"),
    "ia64": ("ia64", "itanium"),
    "ppc64el": ("ppc64el", "ppc64le"),
    "ppc64": ("ppc64",),
    "powerpc": ("powerpc", "ppc"),
    "s390x": ("s390x",),
    "s390": ("s390",),
    "mips64el": ("mips64el",),
    "mipsel": ("mipsel",),
    "mips": ("mips", "mips64"),
    "riscv64": ("riscv64", "riscv"),
    "loong64": ("loong64", "loongarch64"),
    "sparc64": ("sparc64",),
    "sparc": ("sparc",),
    "hppa": ("hppa",),
    "m68k": ("m68k",),
    "sh4": ("sh4",),
}
_SYSTEMS = {
    "linux": ("linux",),
    "windows": ("windows", "win32", "win64", "mswin"),
    "macos": ("macos", "macosx", "osx", "darwin"),
    "freebsd": ("freebsd", "kfreebsd"),
    "netbsd": ("netbsd",),
    "openbsd": ("openbsd",),
    "solaris": ("solaris", "illumos", "sunos"),
    "aix": ("aix",),
    "hpux": ("hpux", "hp-ux"),
    "hurd": ("hurd",),
    "android": ("android",),
    "ios": ("ios", "ipados"),
}
# name -> (kind, platform)
_PLATFORMS = {
    name: (kind, platform)
    for kind, platforms in (("architecture", _ARCHITECTURES), ("system", _SYSTEMS))
    for platform, names in platforms.items()
    for name in names
}
# names a part would be split inside of, matched before the segment is split
_JOINED = re.compile(r"x86[-_]64|hp-ux")
_PARTS = re.compile(r"[-_.]")


def platform_editions(directory: str, other: str) -> bool:
    """Whether two directory URLs name different platforms: both name some of one kind in the
    segments that tell their paths apart (``urls.differing_segments``), and none of that kind is
    the same."""
    segments, other_segments = differing_segments(directory, other)
    platforms, others = _platforms(segments), _platforms(other_segments)
    return any(
        platforms[kind].isdisjoint(others[kind]) for kind in platforms.keys() & others.keys()
    )


def names_platform(segment: str) -> bool:
    """Whether a path segment names a platform (``windows``, ``arm64``, ``linux-x86_64``)."""
    return bool(_platforms([segment.lower()]))


def _platforms(segments: list[str]) -> dict[str, set[str]]:
    """The platforms path segments name, by kind."""
    named: dict[str, set[str]] = {}
    for segment in segments:
        joined = _JOINED.findall(segment)
        for part in [*joined, *_PARTS.split(_JOINED.sub(" ", segment))]:
            if (found := _PLATFORMS.get(part.strip())) is not None:
                named.setdefault(found[0], set()).add(found[1])
    return named
