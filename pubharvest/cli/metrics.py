"""``pubharvest metrics``: pages and records in, every Publish or Perish figure per person, per source and
merged out, with what each was computed from, the stated figures checked and the gaps explained."""

from __future__ import annotations

import argparse
import os
import sys

from pubharvest.parsers.records import PageResult

from ..errors import ExitCode
from ..metrics import ALIGNMENTS, BY, Known, at_year, metrics
from ..output import _Writer, open_output
from ..parsers.text import paused_gc
from ..tables import METRIC_TABLES, csv_writer
from .options import add_input_options
from .reading import Tally, read_pages

FORMATS = ("json", "csv", "md", "parquet")
TABLE_NAMES = {"metrics": "metrics", "gaps": "metric_gaps", "years": "metric_years"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Every citation figure of Publish or Perish (papers, citations, h, g, i10, e, hc, hI, "
                          "hI,norm, hI,annual, hA, m, acc10, AWCR, AWCRpA, AW-index, ...) per person: per source and "
                          "merged (--by source), merged only (--by person) or per page (--by page); each figure says "
                          "whether its inputs were whole, each figure a page states is set beside the computed one "
                          "with the rows that explain a difference, and the papers that explain each gap between "
                          "sources are named. See docs/metrics.md. Exit codes as for `merge`; 2 for usage errors.")
    parser.add_argument("paths", nargs="+", metavar="INPUT")
    parser.add_argument("--by", choices=BY, default="source",
                        help="source: each site of a person and the merge, side by side (default); person: one "
                             "merged set per person; page: each page on its own")
    parser.add_argument("--at", metavar="DATETIME",
                        help="the figures as of this ISO date (YYYY, YYYY-MM, YYYY-MM-DD or a date-time): pages "
                             "fetched after it are left out, and its year is the reference year of the figures of age "
                             "(default: each person's latest fetch time or page date; none is made up)")
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
    if args.at:
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
    tally = Tally(args.strict, named=args.paths)
    pages, known = _pages(args, tally)
    tally.require_some()
    if not pages:  # every input failed: nothing to write over what -o holds
        return tally.exit_code()
    result = metrics(pages, by=args.by, at=args.at, known=known)
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


def _pages(args: argparse.Namespace, tally: Tally) -> tuple[list[tuple[str, PageResult]], Known | None]:
    """The pages of the inputs, their warnings told; one large file of records read in worker processes
    (``metrics.parallel``), with the figures they worked out."""
    if len(args.paths) == 1 and args.paths[0] != "-" and os.path.isfile(args.paths[0]):
        from ..metrics import parallel

        read = parallel.read(args.paths[0], args.paths[0], args.by, args.at, args.max_bytes)
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
