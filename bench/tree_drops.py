"""Page drops inside whole real documentation trees, each scored by exact resemblance.

    PYTHONPATH=. python bench/tree_drops.py [--together] [TREE ...]

Every page of a Debian documentation tree (``testweb.evalweb.packages.TREES``: manuals, API
references generated from one template, release notes, Sphinx pages that repeat their
navigation, partial translations) is checked once, in a seeded order, by a fresh filter with the
default configuration. A tree holds few copies of its own pages (aliases a package installs, a
translation's untranslated pages), so nearly every drop must name a page of the same text: a drop
whose named page has a Jaccard resemblance of 8-word shingles below 0.8 (the scorer's own reading,
``testweb.evalweb.shingles``) is a page lost. Prints one row a tree. ``--together`` checks
every tree into one index, each on a host of its own, its pages interleaved with the others':
editions, translations and look-alike templates of other packages then meet, and the drops
across trees (a partial translation's untranslated pages, mostly) are scored the same way.
"""

from __future__ import annotations

import argparse
import tempfile
from random import Random

from dedup_filter import DedupFilter
from testweb.evalweb.packages import TREES, read_tree
from testweb.evalweb.shingles import NEAR, jaccard, page_shingles


def tree_drops(names: list[str]) -> tuple[int, int, list[tuple[float, str, str, str]]]:
    """Pages of trees ``names`` checked into one index, their drops, and those below ``NEAR``
    (resemblance, reason, URL, the URL it names)."""
    pages = [
        (f"http://{name}.test/{path}", body.encode("utf-8", "surrogateescape"))
        for name in names
        for path, body in read_tree(name).items()
    ]
    Random(0).shuffle(pages)
    bodies = dict(pages)
    with tempfile.TemporaryDirectory() as directory:
        dedup = DedupFilter.open(directory)
        try:
            drops = [d for d in dedup.check_pages(pages) if d.action == "drop"]
        finally:
            dedup.close()
    wrong = []
    for drop in drops:
        named = bodies.get(drop.duplicate_of or "")
        resemblance = jaccard(page_shingles(bodies[drop.url]), page_shingles(named or b""))
        if resemblance < NEAR:
            wrong.append((resemblance, drop.reason.value, drop.url, drop.duplicate_of or ""))
    return len(pages), len(drops), wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=sorted(TREES))
    parser.add_argument("--together", action="store_true", help="one index for every tree")
    args = parser.parse_args()
    groups = [args.trees] if args.together else [[name] for name in args.trees]
    print("| tree | pages | drops | below 0.8 |\n|---|---:|---:|---:|")
    total = [0, 0, 0]
    lines = []
    for names in groups:
        name = "+".join(names) if len(names) < 4 else f"{len(names)} trees together"
        pages, drops, wrong = tree_drops(names)
        total = [total[0] + pages, total[1] + drops, total[2] + len(wrong)]
        print(f"| {name} | {pages} | {drops} | {len(wrong)} |", flush=True)
        lines += [f"  {name}: {r:.3f} {reason} {url} -> {named}" for r, reason, url, named in wrong]
    print(f"| all | {total[0]} | {total[1]} | {total[2]} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
