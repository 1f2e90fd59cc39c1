"""WARC archives of a job: every request and response as sent and received, and the pages of each
finished target, so that ``pubharvest parse ARCHIVE.warc.gz`` gives back the records the job gave.

Bodies are stored decoded (the client undoes gzip/brotli): ``Content-Encoding`` and
``Transfer-Encoding`` are dropped from the stored headers and ``Content-Length`` set to match.

Each finished target adds a ``metadata`` record (``pubharvest:target:<site>:<id>``) listing the
``WARC-Record-ID`` of its page responses in order; reading an archive rebuilds each target's
record from exactly those responses, with the same parser and the same merge as the job.

An archive survives a kill or a full disk: in a ``.warc.gz`` each record is its own gzip member,
written in one piece. A record counts only when it is *whole*: its gzip member decompresses to
the end, with the CRC and length trailer, into one or more WARC records whose ``Content-Length``
is exactly what follows their headers (then ``\\r\\n\\r\\n``). A writer starts by cutting the file
back to the end of its last whole record (:func:`cut_damaged_tail`); a reader skips a damaged
stretch in the middle (left by older versions) with one line, and reads on from the next whole
record (:func:`spans`). Shared workers each write a segment, ``NAME-WORKER.warc.gz``; reading
the segments together (:func:`archive_results`) gives the job's records.
"""

from __future__ import annotations

import bisect
import errno
import glob
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import BinaryIO, Protocol, cast

import msgspec

from pubharvest.errors import NotOurFile
from pubharvest.parsers.records import PageResult

from . import sites

TARGET_PREFIX = "pubharvest:target:"
_DROPPED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}
GZIP_MAGIC = b"\x1f\x8b\x08"  # a gzip member's first bytes (deflate)
WARC_MAGIC = b"WARC/1."  # an uncompressed record's first bytes
_CHUNK = 1 << 16
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n", re.IGNORECASE)
# zlib's level for each record's gzip member. warcio's own is 9; on real Scholar pages (172 kB on average)
# level 3 took 6 ms a page where 9 took 17 and 6 took 12, for 14% more bytes (bench/README.md).
COMPRESS_LEVEL = 3



