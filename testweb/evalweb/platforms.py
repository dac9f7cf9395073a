"""An evaluation web of one manual in several platform editions side by side, as Debian's site
serves its installation guide (``/releases/bookworm/amd64/``, ``arm64/``, ``i386/``,
``s390x/``): the English guide from Debian's ``installation-guide-ARCH`` packages.

Every edition names its pages alike, and most of them carry the same text but for the
architecture's name; the pages on booting, partitioning and hardware are each platform's own
(21 of arm64's 82 pages, 30 of s390x's, against amd64's). A pair of platform directories looks
like a stale mirror, three samples in four matching, and prunes, with its namesakes, pages that
exist nowhere else. Nothing is constructed: which page shares which document is read from the
real texts (``editions.place_editions``). One real replica stands beside the editions: a mirror
host files a copy of the amd64 edition under its own name.
"""

from __future__ import annotations

from testweb.copies import site_url

from .builder import EvalWeb
from .editions import place_editions
from .hosts import HostsBuilder
from .packages import INSTALL_ARCHITECTURES

HOST = "www.debian.test"
RELEASE = "releases/bookworm/"
MIRROR = ("debian.mirror.test", "doc/install-guide/amd64/")


def build_platforms_web() -> EvalWeb:
    web = HostsBuilder()
    editions = [(f"{RELEASE}{arch}/", f"install-{arch}") for arch in INSTALL_ARCHITECTURES]
    place_editions(web, HOST, editions, "platform_shared")
    web.copy((HOST, f"{RELEASE}amd64/"), MIRROR, "renamed_subdirectory", "install")
    links = [(f"{directory}index.html", directory) for directory, _ in editions]
    web.front_page(HOST, "Debian installation guides", links)
    web.front_page(MIRROR[0], "Mirrored documentation", [(MIRROR[1] + "index.html", "amd64")])
    web.list_directories()
    return EvalWeb(web.pages(), [site_url(MIRROR[0], ""), site_url(HOST, "")], web.truth)
