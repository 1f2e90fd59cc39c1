"""The ``pubharvest`` command.

Imports of the parsers and exporters happen inside the commands, so that ``pubharvest --help``
starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult

    from .errors import PubharvestError

from . import __version__
from .errors import MAX_INPUT_BYTES, ExitCode

FORMATS = ("json", "jsonl", "csv", "bibtex", "csl-json", "parquet")
ARCHIVE_SUFFIXES = (".warc", ".warc.gz")
T = TypeVar("T")
# Placeholders help texts use for the registered sites (``pubharvest.parsers``), filled in when help is
# printed: the titles live in the site modules, and importing them all would slow every command's start.
SITE_TITLES, SITE_NAMES = "{site_titles}", "{site_names}"


class _ArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose description and argument help may name the registered sites."""

    def format_help(self) -> str:
        self.description = name_sites(self.description)
        for action in self._actions:
            action.help = name_sites(action.help)
        return super().format_help()


def name_sites(text: str | None) -> str | None:
    """``text`` with the registered sites in place of ``SITE_TITLES`` and ``SITE_NAMES``.

    >>> name_sites("the site (" + SITE_NAMES + ")")
    'the site (scholar, msr, elamur)'
    """
    if not text or (SITE_TITLES not in text and SITE_NAMES not in text):
        return text
    from pubharvest.parsers import SITES, site_titles

    return text.replace(SITE_NAMES, ", ".join(SITES)).replace(SITE_TITLES, site_titles())


def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(
        prog="pubharvest",
        description=f"Turn researcher-profile pages ({SITE_TITLES}) into structured, citable records.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parse = commands.add_parser("parse", help="parse saved pages into records",
                                description="Parse saved pages (files, folders read recursively, or - for "
                                            "stdin; .gz read transparently; a .warc/.warc.gz archive gives "
                                            "the records of the job that wrote it). Each failed input and each "
                                            "warning is one line on stderr. Exit 0 when every input parsed, 1 "
                                            "when any failed (or, with --strict, any page has a warning), 2 for "
                                            "usage errors.")
    parse.add_argument("paths", nargs="+", metavar="PATH")
    _add_input_options(parse, "json: an array of page results; jsonl: one page result per line; "
                              "csv: one row per publication (or of --table); bibtex, csl-json: one entry per "
                              "publication; parquet: one file per table into the folder -o")
    schema = commands.add_parser("schema", help="print the JSON Schema of the records")
    schema.add_argument("--merged", action="store_true", help="the schema of `merge` output instead")
    add_merge_command(commands)
    _add_report(commands)
    _add_scrape(commands)
    _add_store(commands)
    return parser


def add_merge_command(commands: argparse._SubParsersAction) -> None:
    merge = commands.add_parser(
        "merge", help="one record per paper (and per person) across saved pages and parsed records",
        description="Merge saved pages and records written by `pubharvest parse` (JSON or JSON Lines of "
                    "page results): one record per paper, matched by identifiers, else by title and "
                    "year. Each failed input and each warning is one line on stderr. Exit 0 when every "
                    "input was read, 1 when any failed (or, with --strict, any page has a warning), 2 for "
                    "usage errors.")
    merge.add_argument("paths", nargs="+", metavar="INPUT")
    _add_input_options(merge, "json: {profiles, papers}; jsonl: one paper per line; csv: one row per paper "
                              "(or of --table); bibtex, csl-json: one entry per paper; parquet: one file per "
                              "table, the pages' and the merge's, into the folder -o", "papers")


def _add_report(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report", help="one self-contained HTML report of citations (charts, top papers, sites side by side)",
        description="Write one HTML file that works offline: per profile its metrics, citations per year, "
                    "cumulative citations, h-index and i10-index over a store's runs, and its top papers; "
                    "several inputs are also merged to show each paper's count on each site. Inputs are "
                    "saved pages, records (JSON, JSON Lines), WARC archives and --store. Exit codes as for "
                    "`merge`.")
    report.add_argument("paths", nargs="*", metavar="INPUT")
    report.add_argument("--store", metavar="DB", help="also report the profiles of this store, with their runs")
    report.add_argument("--title", default="Citation report", help="the report's title")
    report.add_argument("--top", type=int, default=100, metavar="N",
                        help="papers in each table, most cited first (0: all; default: 100)")
    _add_input_options(report, None)


