"""What a rule's origin answers for a page it does not have: an error, or a page (a soft 404).

Many servers answer a URL they have no page for with a 2xx page: a "not found" page, the home
page, an application shell (Bar-Yossef, Broder, Kumar and Tomkins, "Sic transit gloria telae",
WWW 2004, call them soft 404s). Under a mirror rule, the counterpart of a page that only the mirror
holds would then be fetched, held, and taken for the mirrored page's copy: the mirror's own page
would be lost. So each rule's origin is asked once, when the rule is made, for a URL no site holds
(``absent_url``); its answer is kept here. Until it is known, nothing under the rule is dropped
(deferred instead). A held counterpart that resembles the origin's soft-404 page is no copy of
anything: the URL waiting for it is fetched.

Table ``deferred``:
    "s" H(origin directory) -> answer (1: an error, 2: a page), and for a page: its exact hash,
                               token count and b-bit sketch
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from dedup_filter.config import Config
from dedup_filter.features.fingerprint import Fingerprint
from dedup_filter.index.lmdb_index import IndexView
from dedup_filter.index.page_records import PageRecord
from dedup_filter.matching import Sketched, resemblance
from dedup_filter.mirrors.store import ABSENT_PROBE, MirrorStore, url_hash

_ERROR, _PAGE = 1, 2
_HEAD = struct.Struct(">BQI")  # answer, exact hash, token count; the sketch follows
_PREFIX = b"s"


@dataclass(frozen=True, slots=True)
class AbsentAnswer:
    """The origin's answer for a page it lacks: ``page`` None when it answered with an error."""

    origin: str
    page: PageRecord | None


def absent_url(origin: str) -> str:
    """A URL under ``origin`` that names no page (the same for one origin in every process)."""
    return f"{origin}dedup-filter-absent-{url_hash(origin).hex()[:12]}.html"


def answer_of(view: IndexView, origin: str) -> AbsentAnswer | None:
    """The recorded answer of ``origin``, None while it is not known."""
    value = view.get("deferred", _PREFIX + url_hash(origin))
    if value is None:
        return None
    kind, exact, tokens = _HEAD.unpack_from(value)
    if kind == _ERROR:
        return AbsentAnswer(origin, None)
    sketch = bytes(value[_HEAD.size :])
    page = PageRecord(0, absent_url(origin), exact, tokens, (), b"", 0.0, 0, sketch)
    return AbsentAnswer(origin, page)


def is_answer(page: Sketched, answer: AbsentAnswer | None, config: Config) -> bool:
    """Whether a page is, by its text, a directory's ``answer`` for a page it lacks (False while
    that answer is not known, or when it was an error)."""
    if answer is None or answer.page is None:
        return False
    return (
        page.exact == answer.page.exact
        or resemblance(page, answer.page, config) >= config.mirror.soft404_resemblance
    )


def ask(store: MirrorStore, origin: str) -> str | None:
    """Record the probe of ``origin``'s absent URL unless its answer is known or it is out; the
    URL when the crawler must be asked now."""
    url = absent_url(origin)
    if answer_of(store.view, origin) is not None or store.probes_for(url):
        return None
    store.add_probe(url, ABSENT_PROBE, origin.encode("utf-8", "surrogatepass"))
    return url


Outstanding = list[tuple[int, bytes]]  # (kind, reference) of a URL's probes: ``probes_for``


def record_page(
    store: MirrorStore, url: str, outstanding: Outstanding, fingerprint: Fingerprint
) -> None:
    """If ``url`` is the absent URL of one or more origins, it answered with a page: theirs."""
    if any(kind == ABSENT_PROBE for kind, _ in outstanding):
        head = _HEAD.pack(_PAGE, fingerprint.exact, fingerprint.token_count)
        _record(store, url, outstanding, head + fingerprint.sketch)


def record_error(store: MirrorStore, url: str, outstanding: Outstanding) -> None:
    """If ``url`` is an absent URL, it answered with an error (or no page): an honest origin."""
    _record(store, url, outstanding, _HEAD.pack(_ERROR, 0, 0))


def _record(store: MirrorStore, url: str, outstanding: Outstanding, value: bytes) -> None:
    """The answer of every origin whose absent URL ``url`` is; their probes are answered."""
    for kind, reference in outstanding:
        if kind == ABSENT_PROBE:
            origin = reference.decode("utf-8", "surrogatepass")
            store.view.put("deferred", _PREFIX + url_hash(origin), value)
            store.delete_probe(url, kind, reference)
