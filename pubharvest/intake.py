"""``pubharvest store add``: saved pages into the store as runs, as a scraper job's pages go in.

Each page is parsed as ``parse`` parses it (a refused page, such as a CAPTCHA, stores nothing). The pages
of one profile captured together (within ``CAPTURE_WINDOW`` of each other: the 100-row pages of a long
Scholar profile, its co-author list) become one record, joined by the site's own rule as a job joins the
pages of a target (``scrapers.sites``), and one run of that profile, so that the same completeness and
``shrunk`` rules apply (``Store.save``).

A run's time is when its pages were captured: ``--at``, else what the archive or the page states (a WARC
record's date, the date a saving tool wrote into the page), else the file's modification time; the store
keeps which (``profile_runs.time_source``). A run's id is made from its pages' hashes (a job's archive keeps
the job's run id), and the hash of every page added is kept: the same bytes added twice add nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import msgspec

from pubharvest.parsers import mhtml
from pubharvest.parsers.page import held_page
from pubharvest.parsers.records import PageResult, Source, id_value
from pubharvest.scrapers.sites import LISTING_KINDS, SITES

from .store import Store, profile_key, utc_text

# Pages of one profile whose capture times lie closer than this are one capture of it (one run).
CAPTURE_WINDOW = timedelta(hours=1)
# How far into a page a saving tool's date is looked for, from either end.
_MARK_SPAN = 1 << 16
_MONTHS = {name: number for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
# JavaScript's Date.toString(), which SingleFile ("saved date: ...") and Save Page WE (savepage-date) write:
# "Thu Mar 14 2024 12:05:09 GMT+0100 (Central European Standard Time)".
_JS_DATE = (r"[A-Z][a-z]{2} (?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2}) (?P<year>\d{4}) "
            r"(?P<time>\d{1,2}:\d{2}:\d{2}) GMT(?P<zone>[+-]\d{4})")
_SAVED_MARKS = (
    re.compile(rb"saved date: " + _JS_DATE.encode()),
    re.compile(rb"""<meta\s+name=["']savepage-date["']\s+content=["']""" + _JS_DATE.encode()),
    # the Wayback Machine's closing comment: "FILE ARCHIVED ON 14:45:31 Mar 02, 2016 AND RETRIEVED ...", in UTC
    re.compile(rb"FILE ARCHIVED ON (?P<time>\d{1,2}:\d{2}:\d{2}) (?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2}), "
               rb"(?P<year>\d{4})"),
)


# The URL a page was saved from: on the line before it (some saving tools), or in a browser's comment.
_SAVED_FROM = re.compile(rb"\A\s*(https?://\S+)\s*\n|saved from url=\(\d+\)(\S+?)\s*-->")


@dataclass(frozen=True)
class Capture:
    """When a page was captured (ISO UTC, as the store writes it) and what said so: ``at`` (the command
    line), ``archive`` (the WARC record), ``page`` (a saving tool's mark in the page), ``mtime`` (the file)."""

    at: str
    source: str


@dataclass(frozen=True)
class SavedPage:
    """One page read for the store: its record, the hash of its bytes and when it was captured."""

    name: str
    result: PageResult
    sha256: str
    capture: Capture
    start: int = 0  # where the page starts in its profile's list (``listing_start``)


def stated_capture(data: bytes) -> Capture | None:
    """The capture time a saving tool wrote into a page (an MHTML file's ``Date`` too), or None.

    >>> stated_capture(b"<!-- Page saved with SingleFile \\n saved date: Thu Mar 14 2024 12:05:09 GMT+0100 (CET) -->")
    Capture(at='2024-03-14T11:05:09.000000+00:00', source='page')
    >>> stated_capture(b'<html><!-- FILE ARCHIVED ON 4:45:31 Mar 02, 2016 AND RETRIEVED FROM THE INTERNET ARCHIVE -->')
    Capture(at='2016-03-02T04:45:31.000000+00:00', source='page')
    >>> stated_capture(b"<!-- saved from url=(0044)https://scholar.google.com/citations?user=x -->") is None
    True
    """
    saved = mhtml.saved_at(data) if mhtml.is_mhtml(data) else None
    if saved is not None:
        return Capture(utc_text(saved.isoformat()), "page")
    for part in (data[:_MARK_SPAN], data[-_MARK_SPAN:]):
        for mark in _SAVED_MARKS:
            found = mark.search(part)
            moment = _moment(found.groupdict()) if found else None
            if moment is not None:
                return Capture(utc_text(moment.isoformat()), "page")
    return None


def _moment(parts: dict[str, bytes]) -> datetime | None:
    """The time a saving tool's mark gives (UTC unless it names a zone), or None when it is no real date."""
    month = _MONTHS.get(parts["mon"].decode().lower())
    zone = parts.get("zone")
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:])) * (-1 if zone[:1] == b"-" else 1) if zone else None
    hour, minute, second = (int(n) for n in parts["time"].split(b":"))
    try:
        return datetime(int(parts["year"]), month or 0, int(parts["day"]), hour, minute, second,
                        tzinfo=timezone(offset) if offset is not None else timezone.utc)
    except ValueError:  # a month or day no calendar has
        return None


def file_capture(name: str) -> Capture | None:
    """The modification time of the file ``name`` (None for stdin or a file no longer there)."""
    try:
        stamp = Path(name).stat().st_mtime
    except (OSError, ValueError):
        return None
    return Capture(utc_text(datetime.fromtimestamp(stamp, timezone.utc).isoformat()), "mtime")


