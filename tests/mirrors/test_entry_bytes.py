"""A ``dirs`` entry's bytes: every form round-trips, a kept page's own entry is a few bytes, an
entry whose record is gone reads as absent, a near-duplicate drop's entry keeps its length."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dedup_filter.index.lmdb_index import PageRecord
from dedup_filter.index.varints import decode_varint, encode_varint
from dedup_filter.mirrors.entry_bytes import decode_entry, encode_entry, representative_of
from dedup_filter.mirrors.records import KEPT_AS_CANDIDATE, ORDINARY, DirEntry
from dedup_filter.mirrors.store import host_hash

HUGE_ID = 2**64 - 1
LONG_TAIL = "a/" * 3000 + "page.html"
ODD_TAILS = ["", "x.html", "Sub/Caf\u00e9.html?q=\u00fc", "\udc80bad\ud800.html", LONG_TAIL]


def _page(page_id: int, url: str, exact: int = 99) -> PageRecord:
    return PageRecord(page_id, url, exact, 10, (), b"", 0.0)


def _round_trip(entry: DirEntry, records: dict[int, PageRecord], url_key: str) -> DirEntry | None:
    value = encode_entry(entry, records.get(entry.representative), url_key)
    assert representative_of(value) == entry.representative
    return decode_entry(value, records.get)


@pytest.mark.parametrize("tail", ODD_TAILS)
@pytest.mark.parametrize("page_id", [1, 300, HUGE_ID])
def test_a_kept_pages_own_entry_reads_path_and_hash_from_its_record(page_id, tail):
    directory = "http://H.example/Docs/"
    records = {page_id: _page(page_id, directory + tail, exact=2**64 - 2)}
    entry = DirEntry(page_id, 2**64 - 2, tail)
    value = encode_entry(entry, records[page_id], directory.lower() + tail.lower())
    assert decode_entry(value, records.get) == entry
    assert len(value) == len(encode_varint(4 * len(tail) + 3)) + len(encode_varint(page_id))


@pytest.mark.parametrize("tail", ODD_TAILS)
def test_a_copy_at_the_same_relative_path_stores_its_exact_hash(tail):
    records = {5: _page(5, "http://origin.example/d/" + tail, exact=1)}
    copy = DirEntry(5, 2, tail)  # another URL whose page is represented by page 5
    assert _round_trip(copy, records, "http://mirror.example/d/" + tail.lower()) == copy


@pytest.mark.parametrize("tail", ODD_TAILS)
def test_an_entry_unlike_its_record_stores_everything(tail):
    records = {5: _page(5, "http://origin.example/elsewhere.htm")}
    entry = DirEntry(5, 0, tail + "~")
    assert _round_trip(entry, records, "http://m.example/" + tail.lower() + "~") == entry
    assert _round_trip(DirEntry(HUGE_ID, HUGE_ID, tail), {}, "http://m.example/") == DirEntry(
        HUGE_ID, HUGE_ID, tail
    )


def test_a_changed_record_is_not_taken_for_the_entrys_own():
    """The entry of a page whose content changed since its record was written keeps its hash."""
    records = {5: _page(5, "http://h.example/a.html", exact=1)}
    assert _round_trip(DirEntry(5, 2, "a.html"), records, "http://h.example/a.html").exact == 2


def test_roles_and_linked_hosts_survive_every_form():
    hosts = (host_hash("docs.origin.test"), HUGE_ID)
    records = {7: _page(7, "http://h.example/d/")}
    for role, linked in [(KEPT_AS_CANDIDATE, ()), (ORDINARY, hosts), (KEPT_AS_CANDIDATE, hosts)]:
        for entry in (DirEntry(7, 99, "", role, linked), DirEntry(7, 5, "x/", role, linked)):
            assert _round_trip(entry, records, "http://h.example/d/") == entry


def test_a_near_duplicate_drops_length_survives_every_form_and_an_exact_duplicates_is_not_stored():
    hosts = (host_hash("docs.origin.test"),)
    records = {7: _page(7, "http://h.example/d/x/", exact=99)}
    for role, linked in [(ORDINARY, ()), (KEPT_AS_CANDIDATE, ()), (ORDINARY, hosts)]:
        for relative in ("", "x/", "elsewhere/"):
            near = DirEntry(7, 5, relative, role, linked, token_count=300)
            assert _round_trip(near, records, "http://m.example/d/" + relative) == near
    exact = DirEntry(7, 99, "x/", token_count=10)  # the record's length is the page's
    value = encode_entry(exact, records[7], "http://m.example/d/x/")
    assert value == encode_entry(replace(exact, token_count=0), records[7], "http://m.example/d/x/")


def test_an_entry_written_before_lengths_were_kept_reads_as_length_unknown():
    records = {7: _page(7, "http://h.example/d/x/", exact=99)}
    entry = DirEntry(7, 5, "x/", KEPT_AS_CANDIDATE, (HUGE_ID,))
    value = encode_entry(entry, records[7], "http://m.example/d/x/")  # ends at the linked hosts
    assert decode_entry(value, records.get) == entry
    assert decode_entry(value, records.get).token_count == 0


def test_an_entry_whose_record_is_gone_reads_as_absent():
    records = {5: _page(5, "http://h.example/d/a.html")}
    value = encode_entry(DirEntry(5, 99, "a.html"), records[5], "http://h.example/d/a.html")
    assert decode_entry(value, {}.get) is None
    assert representative_of(value) == 5  # what forget_orphans needs
    assert decode_entry(value, {5: _page(5, "a.htm")}.get) is None  # an impossible record


@pytest.mark.parametrize("number", [0, 1, 127, 128, 2**14, 2**63, HUGE_ID, 2**200])
def test_varints_round_trip_and_grow_seven_bits_a_byte(number):
    data = encode_varint(number) + b"rest"
    assert decode_varint(data) == (number, len(data) - 4)
    assert len(encode_varint(number)) == max(1, -(-number.bit_length() // 7))


def test_a_truncated_or_negative_varint_is_refused():
    with pytest.raises(ValueError, match="truncated"):
        decode_varint(encode_varint(2**20)[:-1])
    with pytest.raises(ValueError, match="unsigned"):
        encode_varint(-1)


def test_an_index_pages_releases_survive_every_form_and_older_entries_read_as_none():
    records = {7: _page(7, "http://h.example/d/", exact=99)}
    releases = ((2, 39, 5), (0, 22), (2026, 11, 30), (HUGE_ID, 1))
    for role, linked in [(ORDINARY, ()), (KEPT_AS_CANDIDATE, (HUGE_ID,))]:
        for exact, length in ((99, 0), (5, 300)):
            entry = DirEntry(7, exact, "", role, linked, length, releases)
            assert _round_trip(entry, records, "http://h.example/d/") == entry
            older = encode_entry(replace(entry, releases=()), records[7], "http://h.example/d/")
            assert decode_entry(older, records.get) == replace(entry, releases=())


def test_an_index_pages_meeting_survives_with_or_without_releases_and_older_entries_read_none():
    """An index page standing under another side's page keeps when the crawl met it
    (``DirEntry.met``), after its releases when it names any."""
    records = {7: _page(7, "http://copier.example/", exact=99)}
    for releases in ((), ((2, 39, 5),)):
        for met in (2, HUGE_ID):
            entry = DirEntry(7, 99, "", KEPT_AS_CANDIDATE, (), 0, releases, met)
            assert _round_trip(entry, records, "http://victim.example/docs/") == entry
            older = encode_entry(replace(entry, met=0), records[7], "http://victim.example/docs/")
            assert decode_entry(older, records.get) == replace(entry, met=0)
    entry = DirEntry(7, 99, "", ORDINARY, (), 0, (), 5)
    assert _round_trip(entry, records, "http://victim.example/docs/") == entry


@pytest.mark.parametrize(
    ("bare", "few", "htm"),
    [(True, False, False), (False, True, False), (True, True, False), (False, False, True)],
)
def test_an_index_page_naming_its_documents_bare_or_listing_few_says_so_in_every_form(
    bare, few, htm
):
    """``DirEntry.bare_names``, ``DirEntry.lists_few`` and ``DirEntry.htm_names`` ride on the
    role's byte: a page's own entry that says any is stored, not told by its record."""
    records = {7: _page(7, "http://pretty.example/d/", exact=99)}
    for role, linked, releases in ((ORDINARY, (), ()), (KEPT_AS_CANDIDATE, (HUGE_ID,), ((2, 1),))):
        for exact in (99, 5):
            entry = DirEntry(7, exact, "", role, linked, 0, releases, 0, bare, few, htm)
            assert _round_trip(entry, records, "http://pretty.example/d/") == entry
            plain = replace(entry, bare_names=False, lists_few=False, htm_names=False)
            assert _round_trip(plain, records, "http://pretty.example/d/") == plain


@pytest.mark.parametrize("language", ["en", "de", "zh", "fil"])
def test_an_index_pages_declared_language_survives_every_form_and_older_entries_read_none(language):
    """``DirEntry.language`` follows the meeting (written as 0 when not recorded): an entry
    written before it ends earlier and reads as declaring none."""
    records = {7: _page(7, "http://deb.example/manual/en/", exact=99)}
    for releases, met in (((), 0), (((2, 4),), 0), ((), 5), (((2, 4),), HUGE_ID)):
        for exact in (99, 5):
            entry = DirEntry(7, exact, "", ORDINARY, (), 0, releases, met, language=language)
            assert _round_trip(entry, records, "http://deb.example/manual/en/") == entry
            older = replace(entry, language="")
            assert _round_trip(older, records, "http://deb.example/manual/en/") == older
