"""What an HTTP status a URL answered with says of its page, for the rules that wait on a URL.

- lacking (404, 410): the side that answered so has no such page; a failure with one is
  remembered absent under a mirror rule or not (``MirrorDetector.fetch_failed``,
  ``probe_failed``), for a rule made later counts it (``precedence.absences_before``);
- a redirect (3xx, or a meta refresh the crawler followed, reported as 302): the page is
  elsewhere, where the crawler goes on; another document of its host is a page moved, never a
  page lacked (``MirrorDetector.redirected``), and an alias of the URL would be sent on alike
  (``urlrules.deferrals.awaiting_canonical``).

An error passing (5xx, a timeout: no status) says neither.
"""

LACKING_STATUSES = frozenset({404, 410})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
