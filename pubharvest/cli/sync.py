"""``pubharvest sync``: keep a ``.bib`` file or a website's publication list in line with the records."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec.structs import asdict

from ..errors import BadTarget, ExitCode, TargetChanged
from ..merge import listing_of, merge, people
from ..sync import SyncOptions, SyncPlan
from ..sync.apply import apply, diff
from ..sync.registry import TARGETS, target
from .merge import read_pages
from .options import add_enrich_options, add_page_options, enrich_pages
from .reading import Tally

if TYPE_CHECKING:
    from pubharvest.parsers.records import PageResult

    from ..merge import MergedProfile

Pages = list[tuple[str, "PageResult"]]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Bring a publication list in line with the records of saved pages and records (what "
                          "`merge` reads): a .bib file (bib), an al-folio site (al-folio), a HugoBlox site (hugo), "
                          "an academicpages site (academicpages). Only the fields pubharvest owns change; a second "
                          "run changes nothing. The summary goes to stderr. See docs/sync.md.")
    parser.add_argument("target", choices=list(TARGETS), metavar="TARGET", help=f"one of {', '.join(TARGETS)}")
    parser.add_argument("path", metavar="PATH", help="the .bib file (bib) or the site's root folder")
    parser.add_argument("paths", nargs="+", metavar="INPUT")
    parser.add_argument("--dry-run", action="store_true", help="print the unified diff of what would change; "
                                                               "write nothing")
    parser.add_argument("--person", metavar="NAME_OR_ID",
                        help="the person whose papers to sync, by name or any id (needed when the inputs "
                             "show several)")
    parser.add_argument("--add-missing", action="store_true", help="add papers that no entry or page stands for")
    parser.add_argument("--as-of", metavar="YYYY-MM-DD", type=iso_date,
                        help="the date of the counts when the records carry none (saved pages); default: the "
                             "newest fetch date or profile update date in the records")
    add_page_options(parser)
    add_enrich_options(parser)


def iso_date(text: str) -> str:
    """``text`` when it is a date ``YYYY-MM-DD``.

    >>> iso_date("2026-12-04")
    '2026-12-04'
    """
    import datetime

    try:
        return datetime.date.fromisoformat(text).isoformat() if len(text) == 10 else iso_date("")
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date YYYY-MM-DD: {text!r}") from None


def run(args: argparse.Namespace) -> int:
    tally = Tally(named=args.paths)
    # by input name (pages of one file in their order): which source's URL or venue a merged paper keeps
    # follows the inputs' order, and a sync must give the same files whatever order they are named in
    pages = sorted(read_pages(args, tally), key=lambda page: page[0])
    tally.require_some()
    enrich_pages(args, pages, tally)
    if not pages:
        return tally.exit_code()
    try:
        pages = person_pages(pages, args.person)
    except LookupError as error:
        print(f"pubharvest sync: {error.args[0]}", file=sys.stderr)
        return ExitCode.USAGE
    merged = merge(pages)
    options = SyncOptions(add_missing=args.add_missing, as_of=args.as_of or newest_date(pages))
    if args.target == "al-folio" and options.as_of is None:
        print("pubharvest sync: the records carry no date for their counts (saved pages): give --as-of YYYY-MM-DD",
              file=sys.stderr)
        return ExitCode.USAGE
    root = Path(args.path)
    try:
        plan = target(args.target).plan(root, merged.papers, merged.profiles, options)
        if args.dry_run:
            sys.stdout.write(diff(plan, root if root.is_dir() else root.parent))
        else:
            apply(plan)
    except BadTarget as error:
        print(f"{args.path}: {error.code}: {error.message}", file=sys.stderr)
        return ExitCode.BAD_TARGET
    except TargetChanged as error:
        print(f"{args.path}: {error.code}: {error.message}", file=sys.stderr)
        return ExitCode.TARGET_CHANGED
    except OSError as error:  # a file of the target could not be written: each kept what it held
        print(f"{error.filename or args.path}: unwritable: {error.strerror or error}", file=sys.stderr)
        return ExitCode.FAILED
    print_summary(plan, args.target, args.path, args.dry_run)
    return tally.exit_code()


def person_pages(pages: Pages, person: str | None) -> Pages:
    """The pages of the one person ``person`` names (by name or any id), with the pages of their listings
    that name nobody (Scholar's rows); all pages when they show one person at most and none is asked
    for. ``LookupError`` (its one line) when several people and none asked for, or no one is ``person``."""
    found = people(pages)
    if person is None:
        if len(found) <= 1:
            return pages
        raise LookupError(f"the inputs show {len(found)} people; choose one with --person: {people_named(found)}")
    chosen = [indexes for profile, indexes in found if names_person(profile, person)]
    if len(chosen) != 1:
        what = "no one" if not chosen else f"{len(chosen)} people"
        raise LookupError(f"--person {person!r} names {what} of the inputs: {people_named(found)}")
    listings = {listing_of(i, pages[i][1]) for i in chosen[0]}
    return [page for i, page in enumerate(pages) if listing_of(i, page[1]) in listings]


def names_person(profile: MergedProfile, person: str) -> bool:
    """Whether ``person`` is the profile's name (any case) or one of its ids."""
    from msgspec.structs import asdict

    wanted = person.strip().casefold()
    ids = [value for value in asdict(profile.ids).values() if isinstance(value, str)]
    ids += list(profile.ids.other.values())
    return wanted in {(profile.name or "").casefold(), *(value.casefold() for value in ids)}


def people_named(found: list[tuple[MergedProfile, list[int]]]) -> str:
    """``Name (site id), ...`` for each person, by name, so that the line does not depend on where the
    inputs lie (they are merged in the order of their paths)."""

    def named(profile: MergedProfile) -> str:
        ids = ", ".join(f"{kind} {value}" for kind, value in asdict(profile.ids).items()
                        if isinstance(value, str) and value)
        return f"{profile.name or '(no name)'}" + (f" ({ids})" if ids else "")

    return "; ".join(sorted((named(profile) for profile, _ in found), key=str.casefold))


def newest_date(pages: Pages) -> str | None:
    """The newest date the records carry: a job's fetch time, a profile's "updated" date (ISO, day first 10)."""
    dates = [result.source.fetched_at[:10] for _, result in pages if result.source and result.source.fetched_at]
    dates += [result.profile.updated[:10] for _, result in pages
              if result.profile and result.profile.updated and len(result.profile.updated) >= 10]
    return max(dates, default=None)


def print_summary(plan: SyncPlan, name: str, path: str, dry_run: bool) -> None:
    """The summary on stderr: counts, then the entries left alone, conflicts, papers added and missing."""
    files = sum(change.before != change.after for change in plan.changes)
    verb = "would change" if dry_run else "changed"
    lines = [f"sync {name} {path}: {len(plan.matched)} matched, {len(plan.unmatched)} unmatched, "
             f"{len(plan.added)} added, {len(plan.missing)} missing, {len(plan.conflicts)} conflicts; "
             f"{files} file{'s' * (files != 1)} {verb}"]
    lines += [f"  unmatched (left alone): {entry}" for entry in plan.unmatched]
    lines += [f"  conflict (kept): {conflict}" for conflict in plan.conflicts]
    lines += [f"  added: {key}" for key in plan.added]
    lines += [f"  missing: {key}" for key in plan.missing]
    print("\n".join(lines), file=sys.stderr)
