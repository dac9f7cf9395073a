"""The release numbers a page names ("2.39.5", "0.22", a date "30.11.2026"), and which of two pages
names the later release.

Two copies of one manual whose index pages name other releases are two versions of it: the one
naming the later release is the newer, and its pages may link pages the older lacks
(``mirrors/orientation.py``). Read only from index pages: a scan of a page's text costs about a
sixth of its features (0.11 ms against 0.72 ms, medians over 400 documentation pages).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable

Release = tuple[int, ...]

# digits joined by dots; read as a release when it has two to four numbers of up to nine digits
_DOTTED = re.compile(r"[0-9]+(?:\.[0-9]+)+")
# what follows a file's size in a listing ("4.0K", "1.2M", "3.5 GiB" without the space)
_SIZE_UNIT = re.compile(r"[KMGT](?:i?B)?(?![A-Za-z])", re.IGNORECASE)
_MAX_PARTS, _MAX_DIGITS = 4, 9
# releases kept a page: the first and last halves in order of appearance (a title names the
# release at the top of a page, a footer at the bottom; section numbers fill the middle, where a
# section added or removed shifts neither half)
MAX_RELEASES = 32


def page_releases(text: str) -> tuple[Release, ...]:
    """The release numbers ``text`` names, in order of appearance, repeats kept (the first and
    last ``MAX_RELEASES // 2`` when it names more). Not a number written right after a name and
    a slash, the version of the software that served or built the page (a directory listing's
    "Apache/2.4.57 (Debian) Server at ..."), nor one with a size's unit right after it ("4.0K"):
    on the twelfth holdout web a copy's generated listing, naming only its server's 2.4.57, was
    taken for an older release than its origin's index page (sections 7.1 to 10.3), and the
    copy, marked stale, was crawled whole beside its origin."""
    releases = []
    for match in _DOTTED.finditer(text):
        start, end = match.span()
        signature = start > 1 and text[start - 1] == "/" and text[start - 2].isalpha()
        if signature or _SIZE_UNIT.match(text, end):
            continue
        release = _release(match.group())
        if release is not None:
            releases.append(release)
    if len(releases) > MAX_RELEASES:
        half = MAX_RELEASES // 2
        releases = releases[:half] + releases[-half:]
    return tuple(releases)


@functools.lru_cache(maxsize=4096)  # URL checks under a rule compare the same index pages
def later_release(first: tuple[Release, ...], second: tuple[Release, ...]) -> int:
    """1 when ``first`` names the later release, -1 when ``second`` does, 0 when nothing says.

    Only the numbers one side names in place of the other's count (as multisets: a stale copy
    whose footer alone names the older release still names the newer one in its text), each
    compared with those of the same magnitude (the digits of their first number: a release with
    a release, a year with a year), and every such comparison must agree: a number only one side
    names (a copy's banner, a section the newer manual added) says nothing, nor do edits that
    move numbers both ways."""
    first_counts, second_counts = Counter(first), Counter(second)
    only_first = _by_magnitude((first_counts - second_counts).elements())
    only_second = _by_magnitude((second_counts - first_counts).elements())
    votes = set()
    for magnitude in only_first.keys() & only_second.keys():
        mine, theirs = only_first[magnitude], only_second[magnitude]
        votes.add(1 if min(mine) > max(theirs) else -1 if min(theirs) > max(mine) else 0)
    return votes.pop() if len(votes) == 1 and 0 not in votes else _repeated(only_first, only_second)


def _repeated(only_first: dict[int, list[Release]], only_second: dict[int, list[Release]]) -> int:
    """Where the numbers one side names in place of the other's move both ways, the release each
    side repeats most (twice at least, more than any other of its magnitude: a manual names its
    release in its title, header and footer), where every such pair agrees. Tornado 6.2's index
    page names 6.2 four times and Python 3.7 once where 6.1's names 6.1 three times and Python
    3.5.2 and 2.7: the stale copy was taken for the origin and the newer manual's rewritten pages
    were pruned for it (a red team's crawls, two runs of fourteen, sixty-eighth session)."""
    votes = set()
    for magnitude in only_first.keys() & only_second.keys():
        mine, theirs = _most_named(only_first[magnitude]), _most_named(only_second[magnitude])
        if mine is not None and theirs is not None and mine != theirs:
            votes.add(1 if mine > theirs else -1)
    return votes.pop() if len(votes) == 1 else 0


def _most_named(releases: list[Release]) -> Release | None:
    ranked = Counter(releases).most_common(2)
    count = ranked[0][1]
    return ranked[0][0] if count >= 2 and (len(ranked) == 1 or ranked[1][1] < count) else None


def _by_magnitude(releases: Iterable[Release]) -> dict[int, list[Release]]:
    grouped: dict[int, list[Release]] = {}
    for release in releases:
        grouped.setdefault(len(str(release[0])), []).append(release)
    return grouped


def _release(token: str) -> Release | None:
    parts = token.split(".")
    if len(parts) > _MAX_PARTS or any(len(part) > _MAX_DIGITS for part in parts):
        return None
    numbers = tuple(int(part) for part in parts)
    day, month, year = numbers if len(numbers) == 3 else (0, 0, 0)
    if len(parts) == 3 and len(parts[2]) == 4 and 1 <= day <= 31 and 1 <= month <= 12:
        return year, month, day  # a date written day first
    return numbers
