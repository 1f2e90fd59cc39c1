"""Writing page results (or merged records) as JSON, JSON Lines, CSV, BibTeX or CSL-JSON, to stdout
or atomically to a file.

>>> neutralise("=HYPERLINK(1)"), neutralise("-5"), neutralise("Nature")
("'=HYPERLINK(1)", "'-5", 'Nature')
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pubharvest.parsers.records import PageResult, Publication, to_json

from .bibtex import bibtex_entry
from .citable import Citable
from .csl import csl_item
from .keys import Keys
from .merge import MergeResult, Paper

CSV_COLUMNS = (
    "site", "page", "profile_name", "title", "authors", "authors_truncated", "venue", "venue_truncated",
    "year", "date", "type", "citations", "scholar_id", "arxiv", "doi", "isbn", "report_number",
    "patent_number", "msr_id", "elamur_id", "url", "publisher", "flags",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _JsonArray:
    """A JSON array written item by item, so that nothing is held in memory."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.count = stream, 0

    def append(self, item: str) -> None:
        self.stream.write(("[\n" if self.count == 0 else ",\n") + item)
        self.count += 1

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")


class JsonWriter(_JsonArray):
    """A JSON array of page results, written as they come."""

    def write(self, result: PageResult) -> None:
        self.append(to_json(result).decode())


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


def citables(result: PageResult | MergeResult) -> list[Publication] | list[Paper]:
    """The papers of a page result or of a merge: what the BibTeX and CSL-JSON writers export."""
    return result.papers if isinstance(result, MergeResult) else result.publications


class BibtexWriter:
    """One BibTeX entry per publication (or merged paper), keys unique across the whole output."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.keys = stream, Keys()

    def write(self, result: PageResult | MergeResult) -> None:
        for pub in citables(result):
            self.stream.write(bibtex_entry(pub, self.keys.key(pub)) + "\n\n")

    def close(self) -> None:
        pass


class CslJsonWriter(_JsonArray):
    """A JSON array of CSL-JSON items, one per publication (or merged paper), ids unique."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self.keys = Keys()

    def write(self, result: PageResult | MergeResult) -> None:
        for pub in citables(result):
            self.write_item(pub)

    def write_item(self, pub: Citable) -> None:
        self.append(json.dumps(csl_item(pub, self.keys.key(pub)), ensure_ascii=False))


class MergedJsonWriter:
    """The merge as one JSON object: ``{"profiles": [...], "papers": [...]}``."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, merged: MergeResult) -> None:
        self.stream.write(to_json(merged).decode() + "\n")

    def close(self) -> None:
        pass


class MergedJsonLinesWriter(MergedJsonWriter):
    """One merged paper per line (the profiles are in the JSON form only)."""

    def write(self, merged: MergeResult) -> None:
        for paper in merged.papers:
            self.stream.write(to_json(paper).decode() + "\n")


MERGED_CSV_COLUMNS = (
    "key", "title", "authors", "authors_truncated", "venue", "venue_truncated", "year", "date", "type",
    "citations_max", "citations_scholar", "citations_msr", "citations_elamur", "sites", "matched_by",
    "arxiv", "doi", "isbn", "report_number", "patent_number", "url", "publisher",
)


class MergedCsvWriter:
    """One row per merged paper, each site's citation count in its own column; spreadsheet-safe."""

    def __init__(self, stream: IO[str]) -> None:
        self.writer = csv.writer(stream, lineterminator="\n")
        self.writer.writerow(MERGED_CSV_COLUMNS)

    def write(self, merged: MergeResult) -> None:
        for paper in merged.papers:
            self.writer.writerow([neutralise(v) for v in merged_csv_row(paper)])

    def close(self) -> None:
        pass


def merged_csv_row(paper: Paper) -> list[Any]:
    """The CSV cells of one merged paper, in ``MERGED_CSV_COLUMNS`` order."""
    ids = paper.ids
    return [
        paper.key, paper.title, "; ".join(paper.authors), paper.authors_truncated, paper.venue,
        paper.venue_truncated, paper.year, paper.date, paper.type, paper.citations_max,
        *(site_citations(paper, site) for site in ("scholar", "msr", "elamur")),
        " ".join(s.site for s in paper.sources), " ".join(sorted({m.reason for m in paper.matched_by})),
        ids.arxiv, ids.doi, ids.isbn, ids.report_number, ids.patent_number, paper.url, paper.publisher,
    ]


def site_citations(paper: Paper, site: str) -> int | None:
    """The highest citation count the sources of one site give for ``paper``."""
    return max((s.citations for s in paper.sources if s.site == site and s.citations is not None), default=None)


WRITERS = {"json": JsonWriter, "jsonl": JsonLinesWriter, "csv": CsvWriter, "bibtex": BibtexWriter,
           "csl-json": CslJsonWriter}
MERGED_WRITERS = {"json": MergedJsonWriter, "jsonl": MergedJsonLinesWriter, "csv": MergedCsvWriter,
                  "bibtex": BibtexWriter, "csl-json": CslJsonWriter}


@contextlib.contextmanager
def open_output(fmt: str, path: str | None, writers: dict[str, type] = WRITERS) -> Iterator[Any]:
    """A writer for ``fmt`` (one of ``writers``: page results by default, ``MERGED_WRITERS`` for a
    merge) on stdout, or on a temporary file renamed over ``path`` once complete.

    If writing fails or is interrupted, ``path`` keeps its old content.
    """
    if path is None:
        writer = writers[fmt](sys.stdout)
        yield writer
        writer.close()
        sys.stdout.flush()
        return
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with io.open(fd, "w", encoding="utf-8", newline="") as stream:
            writer = writers[fmt](stream)
            yield writer
            writer.close()
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
