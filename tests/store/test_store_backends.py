"""The store behaves the same in SQLite and in PostgreSQL: schema, upserts, snapshots, export.

The PostgreSQL case runs when PUBHARVEST_TEST_POSTGRES names a server (CI starts one) and skips
otherwise.
"""

from __future__ import annotations

import pytest

from pubharvest.errors import StoreError
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds, to_json
from pubharvest.store import Store


def profile(cites: int, titles: tuple[str, ...] = ("B", "A", "C")) -> PageResult:
    pubs = [Publication(title=t, citations=cites + i, ids=PublicationIds(scholar=f"U:{t}"))
            for i, t in enumerate(titles)]
    return PageResult(site="scholar", page="profile", profile=Profile(name="N", ids=Ids(scholar="U")),
                      publications=pubs)


def test_upserts_and_snapshots_are_the_same_in_both_databases(location) -> None:
    store = Store(location)
    try:
        store.save("run1", "U", profile(1))
        store.save("run2", "U", profile(5, ("B", "A")))
        [stored] = list(store.profiles())
        history = [(h["publication_id"], h["run_id"], h["citations"]) for h in store.citation_history()]
    finally:
        store.close()
    assert [p.title for p in stored.publications] == ["B", "A"], "page order kept, the dropped paper unlinked"
    assert to_json(stored) == to_json(profile(5, ("B", "A")))
    assert history == [("U:A", "run1", 2), ("U:A", "run2", 6), ("U:B", "run1", 1), ("U:B", "run2", 5),
                       ("U:C", "run1", 3)]


def test_a_second_store_on_the_same_database_sees_the_first_ones_rows(location) -> None:
    first, second = Store(location), Store(location)  # two workers: the schema is created once
    try:
        first.save("run1", "U", profile(1))
        assert [p.profile.name if p.profile else None for p in second.profiles()] == ["N"]
    finally:
        first.close()
        second.close()


def test_an_unusable_location_is_one_clear_error() -> None:
    with pytest.raises(StoreError, match="an SQLite file or a postgresql:// URL"):
        Store("mysql://db/pubharvest")
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError, match=r"cannot open the store at postgresql://u:\*\*\*@127.0.0.1:9/x"):
        Store("postgresql://u:secret@127.0.0.1:9/x")


def test_a_later_run_never_erases_an_earlier_listing_in_either_database(location) -> None:
    """Run 2 lists nothing (a layout change the page did not own up to): it is kept as
    run 2's history with a ``shrunk`` warning, and the export still gives run 1's record."""
    store = Store(location)
    try:
        store.save("run1", "U", profile(1))
        warning = store.save("run2", "U", profile(5, ()))
        [stored] = list(store.profiles())
        history = store.listings("scholar", "U")
    finally:
        store.close()
    assert warning is not None and warning.code == "shrunk"
    assert [p.title for p in stored.publications] == ["B", "A", "C"]
    assert history == [("run1", True, ["U:B", "U:A", "U:C"]), ("run2", False, [])]


def test_export_opens_a_database_read_only(location) -> None:
    Store(location).close()
    store = Store(location, readonly=True)
    try:
        with pytest.raises(Exception, match=r"(?i)read.?only|readonly"):
            with store.dialect.transaction(store.connection) as db:
                db.execute("INSERT INTO store_meta (name, value) VALUES ('x', 'y')")
    finally:
        store.close()


def test_capture_times_versions_failures_and_added_pages_are_the_same_in_both_databases(location) -> None:
    store = Store(location)
    try:
        store.save("late", "U", profile(5), "2024-02-01T00:00:00+01:00", "page")
        store.save("early", "U", profile(1, ("B", "A")), "2024-01-01T00:00:00Z", "at")
        store.save_failure("blocked", "scholar", "U", "pending", "blocked", "a CAPTCHA", "2024-03-01T00:00:00Z")
        store.keep_pages(["h1", "h2"], "late", "scholar", "U")
        holds = (store.holds("scholar", "U", "other", ["h1", "h2"]), store.holds("scholar", "U", "other", ["h1", "h3"]),
                 store.holds("scholar", "U", "early", []))
        db = store.connection
        runs = db.execute("SELECT run_id, taken_at, time_source FROM profile_runs ORDER BY taken_at").fetchall()
        versions = db.execute("SELECT count(*) FROM publication_versions").fetchone()
        failures = db.execute("SELECT run_id, status, code FROM run_failures").fetchall()
        exported = db.execute("SELECT last_run FROM profiles").fetchall()
    finally:
        store.close()
    assert [tuple(r) for r in runs] == [("early", "2024-01-01T00:00:00.000000+00:00", "at"),
                                        ("late", "2024-01-31T23:00:00.000000+00:00", "page")]
    assert tuple(versions) == (3,), "B and A read alike in both runs: stored once each"
    assert [tuple(f) for f in failures] == [("blocked", "pending", "blocked")]
    assert holds == (True, False, True)
    assert [tuple(e) for e in exported] == [("late",)], "the later capture stays exported though saved first"