class ArchiveWriter:
    """Appends WARC records to a file (one gzip member per record when the name ends ``.gz``).

    Each record is built in memory and appended in one write, so the file only ever ends in the
    middle of a record when the process dies or the disk fills during that write; a failed write
    is cut back at once (and, failing that, by the next start's :func:`cut_damaged_tail`).

    Not thread-safe: a job calls it from one writer thread, so that compressing and hashing
    pages never holds up the event loop. A failed write is raised again by the next
    ``target_done``, so that no target is committed after an archive write was lost.
    """

    def __init__(self, path: Path, info: dict[str, str]) -> None:
        from warcio.warcwriter import WARCWriter

        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        check_own_archive(path, info.get("job"))
        cut_damaged_tail(path)
        self.stream = open(path, "ab", buffering=0)  # unbuffered: nothing half-written waits in a buffer
        self.end = self.stream.seek(0, os.SEEK_END)
        self.gzip = path.name.endswith(".gz")
        self.writer = WARCWriter(BytesIO(), gzip=False)  # each record is compressed here, at COMPRESS_LEVEL
        self.error: OSError | None = None
        self.write_record(self.writer.create_warcinfo_record(path.name, info))
        if self.error is not None:
            raise self.error

    @staticmethod
    def make_id() -> str:
        """A fresh ``WARC-Record-ID``, to name a response before it is written."""
        from warcio.statusandheaders import StatusAndHeadersParser

        return cast(str, StatusAndHeadersParser.make_warc_id())

    def write_record(self, record: object) -> None:
        """Append one whole record; after a failed write, nothing more (the error is kept for ``target_done``)."""
        self.write_records([record])

    def write_records(self, records: Sequence[object]) -> None:
        """Append whole records, each its own gzip member, in one write; after a failed write, nothing more
        (the error is kept for ``target_done``, and what the write left is cut back to the last whole record)."""
        if self.error is not None:
            return
        data = b"".join(map(self._member, records))
        try:
            _write_all(self.stream, data)
            self.end += len(data)
        except OSError as error:
            self.error = OSError(error.errno, error.strerror or os.strerror(error.errno or errno.EIO), str(self.path))
            self._cut_back()

    def _member(self, record: object) -> bytes:
        """A record as written: one gzip member in a ``.gz`` archive, else its plain bytes."""
        plain = BytesIO()
        self.writer.out = plain
        self.writer.write_record(record)
        return gzip_member(plain.getvalue()) if self.gzip else plain.getvalue()

    def _cut_back(self) -> None:
        """Remove what a failed write left after the last whole record (a full disk still allows this)."""
        try:
            self.stream.truncate(self.end)
        except OSError:
            pass  # the next start cuts it

    def exchange(self, method: str, url: str, request_headers: list[tuple[str, str]],
                 status: int | None = None, reason: str = "", response_headers: Sequence[tuple[str, str]] = (),
                 body: bytes = b"", record_id: str | None = None) -> None:
        """Write a request and, when one came, its response (named ``record_id``)."""
        from warcio.statusandheaders import StatusAndHeaders

        target = url.split("://", 1)[-1]
        path = "/" + target.split("/", 1)[1] if "/" in target else "/"
        request = self.writer.create_warc_record(
            url, "request", payload=BytesIO(b""),
            http_headers=StatusAndHeaders(f"{method} {path} HTTP/1.1", request_headers, is_http_request=True))
        if status is None:
            self.write_record(request)
            return
        headers = [(k, v) for k, v in response_headers if k.lower() not in _DROPPED_HEADERS]
        headers.append(("Content-Length", str(len(body))))
        response = self.writer.create_warc_record(
            url, "response", payload=BytesIO(body), warc_headers_dict={"WARC-Record-ID": record_id or self.make_id()},
            http_headers=StatusAndHeaders(f"{status} {reason}".strip(), headers, protocol="HTTP/1.1"))
        request.rec_headers.add_header("WARC-Concurrent-To", response.rec_headers.get_header("WARC-Record-ID"))
        self.write_record(response)  # a write each: tests/scrapers/test_warc_repair.py holds the archive to it
        self.write_record(request)

    def target_done(self, run: str, key: str, outcome: str, response_ids: list[str],
                    fetched_at: str | None = None) -> None:
        """Record which responses make up a finished target (and when its record says it was fetched),
        and make the archive durable up to here."""
        self.targets_done(run, [(key, outcome, response_ids, fetched_at)])

    def targets_done(self, run: str, targets: Sequence[tuple[str, str, list[str], str | None]]) -> None:
        """``target_done`` of each ``(key, outcome, response ids, fetched_at)``, their records in one write
        and one sync."""
        if self.error is None:
            self.write_records([self._target_record(run, *target) for target in targets])
        if self.error is not None:
            raise self.error
        self.sync()

    def _target_record(self, run: str, key: str, outcome: str, response_ids: list[str],
                       fetched_at: str | None) -> object:
        entry = {"run": run, "target": key, "outcome": outcome, "responses": response_ids, "fetched_at": fetched_at}
        payload = BytesIO(json.dumps(entry).encode())
        return self.writer.create_warc_record(TARGET_PREFIX + key, "metadata", payload=payload,
                                              warc_content_type="application/json")

    def sync(self) -> None:
        """Make what was written durable; a write lost before is raised here."""
        if self.error is not None:
            raise self.error
        os.fsync(self.stream.fileno())

    def close(self) -> None:
        try:
            if self.error is None:
                self.sync()
        finally:
            self.stream.close()


_HALF_WRITTEN_INFO = 4096  # larger than any warcinfo record a job writes


