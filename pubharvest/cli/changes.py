"""``pubharvest changes``: what changed in a store between two points of each profile's history."""

from __future__ import annotations

import argparse
import sqlite3
import sys

from ..changes import Thresholds, changes, formatted
from ..errors import ExitCode, StoreError
from ..output import TextWriter, open_output
from ..store import Store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Compare two runs of each profile in a store: new, gone, merged and split papers, "
                          "citation counts, metrics, per-year counts, fields, co-authors. By default each "
                          "profile's last run against the one before it. A paper is gone only when both runs "
                          "listed the profile completely; runs that were blocked, refused or drifted are named, "
                          "never compared. Exit status like diff: 0 nothing changed, 1 changes, 2 trouble.")
    parser.add_argument("--store", metavar="DB", default="pubharvest.sqlite",
                        help="the SQLite file or postgresql:// URL (default: pubharvest.sqlite)")
    parser.add_argument("--since", metavar="RUN|DATETIME",
                        help="compare from each profile's last run at or before this run or time (UTC unless "
                             "it says otherwise)")
    parser.add_argument("--until", metavar="RUN|DATETIME",
                        help="compare to each profile's last run at or before this run or time (a date alone: "
                             "through that day; default: its latest run)")
    parser.add_argument("--person", action="append", default=[], metavar="WHO",
                        help="only this profile: its id, site:id, or name (repeatable; default: every profile)")
    parser.add_argument("--format", "-f", choices=("json", "jsonl", "md", "text"), default="text",
                        help="text or md: a digest to read or mail; json: one object (pubharvest schema "
                             "--changes); jsonl: one change a line (default: text)")
    parser.add_argument("--min-citations", type=_count, default=1, metavar="N",
                        help="report a paper's count when it moved by at least N (default: 1)")
    parser.add_argument("--min-percent", type=float, default=0.0, metavar="P",
                        help="... and by at least P percent of its earlier count (default: 0)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: not a count (0 or more)")
    return value


def run(args: argparse.Namespace) -> int:
    """Exit 0 when nothing changed, 1 when something did, 2 when the store or a point cannot be read."""
    try:
        store = Store(args.store, readonly=True)  # a missing file, or one that is no store, is one line
    except StoreError as error:
        print(f"pubharvest changes: {error}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        report = changes(store, args.since, args.until, args.person, Thresholds(args.min_citations, args.min_percent))
    except StoreError as error:
        print(f"pubharvest changes: {error.code}: {error.message}", file=sys.stderr)
        return ExitCode.USAGE
    except sqlite3.Error as error:  # damage past the first page (a cut file) shows only when read
        print(f"pubharvest changes: {args.store}: damaged, stopped reading ({error})", file=sys.stderr)
        return ExitCode.USAGE
    finally:
        store.close()
    try:
        with open_output(args.format, args.output, {args.format: TextWriter}) as out:
            out.write(formatted(report, args.format))
    except OSError as error:  # trouble, 2, not "something changed" (1), which is what main's catch-all would say
        print(f"{args.output or '<stdout>'}: unwritable: {error.strerror or error}", file=sys.stderr)
        return ExitCode.USAGE
    return ExitCode.FAILED if report.changes else ExitCode.OK
