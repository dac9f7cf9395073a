"""What ``dedup-filter check`` reads: a page to check, or a file or line that is not one."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageInput:
    """One page to check."""

    url: str
    body: bytes
    headers: dict[str, str] | None
    origin: str  # file, file:line or file@offset, for messages


@dataclass(frozen=True, slots=True)
class BadInput:
    """A file, line or record that could not be turned into a page."""

    origin: str
    problem: str


Item = PageInput | BadInput