def _add_input_options(command: argparse.ArgumentParser, formats: str | None, table: str = "publications") -> None:
    """The options ``parse``, ``merge`` and ``report`` share: format and table (not for a report), output,
    URL, size ceiling, strictness."""
    if formats:
        command.add_argument("--format", "-f", choices=FORMATS, default="json", help=f"{formats} (default: json)")
        _add_table_option(command, table)
    command.add_argument("-o", "--output", metavar="FILE",
                         help="write here instead of stdout: atomically (a temporary file beside it, then a "
                              "rename) when FILE is a regular file or new; in place when it is a FIFO or device")
    command.add_argument("--url", help="the URL the page(s) came from, when the page does not say")
    command.add_argument("--max-bytes", type=byte_size, default=MAX_INPUT_BYTES, metavar="N",
                         help="refuse an input larger than this after decompression, as too_large "
                              "(suffixes K, M, G: powers of 1024; default: 256M)")
    command.add_argument("--strict", action="store_true", help="exit 1 when any page has a warning")


def _add_table_option(command: argparse.ArgumentParser, default: str) -> None:
    merged = ", papers, paper_sources (of the merge)" if default == "papers" else ""
    command.add_argument("--table", metavar="TABLE",
                         help=f"with --format csv: profiles, publications, citations (per year), coauthors{merged} "
                              f"(default: {default}); see docs/tables.md")
    command.add_argument("--columns", metavar="SET",
                         help="with --format csv: all (the table's every column, as in Parquet; default) or "
                              "historic (the columns the publications and papers CSVs had before); see docs/tables.md")


