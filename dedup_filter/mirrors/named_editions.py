"""Editions named in URLs, of every kind the mirror detector keeps apart: two directories whose
paths name different languages (``languages.py``), releases (``releases.py``) or platforms
(``platforms.py``) are never a mirror candidate, and a pair rejected so says which kind.
"""

from __future__ import annotations

from collections.abc import Callable

from dedup_filter.config import MirrorConfig
from dedup_filter.languages import language_editions
from dedup_filter.platforms import platform_editions
from dedup_filter.releases import release_editions

# the languages the two index pages declare ("": unknown), read when they can decide
Declared = Callable[[], tuple[str, str]]

# (the name a rejected pair shows, whether the configuration keeps the kind apart, the names'
# test), in the order they are asked
_KINDS: tuple[
    tuple[str, Callable[[MirrorConfig], bool], Callable[[str, str, Declared], bool]], ...
] = (
    ("language_editions", lambda config: config.language_editions_apart, language_editions),
    (
        "release_editions",
        lambda config: config.release_editions_apart,
        lambda mirror, origin, _: release_editions(mirror, origin),
    ),
    (
        "platform_editions",
        lambda config: config.platform_editions_apart,
        lambda mirror, origin, _: platform_editions(mirror, origin),
    ),
)


def named_editions(
    mirror: str,
    origin: str,
    config: MirrorConfig | None = None,
    declared: Declared = lambda: ("", ""),
) -> str | None:
    """The first kind of editions the two directory URLs name apart (among the kinds ``config``
    keeps apart; every kind without it), or None; ``declared``: the languages their index pages
    declare, which tell an unnamed directory's edition (``languages.language_editions``)."""
    for name, kept_apart, apart in _KINDS:
        if (config is None or kept_apart(config)) and apart(mirror, origin, declared):
            return name
    return None
