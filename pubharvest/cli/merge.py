"""``pubharvest merge``: saved pages and parsed records in, one record per paper (and per person) out."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..dataframes import write_results_parquet
from ..inputs import input_error, iter_inputs, read_results
from ..merge import merge
from ..output import MERGED_WRITERS, open_output
from ..parsers.text import paused_gc
from ..tables import CLI_TABLES, MERGED_TABLES, table_writers
from .options import add_enrich_options, add_input_options, enrich_pages
from .reading import Tally

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Merge saved pages and records written by `pubharvest parse` (JSON or JSON Lines of "
                          "page results): one record per paper, matched by identifiers, else by title and "
                          "year. Each failed input and each warning is one line on stderr. Exit 0 when every "
                          "input was read, 1 when any failed (or, with --strict, any page has a warning), 2 for "
                          "usage errors.")
    parser.add_argument("paths", nargs="+", metavar="INPUT")
    add_input_options(parser, "json: {profiles, papers}; jsonl: one paper per line; csv: one row per paper "
                              "(or of --table); bibtex, csl-json, ris: one entry per paper; orcid: a JSON array of "
                              "ORCID v3.0 works; parquet: one file per "
                              "table, the pages' and the merge's, into the folder -o", "papers")
    add_enrich_options(parser)


def run(args: argparse.Namespace) -> int:
    # Python's cycle collector paused for the whole command: reading, merging and writing make millions of
    # objects and no cycles, and each of its passes would walk all the records held so far again
    with paused_gc():
        return _merged(args)


def _merged(args: argparse.Namespace) -> int:
    tally = Tally(args.strict, named=args.paths)
    pages = read_pages(args, tally)
    tally.require_some()
    enrich_pages(args, pages, tally)
    if not pages:  # every input failed: an empty merge would replace what -o holds
        return tally.exit_code()
    if args.format == "parquet":
        write_results_parquet(args.output, [*pages, merge(pages)])
        return tally.exit_code()
    of_merge = CLI_TABLES[args.table or "papers"] in MERGED_TABLES  # else a table of the pages merged
    writers = table_writers(args.table, MERGED_WRITERS, "papers", args.columns)
    with open_output(args.format, args.output, writers) as out:
        for written in [merge(pages)] if of_merge else [result for _, result in pages]:
            out.write(written)
    return tally.exit_code()


def read_pages(args: argparse.Namespace, tally: Tally) -> list[tuple[str, PageResult]]:
    """``(input name, page result)`` for each page of every input that reads (the others are one line in
    ``tally``), its warnings told."""
    pages: list[tuple[str, PageResult]] = []
    for name, read in iter_inputs(args.paths, args.max_bytes):
        try:
            results = read_results(read(), url=args.url)
        except Exception as error:  # whatever one input does, one line, and on to the next
            tally.failed(name, input_error(error))
            continue
        for result in results:
            tally.warned(name, result)
            pages.append((name, result))
    return pages
