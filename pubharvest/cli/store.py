"""``pubharvest store``: ``add`` saved pages into a store as runs (``intake.py``); ``export`` a store's
profiles, or their citation history, as JSON Lines, CSV or Parquet."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

from ..dataframes import frame_of, write_parquet, write_results_parquet
from ..errors import ExitCode, StoreError
from ..output import WRITERS, open_output
from ..store import Store, is_database_url
from ..tables import HISTORY_WRITERS, history_columns, table_writers
from .options import add_enrich_options, add_page_options, add_table_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="keep saved pages (files, folders, .gz, WARC) in the store as runs, "
                                         "as a scraper job's pages are kept")
    add.add_argument("paths", nargs="+", metavar="PAGE")
    add.add_argument("--store", metavar="DB", default="pubharvest.sqlite",
                     help="the SQLite file or postgresql:// URL (default: pubharvest.sqlite; created when new)")
    add.add_argument("--at", metavar="DATETIME",
                     help="when the pages were captured (2024-03-14 or 2024-03-14T09:30+01:00; UTC unless a zone "
                          "is given); default: the date the archive or the saving tool states, else the file's time")
    add_page_options(add)
    add_enrich_options(add, store=True)
    export = actions.add_parser("export", help="write the stored profiles (or --citations history) as JSON Lines")
    export.add_argument("--store", metavar="DB", default="pubharvest.sqlite",
                        help="the SQLite file or postgresql:// URL (default: pubharvest.sqlite)")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")
    export.add_argument("--citations", action="store_true",
                        help="one line per publication per run: how citations grew (with its title and profile)")
    export.add_argument("--format", "-f", choices=("jsonl", "csv", "ris", "orcid", "parquet"), default="jsonl",
                        help="jsonl: one record (or history row) per line; csv: one row per publication (or of "
                             "--table, or of the history); ris: one RIS record per publication; orcid: a JSON "
                             "array of ORCID v3.0 works; parquet: one file per table (or citation_history) "
                             "into the folder -o (default: jsonl)")
    add_table_option(export, "publications")


def run(args: argparse.Namespace) -> int:
    if args.store_command == "add":
        from .storeadd import run_add  # only for add: it parses pages

        return run_add(args)
    return run_export(args)


def run_export(args: argparse.Namespace) -> int:
    """Write the store's profiles (each one's latest complete record) or its citation history as
    JSON Lines, CSV or Parquet. The store is opened read-only; one that is not a store, or is damaged,
    is one line."""
    if not (is_database_url(args.store) or Path(args.store).is_file()):
        print(f"pubharvest store: {args.store}: no such store", file=sys.stderr)
        return ExitCode.USAGE
    try:
        store = Store(args.store, readonly=True)
    except StoreError as error:
        print(f"pubharvest store: {error}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        export(store, args)
    except StoreError as error:
        print(f"pubharvest store: {args.store}: {error}", file=sys.stderr)
        return ExitCode.FAILED
    except sqlite3.Error as error:  # damage past the first page (a cut file) shows only when read
        print(f"pubharvest store: {args.store}: damaged, stopped reading ({error})", file=sys.stderr)
        return ExitCode.FAILED
    finally:
        store.close()
    return ExitCode.OK


def export(store: Store, args: argparse.Namespace) -> None:
    """Write what ``store export`` asks of ``store``: its profiles or its citation history, as JSON
    Lines, CSV (a table of the profiles, or the history) or Parquet files."""
    if args.format == "parquet":
        if args.citations:
            write_parquet(args.output, {"citation_history": frame_of(history_columns(), store.citation_history())})
        else:
            write_results_parquet(args.output, store.profiles())
        return
    if args.citations:
        with open_output(args.format, args.output, HISTORY_WRITERS) as out:
            for row in store.citation_history():
                out.write(row)
        return
    writers = table_writers(args.table, WRITERS, "publications", args.columns)
    with open_output(args.format, args.output, writers) as out:
        for result in store.profiles():
            out.write(result)
