"""The ``pubharvest`` command.

Imports of the parsers and exporters happen inside the commands, so that ``pubharvest --help``
starts fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
FORMATS = ("json", "jsonl", "csv", "bibtex", "csl-json")
# Suffixes read when walking a folder; a file named on the command line is always read.
PAGE_SUFFIXES = {".html", ".htm", ".xhtml", ".md", ".markdown", ".txt", ".json", ".gz"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pubharvest",
        description="Turn researcher-profile pages (Google Scholar, Microsoft Research, Elamur Research) "
                    "into structured, citable records.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parse = commands.add_parser("parse", help="parse saved pages into records",
                                description="Parse saved pages (files, folders read recursively, or - for "
                                            "stdin; .gz read transparently). Exit 0 when every input "
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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command is None:
        build_parser().print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command == "schema":
            return _schema(getattr(args, "merged", False))
        if args.command == "merge":
            return _merge(args)
        return _parse(args)
    except KeyboardInterrupt:
        print("pubharvest: interrupted; nothing was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error of ours
        return EXIT_OK
    except OSError as error:  # inputs' errors are caught per input: this is the output's
        print(f"{getattr(args, 'output', None) or '<stdout>'}: unwritable: {error.strerror or error}",
              file=sys.stderr)
        return EXIT_FAILED


def _schema(merged: bool = False) -> int:
    import json

    if merged:
        from .merge import merged_json_schema as json_schema
    else:
        from parsers import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return EXIT_OK


def _parse(args: argparse.Namespace) -> int:
    from parsers import ParseError, parse

    from .output import open_output

    failures = 0
    with open_output(args.format, args.output) as out:
        for name, read in iter_inputs(args.paths):
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
    return EXIT_FAILED if failures else EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    from parsers import ParseError

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
    return EXIT_FAILED if failures else EXIT_OK


def failure_line(name: str, error: Exception) -> str:
    """The one stderr line for an input that failed: ``path: code: message``."""
    if isinstance(error, OSError):
        return f"{name}: unreadable: {error.strerror or error}"
    return f"{name}: {error.code}: {error.message}"


def iter_inputs(paths: Sequence[str]) -> Iterator[tuple[str, callable]]:
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
