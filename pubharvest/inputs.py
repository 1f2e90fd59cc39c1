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
from typing import Any, BinaryIO

import msgspec

from pubharvest.errors import (
    MAX_INPUT_BYTES,
    BadRecords,
    ParseError,
    PubharvestError,
    TooLarge,
    Unreadable,
    Unrecognised,
)
from pubharvest.parsers import parse
from pubharvest.parsers.page import gunzip
from pubharvest.parsers.records import PageResult

# Suffixes read when walking a folder; a file named on the command line is always read.
PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".md", ".markdown", ".txt", ".json", ".gz", ".warc"}
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
        data = json.loads(read_file(path, limit))
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
    """The page results in ``data``: decoded when they are records, else parsed as a page."""
    if data[:2] == GZIP_MAGIC:
        data = gunzip(data)
    if (decoded := _decoded_records(data)) is not None:
        return decoded
    items = _json_records(data)
    if items is None:
        return [parse(data, url=url)]
    try:
        return [msgspec.convert(item, type=PageResult) for item in items]
    except msgspec.ValidationError as error:
        raise BadRecords(f"not valid page results: {error}") from None


@functools.cache
def _decoders() -> tuple[msgspec.json.Decoder[list[PageResult] | PageResult], msgspec.json.Decoder[PageResult]]:
    """Decoders of a JSON document of page results (an array or one) and of one page result a line."""
    return msgspec.json.Decoder(list[PageResult] | PageResult), msgspec.json.Decoder(PageResult)


def _decoded_records(data: bytes) -> list[PageResult] | None:
    """The page results in ``data`` decoded straight into records (no dicts in between: a third of
    the time and memory), or None when ``data`` is anything else, bad records included, which
    ``_json_records`` then reads to say what is wrong."""
    text = data.lstrip()
    if text[:1] not in (b"[", b"{"):
        return None
    document, lines = _decoders()
    try:
        decoded = document.decode(text)
    except msgspec.DecodeError:
        try:
            return lines.decode_lines(text)
        except msgspec.DecodeError:
            return None
    return decoded if isinstance(decoded, list) else [decoded]


def _json_records(data: bytes) -> list[dict[str, Any]] | None:
    """The JSON objects in ``data`` when it is pubharvest records (array, object or lines), else None.
    JSON that no decoder takes (nested too deep, a number too long) is ``BadRecords``."""
    import json  # only to say what is wrong with records (``_decoded_records`` reads good ones)

    text = data.lstrip()
    if text[:1] not in (b"[", b"{"):
        return None
    try:
        items = _json_items(text)
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise BadRecords("JSON nested too deeply to read") from None
    except ValueError as error:  # Python's limit on the digits of an int, for one
        raise BadRecords(f"JSON that cannot be read: {error}") from None
    if items == []:  # what `parse` writes when nothing parsed
        return []
    if all(isinstance(i, dict) and {"site", "page"} <= i.keys() for i in items):
        return items
    if len(items) == 1 and isinstance(items[0], dict) and {"profiles", "papers"} <= items[0].keys():
        raise Unrecognised("the output of `pubharvest merge`: merge reads pages and page results")
    return None


def _json_items(text: bytes) -> list[Any]:
    """The values of a JSON document (an array's items, or the one value) or of JSON Lines."""
    import json

    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return parsed if isinstance(parsed, list) else [parsed]
