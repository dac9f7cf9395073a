"""Which requests and responses the filter looks at, and what of them crosses into the core.

Only plain strings and bytes reach ``dedup_filter``: Scrapy types stay on this side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scrapy.http import HtmlResponse, TextResponse

from dedup_filter.features.text import is_plain_text
from dedup_filter.urls import host_of

if TYPE_CHECKING:
    from typing import Any

    from scrapy import Request
    from scrapy.http import Response

# request.meta keys
DONT_DEDUP = "dont_dedup"  # set by users: exempt one request (Scrapy's dont_* convention)
PROBE = "dedup_probe"  # set on the requests that fetch probes for the mirror detector
URL_CHECKED = "dedup_url_checked"  # set by the dupefilter: the URL was kept, as of which rules
# how many times the request went back to the scheduler to wait for its mirror counterpart
DEFERRALS = "dedup_deferrals"
FETCH_BACK = "dedup_fetch_back"  # set on the requests for pages a revoked rule may have dropped
# (the URL the filter sent past the dupefilter, the request's own dont_filter): see
# ``past_the_dupefilter``
PAST_DUPEFILTER = "dedup_past_dupefilter"
# the download slot a deferred request had before it queued in its counterpart's host's slot
# (a one-tuple: its own may be None); see ``queued_behind``
OWN_SLOT = "dedup_own_slot"
_DOWNLOAD_SLOT = "download_slot"  # Scrapy's ``Downloader.DOWNLOAD_SLOT``
# what makes a request one of the filter's repeats
_REPEAT_STATE = frozenset({DEFERRALS, FETCH_BACK, PAST_DUPEFILTER})
# a flag of a response served from an earlier probe: the response's, not its request's meta, which
# a redirect or a retry of the request carries to a fetch of its own (a probed page whose meta
# refresh led the crawl on had its target parsed unjudged, and left in flight for ever)
SERVED_FROM_PROBE = "dedup_probe_answer"
#: how far a deferred request falls behind the requests queued with it
DEFER_PRIORITY_STEP = 1000
# request meta that belongs to one fetch (its host's download slot, its retries, the redirects
# that led to its URL, its deferrals), not to a request made in its place for another URL: the
# prober reads a request's redirects as answers for the URLs they came from
FETCH_STATE = frozenset(
    {_DOWNLOAD_SLOT, "download_latency", "retry_times", DEFERRALS, PAST_DUPEFILTER}
    | {"redirect_urls", "redirect_reasons", "redirect_times", "redirect_ttl"}
)


def is_robots_txt(url: str) -> bool:
    if "/robots.txt" not in url:  # every request asks: most are answered without a parse
        return False
    try:
        return urlsplit(url).path == "/robots.txt"
    except ValueError:
        return False


def is_exempt(request: Request) -> bool:
    """Requests the filter never judges: probes, ``dont_dedup``, robots.txt, and any but a GET
    (a form's POST acts: its answer depends on its body, not on the URL a rule prunes)."""
    meta = request.meta
    return (
        bool(meta.get(DONT_DEDUP) or meta.get(PROBE))
        or request.method != "GET"
        or is_robots_txt(request.url)
    )


def is_repeat(request: Request) -> bool:
    """A request the filter made again for a URL (a page fetched back, a deferred request): not
    worth a fetch once another request got the URL's answer. A spider's own second request is
    its business (it asked ``dont_filter``, or its dupefilter let it through)."""
    meta = request.meta
    return bool(meta.get(FETCH_BACK) or meta.get(DEFERRALS))


def past_the_dupefilter(request: Request, **changes: Any) -> Request:
    """``request`` (with ``changes``) sent to the scheduler again past its dupefilter, which
    saw its URL already: the filter's own repeat of a URL (a deferral, a fetch back). Its URL
    and its own ``dont_filter`` are kept in its meta, for ``redirected_repeat``."""
    _, own = request.meta.get(PAST_DUPEFILTER, (None, request.dont_filter))
    repeat = request.replace(dont_filter=True, **changes)
    repeat.meta[PAST_DUPEFILTER] = (repeat.url, own)
    return repeat


def queued_behind(request: Request, counterpart: str | None) -> dict[str, Any]:
    """The meta that queues a deferred request in the download slot of the host whose page it
    awaits, so that it waits behind that host's work. A scheduler that takes turns among hosts
    (``DownloaderAwarePriorityQueue``) hands a request out again at once where its own host has
    nothing else queued, as a mirror host's waiting URLs have not: on the versions web (round
    robin) a release's mirror spent its deferrals in three seconds, 120 of its pages fetched
    while their counterparts sat queued. ``own_slot`` gives the slot back before a fetch (at
    the start of every ``process_request``, so the request holds its own slot here)."""
    host = host_of(counterpart) if counterpart else ""
    if not host or host == host_of(request.url):
        return {}
    return {_DOWNLOAD_SLOT: host, OWN_SLOT: (request.meta.get(_DOWNLOAD_SLOT),)}


def own_slot(request: Request) -> None:
    """Give a request queued in another host's slot (``queued_behind``) its own back, in place:
    the downloader reads it after the middlewares, so the page is fetched in its host's slot,
    under that host's concurrency and delay."""
    if OWN_SLOT not in request.meta:
        return
    (own,) = request.meta.pop(OWN_SLOT)
    if own is None:
        request.meta.pop(_DOWNLOAD_SLOT, None)
    else:
        request.meta[_DOWNLOAD_SLOT] = own


def redirected_repeat(request: Request) -> Request | None:
    """A repeat the filter sent past the dupefilter that a redirect has since moved to another
    URL, as a request for that URL through the dupefilter like any other (the redirect copies
    ``dont_filter``: a page the crawl queued or got under the new URL would be fetched again,
    and the new URL's own links would fetch it once more); None for any other request."""
    past = request.meta.get(PAST_DUPEFILTER)
    if past is None or past[0] == request.url:
        return None
    meta = {key: value for key, value in request.meta.items() if key not in _REPEAT_STATE}
    return request.replace(dont_filter=past[1], meta=meta)


def is_checkable(request: Request, response: Response) -> bool:
    """A successful GET of an HTML page or a plain-text document (an RFC, a Sphinx page's
    ``_sources/NAME.txt``): the only responses whose content is judged. Before plain text was,
    such a document was never held: a probe of one was reported as failed, and a copy of one
    (an alias, another host's) was never dropped."""
    return (
        _is_document(response)
        and 200 <= response.status < 300
        and request.method == "GET"
        and not is_robots_txt(response.url)
    )


def _is_document(response: Response) -> bool:
    if isinstance(response, HtmlResponse):
        return True
    return isinstance(response, TextResponse) and is_plain_text(content_headers(response))


def content_headers(response: Response) -> dict[str, str]:
    """The headers the core reads (the charset of Content-Type), as plain strings."""
    content_type = response.headers.get(b"Content-Type")
    return {"Content-Type": content_type.decode("latin-1")} if content_type else {}
