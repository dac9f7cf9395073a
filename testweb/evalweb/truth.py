"""The ground truth of an evaluation web: what every URL holds, and which directories replicate.

Made by the builder while it builds, stored as JSON beside the web, read by the scorer: the code
under test never sees it. Two URLs share a *content* key when they hold the same document (a
copy, a copy with a banner, a session-id alias, a print view, a stale copy of it); language and
code editions, listing page 2 and search results hold content of their own. A URL is *must-keep*
when no other URL of the web holds its content.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

# replicas that hold pages of their own under their source's names (a code edition's recoded
# pages, a partial translation's translated ones): a rule pairing one with its source is right,
# and what it prunes of those pages counts as lost
OWN_PAGES = frozenset({"edition_code", "partial_translation"})
# kinds of URL that hold no document: a server's "not found" page sent with status 200 (a soft
# 404); no crawl needs to fetch one, and not fetching one loses nothing
NOT_DOCUMENTS = frozenset({"soft_404"})


@dataclass(frozen=True, slots=True)
class Replica:
    """Directory ``copy`` replicates directory ``source`` (absolute URLs ending in ``/``); ``kind``
    names the hazard; ``group`` names the tree copied (for a reader of the JSON)."""

    kind: str
    copy: str
    source: str
    group: str


@dataclass(slots=True)
class GroundTruth:
    contents: dict[str, str] = field(default_factory=dict)  # URL -> content key
    kinds: dict[str, str] = field(default_factory=dict)  # URL -> how it came to be
    replicas: list[Replica] = field(default_factory=list)
    alias_parameters: list[str] = field(default_factory=list)
    trap_parameters: list[str] = field(default_factory=list)

    def add(self, url: str, content: str, kind: str) -> None:
        self.contents[url] = content
        self.kinds[url] = kind

    def must_keep(self) -> set[str]:
        counts = Counter(self.contents.values())
        return {url for url, content in self.contents.items() if counts[content] == 1}

    def aliases(self) -> set[str]:
        """Same-site aliases: URLs that hold another URL's content on the same host by a parameter
        or a directory name (issue 12)."""
        return {url for url, kind in self.kinds.items() if kind.startswith("alias")}

    def save(self, path: Path) -> None:
        data = asdict(self)
        path.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> GroundTruth:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["replicas"] = [Replica(**replica) for replica in data["replicas"]]
        return cls(**data)
