"""``pubharvest metrics``: pages and records in, every Publish or Perish figure per person, per source and
merged out, with what each was computed from, the stated figures checked and the gaps explained."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode, StoreError
from ..metrics import ALIGNMENTS, BY, Known, at_year, metrics
from ..output import _Writer, open_output
from ..parsers.text import paused_gc
from ..tables import METRIC_TABLES, csv_writer
from .options import add_input_options
from .reading import Tally, read_pages

if TYPE_CHECKING:
    from ..parsers.records import PageResult

FORMATS = ("json", "csv", "md", "parquet")
TABLE_NAMES = {"metrics": "metrics", "gaps": "metric_gaps", "years": "metric_years"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Every citation figure of Publish or Perish (papers, citations, h, g, i10, e, hc, hI, "
                          "hI,norm, hI,annual, hA, m, acc10, AWCR, AWCRpA, AW-index, ...) per person: per source and "
                          "merged (--by source), merged only (--by person) or per page (--by page); each figure says "
                          "whether its inputs were whole, each figure a page states is set beside the computed one "
                          "with the rows that explain a difference, and the papers that explain each gap between "
                          "sources are named. See docs/metrics.md. Exit codes as for `merge`; 2 for usage errors.")
    parser.add_argument("paths", nargs="*", metavar="INPUT")
    parser.add_argument("--store", metavar="DB",
                        help="also the profiles of this store (SQLite file or PostgreSQL URL): each one's exported "
                             "record, or with --at its record as of then")
    parser.add_argument("--by", choices=BY, default="source",
                        help="source: each site of a person and the merge, side by side (default); person: one "
                             "merged set per person; page: each page on its own")
    parser.add_argument("--at", metavar="RUN|DATETIME",
                        help="the figures as of this ISO date (YYYY, YYYY-MM, YYYY-MM-DD or a date-time), or with "
                             "--store as of one of its runs: pages fetched after it are left out, a store's profiles "
                             "are as the store held them then, and its year is the reference year of the figures of "
                             "age (default: each person's latest fetch time or page date; none is made up)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="json",
                        help="json: the whole result (`pubharvest schema --metrics`); csv: one table (--table); "
                             "md: Markdown tables, sources side by side; parquet: every table into the folder -o")
    parser.add_argument("--table", dest="metric_table", choices=tuple(TABLE_NAMES), default="metrics",
                        help="with --format csv: metrics (one row per person and source), gaps (one row per paper "
                             "two sources show differently) or years (citations per year); see docs/tables.md")
    parser.add_argument("--align", choices=ALIGNMENTS, default="calendar",
                        help="with --format md: the years table by calendar year or by career year (years since the "
                             "person's first paper)")
    add_input_options(parser, None)


def run(args: argparse.Namespace) -> int:
    if not args.paths and not args.store:
        print("pubharvest metrics: give INPUT files or --store", file=sys.stderr)
        return ExitCode.USAGE
    if args.at and not args.store:
        try:
            at_year(args.at)
        except ValueError as error:
            print(f"pubharvest metrics: --at: {error}", file=sys.stderr)
            return ExitCode.USAGE
    if args.metric_table != "metrics" and args.format != "csv":
        print("pubharvest metrics: --table goes with --format csv", file=sys.stderr)
        return ExitCode.USAGE
    with paused_gc():  # as in ``merge``: millions of records read and no cycles made
        return _figures(args)


def _figures(args: argparse.Namespace) -> int:
    stored: list[tuple[str, PageResult]] = []
    at = args.at
    if args.store:
        import sqlite3  # only a store's damage is its error

        try:
            stored, at = stored_pages(args.store, args.at)
        except StoreError as error:  # missing, no store, or --at neither one of its runs nor a time
            print(f"pubharvest metrics: {error.code}: {error.message}", file=sys.stderr)
            return ExitCode.USAGE
        except sqlite3.Error as error:  # damage past the first page (a cut file) shows only when read
            print(f"pubharvest metrics: {args.store}: damaged, stopped reading ({error})", file=sys.stderr)
            return ExitCode.USAGE
    tally = Tally(args.strict, named=args.paths)
    pages, known = _pages(args, tally, at)
    pages += stored
    if args.paths:
        tally.require_some()
    if not pages:  # every input failed, or the store holds nothing: nothing to write over what -o holds
        if not tally.exit_code():
            print("pubharvest metrics: nothing to measure (the store holds no profile record"
                  f"{' up to --at' if args.at else ''})", file=sys.stderr)
        return tally.exit_code() or ExitCode.FAILED
    result = metrics(pages, by=args.by, at=at, known=known)
    if args.format == "parquet":
        from ..dataframes import frame, write_parquet

        write_parquet(args.output, {name: frame(name, [result]) for name in METRIC_TABLES})
        return tally.exit_code()
    writers: dict[str, type[_Writer]] = {"json": JsonWriter, "md": MarkdownWriter,
                                         "csv": csv_writer(TABLE_NAMES[args.metric_table])}
    with open_output(args.format, args.output, writers) as out:
        if isinstance(out, MarkdownWriter):
            out.align = args.align
        out.write(result)
    return tally.exit_code()


def stored_pages(location: str, at: str | None) -> tuple[list[tuple[str, PageResult]], str | None]:
    """A store's profile records (each one's exported record, or as of ``at``: a run of the store or a time),
    and the ``at`` of the figures: a run's capture time, else ``at`` as given."""
    from ..changes import point, records_at
    from ..store import Store

    store = Store(location, readonly=True)
    try:
        if at is None:
            return [(f"{location} ({site}:{profile_id})", page)
                    for (site, profile_id), page in store.keyed_profiles()], None
        where = point(store, _last_day(at), end_of_day=True)
        pages = [(f"{location} ({site}:{profile_id}, run {run})", page)
                 for (site, profile_id, run), page in records_at(store, where)]
    finally:
        store.close()
    if where.run is None:
        at_year(at)  # a time the store could read: the figures still need its year
        return pages, at
    assert where.time is not None
    return pages, where.time[:19] + "Z"  # the run's capture time, in the form of a record's fetch time