def check_own_archive(path: Path, job: str | None) -> None:
    """``NotOurFile`` unless ``path`` is missing, empty, or this job's archive: a WARC (gzipped or not)
    whose first record is a pubharvest ``warcinfo`` naming ``job`` (or, under 4 KiB, a WARC record cut
    short: the job's first write, killed). So a typo, the output file or a link to another file is never
    truncated by the repair of a damaged tail."""
    if path.is_symlink() and not path.exists():
        raise NotOurFile(f"{path}: a symbolic link to nothing: the job does not write through it")
    if not path.exists() or path.stat().st_size == 0:
        return
    if not path.is_file():
        raise NotOurFile(f"{path}: not a file: it cannot be the job's WARC archive")
    size = path.stat().st_size
    start = _decoded_start(path)
    info = _warcinfo_fields(start)
    if info is not None and info.get("software") == "pubharvest" and info.get("job") == job:
        return
    if info is None and start.startswith(WARC_MAGIC) and size < _HALF_WRITTEN_INFO and not _any_whole(path):
        return
    what = ("a WARC archive of another job or tool" if info is not None or start.startswith(WARC_MAGIC)
            else "not a WARC archive")
    raise NotOurFile(f"{path}: {what}, not this job's archive: refusing to write into it or cut it; "
                     "give the job's warc a file of its own")


def _any_whole(path: Path) -> bool:
    with open(path, "rb") as stream:
        return any(span.records is not None for span in spans(stream))


def _decoded_start(path: Path) -> bytes:
    """The first bytes of the file's first record, decompressed when it is gzip (what can be; b"" if none)."""
    with open(path, "rb") as stream:
        head = stream.read(_CHUNK)
    if not head.startswith(GZIP_MAGIC):
        return head
    try:
        return zlib.decompressobj(wbits=31).decompress(head, _CHUNK)
    except zlib.error:
        return b""


def _warcinfo_fields(data: bytes) -> dict[str, str] | None:
    """The ``name: value`` fields of the whole ``warcinfo`` record ``data`` starts with, or None."""
    head_end = data.find(b"\r\n\r\n")
    if not data.startswith(WARC_MAGIC) or head_end < 0:
        return None
    head = data[:head_end + 2]
    length = _content_length(head)
    if not re.search(rb"\r\nWARC-Type:[ \t]*warcinfo[ \t]*\r\n", head, re.IGNORECASE) or length is None:
        return None
    body = data[head_end + 4:head_end + 4 + length]
    if len(body) < length:
        return None
    fields = (line.split(":", 1) for line in body.decode("utf-8", "replace").splitlines() if ":" in line)
    return {name.strip(): value.strip() for name, value in fields}


def gzip_member(data: bytes) -> bytes:
    """``data`` as one whole gzip member, compressed at ``COMPRESS_LEVEL``.

    >>> zlib.decompress(gzip_member(b"WARC/1.1"), wbits=31)
    b'WARC/1.1'
    """
    compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, 31)
    return compressor.compress(data) + compressor.flush()


def _write_all(stream: BinaryIO, data: bytes) -> None:
    """Write all of ``data`` to an unbuffered stream (which may take it in parts)."""
    view = memoryview(data)
    while view:
        written = stream.write(view)
        if not written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view = view[written:]


def segment_path(path: Path, worker: str) -> Path:
    """The archive segment one shared worker writes: ``NAME-WORKER.warc.gz`` beside ``NAME.warc.gz``.

    >>> segment_path(Path("runs/out.warc.gz"), "host-12-ab").as_posix()
    'runs/out-host-12-ab.warc.gz'
    """
    name, suffix = _split_archive_name(path.name)
    return path.with_name(f"{name}-{worker}{suffix}")


def _split_archive_name(name: str) -> tuple[str, str]:
    for suffix in (".warc.gz", ".warc"):
        if name.lower().endswith(suffix):
            return name[:-len(suffix)], name[-len(suffix):]
    return name, ""


def archive_paths(name: str) -> list[Path]:
    """The files an archive name on the command line stands for: the file itself if it exists, and
    the segments shared workers wrote beside it (``NAME-*.warc.gz``); a glob pattern is expanded.

    >>> archive_paths("/nonexistent/out.warc.gz")
    []
    """
    path = Path(name)
    if any(c in path.name for c in "*?["):
        return sorted(p for p in path.parent.glob(path.name) if p.is_file())
    stem, suffix = _split_archive_name(path.name)
    segments = sorted(path.parent.glob(f"{glob.escape(stem)}-*{suffix}")) if path.parent.is_dir() else []
    return ([path] if path.exists() else []) + [p for p in segments if p.is_file()]


