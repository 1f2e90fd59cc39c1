"""One large file of records (JSON Lines, as ``parse -f jsonl``, the scrapers and the store write them) read
for ``metrics`` in worker processes, a part of the file each at a time: each line decoded and checked as
``recordfiles.page_results`` checks it, and the figures of its page as a person of its own worked out beside
it (``measure.person_alone``). A worker sends each page back without its rows when grouping the pages into
people does not read them (``measure.rows_tell_whose``), with its figures and where the line is; the parent
groups the pages as ``metrics`` always does and takes the figures worked out for each person of one page,
reading from the file again the rows of the pages that grouping or a person of several pages needs
(``Known.whole``). Neither the file nor all its records are ever held at once.

Only a file every line of which is its record's own encoding is read so: at the first line that is not (not
JSON, not a record, a field out of the schema's bounds, a key given twice, an escaped lone surrogate, a blank
line), and when a worker fails in any way, ``read`` gives None and the caller reads the file as any input,
which refuses it with its one line, or reads it.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Generator, Iterable
from typing import NamedTuple

import msgspec

from pubharvest.parsers.records import PageResult
from pubharvest.parsers.text import paused_gc

from ..recordfiles import line_record
from .measure import By, Known, person_alone, rows_tell_whose
from .model import PersonMetrics

__all__ = ["read", "PARALLEL_BYTES", "PART_BYTES"]

PARALLEL_BYTES = 64 << 20  # a file of records at least this large is read in worker processes
PART_BYTES = 16 << 20  # what a worker reads at a time: the file is cut into parts about this long, at line ends
RECORD_START = b'{"site":'  # how every record's own encoding begins (``PageResult``'s first field)
Pages = list[tuple[str, PageResult]]


class _Task(NamedTuple):
    """A part of the file for a worker: the bytes ``start`` to ``end`` (whole lines) of ``path``, input ``name``."""

    path: str
    name: str
    start: int
    end: int
    by: By
    at: str | None


class _Part(msgspec.Struct, array_like=True):
    """What a worker sends back for its part of the file, a line each: the page (without its rows where
    ``rowless``), where the line is (its offset and length), and its figures as a person of its own."""

    pages: list[PageResult]
    rowless: list[bool]
    spans: list[tuple[int, int]]
    alone: list[PersonMetrics | None]


def read(path: str, name: str, by: By, at: str | None, max_bytes: int) -> tuple[Pages, Known] | None:
    """The pages of the file at ``path`` (input ``name``) with what the workers worked out of them, when it is
    at least ``PARALLEL_BYTES``, within ``max_bytes`` and every line of it its record's own encoding; else None."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as file:
            opening = file.read(len(RECORD_START))
    except OSError:
        return None
    if not PARALLEL_BYTES <= size <= max_bytes or opening != RECORD_START:
        return None
    import multiprocessing  # here, not at import: a small file is read without it (7 ms with concurrent.futures)

    # Workers are forked, so that they start at once with everything imported (where there is no fork, as
    # on Windows, the file is read in one process)
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    tasks = [_Task(path, name, start, end, by, at) for start, end in _parts(path, size)]
    known = _Read(path)
    pages: Pages = []
    decoder = msgspec.msgpack.Decoder(_Part)
    with contextlib.closing(_in_workers(tasks)) as blobs:
        for blob in blobs:
            if blob is None:
                return None
            part = decoder.decode(blob)
            for result, rowless, span, alone in zip(part.pages, part.rowless, part.spans, part.alone, strict=True):
                known.add(result, rowless, span, alone)
                pages.append((name, result))
    return pages, known


def _parts(path: str, size: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each part of the file: about ``PART_BYTES`` each, each ending after a line's end."""
    ends: list[int] = []
    with open(path, "rb") as file:
        while not ends or ends[-1] < size:
            file.seek(min(size, (ends[-1] if ends else 0) + PART_BYTES))
            rest = file.readline()
            ends.append(min(size, file.tell() if rest else size))
    return list(zip([0, *ends[:-1]], ends, strict=True))


def _in_workers(tasks: list[_Task]) -> Generator[bytes | None, None, None]:
    """Each task's part as the worker encoded it, in order; None for a part that is not all records as
    written, or when a worker failed (then the rest is not read)."""
    import concurrent.futures
    import multiprocessing

    workers = max(1, min(len(tasks), _cpus()))
    executor = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        for blob in executor.map(_read_part, tasks):
            yield blob or None
            if not blob:
                return
    except Exception:  # a worker that died or raised: the caller reads the file as any input, which names what is wrong
        yield None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def _cpus() -> int:
    """The CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _read_part(task: _Task) -> bytes:
    """The worker's reading of its part: a ``_Part``, encoded; empty at the first line that is not its
    record's own encoding. The part is mapped, not read, and each line copied out of the page cache as it
    comes (reading 16 MiB and splitting it into lines cost ten times as much, most of it in page faults)."""
    skip = task.start % mmap.ALLOCATIONGRANULARITY  # a mapping starts at a multiple of it
    with open(task.path, "rb") as file, mmap.mmap(file.fileno(), task.end - task.start + skip,
                                                  offset=task.start - skip, access=mmap.ACCESS_READ) as data:
        with paused_gc():
            return _part(data, skip, task)


def _part(data: mmap.mmap, at: int, task: _Task) -> bytes:
    """``_read_part`` of the lines of ``data`` from ``at`` on."""
    part = _Part(pages=[], rowless=[], spans=[], alone=[])
    offset = task.start - at  # of ``data`` in the file
    while at < len(data):
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        result = line_record(data[at:end])
        if result is None:
            return b""
        found = person_alone(task.name, result, task.by, task.at)
        rowless = not rows_tell_whose(result)
        if rowless:
            result.publications = []
        part.pages.append(result)
        part.rowless.append(rowless)
        part.spans.append((offset + at, end - at))
        part.alone.append(found)
        at = end + 1
    return msgspec.msgpack.encode(part)


class _Read(Known):
    """What the workers worked out: each page's figures as a person of its own, and where its line is, to
    read its rows again when they are wanted."""

    def __init__(self, path: str) -> None:
        self.path = path
        # by ``id`` of the page result, beside it: a page made whole is another object
        self.figures: dict[int, tuple[PageResult, PersonMetrics]] = {}
        self.spans: dict[int, tuple[int, int]] = {}  # of the pages sent without their rows

    def add(self, result: PageResult, rowless: bool, span: tuple[int, int], alone: PersonMetrics | None) -> None:
        if alone is not None:
            self.figures[id(result)] = (result, alone)
        if rowless:
            self.spans[id(result)] = span

    @property
    def rowless(self) -> bool:
        return bool(self.spans)

    def alone(self, result: PageResult) -> PersonMetrics | None:
        page, found = self.figures.get(id(result), (None, None))
        return found if page is result else None

    def whole(self, pages: list[tuple[str | None, PageResult]], indexes: Iterable[int]) -> None:
        wanted = [i for i in indexes if id(pages[i][1]) in self.spans]
        if not wanted:
            return
        decoder = msgspec.json.Decoder(PageResult)
        with open(self.path, "rb") as file:
            for i in wanted:
                offset, length = self.spans.pop(id(pages[i][1]))
                file.seek(offset)
                pages[i] = (pages[i][0], decoder.decode(file.read(length)))
