"""``pubharvest parse``: saved pages in, their records out, one page result per page."""

from __future__ import annotations

import argparse
from typing import Any

from pubharvest import parsers

from ..output import WRITERS, open_output
from .options import add_enrich_options, add_input_options, enrich_pages
from .reading import Collected, Tally, parse_archives, read_each


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Parse saved pages (files, folders read recursively, or - for stdin; .gz read "
                          "transparently; a .warc/.warc.gz archive gives the records of the job that wrote it). "
                          "Each failed input and each warning is one line on stderr. Exit 0 when every input "
                          "parsed, 1 when any failed (or, with --strict, any page has a warning), 2 for usage "
                          "errors.")
    parser.add_argument("paths", nargs="+", metavar="PATH")
    add_input_options(parser, "json: an array of page results; jsonl: one page result per line; "
                              "csv: one row per publication (or of --table); bibtex, csl-json, ris: one entry per "
                              "publication; orcid: a JSON array of ORCID v3.0 works; parquet: one file per table "
                              "into the folder -o")
    add_enrich_options(parser)


class _NothingParsed(Exception):
    """Raised inside ``open_output`` when every input failed, so that the file ``-o`` names keeps what it held."""


def run(args: argparse.Namespace) -> int:
    tally = Tally(args.strict, named=args.paths)
    if args.format == "parquet":
        from ..dataframes import write_results_parquet  # only here: it imports the tables

        collected = Collected()
        parse_into(args, collected, tally)
        tally.require_some()
        if collected:  # every input failed: empty tables would replace what the folder holds
            write_results_parquet(args.output, collected)
        return tally.exit_code()
    try:
        with open_output(args.format, args.output, writers(args)) as out:
            parse_into(args, out, tally)
            tally.require_some()  # inside: a file -o named keeps what it held
            if args.output is not None and not tally.results:
                raise _NothingParsed
    except _NothingParsed:
        pass  # each failure had its line; an empty output would replace what -o holds
    return tally.exit_code()


def writers(args: argparse.Namespace) -> dict[str, Any]:
    """The writers, with the CSV of ``--table`` (``tables.table_writers``); the tables, which import
    the merge and the store, are imported only for a CSV, so that `parse -f json` starts fast."""
    if args.format != "csv":
        return WRITERS
    from ..tables import table_writers

    return table_writers(args.table, WRITERS, "publications", args.columns)


def parse_into(args: argparse.Namespace, out: Any, tally: Tally) -> None:
    """Parse every input of ``args``, writing each page result to ``out``; archives last. With ``--enrich``
    the results are kept until every input is read, and enriched together (one pace per service)."""
    archives: list[str] = []
    pages = Collected() if getattr(args, "enrich_options", None) is not None else None
    for name, result in read_each(args, tally, archives, parsers.parse):
        tally.warned(name, result)
        if pages is None:
            out.write(result)
        else:
            pages.append((name, result))
    if archives:
        parse_archives(archives, out if pages is None else pages, tally)
    if pages is not None:
        enrich_pages(args, pages, tally)
        for _, result in pages:
            out.write(result)