# -- whole records ------------------------------------------------------------------------------

# Ceilings of reading an archive, declared once: a record's decoded size (a job's largest response,
# max_bytes = 32 MiB by default, fits with its headers), a WARC header block, and the whole read's work
# (bytes read plus bytes decoded), which may not pass one record plus MAX_EXPANSION times the file's size:
# a gzip bomb or a file crafted to be scanned again and again stops there, with one line.
MAX_RECORD_BYTES = 64 * 2**20
MAX_HEADER_BYTES = 32 * 2**10
MAX_EXPANSION = 200


class OverBudget(Exception):
    """Reading the archive took more work than its ceiling allows."""


class Work:
    """What reading an archive cost, counted: bytes read from the file and bytes decompressed."""

    def __init__(self, size: int) -> None:
        self.read = self.decoded = 0
        self.budget = MAX_RECORD_BYTES + MAX_EXPANSION * size

    def spend(self, read: int = 0, decoded: int = 0) -> None:
        self.read += read
        self.decoded += decoded
        if self.read + self.decoded > self.budget:
            raise OverBudget()


class _File:
    """Reads of a stream at an offset through one cached block (trying candidate records close together
    reads each stretch once), what is read from the stream counted in ``work``."""

    BLOCK = 4 * _CHUNK

    def __init__(self, stream: BinaryIO, work: Work, size: int) -> None:
        self.stream, self.work, self.size = stream, work, size
        self.block_at, self.block = 0, b""

    def read(self, at: int, count: int) -> bytes:
        count = max(0, min(count, self.size - at))
        if not (self.block_at <= at and at + count <= self.block_at + len(self.block)):
            self.stream.seek(at)
            self.block_at, self.block = at, self.stream.read(max(count, self.BLOCK))
            self.work.spend(read=len(self.block))
        return self.block[at - self.block_at:at - self.block_at + count]

    def peek(self, at: int, count: int) -> bytes:
        """A few bytes far from the cached block, read without replacing it."""
        self.stream.seek(at)
        data = self.stream.read(max(0, min(count, self.size - at)))
        self.work.spend(read=len(data))
        return data


@dataclass(frozen=True)
class Span:
    """A stretch of an archive file: a whole record (its WARC bytes, uncompressed) or damage (``None``,
    with ``why``)."""

    start: int
    end: int
    records: bytes | None
    why: str = "not a whole WARC record (a write cut short)"

    def damage_line(self, name: str | Path) -> str:
        return f"{name}: damaged: bytes {self.start}-{self.end} are {self.why}; skipped, the rest is read"


@dataclass(frozen=True)
class _Tried:
    """What is at an offset: a whole record (``data``), or not, and where its stretch ends when known
    (a gzip member that is whole as gzip but not as WARC, or too large: skip to its end)."""

    data: bytes | None
    end: int | None
    why: str = ""


def spans(stream: BinaryIO, work: Work | None = None) -> Iterator[Span]:
    """The archive in ``stream`` as whole records and the damaged stretches between them, in file order.

    Linear: each byte is scanned for the next record once, and each candidate is tried within the
    ceilings; past the work budget the rest is one damaged span saying so."""
    size = stream.seek(0, os.SEEK_END)
    work = work or Work(size)
    file = _File(stream, work, size)
    gzipped = file.read(0, 2) == GZIP_MAGIC[:2]
    try_at, magic = (_member_at, GZIP_MAGIC) if gzipped else (_plain_record_at, WARC_MAGIC)
    at = 0
    candidates = _Candidates(_File(stream, work, size), magic)  # its own cached block, scanning ahead
    try:
        while at < size:
            tried = try_at(file, at)
            if tried.data is not None and tried.end is not None:
                yield Span(at, tried.end, tried.data)
                at = tried.end
                continue
            if tried.end is not None:  # known where it ends: skip just that
                yield Span(at, tried.end, None, tried.why or "not a whole WARC record")
                at = tried.end
                continue
            resume = size
            for found in candidates.after(at):
                if try_at(file, found).end is not None:
                    resume = found
                    break
            yield Span(at, resume, None, tried.why or "not a whole WARC record (a write cut short)")
            at = resume
    except OverBudget:
        yield Span(at, size, None, f"past the reading ceiling (more than {MAX_EXPANSION} times the file's "
                                   "size decoded or scanned: a decompression bomb or a crafted file); not read")


