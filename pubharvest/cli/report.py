"""``pubharvest report``: pages, records, archives and a store in, one self-contained HTML report out."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode, StoreError
from ..output import open_output
from ..report import HtmlWriter, RunPoint, render, report_data, since_last_run_section, store_pages
from .options import add_input_options
from .reading import Tally, read_pages

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Write one HTML file that works offline: a section per person with every source of "
                          "them side by side (who they are; every metric per source and merged, beside the stated "
                          "ones, each difference explained; citations and papers per year; h-index and i10-index "
                          "over a store's runs; their papers on each source), and several people side by side by "
                          "calendar and career year. Inputs are saved pages, records (JSON, JSON Lines), WARC "
                          "archives and --store. Exit codes as for `merge`; 2 when --store is missing or not a "
                          "store.")
    parser.add_argument("paths", nargs="*", metavar="INPUT")
    parser.add_argument("--store", metavar="DB", help="also report the profiles of this store, with their runs")
    parser.add_argument("--title", default="Citation report", help="the report's title")
    parser.add_argument("--top", type=int, default=100, metavar="N",
                        help="papers in each table, most cited first (0: all; default: 100)")
    add_input_options(parser, None)


def run(args: argparse.Namespace) -> int:
    """Read the store first (one that is missing, not a store or damaged is one line, and nothing is
    written), then every other input; render, write."""
    stored: list[tuple[str, PageResult]] = []
    store_runs: dict[int, list[RunPoint]] = {}
    if args.store:
        try:
            stored, store_runs = store_pages(args.store)
        except StoreError as error:
            print(f"pubharvest report: {error}", file=sys.stderr)
            return ExitCode.USAGE
        except sqlite3.Error as error:  # damage past the first page (a cut file) shows only when read
            print(f"pubharvest report: {args.store}: damaged, stopped reading ({error})", file=sys.stderr)
            return ExitCode.FAILED
    tally = Tally(args.strict, named=args.paths)
    pages = read_pages(args, tally)
    runs = {len(pages) + i: points for i, points in store_runs.items()}
    pages += stored
    if not pages:
        print("pubharvest report: nothing to report (no input gave a page result)", file=sys.stderr)
        return tally.exit_code() or ExitCode.FAILED
    since = since_last_run(args.store, args.top) if args.store else ""
    with open_output("html", args.output, {"html": HtmlWriter}) as out:
        out.write(render(report_data(pages, runs), title=args.title, top=args.top, since_last_run=since))
    return tally.exit_code()


def since_last_run(location: str, top: int) -> str:
    """The "Since last run" section of the store's changes (each profile's last run against the one before),
    the first ``top`` changes of each person."""
    from ..changes import changes
    from ..store import Store

    store = Store(location, readonly=True)
    try:
        return since_last_run_section(changes(store), top)
    finally:
        store.close()

