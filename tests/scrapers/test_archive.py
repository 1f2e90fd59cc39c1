"""Reading WARC archives with ``pubharvest parse``: pubharvest's own (one record per finished
target) and other tools' (one record per page), and damaged ones."""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path

from conftest import FIXTURES

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.parsers.records import to_builtins

JA = FIXTURES / "scholar" / "handwritten_ja_profile.html"
URL = "https://scholar.google.com/citations?user=Yamada12AAAAJ&hl=ja"
CAPTURED = "2021-05-06T07:08:09Z"


def foreign_archive(path: Path) -> None:
    """A WARC as another crawler writes it: a response for a page, and one for robots.txt."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, body in ((URL, JA.read_bytes()), ("https://scholar.google.com/robots.txt", b"User-agent: *\n")):
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers)
            record.rec_headers.replace_header("WARC-Date", CAPTURED)
            writer.write_record(record)


def test_another_tools_archive_is_read_page_by_page_each_record_captured_at_its_warc_date(
        tmp_path: Path, capsys) -> None:
    archive = tmp_path / "crawl.warc.gz"
    foreign_archive(archive)
    assert main(["parse", "-f", "jsonl", str(archive)]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = to_builtins(parsers.parse(JA.read_bytes(), url=URL))
    expected["source"]["fetched_at"] = CAPTURED
    assert [json.loads(line) for line in lines] == [expected]


def test_a_damaged_archive_gets_one_line(tmp_path: Path, capsys) -> None:
    archive = tmp_path / "cut.warc.gz"
    archive.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    assert main(["parse", str(archive)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{archive}: unreadable:") and len(err.splitlines()) == 1
