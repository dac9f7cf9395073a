"""The feature extractors' inner loops, compiled by numba: one pass each over a page's terms.

As NumPy expressions these loops cost a dozen array operations a page, most of their time spent
making temporary arrays (0.69 ms a page of the Debian documentation for terms' hashes, shingles,
min-hash and simhash; 0.09 ms compiled, bench/per_core.py). The values are the same to the bit:
64-bit integer arithmetic wraps alike in both. Compiled once per installation (``cache=True``:
~2 s of CPU on first use, ~0.2 s to load afterwards), and they release the GIL.

Numba itself is imported when a kernel is first called, not with this module: its import costs a
quarter of a second of CPU, which a process that imports the filter but prepares no page (a
Scrapy crawl's, whose pages are prepared and decided in processes of their own) need not pay.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:  # hashing imports this module
    import numpy.typing as npt

    from dedup_filter.features.hashing import I64, U32, U64

_Kernel = TypeVar("_Kernel", bound=Callable[..., Any])
_uncompiled: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {}
_compiling = threading.Lock()


def _compiled(**options: Any) -> Callable[[_Kernel], _Kernel]:
    """``numba.njit(**options)``, applied to every kernel of this module at the first call of any
    (a kernel calls the others as compiled functions, so they are compiled together)."""

    def defer(function: _Kernel) -> _Kernel:
        _uncompiled[function.__name__] = (function, options)

        @functools.wraps(function)
        def first_call(*args: Any) -> Any:
            _compile_all()
            return globals()[function.__name__](*args)

        return first_call  # type: ignore[return-value]

    return defer


def _compile_all() -> None:
    with _compiling:
        if not _uncompiled:
            return
        import numba  # here, not above: see the module docstring

        for name, (function, options) in _uncompiled.items():
            globals()[name] = numba.njit(**options)(function)
        _uncompiled.clear()


_MIX_FIRST = np.uint64(0xBF58476D1CE4E5B9)
_MIX_SECOND = np.uint64(0x94D049BB133111EB)
_BYTE_LOWS = np.uint64(0x0101010101010101)  # the lowest bit of every byte of a word
_LANE_LIMIT = 255  # words a byte lane can count before it overflows


@_compiled(inline="always")
def mix(value: np.uint64) -> np.uint64:
    """SplitMix64's finaliser (``hashing.mix64`` of one word)."""
    value = value ^ (value >> np.uint64(30))
    value = value * _MIX_FIRST
    value = value ^ (value >> np.uint64(27))
    value = value * _MIX_SECOND
    return value ^ (value >> np.uint64(31))


@_compiled(cache=True, nogil=True)
def span_values(codes: U32, starts: I64, ends: I64, radix: np.uint64, seed_word: np.uint64) -> U64:
    """``hashing.span_hashes``: each span's polynomial in ``radix``, mixed with its length."""
    values = np.empty(len(starts), dtype=np.uint64)
    for span in range(len(starts)):
        value, power = np.uint64(0), np.uint64(1)
        for position in range(starts[span], ends[span]):
            value += np.uint64(codes[position]) * power
            power *= radix
        values[span] = mix(value ^ mix(np.uint64(ends[span] - starts[span]) ^ seed_word))
    return values


@_compiled(cache=True, nogil=True)
def lowered_codes(codes: U32, lower: U32, unmapped: int) -> tuple[U32, bool]:
    """``text.lowered_token_spans``: each code point through the table ``lower``, and whether
    all were (False at the first code point beyond the table or that it maps to ``unmapped``)."""
    lowered = np.empty_like(codes)
    for position in range(len(codes)):
        code = codes[position]
        if code >= len(lower) or lower[code] == unmapped:
            return lowered, False
        lowered[position] = lower[code]
    return lowered, True