class _Candidates:
    """The offsets of ``magic`` in the file, found by one forward scan shared by every search."""

    def __init__(self, file: _File, magic: bytes) -> None:
        self.file, self.magic = file, magic
        self.found: list[int] = []
        self.scanned = 0  # every occurrence starting before this is in ``found``

    def after(self, start: int) -> Iterator[int]:
        """Each offset of ``magic`` after ``start``, in order."""
        index = bisect.bisect_right(self.found, start)
        while True:
            while index < len(self.found):
                yield self.found[index]
                index += 1
            if self.scanned >= self.file.size:
                return
            self._scan_more(max(self.scanned, start + 1))

    def _scan_more(self, begin: int) -> None:
        window = self.file.read(begin, _CHUNK + len(self.magic) - 1)
        at = window.find(self.magic)
        while at >= 0:
            if begin + at >= self.scanned and (not self.found or begin + at > self.found[-1]):
                self.found.append(begin + at)
            at = window.find(self.magic, at + 1)
        self.scanned = begin + max(len(window) - len(self.magic) + 1, 1)


def _member_at(file: _File, start: int) -> _Tried:
    """The WARC bytes of the gzip member at ``start``, if it is whole: its decoded size within
    ``MAX_RECORD_BYTES``, its first bytes a WARC record's. A member that is whole as gzip but not whole
    WARC records is skipped to its end; one that decodes past the ceiling is not decoded further."""
    if not _gzip_header_at(file, start):
        return _Tried(None, None)
    inflater = zlib.decompressobj(wbits=31)  # gzip: checks the CRC and length trailer
    data = bytearray()
    at, step = start, 64  # a false start fails in its first bytes: read more only as the member goes on
    while not inflater.eof:
        chunk = inflater.unconsumed_tail or file.read(at, step)
        step = min(step * 4, _CHUNK)
        if not inflater.unconsumed_tail:
            at += len(chunk)
        if not chunk:
            return _Tried(None, None)
        try:
            out = inflater.decompress(chunk, _CHUNK)
        except zlib.error:
            return _Tried(None, None)
        file.work.spend(decoded=len(out))
        data += out
        if len(data) < len(WARC_MAGIC) and at - start > _FIELD_LIMIT * 4:
            return _Tried(None, None)  # no record begins within its first bytes
        if len(data) >= len(WARC_MAGIC) and not data.startswith(WARC_MAGIC):
            return _Tried(None, None)  # not a WARC record's member: look no further
        if len(data) > MAX_RECORD_BYTES:  # a bomb, or a record no job writes: not decoded further
            return _Tried(None, None, f"a record larger than {MAX_RECORD_BYTES} bytes decoded (the ceiling of "
                                      "one record)")
    end = at - len(inflater.unused_data)  # (at the end, unconsumed_tail holds the same bytes)
    if not data.startswith(WARC_MAGIC):
        return _Tried(None, None)
    whole = bytes(data)
    return _Tried(whole, end) if _whole_records(whole) else _Tried(None, end, "not whole WARC records (a bad header "
                                                                           "or Content-Length)")


_FIELD_LIMIT = 1024  # a gzip header's extra field, file name or comment: longer is no archive's member


def _gzip_header_at(file: _File, start: int) -> bool:
    """Whether a gzip member's header (RFC 1952) starts at ``start``, its optional fields short: a check
    in a few bytes, so that a stretch full of the magic bytes is not handed to zlib at each one."""
    head = file.read(start, 10)
    if len(head) < 10 or not head.startswith(GZIP_MAGIC) or head[3] & 0xE0:
        return False
    flags, at = head[3], start + 10
    if flags & 0x04:  # FEXTRA: two bytes of length, then the field
        extra = int.from_bytes(file.read(at, 2), "little")
        if extra > _FIELD_LIMIT:
            return False
        at += 2 + extra
    for flag in (0x08, 0x10):  # FNAME, FCOMMENT: zero-terminated
        if flags & flag:
            end = file.read(at, _FIELD_LIMIT).find(b"\0")
            if end < 0:
                return False
            at += end + 1
    return True


