"""An evaluation web of one manual in several platform and release editions side by side, as
Debian's site serves its installation guide (``/releases/bookworm/amd64/``, ``arm64/``,
``i386/``, ``s390x/``; ``/releases/bullseye/amd64/``, ``/releases/trixie/amd64/``): the English
guide from Debian's ``installation-guide-ARCH`` packages of Debian 12, and the amd64 package of
Debian 11 and 13.

Every edition names its pages alike, and most of them carry the same text but for the
architecture's or the release's name; the pages on booting, partitioning and hardware are each
platform's own (21 of arm64's 82 pages, 30 of s390x's, against amd64's), and a few pages are
rewritten from one release to the next (6 of bullseye's 84 against bookworm's, 7 of trixie's).
A pair of such directories looks like a stale mirror, most samples matching, and prunes, with
its namesakes, pages that exist nowhere else. Nothing is constructed: which page shares which
document is read from the real texts (``editions.place_editions``). One real replica stands
beside the editions: a mirror host files a copy of bookworm's amd64 edition under its own name.
"""

from __future__ import annotations

from .builder import EvalWeb
from .editions import place_editions, served
from .hosts import HostsBuilder
from .packages import INSTALL_ARCHITECTURES, INSTALL_RELEASES

HOST = "www.debian.test"
RELEASE = "bookworm"
MIRROR = ("debian.mirror.test", "doc/install-guide/amd64/")


def build_platforms_web() -> EvalWeb:
    web = HostsBuilder()
    editions = [
        (f"releases/{RELEASE}/{arch}/", f"install-{arch}") for arch in INSTALL_ARCHITECTURES
    ] + [(f"releases/{release}/amd64/", f"install-amd64-{release}") for release in INSTALL_RELEASES]
    place_editions(web, HOST, editions, "edition_shared")
    web.copy((HOST, f"releases/{RELEASE}/amd64/"), MIRROR, "renamed_subdirectory", "install")
    links = [(f"{directory}index.html", directory) for directory, _ in editions]
    return served(web, HOST, "Debian installation guides", links, MIRROR, "amd64")
