"""An evaluation web of one project's documentation in several releases side by side, as
documentation sites serve versions (``/13/``, ``/14/``, ..., ``/latest/``): LLVM 13 to 16 from
Debian's ``llvm-N-doc`` packages.

Most pages carry over from one release to the next unchanged or lightly edited, some are new,
and some are rewritten (the release notes every time, a policy page now and then): a web where a
pair of release directories looks like a stale mirror but prunes, with its copies, pages that
exist nowhere else. Nothing is constructed: which page shares which document is read from the
real texts, with the scorer's own words (a page joins the document of its namesake in the
release before when the Jaccard of their 8-word shingles, numbers left out, is at least
``shingles.NEAR`` with every page of that document; otherwise it is a document of its own).
Numbers are left out because every page names its release, its copyright years and the day it
was built: a stub of 90 words that differs in those alone is the same document, as Henzinger's
raters judged pages that differ in a time stamp.

Two real replicas stand beside the releases: ``/latest/`` serves the newest release as a site
does, and a mirror host files a copy of it deeper.
"""

from __future__ import annotations

from testweb.copies import site_url

from .builder import EvalWeb
from .hosts import HostsBuilder
from .packages import LLVM_RELEASES, read_tree
from .shingles import NEAR, jaccard, page_words, word_shingles

HOST = "docs.llvm.test"
MIRROR = ("llvm.mirror.test", "pub/llvm/docs/")


def build_versions_web() -> EvalWeb:
    web = HostsBuilder()
    documents: dict[str, list[set[str]]] = {}  # content key -> its pages' shingles
    latest: dict[str, str] = {}  # path -> content key, of the newest release placed
    for release in LLVM_RELEASES:
        tree = f"llvm-{release}"
        placed = {}
        for path, body in read_tree(tree).items():
            shingles = _unnumbered_shingles(body)
            before = latest.get(path)
            if before is not None and all(
                jaccard(shingles, page) >= NEAR for page in documents[before]
            ):
                key, kind = before, "release_carried_over"
            else:
                key, kind = f"{tree}:{path}", "original"
            documents.setdefault(key, []).append(shingles)
            web.put(HOST, f"{release}/{path}", body, key, kind)
            placed[path] = key
        latest = placed
    newest = LLVM_RELEASES[-1]
    web.copy((HOST, f"{newest}/"), (HOST, "latest/"), "latest_release", "llvm")
    web.copy((HOST, f"{newest}/"), MIRROR, "renamed_subdirectory", "llvm")
    releases = [(f"{release}/index.html", f"LLVM {release}") for release in LLVM_RELEASES]
    web.front_page(HOST, "LLVM documentation", [*releases, ("latest/index.html", "Latest")])
    web.front_page(MIRROR[0], "Mirrored documentation", [(MIRROR[1] + "index.html", "LLVM")])
    web.list_directories()
    return EvalWeb(web.pages(), [site_url(MIRROR[0], ""), site_url(HOST, "")], web.truth)


def _unnumbered_shingles(body: str) -> set[str]:
    words = page_words(body.encode("utf-8", "surrogateescape"))
    return word_shingles([word for word in words if not word.isdigit()])
