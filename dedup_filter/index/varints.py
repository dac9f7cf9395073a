"""Unsigned LEB128 integers: the small numbers of stored records (ids, lengths) in as few bytes
as they need, 7 bits a byte, the high bit set on every byte but the last."""

from __future__ import annotations


def encode_varint(number: int) -> bytes:
    if number < 0:
        msg = f"a varint is unsigned, not {number}"
        raise ValueError(msg)
    out = bytearray()
    while number >= 0x80:
        out.append(number & 0x7F | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def decode_varint(data: bytes | memoryview, offset: int = 0) -> tuple[int, int]:
    """The number starting at ``offset`` and the offset after it.

    Raises:
        ValueError: the data ends inside the number.
    """
    number = shift = 0
    while True:
        if offset >= len(data):
            msg = "truncated varint"
            raise ValueError(msg)
        byte = data[offset]
        offset += 1
        number |= (byte & 0x7F) << shift
        if byte < 0x80:
            return number, offset
        shift += 7
