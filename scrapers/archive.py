"""WARC archives of a job: every request and response as sent and received, and the pages of each
finished target, so that ``pubharvest parse ARCHIVE.warc.gz`` gives back the records the job gave.

Bodies are stored decoded (the client undoes gzip/brotli): ``Content-Encoding`` and
``Transfer-Encoding`` are dropped from the stored headers and ``Content-Length`` set to match.

Each finished target adds a ``metadata`` record (``pubharvest:target:<site>:<id>``) listing the
``WARC-Record-ID`` of its page responses in order; reading an archive rebuilds each target's
record from exactly those responses, with the same parser and the same merge as the job.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import BinaryIO

import msgspec

from pubharvest.parsers.records import PageResult

from . import sites

TARGET_PREFIX = "pubharvest:target:"
_DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}


class ArchiveWriter:
    """Appends WARC records to a file (gzip per record when the name ends ``.gz``).

    Not thread-safe: a job calls it from one writer thread, so that compressing and hashing
    pages never holds up the event loop. A failed write is raised again by the next
    ``target_done``, so that no target is committed after an archive write was lost.
    """

    def __init__(self, path: Path, info: dict[str, str]) -> None:
        from warcio.warcwriter import WARCWriter

        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        cut_damaged_tail(path)
        self.stream = open(path, "ab")
        self.writer = WARCWriter(self.stream, gzip=path.name.endswith(".gz"))
        self.writer.write_record(self.writer.create_warcinfo_record(path.name, info))
        self.error: OSError | None = None

    @staticmethod
    def make_id() -> str:
        """A fresh ``WARC-Record-ID``, to name a response before it is written."""
        from warcio.statusandheaders import StatusAndHeadersParser

        return StatusAndHeadersParser.make_warc_id()

    def exchange(self, method: str, url: str, request_headers: list[tuple[str, str]],
                 status: int | None = None, reason: str = "", response_headers: Sequence[tuple[str, str]] = (),
                 body: bytes = b"", record_id: str | None = None) -> None:
        """Write a request and, when one came, its response (named ``record_id``)."""
        try:
            self._exchange(method, url, request_headers, status, reason, response_headers, body, record_id)
        except OSError as error:
            self.error = self.error or error

    def _exchange(self, method: str, url: str, request_headers: list[tuple[str, str]], status: int | None,
                  reason: str, response_headers: Sequence[tuple[str, str]], body: bytes, record_id: str | None) -> None:
        from warcio.statusandheaders import StatusAndHeaders

        target = url.split("://", 1)[-1]
        path = "/" + target.split("/", 1)[1] if "/" in target else "/"
        request = self.writer.create_warc_record(
            url, "request", payload=BytesIO(b""),
            http_headers=StatusAndHeaders(f"{method} {path} HTTP/1.1", request_headers, is_http_request=True))
        if status is None:
            self.writer.write_record(request)
            return
        headers = [(k, v) for k, v in response_headers if k.lower() not in _DROPPED_HEADERS]
        headers.append(("Content-Length", str(len(body))))
        response = self.writer.create_warc_record(
            url, "response", payload=BytesIO(body), warc_headers_dict={"WARC-Record-ID": record_id or self.make_id()},
            http_headers=StatusAndHeaders(f"{status} {reason}".strip(), headers, protocol="HTTP/1.1"))
        request.rec_headers.add_header("WARC-Concurrent-To", response.rec_headers.get_header("WARC-Record-ID"))
        self.writer.write_record(response)
        self.writer.write_record(request)

    def target_done(self, run: str, key: str, outcome: str, response_ids: list[str],
                    fetched_at: str | None = None) -> None:
        """Record which responses make up a finished target (and when its record says it was fetched),
        and make the archive durable up to here."""
        if self.error is not None:
            raise self.error
        entry = {"run": run, "target": key, "outcome": outcome, "responses": response_ids, "fetched_at": fetched_at}
        payload = json.dumps(entry).encode()
        record = self.writer.create_warc_record(TARGET_PREFIX + key, "metadata", payload=BytesIO(payload),
                                                warc_content_type="application/json")
        self.writer.write_record(record)
        self.sync()

    def sync(self) -> None:
        self.stream.flush()
        os.fsync(self.stream.fileno())

    def close(self) -> None:
        self.sync()
        self.stream.close()


def cut_damaged_tail(path: Path) -> None:
    """Cut a record left half-written by a killed job, so that records appended after it stay readable."""
    from warcio.archiveiterator import ArchiveIterator

    if not path.exists() or path.stat().st_size == 0:
        return
    good = 0
    with open(path, "rb") as stream:
        records = ArchiveIterator(stream)
        try:
            for record in records:
                record.content_stream().read()
                records.read_to_end()
                good = records.get_record_offset() + records.get_record_length()
        except Exception:  # warcio raises several kinds on a cut gzip member or header
            pass
    if good < path.stat().st_size:
        with open(path, "r+b") as stream:
            stream.truncate(good)


@dataclass
class ArchivedPage:
    record_id: str
    url: str
    status: int
    body: bytes


@dataclass
class ArchivedTarget:
    """A finished target as the archive holds it: its run, its key and the offsets of its page responses."""

    run: str
    key: str
    outcome: str
    offsets: list[int]
    fetched_at: str | None = None


def _scan(path: str | Path) -> tuple[bool, list[ArchivedTarget]]:
    """Whether pubharvest wrote the archive, and its finished targets (the last write of each run and target)."""
    from warcio.archiveiterator import ArchiveIterator

    offsets: dict[str, int] = {}
    targets: dict[tuple[str, str], dict] = {}
    ours = False
    with open(path, "rb") as stream:
        records = ArchiveIterator(stream)
        for record in records:
            kind = record.rec_type
            uri = record.rec_headers.get_header("WARC-Target-URI") or ""
            if kind == "warcinfo":
                ours = ours or b"pubharvest" in record.content_stream().read()
            elif kind == "response":
                offsets[record.rec_headers.get_header("WARC-Record-ID")] = records.get_record_offset()
            elif kind == "metadata" and uri.startswith(TARGET_PREFIX):
                entry = json.loads(record.content_stream().read())
                targets.pop((entry["run"], entry["target"]), None)
                targets[(entry["run"], entry["target"])] = entry
    return ours, [ArchivedTarget(e["run"], e["target"], e["outcome"],
                                 [offsets[i] for i in e["responses"] if i in offsets], e.get("fetched_at"))
                  for e in targets.values()]


def _page(record) -> ArchivedPage | None:
    if record.rec_type != "response" or record.http_headers is None:
        return None
    return ArchivedPage(record.rec_headers.get_header("WARC-Record-ID"),
                        record.rec_headers.get_header("WARC-Target-URI") or "",
                        int(record.http_headers.get_statuscode() or 0), record.content_stream().read())


def _page_at(stream: BinaryIO, offset: int) -> ArchivedPage | None:
    from warcio.archiveiterator import ArchiveIterator

    stream.seek(offset)
    return _page(next(iter(ArchiveIterator(stream))))


def stamped(result: PageResult, run: str, fetched_at: str | None) -> PageResult:
    """``result`` with the job run and fetch time the job gave it (an archive of an older version has no time)."""
    if result.source is not None and fetched_at is not None:
        result.source = msgspec.structs.replace(result.source, run=run, fetched_at=fetched_at)
    return result


def archive_results(path: str | Path) -> Iterator[tuple[str, object]]:
    """``(name, PageResult or ParseError)`` for the records in an archive, as the job that wrote it gave them.

    A pubharvest archive gives one record per finished target, rebuilt from the responses its
    metadata names (read one target at a time, by offset); another tool's archive gives one
    record per successful response that is not robots.txt.
    """
    from warcio.archiveiterator import ArchiveIterator

    from pubharvest.parsers import ParseError, parse

    ours, targets = _scan(path)
    with open(path, "rb") as stream:
        if not ours:
            for page in filter(None, map(_page, ArchiveIterator(stream))):
                if page.status == 200 and not page.url.endswith("/robots.txt"):
                    try:
                        yield page.url, parse(page.body, url=page.url)
                    except ParseError as error:
                        yield page.url, error
            return
        for target in targets:
            site = sites.SITES[target.key.split(":", 1)[0]]
            pages = list(filter(None, (_page_at(stream, offset) for offset in target.offsets)))
            try:
                record = site.merge([parse(p.body, url=p.url) for p in pages])
                yield f"{path}#{target.key}", stamped(record, target.run, target.fetched_at)
            except ParseError as error:
                yield f"{path}#{target.key}", error
