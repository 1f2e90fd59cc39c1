"""Time of ``pubharvest changes --since`` last week on a store of 1,000 profiles with 52 weekly runs each.

    PUBHARVEST_CORPUS=../shared/research python bench/bench_changes.py [--profiles 1000] [--weeks 52] [--papers 30]

The store is built from a real Scholar profile of the corpus (its histogram, metrics, co-authors and
rows): each profile is that page under its own id, with ``--papers`` rows whose counts grow a little
every week, a new paper every ten weeks, and every 25th profile blocked in the last week. The schema is
made by ``Store``; the rows go straight into its tables with ``executemany`` (``Store.save`` of 52,000
records would take minutes and measure the writer, not ``changes``), as ``Store.save`` writes them:
one ``profile_runs`` row per run, the run's listing with each paper's version digest, one
``citation_snapshots`` row per paper per run, and one ``publication_versions`` row per paper.

Timed: ``pubharvest changes --store DB --since <a day before the last run> --format json -o FILE``,
the whole command (wall time, median of 3), beside its floor measured in the same run: the same rows
read with bare SQL and nothing done with them (every run's standing, then the two compared runs'
records and listings with their counts, for each profile). Goal: under 5 s ("ok" or "MISSED").
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgspec
from figures import verdict

from pubharvest import parse
from pubharvest.cli import main
from pubharvest.parsers.records import PageResult, to_json
from pubharvest.store import Store, version_digest, version_record

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
PROFILE = "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"
GOAL = 5.0  # seconds
FIRST = datetime(2026, 1, 2, 9, tzinfo=timezone.utc)


def week_time(week: int) -> str:
    return (FIRST + timedelta(weeks=week)).isoformat(timespec="microseconds")


def build(location: Path, real: PageResult, profiles: int, weeks: int, papers: int) -> None:
    """The store, written straight into its tables (see the module's docstring)."""
    Store(location).close()  # the schema
    assert real.profile is not None
    rows = real.publications
    connection = sqlite3.connect(location)
    with connection:
        for n in range(profiles):
            user = f"U{n:07d}AAAAJ"
            pubs = [msgspec.structs.replace(rows[i % len(rows)], title=f"{rows[i % len(rows)].title} ({n}.{i})",
                                            ids=msgspec.structs.replace(rows[i % len(rows)].ids,
                                                                        scholar=f"{user}:{i:012d}"))
                    for i in range(papers + weeks // 10)]
            versions = [(version_digest(text), "scholar", pub.ids.scholar, text)
                        for pub, text in ((pub, version_record(pub)) for pub in pubs)]
            connection.executemany("INSERT INTO publication_versions VALUES (?, ?, ?, ?)", versions)
            run_rows, listing_rows, snapshot_rows = [], [], []
            for week in range(weeks):
                run, at = f"week{week:02d}", week_time(week)
                if week == weeks - 1 and n % 25 == 0:
                    connection.execute("INSERT INTO run_failures VALUES (?, ?, ?, ?, ?, ?, ?)",
                                       ("scholar", user, run, at, "failed", "blocked", "CAPTCHA page"))
                    continue
                listed = papers + week // 10
                metrics = msgspec.structs.replace(real.profile.metrics, citations=1000 + n + week * 7)
                profile = msgspec.structs.replace(real.profile, name=f"Person {n}", metrics=metrics,
                                                  ids=msgspec.structs.replace(real.profile.ids, scholar=user))
                record = to_json(msgspec.structs.replace(real, profile=profile, publications=[], warnings=[])).decode()
                run_rows.append(("scholar", user, run, record, listed, 1, at, 0, 1, at, "fetched"))
                for i in range(listed):
                    pub_id = pubs[i].ids.scholar
                    listing_rows.append(("scholar", user, run, pub_id, i, versions[i][0]))
                    snapshot_rows.append((run, "scholar", pub_id, (i * 7 + n) % 300 + week * (i % 3), at))
            connection.executemany("INSERT INTO profile_runs (site, profile_id, run_id, record, publications, "
                                   "complete, saved_at, partial, trusted, taken_at, time_source) "
                                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", run_rows)
            connection.executemany("INSERT INTO run_publications VALUES (?, ?, ?, ?, ?, ?)", listing_rows)
            connection.executemany("INSERT INTO citation_snapshots VALUES (?, ?, ?, ?, ?)", snapshot_rows)
            connection.execute("INSERT INTO profiles VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                               ("scholar", user, f"Person {n}", None, run_rows[-1][3], "week00", run_rows[-1][2],
                                week_time(weeks - 1)))
    connection.close()


def floor(location: Path, weeks: int) -> float:
    """Seconds to read, with bare SQL, what ``changes`` reads: every run's standing, then for each profile
    the records and listings (with counts and versions) of its two runs compared."""
    start = time.perf_counter()
    connection = sqlite3.connect(location)
    runs = connection.execute("SELECT site, profile_id, run_id, taken_at, time_source, complete, trusted "
                              "FROM profile_runs").fetchall()
    connection.execute("SELECT * FROM run_failures").fetchall()
    last: dict[tuple[str, str], list[str]] = {}
    for site, profile_id, run, *_ in runs:
        last.setdefault((site, profile_id), []).append(run)
    for (site, profile_id), ids in last.items():
        for run in sorted(ids)[-2:]:
            connection.execute("SELECT record FROM profile_runs WHERE site = ? AND profile_id = ? AND run_id = ?",
                               (site, profile_id, run)).fetchone()
            connection.execute(
                "SELECT r.publication_id, r.position, s.citations, r.version, v.record FROM run_publications r "
                "LEFT JOIN citation_snapshots s ON s.run_id = r.run_id AND s.site = r.site "
                "AND s.publication_id = r.publication_id LEFT JOIN publication_versions v ON v.digest = r.version "
                "WHERE r.site = ? AND r.profile_id = ? AND r.run_id = ? ORDER BY r.position",
                (site, profile_id, run)).fetchall()
    connection.close()
    return time.perf_counter() - start


def timed_command(argv: list[str]) -> float:
    start = time.perf_counter()
    code = main(argv)
    assert code in (0, 1), code
    return time.perf_counter() - start


def main_bench(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=1000)
    parser.add_argument("--weeks", type=int, default=52)
    parser.add_argument("--papers", type=int, default=30)
    args = parser.parse_args(argv)
    real = parse((CORPUS / PROFILE).read_bytes())
    with tempfile.TemporaryDirectory() as folder:
        location = Path(folder) / "store.sqlite"
        start = time.perf_counter()
        build(location, real, args.profiles, args.weeks, args.papers)
        built = time.perf_counter() - start
        size = location.stat().st_size
        print(f"store: {args.profiles:,} profiles x {args.weeks} weekly runs, {args.papers}+ papers each: "
              f"{size / 1e6:.0f} MB, built in {built:.1f} s (executemany into the tables)")
        since = (FIRST + timedelta(weeks=args.weeks - 1, days=-1)).date().isoformat()
        out = Path(folder) / "changes.json"
        command = ["changes", "--store", str(location), "--since", since, "--format", "json", "-o", str(out)]
        seconds = statistics.median(timed_command(command) for _ in range(3))
        base = statistics.median(floor(location, args.weeks) for _ in range(3))
        report = msgspec.json.decode(out.read_bytes())
        print(f"changes --since {since}: {seconds:.2f} s wall (median of 3), {len(report['changes']):,} changes, "
              f"{len(report['runs_skipped'])} runs skipped, {len(report['compared']):,} profiles compared")
        print(f"floor (the same rows read with bare SQL): {base:.2f} s; ratio {seconds / base:.1f}x")
        print(f"goal: under {GOAL:.0f} s: {verdict(seconds < GOAL)}")


if __name__ == "__main__":
    main_bench()
