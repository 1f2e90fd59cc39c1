"""The inputs of ``parse`` and ``merge``: files, folders and stdin, read within a size ceiling, and the
page results in each.

Reading is bounded: a file or stdin is read a chunk at a time and gzip is decompressed a bounded step at a
time, so that an input past the ceiling (``MAX_INPUT_BYTES`` unless the caller says) stops there with
``TooLarge``, having held no more than that. Every problem with one input is raised when that input is
read (``iter_inputs`` yields a name and a reader for each), so that a caller reports it on one line
and goes on with the next.

``read_results`` gives the page results of any input ``merge`` reads: a saved page (parsed), or records
pubharvest wrote (a JSON array or object of ``PageResult`` from ``parse``, JSON Lines from
``parse -f jsonl``, the scraper or the store), perhaps gzipped.

>>> [r.site for r in read_results(b'{"site": "msr", "page": "publication_list"}')]
['msr']
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from pubharvest.errors import (
    MAX_INPUT_BYTES,
    ParseError,
    PubharvestError,
    TooLarge,
    Unreadable,
)
from pubharvest.parsers import parse
from pubharvest.parsers.page import gunzip
from pubharvest.parsers.records import PageResult
from pubharvest.recordfiles import as_utf8, page_results

# Suffixes read when walking a folder; a file named on the command line is always read.
PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".mhtml", ".mht", ".webarchive", ".md", ".markdown", ".txt", ".json", ".gz",
                 ".warc"}
CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
# One input: its name (as printed in ``path: code: message`` lines) and what reads its bytes.
Input = tuple[str, Callable[[], bytes]]


def read_stream(stream: BinaryIO, limit: int = MAX_INPUT_BYTES) -> bytes:
    """All of ``stream``, gunzipped when it is gzip, read a chunk at a time; ``TooLarge`` past ``limit``.

    >>> import gzip, io
    >>> read_stream(io.BytesIO(gzip.compress(b"<html>")))
    b'<html>'
    >>> read_stream(io.BytesIO(bytes(11)), limit=10)
    Traceback (most recent call last):
    pubharvest.errors.TooLarge: too_large: the input is larger than 10 bytes
    """
    chunks = iter(functools.partial(stream.read, CHUNK), b"")
    first = next(chunks, b"")
    if first[:2] == GZIP_MAGIC:
        return gunzip(itertools.chain([first], chunks), limit)
    return _bounded(itertools.chain([first], chunks), limit)


def _bounded(chunks: Iterable[bytes], limit: int) -> bytes:
    """The chunks joined, stopping at the first that takes them past ``limit`` bytes."""
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > limit:
            raise TooLarge(f"the input is larger than {limit} bytes")
    return bytes(data)


def read_file(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the file at ``path`` (gunzipped when gzip), within ``limit``; see ``read_stream``."""
    with open(path, "rb") as stream:
        return read_stream(stream, limit)


def iter_inputs(paths: Sequence[str], limit: int = MAX_INPUT_BYTES) -> Iterator[Input]:
    """``(name, read)`` for every input, in command-line order: ``-`` is stdin, folders are walked in
    sorted order (hidden entries and files that are not pages skipped, symbolic links to folders not
    followed). A path that cannot be read, file or folder, is an input whose ``read`` raises.
    """
    for raw in paths:
        if raw == "-":
            yield "<stdin>", functools.partial(read_stream, sys.stdin.buffer, limit)
        elif os.path.isdir(raw):
            yield from _folder_inputs(Path(raw), limit)
        else:  # missing, or in a folder that cannot be searched: ``read`` says so
            yield raw, functools.partial(read_file, raw, limit)


def _folder_inputs(folder: Path, limit: int) -> Iterator[Input]:
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError as error:
        yield str(folder), functools.partial(_raise, error)
        return
    for entry in entries:
        path = folder / entry.name
        try:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                yield from _folder_inputs(path, limit)
            elif entry.is_file() and _is_page_file(path, limit):
                yield str(path), functools.partial(read_file, path, limit)
        except OSError as error:
            yield str(path), functools.partial(_raise, error)


def _raise(error: BaseException) -> bytes:
    raise error


def _is_page_file(path: Path, limit: int) -> bool:
    """Whether a file found in a folder is a page to parse (records we wrote ourselves are not)."""
    suffix = path.suffix.lower()
    return suffix in PAGE_SUFFIXES and (suffix != ".json" or not _is_records_file(path, limit))


def _is_records_file(path: Path, limit: int) -> bool:
    """A JSON file of pubharvest records (page results, a merge, or a fixture's expected outcome)
    rather than a page. One that cannot be read or decoded is not: reading it as a page reports why."""
    import json

    try:
        data = json.loads(as_utf8(read_file(path, limit)))
    except (ValueError, RecursionError, OSError, ParseError):
        return False
    items = data if isinstance(data, list) else [data]
    return all(isinstance(i, dict) and ({"site", "page"} <= i.keys() or "error" in i
                                        or {"profiles", "papers"} <= i.keys()) for i in items)


def input_error(error: Exception) -> PubharvestError:
    """What to report for an input that raised ``error``: a ``PubharvestError`` as it is, an
    ``OSError`` as ``Unreadable``, anything else (a bug, or a resource exhausted) by its type.

    >>> str(input_error(PermissionError(13, "Permission denied")))
    'unreadable: Permission denied'
    >>> input_error(RecursionError("maximum recursion depth exceeded")).message
    'RecursionError: maximum recursion depth exceeded'
    """
    if isinstance(error, PubharvestError):
        return error
    if isinstance(error, OSError):
        return Unreadable(error.strerror or str(error))
    return PubharvestError(f"{type(error).__name__}: {error}")


def read_results(data: bytes, url: str | None = None) -> list[PageResult]:
    """The page results in ``data``: decoded and checked against the schema when they are records
    (``recordfiles.page_results``), else parsed as a page."""
    if data[:2] == GZIP_MAGIC:
        data = gunzip(data)
    records = page_results(data)
    return [parse(data, url=url)] if records is None else records
