"""``pubharvest store add``: read saved pages as ``parse`` does, and keep each capture as a run (``intake.py``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pubharvest import parsers
from pubharvest.parsers.records import PageResult

from ..errors import ExitCode, NoPages, StoreError
from ..intake import (
    Capture,
    SavedPage,
    add,
    capture_at,
    is_storable,
    listing_start,
    now_capture,
    page_capture,
    page_hash,
)
from ..store import Store, utc_text
from .options import enrich_pages
from .reading import Tally, parse_archives, read_each


def run_add(args: argparse.Namespace) -> int:
    """Store the captures of the saved pages ``args`` names; exit 1 when an input failed, 2 for a bad
    ``--at`` or a store that cannot be opened."""
    try:
        at = capture_at(args.at) if args.at else None
    except ValueError:
        print(f"pubharvest store add: --at {args.at!r} is not a date (2024-03-14) or a date and time "
              "(2024-03-14T09:30+01:00)", file=sys.stderr)
        return ExitCode.USAGE
    tally = Tally(named=args.paths)
    pages = storable(saved_pages(args, tally, at))
    if not pages and not tally.failures:
        raise NoPages(f"no saved profile page in {', '.join(args.paths)}")
    if not pages:
        return tally.exit_code()
    args.enrich_cache = args.enrich_cache or args.store
    enrich_pages(args, [(page.name, page.result) for page in pages], tally)
    try:
        store = Store(args.store)
    except StoreError as error:
        print(f"pubharvest store add: {error.message}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        added = add(store, pages)
    finally:
        store.close()
    for line in added.notes:
        print(line, file=sys.stderr)
    profiles = len({profile for profile, _, _ in added.stored})
    print(f"pubharvest store add: {len(added.stored)} run(s) of {profiles} profile(s) stored in {args.store}"
          + (f"; {len(added.already)} already there" if added.already else ""), file=sys.stderr)
    return tally.exit_code()


def storable(pages: list[SavedPage]) -> list[SavedPage]:
    """The pages the store keeps; each other page is one note (a search page, a paper's page of no profile)."""
    kept = []
    for page in pages:
        if is_storable(page.result):
            kept.append(page)
        else:
            print(f"{page.name}: note: skipped: a {page.result.page} page is no profile's listing", file=sys.stderr)
    return kept


def saved_pages(args: argparse.Namespace, tally: Tally, at: Capture | None) -> list[SavedPage]:
    """Every page of the inputs that parses, with its hash and capture time; archives last."""
    archives: list[str] = []
    pages = [SavedPage(name, result, page_hash(result), page_capture(name, data, at), listing_start(data, args.url))
             for name, (result, data) in read_each(args, tally, archives, _parsed_with_bytes)]
    if archives:
        out = _ArchivePages(at)
        parse_archives(archives, out, tally)
        pages += out.pages
    return pages


def _parsed_with_bytes(data: bytes, url: str | None = None) -> tuple[PageResult, bytes]:
    return parsers.parse(data, url=url), data


class _ArchivePages:
    """What ``parse_archives`` writes to: each record, captured when its archive says it was fetched."""

    def __init__(self, at: Capture | None) -> None:
        self.at, self.pages = at, list[SavedPage]()
        self.name = ""

    def write(self, result: Any) -> None:
        assert isinstance(result, PageResult)
        fetched = result.source.fetched_at if result.source else None
        capture = self.at or (Capture(utc_text(fetched), "archive") if fetched else now_capture())
        self.pages.append(SavedPage(result.url or "archive", result, page_hash(result), capture))
