"""How ``parse``, ``merge``, ``report`` and ``metrics`` read their inputs: each input that fails is one line on stderr
and the run goes on (``Tally`` counts them and gives the exit status); WARC archives are read last."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

from pubharvest.parsers import ParseError, Unrecognised
from pubharvest.parsers.records import PageResult, PageWarning

from ..errors import BadRecords, ExitCode, NoPages, PubharvestError, TooDeep, Unreadable
from ..inputs import input_error, iter_inputs, read_results

ARCHIVE_SUFFIXES = (".warc", ".warc.gz")
T = TypeVar("T")


class Tally:
    """Prints the stderr line of each failed input and of each warning, counts them, and gives the exit status."""

    def __init__(self, strict: bool = False, named: Collection[str] = ()) -> None:
        self.strict, self.failures, self.warnings, self.named = strict, 0, 0, frozenset(named)
        self.results = self.skipped = self.refused = 0

    def failed(self, name: str, error: PubharvestError) -> None:
        """``path: code: message``; for a file found in a folder that no site claims (a README or
        notes beside saved pages) ``path: note: skipped: message``, which is no failure. Named on the
        command line, such a file fails like any other input."""
        if isinstance(error, Unrecognised) and name not in self.named:
            self.skipped += 1
            print(f"{name}: note: skipped: {error.message}", file=sys.stderr)
            return
        self.failures += 1
        self.refused += isinstance(error, (BadRecords, TooDeep))
        print(f"{name}: {error.code}: {error.message}", file=sys.stderr)

    def warned(self, name: str, result: PageResult) -> None:
        """``path: warning: code: message``, one line per warning of ``result`` (every result read is told here)."""
        self.results += 1
        self.told(name, result.warnings)

    def told(self, name: str, warnings: list[PageWarning]) -> None:
        """One line per warning, each counted: those of a page read, or those enrichment added to it."""
        for warning in warnings:
            self.warnings += 1
            print(warning_line(name, warning), file=sys.stderr)

    def require_some(self) -> None:
        """Raise ``NoPages`` when the inputs held nothing to read and nothing failed (an empty folder, a
        folder of notes): never an empty success, and a ``-o`` file written before is kept."""
        if not self.results and not self.failures:
            raise NoPages(f"no page or record pubharvest reads in {', '.join(sorted(self.named))}"
                          + (f" ({self.skipped} file{'s' * (self.skipped != 1)} skipped)" if self.skipped else ""))

    def exit_code(self) -> int:
        """6 when a file of records was refused (``bad_records``, ``too_deep``), else 1 when an input failed
        (or, when strict, any page had a warning), else 0."""
        if self.refused:
            return ExitCode.BAD_RECORDS
        return ExitCode.FAILED if self.failures or (self.strict and self.warnings) else ExitCode.OK


def warning_lines(name: str, result: PageResult) -> list[str]:
    """``name: warning: code: message`` for each warning of ``result`` (``parse`` and ``scrape`` alike)."""
    return [warning_line(name, warning) for warning in result.warnings]


def warning_line(name: str, warning: PageWarning) -> str:
    return f"{name}: warning: {warning.code}: {warning.message}"


def read_each(args: argparse.Namespace, tally: Tally, archives: list[str],
              reader: Callable[..., T]) -> Iterator[tuple[str, T]]:
    """``(name, reader(bytes, url=...))`` for every input of ``args`` that reads; an input that fails
    gets its one line in ``tally`` (whatever it raised), and the run goes on. Archives are left
    in ``archives``, for the caller to read last."""
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


def parse_archives(names: list[str], out: Any, tally: Tally) -> None:
    """Write the records of the WARC archives named, read together (after the other inputs), as the job
    that wrote them gave them.

    A name stands for the file and the segments shared workers wrote beside it (``NAME-*.warc.gz``),
    or for the files a quoted glob matches; a damaged stretch inside an archive is one line and skipped.
    """
    from pubharvest.scrapers.archive import archive_paths, archive_results  # only for archives: the scrapers

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
                tally.warned(where, cast(PageResult, result))
    except OSError as error:
        tally.failed(name, input_error(error))
    except Exception as error:  # warcio raises many kinds on a damaged archive; one line, not a traceback
        tally.failed(name, Unreadable(f"not a readable WARC archive ({type(error).__name__}: {error})"))


class Collected(list[tuple[str, PageResult]]):
    """What ``parse_archives`` writes to when the records are wanted together: the page results, by name."""

    name = ""

    def write(self, result: PageResult) -> None:
        self.append((self.name, result))


def read_pages(args: argparse.Namespace, tally: Tally) -> list[tuple[str, PageResult]]:
    """``(input name, page result)`` for each page of the inputs (pages and records, then archives), its
    warnings told; an input that fails is one line in ``tally`` (``report`` and ``metrics``)."""
    archives: list[str] = []
    pages: list[tuple[str, PageResult]] = []
    for name, results in read_each(args, tally, archives, read_results):
        for result in results:
            tally.warned(name, result)
            pages.append((name, result))
    if archives:
        collected = Collected()
        collected.name = ", ".join(archives)
        parse_archives(archives, collected, tally)
        pages += collected
    return pages