@_compiled(cache=True, nogil=True)
def term_edges(codes: U32, continues_term: npt.NDArray[np.bool_], mark: int) -> tuple[I64, I64]:
    """``text.token_spans``: starts and ends of the runs of code points that continue a term,
    and of whatever lies between a mark and the next (marks pair in order: an odd last one is a
    separator)."""
    starts = np.empty(len(codes) // 2 + 1, dtype=np.int64)
    ends = np.empty_like(starts)
    runs, position = 0, 0
    while position < len(codes):
        if codes[position] == mark:
            start = end = position + 1
            while end < len(codes) and codes[end] != mark:
                end += 1
            if end == len(codes):  # no mark closes it
                position = start
                continue
            position = end + 1
        elif continues_term[codes[position]]:
            start = position
            while position < len(codes) and continues_term[codes[position]]:
                position += 1
            end = position
        else:
            position += 1
            continue
        if end > start:
            starts[runs], ends[runs] = start, end
            runs += 1
    return starts[:runs], ends[:runs]


@_compiled(cache=True, nogil=True)
def shingle_values(hashes: U64, weights: U64) -> U64:
    """``shingles.shingle_hashes``: each window's weighted sum, mixed."""
    width = len(weights)
    values = np.empty(len(hashes) - width + 1, dtype=np.uint64)
    for window in range(len(values)):
        combined = np.uint64(0)
        for offset in range(width):
            combined += hashes[window + offset] * weights[offset]
        values[window] = mix(combined)
    return values


@_compiled(cache=True, nogil=True)
def permuted_minima(shingles: U64, multipliers: U64, offsets: U64) -> U64:
    """``MinHasher.signature``: the least ``a * x + b`` of every permutation (a, b)."""
    minima = np.full(len(multipliers), np.iinfo(np.uint64).max, dtype=np.uint64)
    for shingle in shingles:
        for permutation in range(len(multipliers)):
            permuted = shingle * multipliers[permutation] + offsets[permutation]
            if permuted < minima[permutation]:
                minima[permutation] = permuted
    return minima


@_compiled(cache=True, nogil=True)
def packed_low_bits(values: U64, bits: int) -> npt.NDArray[np.uint8]:
    """``minhash.bbit_sketch``: the lowest ``bits`` bits of every value (1, 2, 4 or 8), packed
    ``8 // bits`` values a byte, the first in the lowest bits."""
    per_byte = 8 // bits
    mask = np.uint64((1 << bits) - 1)
    packed = np.zeros(-(-len(values) // per_byte), dtype=np.uint8)
    for index in range(len(values)):
        low = (values[index] & mask) << np.uint64(bits * (index % per_byte))
        packed[index // per_byte] |= np.uint8(low)
    return packed


@_compiled(cache=True, nogil=True)
def bit_majorities(hashes: U64, word_seeds: U64) -> U64:
    """``simhash.simhash`` as words: bit k of word w is set when it is set in more than half of
    the terms' projections ``mix(hash ^ word_seeds[w])``.

    Bits are counted eight words at a time, one byte lane per bit, in eight accumulators that
    stay in registers and are flushed before a lane can overflow: a term costs 8 additions a
    word instead of 64.
    """
    majorities = np.zeros(len(word_seeds), dtype=np.uint64)
    counts = np.zeros(64, dtype=np.int64)
    for word in range(len(word_seeds)):
        counts[:] = 0
        for first in range(0, len(hashes), _LANE_LIMIT):
            lane0 = lane1 = lane2 = lane3 = lane4 = lane5 = lane6 = lane7 = np.uint64(0)
            for term in range(first, min(first + _LANE_LIMIT, len(hashes))):
                projected = mix(hashes[term] ^ word_seeds[word])
                lane0 += projected & _BYTE_LOWS
                lane1 += (projected >> np.uint64(1)) & _BYTE_LOWS
                lane2 += (projected >> np.uint64(2)) & _BYTE_LOWS
                lane3 += (projected >> np.uint64(3)) & _BYTE_LOWS
                lane4 += (projected >> np.uint64(4)) & _BYTE_LOWS
                lane5 += (projected >> np.uint64(5)) & _BYTE_LOWS
                lane6 += (projected >> np.uint64(6)) & _BYTE_LOWS
                lane7 += (projected >> np.uint64(7)) & _BYTE_LOWS
            lanes = (lane0, lane1, lane2, lane3, lane4, lane5, lane6, lane7)
            for shift in range(8):
                for byte in range(8):
                    lane = (lanes[shift] >> np.uint64(8 * byte)) & np.uint64(0xFF)
                    counts[8 * byte + shift] += lane
        for bit in range(64):
            if 2 * counts[bit] > len(hashes):
                majorities[word] |= np.uint64(1) << np.uint64(bit)
    return majorities


@_compiled(inline="always")
def _is_space(byte: np.uint8) -> bool:
    return byte == 32 or byte == 9 or byte == 10 or byte == 12 or byte == 13


@_compiled(inline="always")
def _ends_name(byte: np.uint8, also: int) -> bool:
    """White space, ``/``, ``>`` or ``also`` (0: nothing more)."""
    return _is_space(byte) or byte == 47 or byte == 62 or (also != 0 and byte == also)


@_compiled(inline="always")
def _skip_until(data: npt.NDArray[np.uint8], position: int, stop: int) -> int:
    """The position of the next ``stop`` byte from ``position`` on, or -1."""
    while position < len(data):
        if data[position] == stop:
            return position
        position += 1
    return -1


@_compiled(cache=True, nogil=True)
def _attributes_beyond(data: npt.NDArray[np.uint8], position: int, limit: int) -> bool:
    """Whether the start tag whose name ends at ``position`` has more than ``limit``
    attributes, read as ``attributes._CROWDED_TAG`` reads them (its quantifiers are possessive,
    so the regex never backtracks and this loop makes the same choices)."""
    for _ in range(limit + 1):
        while position < len(data) and (_is_space(data[position]) or data[position] == 47):
            position += 1
        if position == len(data) or data[position] == 62:
            return False
        position += 1
        while position < len(data) and not _ends_name(data[position], 61):
            position += 1
        value = position
        while value < len(data) and _is_space(data[value]):
            value += 1
        if value == len(data) or data[value] != 61:
            continue
        value += 1
        while value < len(data) and _is_space(data[value]):
            value += 1
        closing = -1
        if value < len(data) and (data[value] == 34 or data[value] == 39):
            closing = _skip_until(data, value + 1, data[value])
        if closing >= 0:
            position = closing + 1
            continue
        while value < len(data) and not (_is_space(data[value]) or data[value] == 62):
            value += 1
        position = value
    return True


@_compiled(cache=True, nogil=True)
def tag_census(
    data: npt.NDArray[np.uint8], max_attributes: int, name_keys: U64
) -> tuple[bool, int, int]:
    """Over a document's UTF-8 bytes: whether any start tag holds more than ``max_attributes``
    attributes (``attributes.cap_attributes`` would cut it), how many more ``<`` than ``</`` it
    has (the bound on nesting ``text._cut_deep_nesting`` starts from), and which of the tag names
    ``name_keys`` its start tags use, as a bit mask (a name's key: its bytes, big-endian, zero
    padded to 8; a tag name runs from the letter after ``<`` to white space, ``/`` or ``>``,
    ASCII lower-cased, as the HTML tokenizer reads it)."""
    crowded, unclosed, found = False, 0, 0
    for position in range(len(data)):
        if data[position] != 60:
            continue
        following = data[position + 1] if position + 1 < len(data) else 0
        if following != 47:
            unclosed += 1
        if not 97 <= following | 0x20 <= 122:
            continue
        end, key = position + 1, np.uint64(0)
        while end < len(data) and not _ends_name(data[end], 0):
            byte = data[end] | 0x20 if 65 <= data[end] <= 90 else data[end]
            key = (key << np.uint64(8)) | np.uint64(byte)
            end += 1
        length = end - position - 1
        if length <= 8:
            key <<= np.uint64(8 * (8 - length))
            for number in range(len(name_keys)):
                if name_keys[number] == key:
                    found |= 1 << number
        if not crowded:
            crowded = _attributes_beyond(data, end, max_attributes)
    return crowded, unclosed, found
