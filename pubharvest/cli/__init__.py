"""The ``pubharvest`` command.

One module of this package per command, each with ``add_arguments(parser)`` and ``run(args) -> int``;
``COMMANDS`` names them. Only the module of the command asked for is imported, so that
``pubharvest --version`` and ``--help`` start fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import NamedTuple

from .. import __version__
from ..errors import ExitCode, PubharvestError
from .options import SITE_TITLES, ArgumentParser, usage_error


class Command(NamedTuple):
    module: str  # in this package
    help: str  # its line in ``pubharvest --help``


COMMANDS: dict[str, Command] = {
    "parse": Command("parse", "parse saved pages into records"),
    "schema": Command("schema", "print the JSON Schema of the records"),
    "changes": Command("changes", "what changed in a store between two runs of each profile (like diff: exit 1 "
                                  "when something did)"),
    "merge": Command("merge", "one record per paper (and per person) across saved pages and parsed records"),
    "report": Command("report", "one self-contained HTML report of citations (charts, top papers, sites side by "
                                "side)"),
    "metrics": Command("metrics", "every Publish or Perish citation figure per person, per source and merged, "
                                  "each difference explained"),
    "scrape": Command("scrape", "fetch profiles politely (a TOML job file, or one --site/--id)"),
    "store": Command("store", "the SQLite store of scraped records"),
    "sync": Command("sync", "keep a .bib file or a website's publication list in line with the records"),
}


def command_module(name: str) -> ModuleType:
    """The module of the command ``name`` (imported now, if it was not)."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name].module}")


def build_parser(commands: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser of every command, with the arguments of those in ``commands`` (by default all: their
    modules are imported)."""
    parser = ArgumentParser(
        prog="pubharvest",
        description=f"Turn researcher-profile pages ({SITE_TITLES}) into structured, citable records.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = set(commands)
    for name, command in COMMANDS.items():
        subparser = subparsers.add_parser(name, help=command.help)
        if name in chosen:
            command_module(name).add_arguments(subparser)
    return parser


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` asks for: its first word that is not an option (``pubharvest`` itself has
    no option that takes a value), if it names a command."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    return word if word in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = run_command(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        print("pubharvest: interrupted; nothing was written", file=sys.stderr)
        code = ExitCode.INTERRUPTED
    _forget_caught_interrupts()
    return code


def _forget_caught_interrupts() -> None:
    """Let the exit status be the one ``main`` returns under ``python -m pubharvest.cli`` too.

    CPython marks a KeyboardInterrupt that leaves a string ``exec`` or ``eval`` as unhandled even when it is
    caught later, and ``python -m`` then ends the process by SIGINT (status -2 to its parent) instead of
    ``sys.exit``'s 130 or 143. Such an interrupt comes from a Ctrl-C or SIGTERM landing while an import builds
    a namedtuple's or a dataclass's methods, which the lazily imported page kinds do after an output's
    temporary file exists. Every string ``exec`` clears the mark first, so one more does.
    """
    exec("pass", {})


def run_command(argv: Sequence[str]) -> int:
    """Parse ``argv`` with the arguments of the command it names, and run that command; its exit status."""
    chosen = command_named(argv)
    parser = build_parser([chosen] if chosen else [])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    misuse = usage_error(args)
    if misuse:
        print(f"pubharvest {args.command}: {misuse}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        code: int = command_module(args.command).run(args)
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error of ours
        return ExitCode.OK
    except OSError as error:  # inputs' errors are caught per input: this is the output's
        print(f"{getattr(args, 'output', None) or '<stdout>'}: unwritable: {error.strerror or error}",
              file=sys.stderr)
        return ExitCode.FAILED
    except PubharvestError as error:  # about the run as a whole (each input's are caught per input)
        print(f"pubharvest {args.command}: {error.code}: {error.message}", file=sys.stderr)
        return ExitCode.FAILED
    return code