def _plain_record_at(file: _File, start: int) -> _Tried:
    """The uncompressed WARC record at ``start`` and where it ends, if it is whole: its header within
    ``MAX_HEADER_BYTES``, ``\\r\\n\\r\\n`` where its ``Content-Length`` says (checked before its content
    is read), its size within ``MAX_RECORD_BYTES``."""
    head = file.read(start, 2048)
    if not head.startswith(WARC_MAGIC):
        return _Tried(None, None)
    if b"\r\n\r\n" not in head:
        head = file.read(start, MAX_HEADER_BYTES + 4)
    head_end = head.find(b"\r\n\r\n")
    length = _content_length(head[:head_end + 2]) if head_end > 0 else None
    if length is None or not _names_mandatory_fields(head[:head_end]):
        return _Tried(None, None)
    end = start + head_end + 4 + length + 4
    if end > file.size or file.peek(end - 4, 4) != b"\r\n\r\n":
        return _Tried(None, None)
    if end - start > MAX_RECORD_BYTES:
        return _Tried(None, end, f"a record larger than {MAX_RECORD_BYTES} bytes (the ceiling of one record)")
    data = file.read(start, end - start)
    return _Tried(data, end) if _whole_records(data) else _Tried(None, None)


_MANDATORY = (b"\r\nwarc-type:", b"\r\nwarc-record-id:", b"\r\nwarc-date:")


def _names_mandatory_fields(head: bytes) -> bool:
    """Whether a plain record's header has the fields every WARC record has (WARC 1.1, section 5), so that
    a stretch of bare ``WARC/1.1`` lines with a ``Content-Length`` is not taken for a record that swallows
    the real ones after it."""
    lowered = head.lower()
    return all(field in lowered for field in _MANDATORY)


def _whole_records(data: bytes) -> bool:
    """Whether ``data`` is one or more whole WARC records, end to end, each header within ``MAX_HEADER_BYTES``.

    >>> _whole_records(b"WARC/1.1\\r\\nContent-Length: 2\\r\\n\\r\\nhi\\r\\n\\r\\n")
    True
    >>> _whole_records(b"WARC/1.1\\r\\nContent-Length: 3\\r\\n\\r\\nhi\\r\\n\\r\\n")
    False
    """
    at = 0
    while at < len(data):
        head_end = data.find(b"\r\n\r\n", at, at + MAX_HEADER_BYTES + 4)
        length = _content_length(data[at:head_end + 2]) if data.startswith(WARC_MAGIC, at) and head_end > 0 else None
        if length is None:
            return False
        at = head_end + 4 + length
        if data[at:at + 4] != b"\r\n\r\n":
            return False
        at += 4
    return at > 0


def _content_length(head: bytes) -> int | None:
    match = _CONTENT_LENGTH.search(head)
    return int(match[1]) if match and len(match[1]) <= 12 else None


def cut_damaged_tail(path: Path) -> int:
    """Cut the file back to the end of its last whole record (what a kill or a full disk left after it
    goes), so that records appended next stay readable; how many bytes were cut."""
    if not path.exists():
        return 0
    with open(path, "r+b") as stream:
        size = stream.seek(0, os.SEEK_END)
        good = max((span.end for span in spans(stream) if span.records is not None), default=0)
        if good < size:
            stream.truncate(good)
    return size - good


# -- reading ------------------------------------------------------------------------------------

@dataclass
class ArchivedPage:
    record_id: str
    url: str
    status: int
    body: bytes
    content_type: str | None = None  # its Content-Type header, whose charset outranks the page's own


@dataclass
class ArchivedTarget:
    """A finished target as the archive holds it: its run, its key and its page responses' ids, in order."""

    run: str
    key: str
    outcome: str
    responses: list[str]
    where: Path
    fetched_at: str | None = None


