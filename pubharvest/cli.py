"""The ``pubharvest`` command.

Imports of the parsers and exporters happen inside the commands, so that ``pubharvest --help``
starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import PubharvestError

from .errors import ExitCode

FORMATS = ("json", "jsonl", "csv", "bibtex", "csl-json")
# Suffixes read when walking a folder; a file named on the command line is always read.
PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".md", ".markdown", ".txt", ".json", ".gz", ".warc"}
ARCHIVE_SUFFIXES = (".warc", ".warc.gz")
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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parse = commands.add_parser("parse", help="parse saved pages into records",
                                description="Parse saved pages (files, folders read recursively, or - for "
                                            "stdin; .gz read transparently; a .warc/.warc.gz archive gives "
                                            "the records of the job that wrote it). Exit 0 when every input "
                                            "parsed, 1 when any failed, 2 for usage errors.")
    parse.add_argument("paths", nargs="+", metavar="PATH")
    parse.add_argument("--format", "-f", choices=FORMATS, default="json",
                       help="json: an array of page results; jsonl: one page result per line; "
                            "csv: one row per publication; bibtex, csl-json: one entry per publication "
                            "(default: json)")
    parse.add_argument("-o", "--output", metavar="FILE",
                       help="write here (atomically: a temporary file, then a rename) instead of stdout")
    parse.add_argument("--url", help="the URL the page(s) came from, when the page does not say")
    schema = commands.add_parser("schema", help="print the JSON Schema of the records")
    schema.add_argument("--merged", action="store_true", help="the schema of `merge` output instead")
    add_merge_command(commands)
    _add_scrape(commands)
    _add_store(commands)
    return parser


def add_merge_command(commands: argparse._SubParsersAction) -> None:
    merge = commands.add_parser(
        "merge", help="one record per paper (and per person) across saved pages and parsed records",
        description="Merge saved pages and records written by `pubharvest parse` (JSON or JSON Lines of "
                    "page results): one record per paper, matched by identifiers, else by title and "
                    "year. Exit 0 when every input was read, 1 when any failed, 2 for usage errors.")
    merge.add_argument("paths", nargs="+", metavar="INPUT")
    merge.add_argument("--format", "-f", choices=FORMATS, default="json",
                       help="json: {profiles, papers}; jsonl: one paper per line; csv: one row per paper; "
                            "bibtex, csl-json: one entry per paper (default: json)")
    merge.add_argument("-o", "--output", metavar="FILE",
                       help="write here (atomically: a temporary file, then a rename) instead of stdout")
    merge.add_argument("--url", help="the URL the page(s) came from, when the page does not say")


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
                        help="one line per publication per run: how citations grew")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        if args.command == "schema":
            return _schema(getattr(args, "merged", False))
        if args.command == "merge":
            return _merge(args)
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


def _schema(merged: bool = False) -> int:
    import json

    if merged:
        from .merge import merged_json_schema as json_schema
    else:
        from pubharvest.parsers import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return ExitCode.OK


def _parse(args: argparse.Namespace) -> int:
    from pubharvest.parsers import ParseError, parse

    from .output import open_output

    failures = 0
    with open_output(args.format, args.output) as out:
        for name, read in iter_inputs(args.paths):
            if name.lower().endswith(ARCHIVE_SUFFIXES):
                failures += _parse_archive(name, out)
                continue
            try:
                result = parse(read(), url=args.url)
            except ParseError as error:
                failures += 1
                print(f"{name}: {error.code}: {error.message}", file=sys.stderr)
                continue
            except OSError as error:
                failures += 1
                print(f"{name}: unreadable: {error.strerror or error}", file=sys.stderr)
                continue
            out.write(result)
    return ExitCode.FAILED if failures else ExitCode.OK


def _parse_archive(name: str, out: Any) -> int:
    """Write the records of a WARC archive (as the job that wrote it gave them); returns the failures."""
    from pubharvest.parsers import ParseError
    from pubharvest.scrapers.archive import archive_results

    failures = 0
    try:
        for where, result in archive_results(name):
            if isinstance(result, ParseError):
                failures += 1
                print(f"{where}: {result.code}: {result.message}", file=sys.stderr)
            else:
                out.write(result)
    except Exception as error:  # warcio raises many kinds on a damaged archive; one line, not a traceback
        print(f"{name}: unreadable: not a readable WARC archive ({type(error).__name__}: {error})", file=sys.stderr)
        failures += 1
    return failures


def _merge(args: argparse.Namespace) -> int:
    from pubharvest.parsers import ParseError

    from .inputs import read_results
    from .merge import merge
    from .output import MERGED_WRITERS, open_output

    failures, pages = 0, []
    for name, read in iter_inputs(args.paths):
        try:
            pages += [(name, result) for result in read_results(read(), url=args.url)]
        except (ParseError, OSError) as error:
            failures += 1
            print(failure_line(name, error), file=sys.stderr)
    with open_output(args.format, args.output, MERGED_WRITERS) as out:
        out.write(merge(pages))
    return ExitCode.FAILED if failures else ExitCode.OK


def failure_line(name: str, error: PubharvestError | OSError) -> str:
    """The one stderr line for an input that failed: ``path: code: message``."""
    if isinstance(error, OSError):
        return f"{name}: unreadable: {error.strerror or error}"
    return f"{name}: {error.code}: {error.message}"


def iter_inputs(paths: Sequence[str]) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """``(name, read)`` for every input, in command-line order; folders are walked in sorted order."""
    for raw in paths:
        if raw == "-":
            yield "<stdin>", sys.stdin.buffer.read
            continue
        path = Path(raw)
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if _is_page_file(p, path)):
                yield str(child), child.read_bytes
        else:
            yield raw, path.read_bytes


def _is_page_file(path: Path, root: Path) -> bool:
    """Whether a file found in a folder is a page to parse (records we wrote ourselves are not)."""
    relative = path.relative_to(root).parts
    if any(part.startswith(".") for part in relative) or not path.is_file():
        return False
    if path.suffix.lower() not in PAGE_SUFFIXES:
        return False
    return path.suffix.lower() != ".json" or not _is_records_file(path)


def _is_records_file(path: Path) -> bool:
    """A JSON file of pubharvest records (page results, a merge, or a fixture's expected outcome)
    rather than a page."""
    import json

    try:
        data = json.loads(path.read_bytes())
    except (ValueError, OSError):
        return False
    items = data if isinstance(data, list) else [data]
    return all(isinstance(i, dict) and ({"site", "page"} <= i.keys() or "error" in i
                                        or {"profiles", "papers"} <= i.keys()) for i in items)


if __name__ == "__main__":
    sys.exit(main())
