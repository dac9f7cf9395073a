"""An evaluation web of Python's documentation in three releases side by side, as
docs.python.org serves them (``/3.9/``, ``/3.11/``, ``/3.13/``), with ``/3/`` serving the newest:
the guides, the language reference and the "What's new" pages of Debian's ``python3.X-doc``
packages of Debian 11, 12 and 13.

``/3/`` names a release that agrees with every ``3.X`` (the shorter is the longer's start), so
the release names do not keep it from being paired with an older release than the one it
serves; most pages carry over from one release to the next, some are rewritten (each release's
"What's new" pages, which no other release holds). And a mirror host files a copy of 3.11
under a name without a release. Nothing is constructed: which page shares which document is
read from the real texts (``editions.place_editions``).
"""

from __future__ import annotations

from .builder import EvalWeb
from .editions import place_editions, served
from .hosts import HostsBuilder
from .packages import PYTHON_RELEASES

HOST = "docs.python.test"
MIRROR = ("python.mirror.test", "pub/python/docs/")


def build_pythons_web() -> EvalWeb:
    web = HostsBuilder()
    releases = [(f"{release}/", f"python-{release}") for release in PYTHON_RELEASES]
    place_editions(web, HOST, releases, "release_carried_over")
    _, middle, newest = PYTHON_RELEASES
    web.copy((HOST, f"{newest}/"), (HOST, "3/"), "major_alias", "python")
    web.copy((HOST, f"{middle}/"), MIRROR, "renamed_subdirectory", "python")
    links = [("3/index.html", "Python 3")]
    links += [(f"{release}/index.html", f"Python {release}") for release in PYTHON_RELEASES]
    return served(web, HOST, "Python documentation", links, MIRROR, "Python")
