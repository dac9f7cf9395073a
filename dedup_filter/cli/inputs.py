"""Pages for ``dedup-filter check``: HTML files, directory trees and JSON lines, read defensively.

Every problem with one file or line becomes a ``BadInput`` naming where it is and what is wrong,
so one broken record never stops the rest of the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import quote

from dedup_filter.page_documents import Invalid, json_object, page_fields

HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".shtml"})
JSON_LINES_SUFFIXES = frozenset({".jsonl", ".ndjson"})


@dataclass(frozen=True, slots=True)
class PageInput:
    """One page to check."""

    url: str
    body: bytes
    headers: dict[str, str] | None
    origin: str  # file, or file:line, for messages


@dataclass(frozen=True, slots=True)
class BadInput:
    """A file or line that could not be turned into a page."""

    origin: str
    problem: str


Item = PageInput | BadInput


def read_source(source: str, stdin: BinaryIO, base_url: str | None = None) -> Iterator[Item]:
    """Pages from ``-`` (JSON lines on stdin), one file, or every page file under a directory."""
    if source == "-":
        yield from json_lines(stdin, "<stdin>")
        return
    path = Path(source)
    if path.is_dir():
        for file in _page_files(path):
            yield from _read_file(file, _url_for(file, path, base_url))
    else:
        yield from _read_file(path, _url_for(path, path.parent, base_url))


def _page_files(root: Path) -> Iterator[Path]:
    """HTML and JSON-lines files under ``root``, directory by directory in name order.

    Symbolic links to directories are not followed, so a link loop cannot trap the walk.
    """
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            if Path(name).suffix.lower() in HTML_SUFFIXES | JSON_LINES_SUFFIXES:
                yield Path(directory, name)


def _url_for(file: Path, root: Path, base_url: str | None) -> str:
    if base_url is None:
        return file.resolve().as_uri()
    relative = file.relative_to(root).as_posix()
    return f"{base_url.rstrip('/')}/{quote(relative)}"


def _read_file(file: Path, url: str) -> Iterator[Item]:
    try:
        if _is_json_lines(file):
            with file.open("rb") as handle:
                yield from json_lines(handle, str(file))
        else:
            yield PageInput(url, file.read_bytes(), None, str(file))
    except OSError as error:
        yield BadInput(str(file), f"cannot read: {error.strerror or error}")


def _is_json_lines(file: Path) -> bool:
    suffix = file.suffix.lower()
    if suffix in HTML_SUFFIXES | JSON_LINES_SUFFIXES:
        return suffix in JSON_LINES_SUFFIXES
    with file.open("rb") as handle:
        return handle.read(512).lstrip().startswith(b"{")


def json_lines(lines: Iterable[bytes], name: str) -> Iterator[Item]:
    """One page per non-blank line: ``url`` and ``body`` or ``body_b64``, maybe ``headers``."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield page_from_json(line, f"{name}:{number}")


def page_from_json(line: bytes, origin: str) -> Item:
    """One JSON line as a page (a ``page_documents`` document), or what is wrong with it."""
    document = json_object(line)
    fields = document if isinstance(document, Invalid) else page_fields(document)
    if isinstance(fields, Invalid):
        return BadInput(origin, fields.problem)
    return PageInput(fields.url, fields.body, fields.headers, origin)