def _last_day(at: str) -> str:
    """``--at`` a year or a month as its last day, which is what leaving out pages fetched after it means;
    anything else as it is.

    >>> _last_day("2026"), _last_day("2024-02"), _last_day("2026-02-16"), _last_day("r1")
    ('2026-12-31', '2024-02-29', '2026-02-16', 'r1')
    """
    import calendar
    import re

    if re.fullmatch(r"\d{4}", at):
        return f"{at}-12-31"
    if re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", at):
        year, month = map(int, at.split("-"))
        return f"{at}-{calendar.monthrange(year, month)[1]:02d}"
    return at


def _pages(args: argparse.Namespace, tally: Tally, at: str | None) -> tuple[list[tuple[str, PageResult]],
                                                                            Known | None]:
    """The pages of the inputs, their warnings told; one large file of records read in worker processes
    (``metrics.parallel``), with the figures they worked out."""
    if len(args.paths) == 1 and args.paths[0] != "-" and os.path.isfile(args.paths[0]):
        from ..metrics import parallel

        read = parallel.read(args.paths[0], args.paths[0], args.by, at, args.max_bytes)
        if read is not None:
            pages, known = read
            for name, result in pages:
                tally.warned(name, result)
            return pages, known
    return read_pages(args, tally), None


class JsonWriter(_Writer):
    """The whole result as one JSON document."""

    def write(self, result: object) -> None:
        import msgspec

        self.stream.write(msgspec.json.format(msgspec.json.encode(result).decode(), indent=1) + "\n")


class MarkdownWriter(_Writer):
    """Markdown tables (``metrics.markdown``)."""

    align = "calendar"

    def write(self, result: object) -> None:
        from ..metrics.markdown import markdown

        self.stream.write(markdown(result, self.align))  # type: ignore[arg-type]
