"""The verdict on a candidate's checked samples, taken sequentially.

Zhang, Jia & Li judge ``samples`` (lambda) checked pairs: a mirror when at least
``ceil(min_resemblance * lambda)`` (and ``min_matched``) match. That rule is kept, taken as soon
as it is certain. But a stale copy (some pages edited since it was made) can show 2 mismatches in
its first 4 samples, and rejecting it then loses a true mirror; so when Zhang's rule can no
longer confirm, more samples are drawn while the evidence is ambiguous, up to ``max_samples``,
judged by Wald's sequential probability ratio test:

* a copy's sampled page matches with probability ``_COPY_MATCH_RATE`` (a stale copy), an
  unrelated directory's with ``_UNRELATED_MATCH_RATE`` (a shared theme's pages);
* confirmed once the log-likelihood ratio reaches ``ln((1 - _MISSED) / _FALSE_RULE)``
  (and ``min_matched`` matched), rejected once it falls to ``ln(_MISSED / (1 - _FALSE_RULE))``
  (not before lambda samples are checked while a mismatch may still be discounted:
  ``systematic.py``), or at ``max_samples``.

With the defaults 3 matches of 4 confirm (Zhang's), 4 of 6 and 5 of 8 confirm, 0 of 2 (or of
4), 1 of 4 and 2 of 7 reject; one pair whose code blocks differ (an ``EDITION``: ``editions.py``)
rejects, as does one of other text (``OTHER_TEXT``: ``CoordinateSampler.other_text``). Samples
one side lacks (``MISSING``: a partial copy's) count for nothing, except above
a confirmed rule: parents tried by the boundary search (``Candidate.level`` above 0) that would
be confirmed while more of their samples are missing than match are rejected, since their
matches come from the part both sides hold and the rest of the directory is mostly absent on
one side: the boundary lies below. On the fifth holdout web (depth first, one run in five at
d18af0b) a project's host root was ruled a copy of a university's ``debian/`` so, on 3 matches
and 6 missing, and the partner's host moved through it. Invariant: the verdict depends only on
the counts (and on whether a mismatch may still be discounted), never on their order.
"""

from __future__ import annotations

import math
from enum import Enum

from dedup_filter.config import MirrorConfig
from dedup_filter.mirrors.records import (
    EDITION,
    MATCH,
    MISMATCH,
    MISSING,
    OTHER_TEXT,
    PENDING,
    Candidate,
)

_COPY_MATCH_RATE = 0.85
_UNRELATED_MATCH_RATE = 0.1
_FALSE_RULE = 0.01  # wanted chance of confirming an unrelated pair
_MISSED = 0.05  # wanted chance of rejecting a copy
_MATCH_WEIGHT = math.log(_COPY_MATCH_RATE / _UNRELATED_MATCH_RATE)
_MISMATCH_WEIGHT = math.log((1 - _COPY_MATCH_RATE) / (1 - _UNRELATED_MATCH_RATE))
_CONFIRM_AT = math.log((1 - _MISSED) / _FALSE_RULE)
_REJECT_AT = math.log(_MISSED / (1 - _FALSE_RULE))


class Verdict(Enum):
    UNDECIDED = "undecided"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class SequentialJudge:
    """Judges candidates under one configuration, and says how many samples they still need."""

    def __init__(self, config: MirrorConfig) -> None:
        self.config = config
        share = math.ceil(config.min_resemblance * config.samples - 1e-9)
        self.required_matches = max(config.min_matched, share)
        self.cap = max(config.max_samples, config.samples)

    def verdict(self, candidate: Candidate, discountable: bool = False) -> Verdict:
        """The verdict (``discountable``: some mismatch may still turn into a match once more
        pairs show what each side's pages share, so no rejection before lambda are checked)."""
        verdict = self._counted(candidate, discountable)
        mostly_absent = candidate.level > 0 and candidate.count(MISSING) > candidate.count(MATCH)
        return Verdict.REJECTED if verdict is Verdict.CONFIRMED and mostly_absent else verdict

    def _counted(self, candidate: Candidate, discountable: bool) -> Verdict:
        matches, mismatches = candidate.count(MATCH), candidate.count(MISMATCH)
        wanted = self.config.samples
        if wanted == 0:  # the configuration asks to trust the index pages alone
            return Verdict.CONFIRMED
        if candidate.count(EDITION) or candidate.count(OTHER_TEXT):  # never a copy
            return Verdict.REJECTED
        if candidate.closed and 0 < matches + mismatches < wanted:
            return self._small_verdict(candidate, matches, mismatches)
        if self._zhang_possible(mismatches):
            # certain once that many matched, whatever the remaining samples show
            confirmed = matches >= self.required_matches
            return Verdict.CONFIRMED if confirmed else Verdict.UNDECIDED
        ratio, checked = _ratio(matches, mismatches), matches + mismatches
        if ratio >= _CONFIRM_AT and matches >= self.config.min_matched:
            return Verdict.CONFIRMED
        early = discountable and checked < self.config.samples
        if (ratio <= _REJECT_AT and not early) or checked >= self.cap:
            return Verdict.REJECTED
        return Verdict.UNDECIDED

    def matches_needed(self, candidate: Candidate) -> int:
        """How many more matches would confirm the candidate if no sample mismatched (at most
        the samples left to lambda while fewer are checked: a look-alike is rejected at lambda)."""
        matches, mismatches = candidate.count(MATCH), candidate.count(MISMATCH)
        if candidate.closed:
            return candidate.count(PENDING)
        if self._zhang_possible(mismatches):
            return max(self.required_matches - matches, 0)
        missing = (_CONFIRM_AT - _ratio(matches, mismatches)) / _MATCH_WEIGHT
        needed = max(math.ceil(missing - 1e-9), self.config.min_matched - matches, 0)
        left_to_lambda = self.config.samples - matches - mismatches
        return min(needed, left_to_lambda) if left_to_lambda > 0 else needed

    def samples_wanted(self, candidate: Candidate) -> int:
        """How many checked or pending samples the candidate should hold now: lambda, or more
        while the evidence is ambiguous (never above ``max_samples``)."""
        mismatches = candidate.count(MISMATCH)
        if self._zhang_possible(mismatches):
            return self.config.samples
        checked = candidate.count(MATCH) + mismatches
        return min(self.cap, checked + self.matches_needed(candidate))

    def _zhang_possible(self, mismatches: int) -> bool:
        """Whether ``required_matches`` of lambda samples can still match."""
        return mismatches <= self.config.samples - self.required_matches

    def _small_verdict(self, candidate: Candidate, matches: int, mismatches: int) -> Verdict:
        """The verdict on a closed candidate (fewer documents than samples), once every document
        it could sample was checked: Zhang's resemblance over the m < lambda pairs there are."""
        if candidate.count(PENDING) > 0:
            return Verdict.UNDECIDED
        share = math.ceil(self.config.min_resemblance * (matches + mismatches) - 1e-9)
        enough = matches >= max(1, self.config.min_matched, share)
        return Verdict.CONFIRMED if enough else Verdict.REJECTED


def _ratio(matches: int, mismatches: int) -> float:
    return matches * _MATCH_WEIGHT + mismatches * _MISMATCH_WEIGHT
