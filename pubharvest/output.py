"""Writing page results (or merged records) as JSON, JSON Lines, CSV, BibTeX or CSL-JSON, to stdout
or atomically to a file.

>>> neutralise("=HYPERLINK(1)"), neutralise("-5"), neutralise("Nature")
("'=HYPERLINK(1)", "'-5", 'Nature')
"""

from __future__ import annotations

import abc
import contextlib
import csv
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from operator import attrgetter
from pathlib import Path
from typing import IO, Any, NamedTuple

from pubharvest.parsers.records import PageResult, Publication, PublicationIds, to_json

from .bibtex import bibtex_entry
from .citable import Citable
from .csl import csl_item
from .identifiers import id_value, registered_sites, string_kinds
from .keys import Keys
from .merge import MergeResult, Paper

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# One CSV column: its header, and how to get its cell from what a row is made of.
Column = tuple[str, Callable[[Any], Any]]


class _Writer:
    """Writes to ``stream`` as things come; nothing to finish at the end."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def close(self) -> None:
        """Finish the output (nothing to add here: every write is whole)."""


class _JsonArray(_Writer):
    """A JSON array written item by item, so that nothing is held in memory."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self.count = 0

    def append(self, item: str) -> None:
        self.stream.write(("[\n" if self.count == 0 else ",\n") + item)
        self.count += 1

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")


class JsonWriter(_JsonArray):
    """A JSON array of page results, written as they come."""

    def write(self, result: PageResult) -> None:
        self.append(to_json(result).decode())


class JsonLinesWriter(_Writer):
    """One page result per line."""

    def write(self, result: PageResult) -> None:
        self.stream.write(to_json(result).decode() + "\n")


class _CsvTable(_Writer):
    """CSV whose header row and every row's cells come from one table of ``columns``; spreadsheet-safe."""

    def __init__(self, stream: IO[str], columns: list[Column]) -> None:
        super().__init__(stream)
        self.writer, self.columns = csv.writer(stream, lineterminator="\n"), columns
        self.writer.writerow([header for header, _ in columns])

    def write_row(self, item: Any) -> None:
        self.writer.writerow([neutralise(cell(item)) for _, cell in self.columns])


class PageRow(NamedTuple):
    """What one row of the page CSV is made of: a publication and the page it is on."""

    result: PageResult
    pub: Publication


class CsvWriter(_CsvTable):
    """One row per publication, with the profile name and site on each row (``csv_columns``)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream, csv_columns())

    def write(self, result: PageResult) -> None:
        for pub in result.publications:
            self.write_row(PageRow(result, pub))


def _attributes(*names: str) -> list[Column]:
    """Columns that are attributes of the row's object, headed by their names."""
    return [(name, attrgetter(name)) for name in names]


def _citable_columns() -> list[Column]:
    """The bibliographic columns both CSVs give, from a ``Citable``."""
    return [*_attributes("title"), ("authors", lambda pub: "; ".join(pub.authors)),
            *_attributes("authors_truncated", "venue", "venue_truncated", "year", "date", "type")]


def _id_column(kind: str, header: str) -> Column:
    return header, lambda pub: id_value(pub.ids, kind)


def _of_pub(column: Column) -> Column:
    """A column of a ``Citable`` as a column of a ``PageRow``."""
    header, cell = column
    return header, lambda row: cell(row.pub)


def csv_columns() -> list[Column]:
    """The page CSV, one column a pair ``(header, cell of a PageRow)``. Its identifiers are those of
    ``PublicationIds``, in field order, a site's own as ``<site>_id``, then the registered sites'
    that have no field of their own.

    >>> [header for header, _ in csv_columns()][10:]
    ['type', 'citations', 'scholar_id', 'arxiv', 'doi', 'isbn', 'report_number', 'patent_number', 'msr_id', \
'elamur_id', 'url', 'publisher', 'flags']
    """
    sites = registered_sites()
    pub_columns = [
        *_citable_columns(), *_attributes("citations"),
        *(_id_column(kind, f"{kind}_id" if kind in sites else kind) for kind in string_kinds(PublicationIds)),
        *_attributes("url", "publisher"), ("flags", lambda pub: " ".join(pub.flags)),
    ]
    return [
        ("site", lambda row: row.result.site), ("page", lambda row: row.result.page),
        ("profile_name", lambda row: row.result.profile.name if row.result.profile else None),
        *map(_of_pub, pub_columns),
    ]


