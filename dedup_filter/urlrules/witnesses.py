"""The long pages of each host that a new candidate's first probes are built on.

A candidate is probed on pages of its host: the URL the rule would merge with the page is
fetched, and the pair supports or kills the rule. Only a long page's pair can tell an alias that
adds a line (a print view's note, a session greeting): on a 40-word news item such a line takes a
third of the shingles, the pair is no near duplicate, and proves nothing either way (``evidence``).
The pages kept on a host after the candidate opened may all be short, while its long pages were
kept before: the evaluation web's print rule, opened by a news item's print view, spent its two
probes on a search page and a news item, and waited 3,000 decisions for the crawl to fetch the
print views of the manual's chapters, held since the start. So each host remembers the first
``url_rules.max_probes`` pages it kept with at least ``url_rules.witness_min_tokens`` terms, and
a candidate asks its probes on them when it opens. Only pages under a URL whose parameters are
all well-known ones (session ids, tracking tags: set aside when the probe is built), so a probe
never names a combination a site may not serve (``x?part=2&format=print``); the chapters of the
evaluation web's manual are first met under a session or a tracking URL.

Table ``url_aliases`` (beside the alias classes, whose keys are 8 bytes):
    "w" host -> page ids   up to ``max_probes`` long kept pages of the host, in the order kept;
                           validated on read (a page ``gc`` deleted is skipped)
"""

from __future__ import annotations

from dedup_filter.index.lmdb_index import IndexView, decode_id, encode_id

_TABLE = "url_aliases"
_PREFIX = b"w"
_ID_BYTES = len(encode_id(0))


def _key(host: str) -> bytes:
    return _PREFIX + host.encode("utf-8", "surrogatepass")


def _ids(data: bytes | None) -> list[int]:
    if data is None:
        return []
    return [decode_id(data[at : at + _ID_BYTES]) for at in range(0, len(data), _ID_BYTES)]


def note(view: IndexView, host: str, url: str, wanted: int) -> None:
    """Remember the long page kept under ``url`` while its ``host`` (the authority, as rules
    name hosts) has fewer than ``wanted``."""
    key = _key(host)
    data = view.get(_TABLE, key)
    ids = _ids(data)
    if len(ids) >= wanted:
        return
    page_id = view.page_id_for_url(url)
    if page_id is not None and page_id not in ids:
        view.put(_TABLE, key, (data or b"") + encode_id(page_id))


def witnesses(view: IndexView, host: str) -> list[str]:
    """The URLs of the long pages ``host`` kept first that are still held."""
    urls = []
    for page_id in _ids(view.get(_TABLE, _key(host))):
        record = view.page(page_id)
        if record is not None:
            urls.append(record.url)
    return urls
