"""An evaluation web of one project's documentation in several releases side by side, as
documentation sites serve versions (``/13/``, ``/14/``, ..., ``/latest/``): LLVM 13 to 16 from
Debian's ``llvm-N-doc`` packages.

Most pages carry over from one release to the next unchanged or lightly edited, some are new,
and some are rewritten (the release notes every time, a policy page now and then): a web where a
pair of release directories looks like a stale mirror but prunes, with its copies, pages that
exist nowhere else. Nothing is constructed: which page shares which document is read from the
real texts (``editions.place_editions``).

Two real replicas stand beside the releases: ``/latest/`` serves the newest release as a site
does, and a mirror host files a copy of it deeper.
"""

from __future__ import annotations

from .builder import EvalWeb
from .editions import place_editions, served
from .hosts import HostsBuilder
from .packages import LLVM_RELEASES

HOST = "docs.llvm.test"
MIRROR = ("llvm.mirror.test", "pub/llvm/docs/")


def build_versions_web() -> EvalWeb:
    web = HostsBuilder()
    releases = [(f"{release}/", f"llvm-{release}") for release in LLVM_RELEASES]
    place_editions(web, HOST, releases, "release_carried_over")
    newest = LLVM_RELEASES[-1]
    web.copy((HOST, f"{newest}/"), (HOST, "latest/"), "latest_release", "llvm")
    web.copy((HOST, f"{newest}/"), MIRROR, "renamed_subdirectory", "llvm")
    links = [(f"{release}/index.html", f"LLVM {release}") for release in LLVM_RELEASES]
    links.append(("latest/index.html", "Latest"))
    return served(web, HOST, "LLVM documentation", links, MIRROR, "LLVM")
