"""The hosts of an evaluation web as they are built: pages placed, copied and listed, each URL
recorded in the ground truth as it is made.

A content key names a document: ``tree:path`` for a page of a package, ``listing:tree:dir`` for
a directory's autoindex; every copy of a page carries its source's key.
"""

from __future__ import annotations

from collections.abc import Callable
from random import Random

from testweb.copies import copy_tree, site_url
from testweb.pages import directory_of, link_list

from . import hazards
from .truth import GroundTruth, Replica

Transform = Callable[[str, str], str | None]  # (path, body) -> body, or None: the copy lacks it


class HostsBuilder:
    """Pages by host and path, with the truth of every URL."""

    def __init__(self) -> None:
        self.hosts: dict[str, dict[str, str]] = {}
        self.truth = GroundTruth()

    def put(self, host: str, path: str, body: str, content: str, kind: str) -> None:
        self.hosts.setdefault(host, {})[path] = body
        self.truth.add(site_url(host, path), content, kind)

    def content(self, host: str, path: str) -> str:
        return self.truth.contents[site_url(host, path)]

    def place(
        self, host: str, directory: str, tree: str, pages: dict[str, str], links: dict[str, str]
    ) -> None:
        """A package's manual under ``directory``: its pages are originals, but a page the package
        installs as a symbolic link (``links``: path -> target) is an alias of its target."""
        for path, body in pages.items():
            kind = "alias_default" if path in links else "original"
            self.put(host, directory + path, body, f"{tree}:{links.get(path, path)}", kind)

    def copy(
        self,
        source: tuple[str, str],
        target: tuple[str, str],
        kind: str,
        group: str,
        transform: Transform | None = None,
    ) -> None:
        """Copy directory ``source`` (host, dir) to ``target`` as a mirroring tool does; a page for
        which ``transform`` returns None is one the copy lacks. Autoindex pages come later: each
        host's server makes its own (``list_directories``)."""
        (source_host, source_dir), (target_host, target_dir) = source, target
        pages = self.hosts[source_host]
        for path, body in copy_tree(
            pages, source_host, source_dir, target_host, target_dir
        ).items():
            changed = transform(path, body) if transform else body
            if changed is not None:
                content = self.content(source_host, source_dir + path[len(target_dir) :])
                self.put(target_host, path, changed, content, "copy")
        self.replica(kind, source, target, group)

    def replica(
        self, kind: str, source: tuple[str, str], target: tuple[str, str], group: str
    ) -> None:
        """Record that directory ``target`` (host, dir) replicates ``source`` (``copy`` does;
        editions made page by page say so themselves)."""
        (source_host, source_dir), (target_host, target_dir) = source, target
        replica = Replica(
            kind, site_url(target_host, target_dir), site_url(source_host, source_dir), group
        )
        self.truth.replicas.append(replica)

    def pages(self) -> dict[str, bytes]:
        """Every page placed, by URL, as the server sends it."""
        return {
            site_url(host, path): body.encode("utf-8", "surrogateescape")
            for host, host_pages in self.hosts.items()
            for path, body in host_pages.items()
        }

    def front_page(self, host: str, title: str, links: list[tuple[str, str]]) -> None:
        """The host's root page, linking ``links`` (path, label); content of its own."""
        body = hazards.plain_page(
            title, link_list("", [(path, label, "") for path, label in links])
        )
        self.put(host, "", body, f"front:{host}", "front")

    def list_directories(self) -> None:
        """An autoindex page (and its four sorted views) for every directory that holds pages but
        no index page."""
        for host in sorted(self.hosts):
            pages = self.hosts[host]
            listed = [
                directory
                for directory in sorted({directory_of(path) for path in pages if "?" not in path})
                if directory + "index.html" not in pages and directory not in pages
            ]
            for directory in listed:
                self._listing(host, directory)
            if "" in pages and listed:  # the front page links every autoindex, as a site map does
                site_map = link_list("", [(directory, directory, "") for directory in listed])
                pages[""] = pages[""].replace("</body>", site_map + "</body>", 1)

    def with_session(self, host: str, parameter: str) -> None:
        """Every URL of ``host`` and every link on its pages carries ``parameter``."""
        pages = self.hosts.pop(host)
        for path, body in pages.items():
            url = site_url(host, path)
            content, kind = self.truth.contents.pop(url), self.truth.kinds.pop(url)
            self.put(
                host,
                hazards.add_query(path, parameter),
                hazards.with_query(body, parameter),
                content,
                kind,
            )

    def _listing(self, host: str, directory: str) -> None:
        pages = self.hosts[host]
        names = sorted(
            path[len(directory) :]
            for path in pages
            if directory_of(path) == directory and path != directory and "?" not in path
        )
        subdirectories = {
            path[len(directory) :].split("/")[0] + "/"
            for path in pages
            if path.startswith(directory) and "/" in path[len(directory) :]
        }
        # a subdirectory with an index page is linked by it: the test server maps no directory
        # URL to its index page
        names += sorted(
            name + "index.html" if directory + name + "index.html" in pages else name
            for name in subdirectories
        )
        entries = [
            hazards.entry_of(name, pages.get(directory + name, ""), Random(name)) for name in names
        ]
        key = self._listing_key(host, directory)
        self.put(host, directory, hazards.listing("/" + directory, entries), key, "listing")
        for view in hazards.SORT_VIEWS:
            body = hazards.listing("/" + directory, entries, view)
            self.put(host, f"{directory}?{view}", body, key, "alias_sort")

    def _listing_key(self, host: str, directory: str) -> str:
        """The listing of a copied directory is a copy of its source's listing."""
        for path in self.hosts[host]:
            rest = path[len(directory) :]
            if path.startswith(directory) and rest and "?" not in path:
                tree, _, relative = self.content(host, path).partition(":")
                return f"listing:{tree}:{relative[: len(relative) - len(rest)]}"
        return f"listing:{host}:{directory}"
