"""Writing page results as JSON, JSON Lines or CSV, to stdout or atomically to a file.

>>> neutralise("=HYPERLINK(1)"), neutralise("-5"), neutralise("Nature")
("'=HYPERLINK(1)", "'-5", 'Nature')
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from parsers.records import PageResult, Publication, to_json

CSV_COLUMNS = (
    "site", "page", "profile_name", "title", "authors", "authors_truncated", "venue", "venue_truncated",
    "year", "date", "type", "citations", "scholar_id", "arxiv", "doi", "isbn", "report_number",
    "patent_number", "msr_id", "elamur_id", "url", "publisher", "flags",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class JsonWriter:
    """A JSON array of page results, written as they come."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.count = stream, 0

    def write(self, result: PageResult) -> None:
        self.stream.write(("[\n" if self.count == 0 else ",\n") + to_json(result).decode())
        self.count += 1

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")


class JsonLinesWriter:
    """One page result per line."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, result: PageResult) -> None:
        self.stream.write(to_json(result).decode() + "\n")

    def close(self) -> None:
        pass


class CsvWriter:
    """One row per publication, with the profile name and site on each row; safe for spreadsheets."""

    def __init__(self, stream: IO[str]) -> None:
        self.writer = csv.writer(stream, lineterminator="\n")
        self.writer.writerow(CSV_COLUMNS)

    def write(self, result: PageResult) -> None:
        name = result.profile.name if result.profile else None
        for pub in result.publications:
            self.writer.writerow([neutralise(v) for v in csv_row(result, name, pub)])

    def close(self) -> None:
        pass


def csv_row(result: PageResult, name: str | None, pub: Publication) -> list[Any]:
    """The CSV cells of one publication, in ``CSV_COLUMNS`` order."""
    ids = pub.ids
    return [
        result.site, result.page, name, pub.title, "; ".join(pub.authors), pub.authors_truncated,
        pub.venue, pub.venue_truncated, pub.year, pub.date, pub.type, pub.citations, ids.scholar,
        ids.arxiv, ids.doi, ids.isbn, ids.report_number, ids.patent_number, ids.msr, ids.elamur,
        pub.url, pub.publisher, " ".join(pub.flags),
    ]


def neutralise(value: Any) -> Any:
    """A cell a spreadsheet will not run as a formula: text starting with = + - @ gets a leading '."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


WRITERS = {"json": JsonWriter, "jsonl": JsonLinesWriter, "csv": CsvWriter}


@contextlib.contextmanager
def open_output(fmt: str, path: str | None) -> Iterator[JsonWriter | JsonLinesWriter | CsvWriter]:
    """A writer for ``fmt`` on stdout, or on a temporary file renamed over ``path`` once complete.

    If writing fails or is interrupted, ``path`` keeps its old content.
    """
    if path is None:
        writer = WRITERS[fmt](sys.stdout)
        yield writer
        writer.close()
        sys.stdout.flush()
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with io.open(fd, "w", encoding="utf-8", newline="") as stream:
            writer = WRITERS[fmt](stream)
            yield writer
            writer.close()
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
