"""Which WARC reader ``dedup-filter check`` should use: warcio or fastwarc, against the page work.

    python bench/warc_readers.py [--records 2000] [--repeats 3]

Writes a WARC file (plain and gzip-compressed) of ``--records`` HTML responses, each preceded by
its request, with warcio; reads every response's URL, Content-Type and body with each reader; and
prints the median CPU time of each read beside the time ``PagePreparer`` takes for the same pages,
the work a check does on every page anyway.
"""

from __future__ import annotations

import argparse
import io
import json
import pydoc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fastwarc.warc import ArchiveIterator as FastIterator
from fastwarc.warc import WarcRecordType
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from dedup_filter import Config
from dedup_filter.prepare import PagePreparer


def page() -> bytes:
    renderer = pydoc.HTMLDoc()
    return renderer.page("json", renderer.document(json)).encode()


def write(path: Path, body: bytes, records: int) -> None:
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=path.suffix == ".gz")
        for number in range(records):
            url = f"http://a.example/{number}"
            request = StatusAndHeaders("GET / HTTP/1.1", [], is_http_request=True)
            writer.write_record(
                writer.create_warc_record(
                    url, "request", payload=io.BytesIO(b""), http_headers=request
                )
            )
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
            )
            payload = io.BytesIO(body + str(number).encode())
            writer.write_record(
                writer.create_warc_record(url, "response", payload=payload, http_headers=headers)
            )


def read_warcio(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(
            len(record.content_stream().read())
            + len(record.rec_headers.get_header("WARC-Target-URI"))
            + len(record.http_headers.get_header("Content-Type"))
            for record in ArchiveIterator(handle)
            if record.rec_type == "response"
        )


def read_fastwarc(path: Path) -> int:
    with path.open("rb") as handle:
        records = FastIterator(handle, record_types=WarcRecordType.response, parse_http=True)
        return sum(
            len(record.reader.read())
            + len(record.headers.get("WARC-Target-URI"))
            + len(record.http_headers.get("Content-Type"))
            for record in records
        )


def median_cpu(work: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    body = page()
    preparer = PagePreparer(Config.default())
    urls = [f"http://a.example/{number}" for number in range(args.records)]
    prepare_s = median_cpu(lambda: [preparer.prepare(url, body) for url in urls], args.repeats)
    print(f"{args.records} pages of {len(body)} bytes; preparing them: {prepare_s:.3f} s CPU")
    print("| file | warcio s | fastwarc s | warcio / preparing | fastwarc / preparing |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as directory:
        for name in ("crawl.warc", "crawl.warc.gz"):
            path = Path(directory, name)
            write(path, body, args.records)
            slow = median_cpu(lambda path=path: read_warcio(path), args.repeats)
            fast = median_cpu(lambda path=path: read_fastwarc(path), args.repeats)
            print(
                f"| {name} | {slow:.3f} | {fast:.3f} | {slow / prepare_s:.1%} "
                f"| {fast / prepare_s:.1%} |"
            )


if __name__ == "__main__":
    main()
