"""What the index keeps of a kept page, and its bytes in the ``pages`` table.

Invariant: the record holds everything the postings of the page were derived from (exact hash,
super-shingles, simhash, URL), so replacing or deleting a page removes exactly its postings, and
the b-bit sketch that verifies a near-duplicate's resemblance (``matching``).
``last_seen`` is kept in whole seconds, rounded up: ``gc`` never removes a page seen after its
cutoff (a page seen less than a second before the cutoff may survive one more sweep).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

# exact hash, last seen (s), token count, title, code, super-shingles, simhash and sketch bytes
_HEAD = struct.Struct(">QIIIIBBB")
_MAX_SECONDS = (1 << 32) - 1


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What the index keeps of a kept page."""

    page_id: int
    url: str
    exact: int
    token_count: int
    features: tuple[int, ...]
    simhash: bytes
    last_seen: float
    title: int = 0  # 32-bit hash of the title's words, 0 without a title (``Fingerprint.title``)
    sketch: bytes = b""  # the b-bit min-hash sketch (``Fingerprint.sketch``)
    code: int = 0  # 32-bit hash of its code blocks' words, 0 without any (``Fingerprint.code``)

    def encode(self) -> bytes:
        seen = min(max(math.ceil(self.last_seen), 0), _MAX_SECONDS)
        head = _HEAD.pack(
            self.exact,
            seen,
            self.token_count,
            self.title,
            self.code,
            len(self.features),
            len(self.simhash),
            len(self.sketch),
        )
        features = struct.pack(f">{len(self.features)}Q", *self.features)
        url = self.url.encode("utf-8", "surrogatepass")
        return head + features + self.simhash + self.sketch + url

    @classmethod
    def decode(cls, page_id: int, data: bytes | memoryview) -> PageRecord:
        exact, last_seen, token_count, title, code, n_features, n_simhash, n_sketch = (
            _HEAD.unpack_from(data)
        )
        start = _HEAD.size
        features = struct.unpack_from(f">{n_features}Q", data, start)
        start += 8 * n_features
        simhash = bytes(data[start : start + n_simhash])
        start += n_simhash
        sketch = bytes(data[start : start + n_sketch])
        url = bytes(data[start + n_sketch :]).decode("utf-8", "surrogatepass")
        return cls(
            page_id,
            url,
            exact,
            token_count,
            features,
            simhash,
            float(last_seen),
            title,
            sketch,
            code,
        )
