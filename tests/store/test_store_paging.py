"""A profile longer than one page is always ``partial`` (robots.txt forbids ``cstart``): its record is
compared with the previous partial run of the profile, so a run listing far fewer of its rows is
``shrunk`` and keeps the exported record, while a complete record still wins over partial ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from fakesite import FakeSite, scholar_page
from scrapejobs import SCHOLAR_A, scrape, write_job

from pubharvest.parsers.records import Ids, Metrics, PageResult, PageWarning, Profile, Publication, PublicationIds
from pubharvest.store import SCHEMA_VERSION, Store

PARTIAL = PageWarning(code="partial", message="robots.txt forbids the next page")
DRIFTED = PageWarning(code="column_unreadable", message="no row has a citation cell")


def first_page(rows: int, cites: int, warnings: tuple[PageWarning, ...] = (PARTIAL,),
               works: int | None = None) -> PageResult:
    """The first page of profile U listing ``rows`` publications (each cited ``cites`` times)."""
    return PageResult(site="scholar", page="profile", url="https://scholar.example/citations?user=U",
                      profile=Profile(name="N", ids=Ids(scholar="U"), metrics=Metrics(works=works)),
                      publications=[Publication(title=f"T{i}", citations=cites, ids=PublicationIds(scholar=f"U:{i}"))
                                    for i in range(rows)], warnings=list(warnings))


def exported(store: Store) -> tuple[int, set[int | None]]:
    """The exported record's publication count and the citation counts of those publications (each
    publication's latest record: a shrunk run's rows are still their publications' latest)."""
    [record] = list(store.profiles())
    assert not any(w.code == "shrunk" for w in record.warnings), "a shrunk record is never exported"
    return len(record.publications), {p.citations for p in record.publications}


def test_a_partial_run_listing_fewer_than_half_of_the_previous_partial_one_is_shrunk(store: Store) -> None:
    assert store.save("r1", "U", first_page(20, 1)) is None
    shrunk = store.save("r2", "U", first_page(2, 2))
    assert shrunk is not None and shrunk.code == "shrunk" and "where run r1 listed 20" in shrunk.message
    assert exported(store) == (20, {1, 2}), "the shrunk partial run does not replace the export"
    assert store.save("r3", "U", first_page(20, 3)) is None
    assert exported(store) == (20, {3}), "as many rows as before replace the previous partial record"
    assert store.save("r4", "U", first_page(10, 4)) is None, "half of the previous run is no shrink"
    assert exported(store) == (10, {4})


def test_a_shrunk_partial_run_seen_twice_in_a_row_is_exported(store: Store) -> None:
    store.save("r1", "U", first_page(20, 1))
    assert store.save("r2", "U", first_page(2, 2)) is not None
    assert store.save("r3", "U", first_page(2, 3)) is None
    assert exported(store) == (2, {3})


def test_a_complete_record_wins_over_partial_ones_and_is_not_compared_with_them(store: Store) -> None:
    store.save("r1", "U", first_page(4, 1))
    assert store.save("r2", "U", first_page(20, 2, (), works=20)) is None
    assert store.save("r3", "U", first_page(4, 3)) is None, "a partial run is compared with partial runs"
    assert exported(store)[0] == 20, "a complete record stays exported over a later partial one"


def test_an_untrusted_partial_record_never_replaces_a_trusted_partial_one(store: Store) -> None:
    store.save("r1", "U", first_page(20, 1))
    store.save("r2", "U", first_page(20, 0, (PARTIAL, DRIFTED)))
    assert exported(store)[0] == 20 and store.listings("scholar", "U")[1][0] == "r2"
    [record] = list(store.profiles())
    assert not any(w.code == DRIFTED.code for w in record.warnings), "the export is still run r1's record"


def schema_2_store(path: Path) -> None:
    """A store as schema 2 wrote it: profile_runs without ``partial`` and ``trusted``."""
    store = Store(path)
    store.save("r1", "U", first_page(20, 1))
    store.save("r2", "U", first_page(2, 2))
    store.close()
    with sqlite3.connect(path) as db:
        for column in ("partial", "trusted"):
            db.execute(f"ALTER TABLE profile_runs DROP COLUMN {column}")
        db.execute("UPDATE store_meta SET value = '2' WHERE name = 'schema'")
    db.close()


def test_a_schema_2_store_gets_each_runs_standing_from_its_stored_warnings(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    schema_2_store(path)
    store = Store(path)
    try:
        assert store.save("r3", "U", first_page(2, 3)) is None, "compared with the migrated shrunk partial run"
        assert exported(store) == (2, {3})
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        standing = db.execute("SELECT run_id, partial, trusted FROM profile_runs ORDER BY run_id").fetchall()
        schema = db.execute("SELECT value FROM store_meta WHERE name = 'schema'").fetchone()
    db.close()
    assert standing == [("r1", 1, 1), ("r2", 1, 0), ("r3", 1, 1)]
    assert schema == (str(SCHEMA_VERSION),)


def test_a_paginated_profiles_job_keeps_its_export_when_a_run_lists_2_of_its_rows(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 150
        site.robots = "User-agent: *\nDisallow: /citations?*cstart=\n"
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        assert scrape(capsys, job)[0] == 0
        site.answer("two", 200, [("Content-Type", "text/html; charset=utf-8")],
                    scholar_page(SCHOLAR_A, 150, 0, 2).encode())  # "Show more" still enabled
        site.fault(f"user={SCHOLAR_A}", "answer:two")
        code, err = scrape(capsys, job, "--new-run")
        assert code == 0 and "1 partial" in err, err  # the target was partial anyway: the engine names that
        store = Store(tmp_path / "store.sqlite", readonly=True)
        try:
            assert exported(store)[0] == 100, "the first run's page stays exported"
            assert [len(pubs) for _, _, pubs in store.listings("scholar", SCHOLAR_A)] == [100, 2]
        finally:
            store.close()


def test_a_run_that_got_no_record_of_a_profile_is_kept_as_such_and_a_later_record_replaces_it(
        tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 3
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        site.fault(f"user={SCHOLAR_A}", "captcha")
        code, err = scrape(capsys, job)
        assert code != 0, err
        with sqlite3.connect(tmp_path / "store.sqlite") as db:
            failures = db.execute("SELECT site, profile_id, status, code, run_id FROM run_failures").fetchall()
            runs = db.execute("SELECT count(*) FROM profile_runs").fetchone()
        db.close()
        assert [row[:4] for row in failures] == [("scholar", SCHOLAR_A, "pending", "blocked")] and runs == (0,)
        store = Store(tmp_path / "store.sqlite")
        try:  # the same run getting the record after all (a resumed target) is no failure any more
            page = first_page(3, 1, ())
            page.profile.ids.scholar = SCHOLAR_A  # type: ignore[union-attr]
            store.save(failures[0][4], SCHOLAR_A, page)
            assert store.connection.execute("SELECT count(*) FROM run_failures").fetchone() == (0,)
        finally:
            store.close()