def merged_csv_columns() -> list[Column]:
    """The merged CSV, one column a pair ``(header, cell of a Paper)``: each registered site's
    citation count, then the identifiers that are not a site's own.

    >>> [header for header, _ in merged_csv_columns()][9:14]
    ['citations_max', 'citations_scholar', 'citations_msr', 'citations_elamur', 'sites']
    """
    sites = registered_sites()
    return [
        *_attributes("key"), *_citable_columns(), *_attributes("citations_max"),
        *((f"citations_{site}", _site_citations(site)) for site in sites),
        ("sites", lambda paper: " ".join(s.site for s in paper.sources)),
        ("matched_by", lambda paper: " ".join(sorted({m.reason for m in paper.matched_by}))),
        *(_id_column(kind, kind) for kind in string_kinds(PublicationIds) if kind not in sites),
        *_attributes("url", "publisher"),
    ]


def _site_citations(site: str) -> Callable[[Paper], int | None]:
    return lambda paper: site_citations(paper, site)


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


class _CitationWriter(_Writer):
    """One entry per publication (or merged paper), keys unique across everything it writes."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self.keys = Keys()

    def write(self, result: PageResult | MergeResult) -> None:
        for pub in citables(result):
            self.write_item(pub, self.keys.key(pub))

    @abc.abstractmethod
    def write_item(self, pub: Citable, key: str) -> None:
        """Write one entry, under ``key``."""


class BibtexWriter(_CitationWriter):
    """BibTeX entries, separated by blank lines."""

    def write_item(self, pub: Citable, key: str) -> None:
        self.stream.write(bibtex_entry(pub, key) + "\n\n")


class CslJsonWriter(_CitationWriter, _JsonArray):
    """A JSON array of CSL-JSON items."""

    def write_item(self, pub: Citable, key: str) -> None:
        self.append(json.dumps(csl_item(pub, key), ensure_ascii=False))


class MergedJsonWriter(_Writer):
    """The merge as one JSON object: ``{"profiles": [...], "papers": [...]}``."""

    def write(self, merged: MergeResult) -> None:
        self.stream.write(to_json(merged).decode() + "\n")


class MergedJsonLinesWriter(_Writer):
    """One merged paper per line (the profiles are in the JSON form only)."""

    def write(self, merged: MergeResult) -> None:
        for paper in merged.papers:
            self.stream.write(to_json(paper).decode() + "\n")


class MergedCsvWriter(_CsvTable):
    """One row per merged paper, each site's citation count in its own column (``merged_csv_columns``)."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream, merged_csv_columns())

    def write(self, merged: MergeResult) -> None:
        for paper in merged.papers:
            self.write_row(paper)


def site_citations(paper: Paper, site: str) -> int | None:
    """The highest citation count the sources of one site give for ``paper``."""
    return max((s.citations for s in paper.sources if s.site == site and s.citations is not None), default=None)


WRITERS: dict[str, type[_Writer]] = {
    "json": JsonWriter, "jsonl": JsonLinesWriter, "csv": CsvWriter, "bibtex": BibtexWriter, "csl-json": CslJsonWriter}
MERGED_WRITERS: dict[str, type[_Writer]] = {
    "json": MergedJsonWriter, "jsonl": MergedJsonLinesWriter, "csv": MergedCsvWriter, "bibtex": BibtexWriter,
    "csl-json": CslJsonWriter}


@contextlib.contextmanager
def open_output(fmt: str, path: str | None, writers: Mapping[str, type[_Writer]] = WRITERS) -> Iterator[Any]:
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
