"""Writing page results (or merged records) as JSON, JSON Lines, BibTeX, CSL-JSON, RIS or ORCID works, to stdout or
atomically to a file; and the spreadsheet-safe CSV that every table's CSV writer (``pubharvest.tables``)
is written with.

>>> neutralise("=HYPERLINK(1)"), neutralise("-5"), neutralise("Nature")
("'=HYPERLINK(1)", "'-5", 'Nature')
"""

from __future__ import annotations

import abc
import contextlib
import csv
import io
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pubharvest.parsers.records import PageResult, Publication, to_json

# The exporters and the merge are imported by the writers that use them, so that `pubharvest parse`
# of one page in JSON loads none of them (a fifth of its start-up).
if TYPE_CHECKING:
    from .citable import Citable
    from .merge import MergeResult, Paper

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_SURROGATE = re.compile("[\ud800-\udfff]")
# One CSV column: its header, and how to get its cell from what a row is made of.
CsvColumn = tuple[str, Callable[[Any], Any]]


class _Writer:
    """Writes to ``stream`` as things come; nothing to finish at the end."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def close(self) -> None:
        """Finish the output (nothing to add here: every write is whole)."""


class TextWriter(_Writer):
    """Text already formatted (``changes``' digest and JSON), written as it comes."""

    def write(self, text: str) -> None:
        self.stream.write(text)


class _JsonArray(_Writer):
    """A JSON array written item by item, so that nothing is held in memory."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        self.count = 0

    def append(self, item: str) -> None:
        self.stream.write(("[\n" if self.count == 0 else ",\n") + item)
        self.count += 1

    def close(self) -> None:
        self.stream.write("[]\n" if self.count == 0 else "\n]\n")


class JsonWriter(_JsonArray):
    """A JSON array of page results, written as they come."""

    def write(self, result: PageResult) -> None:
        self.append(to_json(result).decode())


class JsonLinesWriter(_Writer):
    """One page result per line."""

    def write(self, result: PageResult) -> None:
        self.stream.write(to_json(result).decode() + "\n")


class _CsvTable(_Writer):
    """CSV whose header row and every row's cells come from one table of ``columns``; spreadsheet-safe."""

    def __init__(self, stream: IO[str], columns: list[CsvColumn]) -> None:
        super().__init__(stream)
        self.writer, self.columns = csv.writer(stream, lineterminator="\n"), columns
        self.writer.writerow([header for header, _ in columns])

    def write_row(self, item: Any) -> None:
        self.writer.writerow([neutralise(cell(item)) for _, cell in self.columns])


def neutralise(value: Any) -> Any:
    r"""A cell as the CSV holds it (the one rule for every cell's text; the csv module quotes commas,
    quotes and newlines): one a spreadsheet will not run as a formula (text starting with = + - @, a
    tab or a carriage return gets a leading '), with a lone surrogate, which has no UTF-8 form, as
    U+FFFD.

    >>> neutralise("@SUM(A1)\n"), neutralise("Sp\ud800ices") == "Sp\ufffdices", neutralise(None), neutralise(12)
    ("'@SUM(A1)\n", True, '', 12)
    """
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    if not value.isascii():
        value = _SURROGATE.sub("\ufffd", value)
    return "'" + value if value.startswith(_FORMULA_STARTS) else value


def citables(result: PageResult | MergeResult) -> list[Publication] | list[Paper]:
    """The papers of a page result or of a merge: what the BibTeX and CSL-JSON writers export."""
    from .merge import MergeResult

    return result.papers if isinstance(result, MergeResult) else result.publications


class _CitationWriter(_Writer):
    """One entry per publication (or merged paper), keys unique across everything it writes."""

    def __init__(self, stream: IO[str]) -> None:
        from .keys import Keys

        super().__init__(stream)
        self.keys = Keys()

    def write(self, result: PageResult | MergeResult) -> None:
        page = result if isinstance(result, PageResult) else None
        for pub in citables(result):
            self.write_item(pub, self.keys.key(pub), page)

    @abc.abstractmethod
    def write_item(self, pub: Citable, key: str, page: PageResult | None) -> None:
        """Write one entry, under ``key``; ``page`` is the page result it came on (None for a merged paper)."""


class BibtexWriter(_CitationWriter):
    """BibTeX entries, separated by blank lines."""

    def __init__(self, stream: IO[str]) -> None:
        from .bibtex import bibtex_entry

        super().__init__(stream)
        self.entry = bibtex_entry

    def write_item(self, pub: Citable, key: str, page: PageResult | None) -> None:
        self.stream.write(self.entry(pub, key) + "\n\n")


class CslJsonWriter(_CitationWriter, _JsonArray):
    """A JSON array of CSL-JSON items."""

    def __init__(self, stream: IO[str]) -> None:
        from .csl import csl_item_json

        super().__init__(stream)
        self.item_json = csl_item_json

    def write_item(self, pub: Citable, key: str, page: PageResult | None) -> None:
        self.append(self.item_json(pub, key))


class RisWriter(_CitationWriter):
    """RIS records, a blank line after each; the count of each paper with its site and date in a note."""

    def __init__(self, stream: IO[str]) -> None:
        from .ris import ris_record

        super().__init__(stream)
        self.record = ris_record

    def write_item(self, pub: Citable, key: str, page: PageResult | None) -> None:
        self.stream.write(self.record(pub, key, page) + "\n")


class OrcidWriter(_CitationWriter, _JsonArray):
    """A JSON array of ORCID v3.0 work objects; a paper nothing names for ORCID is left out, with a line
    on stderr (``pubharvest.orcid``)."""

    def __init__(self, stream: IO[str]) -> None:
        import json

        from .orcid import missing_id_line, orcid_work

        super().__init__(stream)
        self.work, self.missing = orcid_work, missing_id_line
        self.encode = json.JSONEncoder(ensure_ascii=False).encode

    def write_item(self, pub: Citable, key: str, page: PageResult | None) -> None:
        work = self.work(pub, key)
        if work is None:
            print(self.missing(pub, key), file=sys.stderr)
        else:
            self.append(self.encode(work))


class MergedJsonWriter(_Writer):
    """The merge as one JSON object: ``{"profiles": [...], "papers": [...]}``, the same bytes as
    ``to_json(merged)`` but written a record at a time, so that the output is never held whole."""

    def write(self, merged: MergeResult) -> None:
        for n, field in enumerate(type(merged).__struct_fields__):
            self.stream.write(("{" if n == 0 else "],") + f'"{field}":[')
            for at, record in enumerate(getattr(merged, field)):
                self.stream.write(("," if at else "") + to_json(record).decode())
        self.stream.write("]}\n")


class MergedJsonLinesWriter(_Writer):
    """One merged paper per line (the profiles are in the JSON form only)."""

    def write(self, merged: MergeResult) -> None:
        for paper in merged.papers:
            self.stream.write(to_json(paper).decode() + "\n")


# The writers of each format (CSV: a table's, from ``tables.table_writers``).
_CITATION_WRITERS: dict[str, type[_Writer]] = {
    "bibtex": BibtexWriter, "csl-json": CslJsonWriter, "ris": RisWriter, "orcid": OrcidWriter}
WRITERS: dict[str, type[_Writer]] = {"json": JsonWriter, "jsonl": JsonLinesWriter, **_CITATION_WRITERS}
MERGED_WRITERS: dict[str, type[_Writer]] = {
    "json": MergedJsonWriter, "jsonl": MergedJsonLinesWriter, **_CITATION_WRITERS}


# Temporary files of ``-o`` are named ``.NAME<TEMP_MARK><pid>``, so that a later run can tell them
# apart and remove those of a run that was killed.
TEMP_MARK = ".pubharvest-tmp-"


@contextlib.contextmanager
def open_output(fmt: str, path: str | None, writers: Mapping[str, type[_Writer]] = WRITERS) -> Iterator[Any]:
    """A writer for ``fmt`` (one of ``writers``: page results by default, ``MERGED_WRITERS`` for a
    merge) on stdout, or on ``path``.

    A regular file (or a new one) is written to a temporary file beside it, renamed over it once
    complete: if writing fails or is interrupted (Ctrl-C, SIGTERM), ``path`` keeps its old content and
    the temporary file is removed. The new file keeps the old one's mode (and owner, where allowed); a
    new file gets the usual mode (0666 less the umask). A symbolic link's target is what is replaced.
    Anything else (a FIFO, a device such as /dev/null) is written in place, since a rename would replace
    the node itself.
    """
    if path is None:
        yield from _writing(sys.stdout, writers[fmt])
        return
    try:
        in_place = not stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:  # new, or a dangling symbolic link: its target is created
        in_place = False
    if in_place:
        with open(path, "w", encoding="utf-8", newline="") as stream:
            yield from _writing(stream, writers[fmt])
        return
    target = Path(os.path.realpath(path))
    with _sigterm_interrupts() as signalled, temporary_beside(target) as (fd, tmp):
        with io.open(fd, "w", encoding="utf-8", newline="") as stream:
            yield from _writing(stream, writers[fmt])
            os.fsync(stream.fileno())
        if signalled:
            raise KeyboardInterrupt("SIGTERM")  # its exception was swallowed on the way (see below)
        os.replace(tmp, target)


@contextlib.contextmanager
def temporary_beside(target: Path) -> Iterator[tuple[int, Path]]:
    """A new file beside ``target``, open for writing (its descriptor, which the caller closes, and its
    path), named ``.NAME<TEMP_MARK><pid>`` after removing those of killed runs, with ``target``'s owner
    and mode; it is removed when the block ends unless the block renamed it over ``target``."""
    remove_stale_temps(target)
    tmp = target.with_name(f".{target.name}{TEMP_MARK}{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        try:
            _copy_owner_and_mode(fd, target)
        except BaseException:
            os.close(fd)
            raise
        yield fd, tmp
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _writing(stream: IO[str], writer_type: type[_Writer]) -> Iterator[_Writer]:
    """Yield a writer on ``stream``; once the caller is done with it, finish the output and flush."""
    writer = writer_type(stream)
    yield writer
    writer.close()
    stream.flush()


def _copy_owner_and_mode(fd: int, target: Path) -> None:
    """Give the file open as ``fd`` the owner (where allowed) and mode of ``target``, when it exists."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        return
    if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(PermissionError):  # only root may give a file away
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after chown, which may clear set-id bits


def remove_stale_temps(target: Path) -> list[str]:
    """Remove the temporary files of ``-o`` runs on ``target`` whose process is gone (killed with
    SIGKILL, or a power cut); returns their names. A PID reused since by another process keeps its file."""
    prefix = f".{target.name}{TEMP_MARK}"
    try:
        names = [n for n in os.listdir(target.parent) if n.startswith(prefix) and n[len(prefix):].isdigit()]
    except OSError:
        return []
    stale = [name for name in names if not _process_alive(int(name[len(prefix):]))]
    for name in stale:
        with contextlib.suppress(OSError):
            os.unlink(target.parent / name)
    return stale


def _process_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs, other than this one (a temp file with our PID is an earlier run's)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    except OverflowError:
        return False
    return True


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[list[int]]:
    """Within this block, SIGTERM raises ``KeyboardInterrupt``, as Ctrl-C does, so that cleanup runs.

    The list it yields gets the signal's number once one came: a handler's exception raised while a
    C extension initialises (lxml's import runs Cython code that catches every exception) is lost,
    and the run would go on to replace the output, so the caller looks at the list before it does.
    """
    signalled: list[int] = []
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield signalled
        return

    def interrupt(signum: int, frame: object) -> None:
        signalled.append(signum)
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield signalled
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
