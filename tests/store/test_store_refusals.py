"""A job writes only into a store it can trust: a newer schema, a foreign database or a damaged file is
refused with one line and left as it was; a count past 64 bits never stops a save; a record whose
markup drifted (an untrusted warning) is history that never replaces the exported record."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, scrape, write_job

from pubharvest.errors import ExitCode, StoreError
from pubharvest.parsers.records import Ids, PageResult, PageWarning, Profile, Publication, PublicationIds
from pubharvest.store import SCHEMA_VERSION, Store


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def profile(count: int, warnings: list[PageWarning] | None = None, cites: int = 1) -> PageResult:
    return PageResult(site="scholar", page="profile", profile=Profile(name="N", ids=Ids(scholar="U")),
                      publications=[Publication(title=f"T{i}", citations=cites, ids=PublicationIds(scholar=f"U:{i}"))
                                    for i in range(count)], warnings=warnings or [])


def stored_store(path: Path, schema: str | None) -> None:
    store = Store(path)
    store.save("r1", "U", profile(2))
    store.close()
    if schema is not None:
        with sqlite3.connect(path) as db:
            db.execute("UPDATE store_meta SET value = ? WHERE name = 'schema'", (schema,))
        db.close()


@pytest.mark.parametrize("schema", ["5", "10"])
def test_a_store_of_a_newer_schema_is_refused_and_not_written(schema: str, tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    stored_store(path, schema)
    before = digest(path)
    with pytest.raises(StoreError, match=f"newer pubharvest \\(schema {schema}"):
        Store(path)
    assert digest(path) == before


def test_schema_versions_are_compared_as_numbers_so_an_older_one_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    stored_store(path, "1")
    Store(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM store_meta").fetchone() == (str(SCHEMA_VERSION),)
    db.close()


def foreign(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()


def damaged(path: Path) -> None:
    store = Store(path)
    for n in range(40):
        store.save(f"r{n}", f"U{n}", profile(30))
    store.close()
    data = bytearray(path.read_bytes())
    data[len(data) // 2:len(data) // 2 + 4096] = bytes(4096)  # a page in the middle zeroed
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("make", ["foreign", "random", "damaged", "cut"])
def test_a_job_refuses_a_store_it_cannot_trust_in_one_line_and_leaves_it_as_it_was(make: str, tmp_path: Path,
                                                                                    capsys) -> None:
    path = tmp_path / "store.sqlite"
    if make == "foreign":
        foreign(path)
    elif make == "random":
        path.write_bytes(bytes(range(256)) * 64)
    else:
        damaged(path)
        if make == "cut":
            path.write_bytes(path.read_bytes()[:path.stat().st_size // 3])
    before = digest(path)
    with FakeSite() as site:
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        code, err = scrape(capsys, job)
        assert site.paths() == [], "refused before anything is fetched"
    assert code == ExitCode.USAGE and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert str(path) in err and "not written into" in err
    assert digest(path) == before and not list(tmp_path.glob("store.sqlite-*"))


def test_a_count_past_64_bits_is_stored_as_null_with_a_warning_and_the_save_goes_on(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    try:
        for cites in (2**63, -2**63 - 1, 10**30):
            store.save(f"r{cites}", "U", profile(3, cites=cites))
        store.save("r-ok", "U", profile(3, cites=2**63 - 1))
        [record] = list(store.profiles())
        history = [row["citations"] for row in store.citation_history() if row["publication_id"] == "U:0"]
    finally:
        store.close()
    assert [p.citations for p in record.publications] == [2**63 - 1] * 3
    assert sorted(history, key=lambda v: (v is not None, v)) == [None, None, None, 2**63 - 1]
    first = Store(tmp_path / "t.sqlite")
    first.save("r1", "U", profile(1, cites=2**64))
    [kept] = list(first.profiles())
    first.close()
    assert kept.publications[0].citations is None
    assert [w.code for w in kept.warnings] == ["value_out_of_range"]
    assert "publications[0].citations" in kept.warnings[0].message


def test_a_record_with_an_untrusted_warning_is_history_not_the_export(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    try:
        store.save("r1", "U", profile(12))
        drifted = profile(12, [PageWarning(code="column_unreadable", message="no row has a citation cell")],
                          cites=0)
        store.save("r2", "U", drifted)
        store.save("r3", "U", drifted)  # seen twice is still untrusted
        [record] = list(store.profiles())
        history = store.listings("scholar", "U")
    finally:
        store.close()
    assert [p.citations for p in record.publications] == [1] * 12, "run 1's record stands"
    assert [(run, complete) for run, complete, _ in history] == [("r1", True), ("r2", False), ("r3", False)]


def test_a_target_whose_record_is_untrusted_ends_partial_and_keeps_the_export(tmp_path: Path) -> None:
    from pubharvest.scrapers.engine import Engine, Outcome
    from pubharvest.scrapers.job import load_job
    from pubharvest.scrapers.journal import Ledger

    job = load_job(write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {}, warc=""))
    store = Store(tmp_path / "store.sqlite")
    try:
        store.save("r0", "U", profile(12))
        with Ledger.open(job.journal, job.output, [job.targets[0].key]) as ledger:
            engine = Engine(job, ledger, [lambda run, target, record: store.save(run, "U", record)])
            drifted = profile(12, [PageWarning(code="column_unreadable", message="no row has a citation cell")], 0)
            outcome = Outcome(job.targets[0].key, "done", pages=1)
            engine.commit(job.targets[0], outcome, drifted)
        [record] = list(store.profiles())
    finally:
        store.close()
    assert (outcome.status, outcome.code) == ("partial", "column_unreadable")
    assert "no row has a citation cell" in (outcome.message or "")
    assert [p.citations for p in record.publications] == [1] * 12


def test_scrape_prints_every_records_warnings_as_parse_does(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 150  # more than one page: robots.txt aside, the fake serves them all
        site.robots = "User-agent: *\nDisallow: /citations?*cstart=\n"
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        code, err = scrape(capsys, job)
    assert code == 0, err
    assert f"scholar:{SCHOLAR_A}: warning: partial: the record holds the first 100 rows" in err, err


def test_a_value_the_database_refuses_fails_that_record_only(store, location) -> None:
    """PostgreSQL text holds no NUL character (SQLite does): the save is refused as ``out_of_range``, rolled
    back, and the store takes the next record; the engines make that refusal the target's outcome."""
    from pubharvest.errors import OutOfRange

    nul = profile(2)
    nul.publications[0].title = "Spaces\x00and nulls"
    if isinstance(location, Path):
        store.save("r1", "U", nul)
        assert next(iter(store.profiles())).publications[0].title == "Spaces\x00and nulls"
    else:
        with pytest.raises(OutOfRange, match="cannot hold a value of this record"):
            store.save("r1", "U", nul)
    store.save("r2", "U", profile(3))
    assert len(next(iter(store.profiles())).publications) == 3
