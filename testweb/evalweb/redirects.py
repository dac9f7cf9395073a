"""The evaluation web as a real server answers it: directory links without their slash, a
``www.`` alias host and moved pages, all answered 301 (``testweb.redirects``).

The redirect layer is the small test web's; here the ground truth follows it: a moved page's
content is filed under its new URL (the old one only redirects, so a content held at one URL
stays must-keep), and the scorer reads the web by its truth file as before. A redirect is a
request that fetches no content: it counts in the fetches of both crawls and among the
avoidable ones.
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlsplit

from testweb.redirects import with_redirects

from .builder import EvalWeb


def redirected(web: EvalWeb) -> EvalWeb:
    """``web`` with the redirects of ``testweb.redirects`` laid over the host of its first
    replica's source (the start of its chain of copies)."""
    host = urlsplit(web.truth.replicas[0].source).hostname or ""
    laid = with_redirects(web.test_web(), host)
    truth = replace(web.truth, contents=dict(web.truth.contents), kinds=dict(web.truth.kinds))
    for old, new in laid.moved.items():
        truth.add(new, truth.contents.pop(old), truth.kinds.pop(old))
    served = laid.web
    return replace(
        web,
        pages=served.pages,
        start_urls=served.start_urls,
        truth=truth,
        redirects=served.redirects,
    )