def capture_at(text: str) -> Capture:
    """``--at``'s time (a date, or a date and time; UTC unless it names a zone); ``ValueError`` when it is neither.

    >>> capture_at("2024-03-14").at, capture_at("2024-03-14T12:00+01:00").at
    ('2024-03-14T00:00:00.000000+00:00', '2024-03-14T11:00:00.000000+00:00')
    """
    return Capture(utc_text(datetime.fromisoformat(text.strip()).isoformat()), "at")


def page_capture(name: str, data: bytes, at: Capture | None) -> Capture:
    """When the page ``name`` (its bytes ``data``) was captured: ``at``, else the page's mark, else the file's
    time, else now (stdin)."""
    return at or stated_capture(data) or file_capture(name) or now_capture()


def now_capture() -> Capture:
    """A capture time when nothing states one (stdin, an archive of an older version): now, said to be so."""
    return Capture(utc_text(datetime.now(timezone.utc).isoformat()), "added")


def page_hash(result: PageResult) -> str:
    """The hash of the bytes a page result was parsed from, as the parser noted it (``source.sha256``)."""
    return result.source.sha256 if result.source else ""


def is_storable(result: PageResult) -> bool:
    """Whether the store keeps ``result``: a profile's listing, or a page that completes one (its co-authors)."""
    return result.page in LISTING_KINDS or (result.profile is not None and bool(id_value(result.profile.ids,
                                                                                        result.site)))


def captures(pages: Iterable[SavedPage]) -> list[list[SavedPage]]:
    """The pages grouped into captures: per profile, pages whose times lie within ``CAPTURE_WINDOW`` of the
    one before them, oldest first; a profile's captures in time order."""
    by_profile: dict[tuple[str, str], list[SavedPage]] = {}
    for page in pages:
        by_profile.setdefault((page.result.site, profile_key(page.result, page.name)), []).append(page)
    groups: list[list[SavedPage]] = []
    for found in by_profile.values():
        found.sort(key=lambda page: page.capture.at)
        group = [found[0]]
        for page in found[1:]:
            if _moment_of(page) - _moment_of(group[-1]) > CAPTURE_WINDOW:
                groups.append(group)
                group = []
            group.append(page)
        groups.append(group)
    return groups


def _moment_of(page: SavedPage) -> datetime:
    return datetime.fromisoformat(page.capture.at)


def listing_start(data: bytes, url: str | None) -> int:
    """Where a listing page starts in its profile's list (Scholar's ``cstart``), as the URL it was fetched
    from says: ``url`` (``--url``), else the URL a saving tool wrote before the page or in a browser's
    ``saved from url=`` comment; 0 when none says. (The page's canonical URL never holds it.)

    >>> listing_start(b"<!-- saved from url=(0052)https://s/citations?user=x&cstart=100&pagesize=100 -->", None)
    100
    >>> listing_start(b'<a href="/citations?user=x&cstart=20">next</a>', None)
    0
    """
    where = url or _saved_from(data) or ""
    start = dict(parse_qsl(urlsplit(where).query)).get("cstart", "0")
    return int(start) if start.isdigit() else 0


def _saved_from(data: bytes) -> str | None:
    """The URL a saving tool wrote before the page or in a browser's comment, or the address a single-file save
    (MHTML, a Web Archive) names for its page."""
    held = held_page(data)
    if held is not None:
        return held[1]
    stated = _SAVED_FROM.search(data[:_MARK_SPAN])
    return next(u for u in stated.groups() if u).decode("latin-1") if stated else None


def run_id(group: Sequence[SavedPage]) -> str:
    """The run of a capture: the job's, for a pubharvest archive; else one made from its pages' hashes
    (the same pages give the same run)."""
    job_run = next((p.result.source.run for p in group if p.result.source and p.result.source.run), None)
    if job_run:
        return job_run
    digest = hashlib.sha256("\n".join(sorted(p.sha256 for p in group)).encode()).hexdigest()
    return f"saved-{digest[:16]}"


def capture_record(group: Sequence[SavedPage], run: str) -> PageResult:
    """The one record of a capture: its pages joined as a job joins a target's pages (listings in list order
    first), stamped with the run and the capture time."""
    ordered = sorted(group, key=lambda p: (p.result.page not in LISTING_KINDS, p.start, p.name))
    record = SITES[group[0].result.site].merge([p.result for p in ordered])
    source = record.source or Source(sha256=group[0].sha256, parser="")
    record.source = msgspec.structs.replace(source, run=run, fetched_at=group[0].capture.at)
    return record


@dataclass
class Added:
    """What ``add`` did: runs stored, captures already in the store, and the notes each gave (``shrunk``)."""

    stored: list[tuple[str, str, str]]  # (profile, run, capture time)
    already: list[tuple[str, str]]  # (profile, run)
    notes: list[str]


def add(store: Store, pages: Iterable[SavedPage]) -> Added:
    """Store every capture of ``pages`` that the store does not hold yet, oldest first."""
    done = Added([], [], [])
    for group in sorted(captures(pages), key=lambda g: g[0].capture.at):
        # every page of a capture has its profile's key (``captures`` grouped them by it)
        run, site, key = run_id(group), group[0].result.site, profile_key(group[0].result, group[0].name)
        hashes, capture = [p.sha256 for p in group], group[0].capture
        if store.holds(site, key, run, hashes):  # before joining the pages: a capture already stored costs nothing
            done.already.append((f"{site}:{key}", run))
            continue
        shrunk = store.save(run, key, capture_record(group, run), capture.at, capture.source)
        store.keep_pages(hashes, run, site, key)
        done.stored.append((f"{site}:{key}", run, capture.at))
        if shrunk is not None:
            done.notes.append(f"{group[0].name}: warning: {shrunk.code}: {shrunk.message}")
    return done