def table_misuse(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--table``, ``--columns`` or ``--format parquet`` in ``args``, in one line, or None."""
    fmt, table = getattr(args, "format", None), getattr(args, "table", None)
    merging = args.command == "merge"
    if getattr(args, "columns", None) is not None:
        from .tables import columns_misuse

        if wrong := columns_misuse(fmt, args.columns):
            return wrong
    if table is not None:
        from .tables import CLI_TABLES, MERGED_TABLES  # only here: it imports the merge and the store

        known = [name for name, of in CLI_TABLES.items() if merging or of not in MERGED_TABLES]
        if table not in known:
            return f"unknown table {table!r} (one of {', '.join(known)})"
        if fmt != "csv":
            return "--table goes with --format csv (parquet writes every table)"
        if getattr(args, "citations", False):
            return "--citations is a table of its own: leave out --table"
    if fmt == "parquet":
        if not args.output:
            return "--format parquet writes one file per table into a folder: give -o FOLDER"
        if Path(args.output).exists() and not Path(args.output).is_dir():
            return f"-o {args.output}: --format parquet writes into a folder, and this is a file"
    return None


def byte_size(text: str) -> int:
    """A size in bytes from ``N``, ``NK``, ``NM`` or ``NG`` (powers of 1024; a trailing B or iB allowed).

    >>> byte_size("300M"), byte_size("2gib"), byte_size("1000")
    (314572800, 2147483648, 1000)
    """
    import re

    match = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*", text, re.IGNORECASE)
    if match is None or int(match.group(1)) == 0:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 300M, 2G)")
    return int(match.group(1)) * 1024 ** " kmgt".index(match.group(2).lower() or " ")


def _add_scrape(commands: argparse._SubParsersAction) -> None:
    scrape = commands.add_parser(
        "scrape", help="fetch profiles politely (a TOML job file, or one --site/--id)",
        description="Run a job file, or one target with --site and --id (or --url). A rerun of a job "
                    "resumes its unfinished run. Exit 0 when every target finished, 1 when some failed, "
                    "2 for a bad job or usage, 3 when a site blocked the job, 4 when no host could be "
                    "reached, 130 when interrupted.")
    scrape.add_argument("job", nargs="?", metavar="JOB.toml")
    scrape.add_argument("--site", help=f"one-off form: the site of the target ({SITE_NAMES})")
    scrape.add_argument("--id", dest="target_id", help="one-off form: the profile id on that site")
    scrape.add_argument("--url", dest="target_url", help="one-off form: the profile URL")
    scrape.add_argument("--search", metavar="QUERY", help="one-off form, with --site scholar: fetch one page of "
                                                          "search results for QUERY (if robots.txt allows)")
    scrape.add_argument("--author", metavar="NAME", help="one-off form, with --site scholar: fetch one page of "
                                                         "the author search for NAME (if robots.txt allows)")
    scrape.add_argument("--contact", help="one-off form: an e-mail or URL for the User-Agent "
                                          "(default: $PUBHARVEST_CONTACT)")
    scrape.add_argument("--base-url", help="one-off form: fetch from this mirror or test server")
    scrape.add_argument("--robots", choices=("obey", "ignore"), help="one-off form: robots.txt policy (default: obey)")
    scrape.add_argument("-o", "--output", metavar="FILE", help="JSON Lines output (one-off default: stdout)")
    scrape.add_argument("--store", metavar="DB",
                        help="also upsert records into this store: an SQLite file or a postgresql:// URL")
    scrape.add_argument("--warc", metavar="FILE", help="archive every request and response here")
    scrape.add_argument("--new-run", action="store_true",
                        help="start a new run even if the last one left targets unfinished")
    scrape.add_argument("--force", action="store_true",
                        help="go back to a host that blocked the job less than block_wait ago")
    scrape.add_argument("--verbose", "-v", action="store_true", help="log each request and response")
    scrape.add_argument("--engine", choices=("httpx", "scrapy"), default="httpx",
                        help="httpx: the built-in async fetcher (default); scrapy: the job as Scrapy spiders "
                             "(needs pip install 'pubharvest[scrapy]')")
    scrape.add_argument("--redis", metavar="URL",
                        help="with --engine scrapy: share the job's queue through this Redis server, so that "
                             "workers on several machines split it (see docs/workers.md)")


def _add_store(commands: argparse._SubParsersAction) -> None:
    store = commands.add_parser("store", help="the SQLite store of scraped records")
    actions = store.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    export = actions.add_parser("export", help="write the stored profiles (or --citations history) as JSON Lines")
    export.add_argument("--store", metavar="DB", default="pubharvest.sqlite",
                        help="the SQLite file or postgresql:// URL (default: pubharvest.sqlite)")
    export.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")
    export.add_argument("--citations", action="store_true",
                        help="one line per publication per run: how citations grew (with its title and profile)")
    export.add_argument("--format", "-f", choices=("jsonl", "csv", "parquet"), default="jsonl",
                        help="jsonl: one record (or history row) per line; csv: one row per publication (or of "
                             "--table, or of the history); parquet: one file per table (or citation_history) "
                             "into the folder -o (default: jsonl)")
    _add_table_option(export, "publications")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return ExitCode.USAGE
    misuse = table_misuse(args) or _missing_for(getattr(args, "format", None))
    if misuse:
        print(f"pubharvest {args.command}: {misuse}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        if args.command == "schema":
            return _schema(getattr(args, "merged", False))
        if args.command == "merge":
            return _merge(args)
        if args.command == "report":
            return _report(args)
        if args.command == "scrape":
            from .scrape import scrape

            return scrape(args)
        if args.command == "store":
            from .scrape import export_store

            return export_store(args)
        return _parse(args)
    except KeyboardInterrupt:
        print("pubharvest: interrupted; nothing was written", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error of ours
        return ExitCode.OK
    except OSError as error:  # inputs' errors are caught per input: this is the output's
        print(f"{getattr(args, 'output', None) or '<stdout>'}: unwritable: {error.strerror or error}",
              file=sys.stderr)
        return ExitCode.FAILED


def _missing_for(fmt: str | None) -> str | None:
    """``missing_dependency: ...`` when ``fmt`` is parquet and pandas or pyarrow is not installed."""
    if fmt != "parquet":
        return None
    from .dataframes import _pandas, _pyarrow
    from .errors import MissingDependency

    try:
        _pandas(), _pyarrow()
    except MissingDependency as error:
        return f"{error.code}: {error.message}"
    return None


def _schema(merged: bool = False) -> int:
    import json

    if merged:
        from .merge import merged_json_schema as json_schema
    else:
        from pubharvest.parsers import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return ExitCode.OK


class Tally:
    """Prints the stderr line of each failed input and of each warning, counts them, and gives the exit status."""

    def __init__(self, strict: bool = False) -> None:
        self.strict, self.failures, self.warnings = strict, 0, 0

    def failed(self, name: str, error: PubharvestError) -> None:
        """``path: code: message``."""
        self.failures += 1
        print(f"{name}: {error.code}: {error.message}", file=sys.stderr)

    def warned(self, name: str, result: PageResult) -> None:
        """``path: warning: code: message``, one line per warning of ``result``."""
        for warning in result.warnings:
            self.warnings += 1
            print(f"{name}: warning: {warning.code}: {warning.message}", file=sys.stderr)

    def exit_code(self) -> int:
        """1 when an input failed (or, when strict, any page had a warning), else 0."""
        return ExitCode.FAILED if self.failures or (self.strict and self.warnings) else ExitCode.OK


def _parse(args: argparse.Namespace) -> int:
    from .output import WRITERS, open_output

    tally = Tally(args.strict)
    if args.format == "parquet":
        from .dataframes import write_results_parquet

        collected = _Collected()
        _parse_into(args, collected, tally)
        write_results_parquet(args.output, collected)
        return tally.exit_code()
    with open_output(args.format, args.output, _writers(args, WRITERS, "publications")) as out:
        _parse_into(args, out, tally)
    return tally.exit_code()


def _writers(args: argparse.Namespace, writers: dict[str, Any], default: str) -> dict[str, Any]:
    """``writers`` with the CSV of ``--table`` (``tables.table_writers``); the tables, which import
    the merge and the store, are imported only for a CSV, so that `parse -f json` starts fast."""
    if args.format != "csv":
        return writers
    from .tables import table_writers

    return table_writers(args.table, writers, default, args.columns)


def _read_each(args: argparse.Namespace, tally: Tally, archives: list[str],
               reader: Callable[..., T]) -> Iterator[tuple[str, T]]:
    """``(name, reader(bytes, url=...))`` for every input of ``args`` that reads; an input that fails
    gets its one line in ``tally`` (whatever it raised), and the run goes on. Archives are left
    in ``archives``, for the caller to read last."""
    from .inputs import input_error, iter_inputs

    for name, read in iter_inputs(args.paths, args.max_bytes):
        if name.lower().endswith(ARCHIVE_SUFFIXES):
            archives.append(name)
            continue
        try:
            value = reader(read(), url=args.url)
        except Exception as error:  # whatever one input does, one line, and on to the next
            tally.failed(name, input_error(error))
            continue
        yield name, value


def _parse_into(args: argparse.Namespace, out: Any, tally: Tally) -> None:
    """Parse every input of ``args``, writing each page result to ``out``; archives last."""
    from pubharvest.parsers import parse

    archives: list[str] = []
    for name, result in _read_each(args, tally, archives, parse):
        out.write(result)
        tally.warned(name, result)
    if archives:
        _parse_archives(archives, out, tally)


def _parse_archives(names: list[str], out: Any, tally: Tally) -> None:
    """Write the records of the WARC archives named, read together (after the other inputs), as the job
    that wrote them gave them.

    A name stands for the file and the segments shared workers wrote beside it (``NAME-*.warc.gz``),
    or for the files a quoted glob matches; a damaged stretch inside an archive is one line and skipped.
    """
    from pubharvest.errors import Unreadable
    from pubharvest.parsers import ParseError
    from pubharvest.scrapers.archive import archive_paths, archive_results

    from .inputs import input_error

    paths: dict[Path, None] = {}
    for name in names:
        found = archive_paths(name)
        if not found:
            tally.failed(name, Unreadable(f"no such archive (nor segments {name.rsplit('.warc', 1)[0]}-*)"))
        paths.update(dict.fromkeys(found))
    name = ", ".join(map(str, paths))
    try:
        for where, result in archive_results(list(paths), on_damage=lambda line: print(line, file=sys.stderr)):
            if isinstance(result, (ParseError, OSError)):
                tally.failed(where, input_error(result))
            else:
                out.write(result)
                tally.warned(where, cast("PageResult", result))
    except OSError as error:
        tally.failed(name, input_error(error))
    except Exception as error:  # warcio raises many kinds on a damaged archive; one line, not a traceback
        tally.failed(name, Unreadable(f"not a readable WARC archive ({type(error).__name__}: {error})"))


def _merge(args: argparse.Namespace) -> int:
    from .inputs import input_error, iter_inputs, read_results
    from .merge import merge
    from .output import MERGED_WRITERS, open_output

    tally, pages = Tally(args.strict), []
    for name, read in iter_inputs(args.paths, args.max_bytes):
        try:
            results = read_results(read(), url=args.url)
        except Exception as error:  # whatever one input does, one line, and on to the next
            tally.failed(name, input_error(error))
            continue
        for result in results:
            tally.warned(name, result)
            pages.append((name, result))
    if args.format == "parquet":
        from .dataframes import write_results_parquet

        write_results_parquet(args.output, [*pages, merge(pages)])
        return tally.exit_code()
    from .tables import CLI_TABLES, MERGED_TABLES, table_writers

    of_merge = CLI_TABLES[args.table or "papers"] in MERGED_TABLES  # else a table of the pages merged
    writers = table_writers(args.table, MERGED_WRITERS, "papers", args.columns)
    with open_output(args.format, args.output, writers) as out:
        for written in [merge(pages)] if of_merge else [result for _, result in pages]:
            out.write(written)
    return tally.exit_code()


class _Collected(list):  # of (name, PageResult)
    """What ``cli._parse_archives`` writes to: the page results of archives, by name."""

    name = ""

    def write(self, result: PageResult) -> None:
        self.append((self.name, result))


def _report(args: argparse.Namespace) -> int:
    """``pubharvest report``: read every input (pages, records, archives, a store), render, write."""
    from .errors import StoreError
    from .inputs import read_results
    from .output import open_output
    from .report import HtmlWriter, render, report_data, store_pages

    tally, runs = Tally(args.strict), {}
    archives: list[str] = []
    pages: list[tuple[str, PageResult]] = []
    for name, results in _read_each(args, tally, archives, read_results):
        for result in results:
            tally.warned(name, result)
            pages.append((name, result))
    if archives:
        collected = _Collected()
        collected.name = ", ".join(archives)
        _parse_archives(archives, collected, tally)
        pages += collected
    if args.store:
        try:
            stored, store_runs = store_pages(args.store)
        except StoreError as error:
            tally.failed(args.store, error)
        else:
            runs = {len(pages) + i: points for i, points in store_runs.items()}
            pages += stored
    if not pages:
        print("pubharvest report: nothing to report (no input gave a page result)", file=sys.stderr)
        return ExitCode.FAILED
    with open_output("html", args.output, {"html": HtmlWriter}) as out:
        out.write(render(report_data(pages, runs), title=args.title, top=args.top))
    return tally.exit_code()


if __name__ == "__main__":
    sys.exit(main())
