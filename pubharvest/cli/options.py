"""What several commands share: the options of ``parse``, ``merge`` and ``report`` (format, table, output,
URL, size ceiling, strictness), the check of ``--table`` and ``--format parquet`` before a command runs,
and help texts that name the registered sites."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MAX_INPUT_BYTES, MissingDependency

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pubharvest.parsers.records import PageResult

    from .reading import Tally

FORMATS = ("json", "jsonl", "csv", "bibtex", "csl-json", "ris", "orcid", "parquet")
# The formats of one entry per paper: what ``store export --citations`` (a table of counts) cannot be
CITATION_FORMATS = ("bibtex", "csl-json", "ris", "orcid")
# where --enrich keeps its answers: the store a job file writes by default (``scrapers.job.DEFAULT_STORE``, not
# imported here: importing the scrapers costs every command a tenth of a second)
DEFAULT_CACHE = "pubharvest.sqlite"
# Placeholders help texts use for the registered sites, filled in when help is printed, from the registry
# (``pubharvest.siteregistry``, a leaf): so that ``pubharvest --help`` imports no parser.
SITE_TITLES, SITE_NAMES = "{site_titles}", "{site_names}"


class ArgumentParser(argparse.ArgumentParser):
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
    from pubharvest.siteregistry import SITES

    return text.replace(SITE_NAMES, ", ".join(SITES)).replace(SITE_TITLES, ", ".join(map(site_title, SITES)))


def site_title(name: str) -> str:
    """How messages name the registered site ``name``: the registry's title; a site registered at runtime
    without one there, its module's ``SITE.title`` (only then are the parsers imported)."""
    from pubharvest.siteregistry import TITLES

    if name in TITLES:
        return TITLES[name]
    from pubharvest.parsers import site_info

    return site_info(name).title


def add_input_options(command: argparse.ArgumentParser, formats: str | None, table: str = "publications") -> None:
    """The options ``parse``, ``merge`` and ``report`` share: format and table (not for a report), output,
    URL, size ceiling, strictness."""
    if formats:
        command.add_argument("--format", "-f", choices=FORMATS, default="json", help=f"{formats} (default: json)")
        add_table_option(command, table)
    command.add_argument("-o", "--output", metavar="FILE",
                         help="write here instead of stdout: atomically (a temporary file beside it, then a "
                              "rename) when FILE is a regular file or new; in place when it is a FIFO or device")
    add_page_options(command)
    command.add_argument("--strict", action="store_true", help="exit 1 when any page has a warning")


def add_page_options(command: argparse.ArgumentParser) -> None:
    """The options of every command that reads pages: their URL and size ceiling."""
    command.add_argument("--url", help="the URL the page(s) came from, when the page does not say")
    command.add_argument("--max-bytes", type=byte_size, default=MAX_INPUT_BYTES, metavar="N",
                         help="refuse an input larger than this after decompression, as too_large "
                              "(suffixes K, M, G: powers of 1024; default: 256M)")


def add_table_option(command: argparse.ArgumentParser, default: str) -> None:
    merged = ", papers, paper_sources (of the merge)" if default == "papers" else ""
    command.add_argument("--table", metavar="TABLE",
                         help=f"with --format csv: profiles, publications, citations (per year), coauthors{merged} "
                              f"(default: {default}); see docs/tables.md")
    command.add_argument("--columns", metavar="SET",
                         help="with --format csv: all (the table's every column, as in Parquet; default) or "
                              "historic (the columns the publications and papers CSVs had before); see docs/tables.md")


def byte_size(text: str) -> int:
    """A size in bytes from ``N``, ``NK``, ``NM`` or ``NG`` (powers of 1024; a trailing B or iB allowed).

    >>> byte_size("300M"), byte_size("2gib"), byte_size("1000")
    (314572800, 2147483648, 1000)
    """
    match = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*", text, re.IGNORECASE)
    if match is None or int(match.group(1)) == 0:
        raise argparse.ArgumentTypeError(f"not a size in bytes: {text!r} (e.g. 300M, 2G)")
    return int(match.group(1)) << 10 * " kmgt".index(match.group(2).lower() or " ")  # times 1024 per step


def usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the output options of ``args``, in one line, or None: checked before any
    command runs, so that a misused option costs no input read."""
    return table_misuse(args) or missing_for(getattr(args, "format", None)) or enrich_misuse(args)


def add_enrich_options(command: argparse.ArgumentParser, job: bool = False, store: bool = False) -> None:
    """``--enrich SERVICES`` (with ``--contact`` and ``--enrich-cache``): what ``parse``, ``merge``, ``sync``,
    ``scrape`` and ``store add`` share to ask Crossref and OpenAlex about the papers (docs/enrich.md). Off
    unless given: without it, nothing is asked of anyone. For a job (``job``), the contact and the store are
    the job's; for ``store add`` (``store``) the answers are kept in the ``--store``."""
    command.add_argument("--enrich", metavar="SERVICES",
                         help="ask crossref and/or openalex (comma-separated) for DOIs, OpenAlex ids, open access, "
                              "citations per year and authors' ORCID ids; each value keeps its provenance "
                              "(docs/enrich.md). Off by default: nothing is asked without it")
    if not job:
        command.add_argument("--contact", metavar="EMAIL",
                             help="with --enrich: the e-mail the services may reach you at (their polite pools); "
                                  "default: PUBHARVEST_CONTACT")
    command.add_argument("--enrich-cache", metavar="STORE", default=None if job or store else DEFAULT_CACHE,
                         help="with --enrich: the store (an SQLite file or a postgresql:// URL) whose enrich_answers "
                              "table keeps the answers, so that a second run asks nothing it knows (default: "
                              + ("the --store)" if store else ("the job's store, else " if job else "")
                                 + f"{DEFAULT_CACHE})"))


def enrich_misuse(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--enrich`` and its contact, in one line, or None; the options are kept in
    ``args.enrich_options``."""
    services = getattr(args, "enrich", None)
    if not services or args.command == "scrape":  # a job's contact is in its file: checked with the job
        return None
    from ..enrich import enrich_options  # only with --enrich
    from ..errors import JobError

    try:
        args.enrich_options = enrich_options(services, getattr(args, "contact", None))
    except JobError as error:
        return error.message
    return None


def enrich_pages(args: argparse.Namespace, pages: Sequence[tuple[str, PageResult]], tally: Tally) -> None:
    """With ``--enrich``: the pages' papers completed from the services (in place), each warning that adds
    told as a page's are; without it, nothing."""
    options = getattr(args, "enrich_options", None)
    if options is None:
        return
    from dataclasses import replace

    from ..enrich import AnswerCache, enrich

    before = [len(result.warnings) for _, result in pages]
    cache = AnswerCache.of_store(args.enrich_cache)
    try:
        enrich([result for _, result in pages], replace(options, cache=cache))
    finally:
        cache.close()
    for (name, result), told in zip(pages, before, strict=True):
        tally.told(name, result.warnings[told:])


def table_misuse(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--table``, ``--columns`` or ``--format parquet`` in ``args``, in one line, or None."""
    fmt, table = getattr(args, "format", None), getattr(args, "table", None)
    merging = args.command == "merge"
    if getattr(args, "columns", None) is not None:
        from ..tables import columns_misuse

        if wrong := columns_misuse(fmt, args.columns):
            return wrong
    if table is not None:
        from ..tables import CLI_TABLES, MERGED_TABLES  # only here: it imports the merge and the store

        known = [name for name, of in CLI_TABLES.items() if merging or of not in MERGED_TABLES]
        if table not in known:
            return f"unknown table {table!r} (one of {', '.join(known)})"
        if fmt != "csv":
            return "--table goes with --format csv (parquet writes every table)"
        if getattr(args, "citations", False):
            return "--citations is a table of its own: leave out --table"
    if getattr(args, "citations", False) and fmt in CITATION_FORMATS:
        return f"--citations is a table of counts: --format {fmt} writes papers (use jsonl, csv or parquet)"
    if fmt == "parquet":
        if not args.output:
            return "--format parquet writes one file per table into a folder: give -o FOLDER"
        if Path(args.output).exists() and not Path(args.output).is_dir():
            return f"-o {args.output}: --format parquet writes into a folder, and this is a file"
    return None


def missing_for(fmt: str | None) -> str | None:
    """``missing_dependency: ...`` when ``fmt`` is parquet and pandas or pyarrow is not installed."""
    if fmt != "parquet":
        return None
    from ..dataframes import _pandas, _pyarrow  # only for parquet: it imports the tables

    try:
        _pandas(), _pyarrow()
    except MissingDependency as error:
        return f"{error.code}: {error.message}"
    return None