def _ignore(line: str) -> None:
    return None


class _Headers(Protocol):
    def get_header(self, name: str) -> str | None: ...


class _HttpHeaders(Protocol):
    def get_statuscode(self) -> str | None: ...

    def get_header(self, name: str) -> str | None: ...


class _Reader(Protocol):
    def read(self) -> bytes: ...


class _WarcRecord(Protocol):
    """What is read of a warcio record (warcio has no type hints)."""

    rec_type: str
    rec_headers: _Headers
    http_headers: _HttpHeaders | None

    def content_stream(self) -> _Reader: ...


@dataclass(frozen=True)
class _Entry:
    """What is read of one WARC record (its body read whole: within ``MAX_RECORD_BYTES``)."""

    kind: str
    record_id: str
    uri: str
    status: int | None  # a response's HTTP status; None for other records or one that is no number
    body: bytes
    content_type: str | None = None  # a response's Content-Type header
    date: str | None = None  # WARC-Date: when the response was captured


def _entries(data: bytes) -> list[_Entry]:
    """The WARC records in ``data`` (whole records, as ``spans`` gives them), read by warcio."""
    from warcio.archiveiterator import ArchiveIterator

    entries = []
    for record in ArchiveIterator(BytesIO(data)):
        headers = cast(_WarcRecord, record).rec_headers
        http = cast(_WarcRecord, record).http_headers
        status = http.get_statuscode() if http is not None else None
        entries.append(_Entry(record.rec_type, headers.get_header("WARC-Record-ID") or "",
                              headers.get_header("WARC-Target-URI") or "",
                              int(status) if status and status.isascii() and status.isdigit() else None,
                              record.content_stream().read(),
                              http.get_header("Content-Type") if http is not None else None,
                              headers.get_header("WARC-Date")))
    return entries


def _records(path: Path, on_damage: Callable[[str], None]) -> Iterator[tuple[int, _Entry]]:
    """``(offset, record)`` for every whole record of the file; each damaged stretch is one line, and so is
    a whole one that warcio cannot read (then skipped too)."""
    with open(path, "rb") as stream:
        for span in spans(stream):
            if span.records is None:
                on_damage(span.damage_line(path))
                continue
            try:
                entries = _entries(span.records)
            except Exception as error:  # warcio raises many kinds on odd headers
                on_damage(Span(span.start, span.end, None, f"WARC records warcio cannot read ({type(error).__name__}: "
                                                           f"{_first_line(error)})").damage_line(path))
                continue
            for entry in entries:
                yield span.start, entry


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else ""


def _target_entry(entry: _Entry, path: Path) -> ArchivedTarget | None:
    """The finished target a metadata record names, or None when its JSON is not one."""
    try:
        data = json.loads(entry.body)
        target = ArchivedTarget(str(data["run"]), str(data["target"]), str(data["outcome"]),
                                [str(i) for i in data["responses"]], path, data.get("fetched_at"))
    except (ValueError, KeyError, TypeError):
        return None
    return target


class _Index:
    """Where the responses and finished targets of pubharvest archives (a job's segments) are."""

    def __init__(self) -> None:
        self.responses: dict[str, tuple[Path, int]] = {}
        self.targets: dict[tuple[str, str], ArchivedTarget] = {}

    def add(self, path: Path, on_damage: Callable[[str], None]) -> bool | None:
        """Index the archive at ``path``; whether pubharvest wrote it (None: it holds no whole record)."""
        ours, whole = False, False
        for offset, entry in _records(path, on_damage):
            whole = True
            if entry.kind == "warcinfo":
                ours = ours or b"pubharvest" in entry.body
            elif entry.kind == "response":
                self.responses[entry.record_id] = (path, offset)
            elif entry.kind == "metadata" and entry.uri.startswith(TARGET_PREFIX):
                target = _target_entry(entry, path)
                if target is None:
                    on_damage(f"{path}: damaged: the record of {entry.uri} at byte {offset} is not a target's "
                              "JSON; skipped, the rest is read")
                    continue
                self.targets.pop((target.run, target.key), None)  # the last write of each run and target
                self.targets[(target.run, target.key)] = target
        return ours if whole else None

    def results(self) -> Iterator[tuple[str, object]]:
        from pubharvest.errors import ParseError, Truncated
        from pubharvest.parsers import parse
        from pubharvest.parsers.page import header_charset

        for target in self.targets.values():
            name = f"{target.where}#{target.key}"
            missing = [i for i in target.responses if i not in self.responses]
            site = sites.SITES.get(target.key.split(":", 1)[0])
            if missing or site is None:
                yield name, Truncated(f"{len(missing)} of the target's {len(target.responses)} page(s) are not in "
                                      "the archive (damaged, or in a segment not given)" if missing else
                                      "the target names no site pubharvest knows")
                continue
            try:
                pages = [self.page(i) for i in target.responses]
                record = site.merge([parse(p.body, url=p.url, charset=header_charset(p.content_type)) for p in pages])
                yield name, stamped(record, target.run, target.fetched_at)
            except ParseError as error:
                yield name, error
            except Exception as error:  # one target's pages, whatever they do: its own line, the rest read
                yield name, ParseError(f"{type(error).__name__}: {_first_line(error)}")

    def page(self, record_id: str) -> ArchivedPage:
        path, offset = self.responses[record_id]
        with open(path, "rb") as stream:
            size = stream.seek(0, os.SEEK_END)
            file = _File(stream, Work(size), size)
            read_at = _member_at if file.read(offset, 2) == GZIP_MAGIC[:2] else _plain_record_at
            data = read_at(file, offset).data
        page = next((p for p in map(_page, _entries(data or b"")) if p is not None and p.record_id == record_id), None)
        if page is None:
            raise OSError(f"the response {record_id} is no longer whole in {path}")
        return page


def _page(entry: _Entry) -> ArchivedPage | None:
    if entry.kind != "response" or entry.status is None:
        return None
    return ArchivedPage(entry.record_id, entry.uri, entry.status, entry.body, entry.content_type)


def stamped(result: PageResult, run: str, fetched_at: str | None) -> PageResult:
    """``result`` with the job run and fetch time the job gave it (an archive of an older version has no time)."""
    if result.source is not None and fetched_at is not None:
        result.source = msgspec.structs.replace(result.source, run=run, fetched_at=fetched_at)
    return result


def _foreign_results(path: Path) -> Iterator[tuple[str, object]]:
    """One record per successful page of another tool's archive (robots.txt aside)."""
    from pubharvest.parsers import ParseError, parse
    from pubharvest.parsers.page import header_charset

    for _, entry in _records(path, _ignore):
        page = _page(entry)
        if page is not None and page.status == 200 and not page.url.endswith("/robots.txt"):
            try:
                result = parse(page.body, url=page.url, charset=header_charset(page.content_type))
                if result.source is not None and entry.date:  # when the other tool captured it
                    result.source = msgspec.structs.replace(result.source, fetched_at=entry.date)
                yield page.url, result
            except ParseError as error:
                yield page.url, error
            except Exception as error:  # one page, whatever it does: its own line, the rest read
                yield page.url, ParseError(f"{type(error).__name__}: {_first_line(error)}")


def archive_results(paths: str | Path | Iterable[str | Path],
                    on_damage: Callable[[str], None] = _ignore) -> Iterator[tuple[str, object]]:
    """``(name, PageResult or ParseError)`` for the records in one archive or several read together
    (the segments of a shared run), as the job that wrote them gave them.

    A pubharvest archive gives one record per finished target, rebuilt from the responses its
    metadata names, wherever among ``paths`` they are (read one target at a time, by offset);
    another tool's archive gives one record per successful response that is not robots.txt.
    A damaged stretch is skipped and told to ``on_damage`` in one line.
    """
    files = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    index = _Index()
    for path in files:
        damage: list[str] = []
        ours = index.add(path, damage.append)
        if ours is None:
            size = path.stat().st_size
            yield str(path), OSError(f"not a readable WARC archive (no whole record in its {size} bytes)")
            continue
        for line in damage:
            on_damage(line)
        if not ours:
            yield from _foreign_results(path)
    yield from index.results()
