"""``pubharvest changes`` on histories of real Scholar profile pages, changed the way profiles change.

Each page is a page of the corpus, edited as Scholar would show it a week later (a count raised or
lowered, a row added or dropped, two rows merged with the ``*`` mark, a co-author added), parsed, and
saved into a store as a run at a capture time. Every expected value is read off the page by hand.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import msgspec
from drift import class_dropped
from histories import ED, LZ, RX, WEEK, save, save_refusal

from pubharvest.changes import Change, ChangeReport, Thresholds, changes
from pubharvest.parsers import parse
from pubharvest.store import Store


def kinds(report: ChangeReport) -> list[tuple[str, str | None, object, object]]:
    """Each change as (kind, paper id or field, before, after), sorted."""
    def key(change: Change) -> str | None:
        if change.coauthor:
            return change.coauthor.scholar
        return change.paper.id if change.paper else change.field
    return sorted(((c.kind, key(c), c.before, c.after) for c in report.changes), key=repr)


def test_counts_raised_and_lowered_a_row_added_a_metric_moved(page, store: Store) -> None:
    save(store, "w1", page(ED), WEEK[0])
    later = page(ED).count("u5HHmVD_uO8C", 25).count("d1gkVwhDpl0C", 9).metric(0, 45).metric(1, 44)
    later.add("2osOgNQ5qMEC", "NEWPAPER0001", "A new paper on web3 moderation", 0, "999")
    save(store, "w2", later, WEEK[1])
    report = changes(store)
    assert kinds(report) == sorted([
        ("citations", "P1RwlvoAAAAJ:u5HHmVD_uO8C", 18, 25), ("citations", "P1RwlvoAAAAJ:d1gkVwhDpl0C", 10, 9),
        ("new_paper", "P1RwlvoAAAAJ:NEWPAPER0001", None, 0),
        ("metric", "citations", 39, 45), ("metric", "citations_since", 38, 44)], key=repr)
    raised = next(c for c in report.changes if c.paper and c.paper.id.endswith("u5HHmVD_uO8C"))
    assert (raised.delta, raised.percent) == (7, 38.9)  # 7 / 18
    assert raised.paper and raised.paper.title == "Set in stone: Analysis of an immutable web3 social media platform"
    assert (raised.from_run.id, raised.to_run.id) == ("w1", "w2")
    assert raised.from_run.taken_at == "2026-11-13T09:00:00.000000+00:00" and raised.to_run.standing == "complete"
    lowered = next(c for c in report.changes if c.paper and c.paper.id.endswith("d1gkVwhDpl0C"))
    assert (lowered.delta, lowered.percent) == (-1, -10.0)
    assert report.not_seen == [] and report.runs_skipped == []


def test_a_row_dropped_from_a_complete_listing_is_gone_and_the_same_page_twice_is_nothing(page, store: Store) -> None:
    save(store, "w1", page(ED), WEEK[0])
    save(store, "w2", page(ED).drop("9yKSN-GCB0IC"), WEEK[1])
    [gone] = changes(store).changes
    assert (gone.kind, gone.paper and gone.paper.id, gone.before, gone.after) == (
        "gone_paper", "P1RwlvoAAAAJ:9yKSN-GCB0IC", 4, None)
    assert gone.paper and gone.paper.title and gone.paper.title.startswith("Promoting the Culture of Qinhuai River")
    save(store, "w3", page(ED).drop("9yKSN-GCB0IC"), WEEK[2])
    assert changes(store).changes == [], "the same page a week later: nothing changed"
    assert kinds(changes(store, since="w1")) == [("gone_paper", "P1RwlvoAAAAJ:9yKSN-GCB0IC", 4, None)]


def test_a_row_missing_from_a_partial_page_is_not_seen_and_a_coauthor_added_is(page, store: Store) -> None:
    save(store, "w1", page(RX), WEEK[0])
    save(store, "w2", page(RX).drop("5nxA0vEk-isC").coauthor("NEWCOAUTH001", "Asha Rao"), WEEK[1])
    report = changes(store)
    assert kinds(report) == [("coauthor_added", "NEWCOAUTH001", None, None)]
    assert report.changes[0].coauthor and report.changes[0].coauthor.name == "Asha Rao"
    [missing] = report.not_seen
    assert (missing.paper.id, missing.citations, missing.seen_in) == ("RxmmtT8AAAAJ:5nxA0vEk-isC", 387, "from")
    assert missing.to_run.standing == "partial"


def test_two_rows_merged_with_the_star_and_split_again(page, store: Store) -> None:
    # LZ5D_p4AAAAJ's first two rows: "Performance comparison of various machine learning approaches ..."
    # (u-x6o8ySG0sC, cluster 6636301286565937336) cited 25, "Energy efficient key management scheme ..."
    # (YsMSGLbcyi4C, cluster 13312104454126794766) cited 15; merged, Scholar shows 41* (a citation more)
    keep, absorbed = "LZ5D_p4AAAAJ:u-x6o8ySG0sC", "LZ5D_p4AAAAJ:YsMSGLbcyi4C"
    save(store, "w1", page(LZ), WEEK[0])
    merged_page = page(LZ).merge("u-x6o8ySG0sC", "YsMSGLbcyi4C", 41)
    [row] = [p for p in parse(merged_page.text.encode()).publications if p.ids.scholar == keep]
    assert row.ids.scholar_clusters == ["6636301286565937336", "13312104454126794766"]
    assert "merged_citations" in row.flags
    save(store, "w2", merged_page, WEEK[1])
    report = changes(store)
    [merged] = report.changes
    assert merged.kind == "merged" and merged.paper and merged.paper.id == keep
    assert [(p.paper.id, p.citations) for p in merged.parts] == [(keep, 25), (absorbed, 15)]
    assert (merged.before, merged.after, merged.delta, merged.percent) == (40, 41, 1, 2.5)
    assert report.not_seen == []
    save(store, "w3", page(LZ), WEEK[2])
    [split] = changes(store).changes
    assert (split.kind, split.paper and split.paper.id, split.before, split.after) == ("split", keep, 41, 40)
    assert [(p.paper.id, p.citations) for p in split.parts] == [(keep, 25), (absorbed, 15)]


def test_a_blocked_run_is_named_and_never_a_removal(page, store: Store, read_corpus) -> None:
    save(store, "w1", page(ED), WEEK[0])
    captcha = read_corpus("scholar/captcha_gs_captcha_ccl_search_geomap_2020.html")
    assert save_refusal(store, "w2", captcha, "P1RwlvoAAAAJ", WEEK[1]) == "blocked"
    report = changes(store)
    assert report.changes == [] and report.compared == []
    [skipped] = report.runs_skipped
    assert (skipped.run.id, skipped.run.standing, skipped.code) == ("w2", "blocked", "blocked")
    assert report.uncompared[0].reason == "its latest run got no record that can be compared"
    save(store, "w3", page(ED).count("u-x6o8ySG0sC", 8), WEEK[2])
    report = changes(store)
    assert kinds(report) == [("citations", "P1RwlvoAAAAJ:u-x6o8ySG0sC", 7, 8)]
    assert [(s.run.id, s.run.standing) for s in report.runs_skipped] == [("w2", "blocked")]
    assert report.changes[0].from_run.id == "w1", "the blocked run between is bridged, not compared"


def test_a_refused_page_is_named_refused(page, store: Store, read_corpus) -> None:
    save(store, "w1", page(ED), WEEK[0])
    signin = read_corpus("scholar/invalid_user_AAAAAAAAAAAA_signin_redirect_scholar-scraper_2026.html")
    assert save_refusal(store, "w2", signin, "P1RwlvoAAAAJ", WEEK[1]) == "not_found_or_private"
    report = changes(store, since="w1")
    assert report.changes == [] and [s.run.standing for s in report.runs_skipped] == ["refused"]


def test_a_drifted_page_gives_no_change_from_its_unreadable_columns(page, store: Store) -> None:
    save(store, "w1", page(ED), WEEK[0])
    drifted = class_dropped(page(ED).drop("9yKSN-GCB0IC").text, "gsc_a_ac")  # counts unreadable, a row gone
    assert any(w.code == "column_unreadable" for w in parse(drifted.encode()).warnings)
    save(store, "w2", drifted, WEEK[1])
    report = changes(store)
    assert report.changes == [] and report.not_seen == []
    assert [(s.run.id, s.run.standing, s.code) for s in report.runs_skipped] == [
        ("w2", "drifted", "column_unreadable")]
    save(store, "w3", page(ED).count("u5HHmVD_uO8C", 19), WEEK[2])
    report = changes(store, since=WEEK[0])
    assert kinds(report) == [("citations", "P1RwlvoAAAAJ:u5HHmVD_uO8C", 18, 19)]
    assert [s.run.id for s in report.runs_skipped] == ["w2"]


def test_fields_and_profile_changes(page, store: Store) -> None:
    save(store, "w1", page(ED), WEEK[0])
    later = page(ED).affiliation("University of Glasgow")
    row = later.row("2osOgNQ5qMEC")
    later.text = later.text.replace(row, re.sub(r'(class="gsc_a_at">)[^<]*', r"\1Understanding user moderation",
                                                row))
    save(store, "w2", later, WEEK[1])
    assert kinds(changes(store)) == sorted([
        ("field", "P1RwlvoAAAAJ:2osOgNQ5qMEC", "Understanding and Improving User-controlled Content Moderation "
                                               "Systems on Social Media", "Understanding user moderation"),
        ("profile", "affiliation", "The University of Edinburgh", "University of Glasgow")], key=repr)


def test_thresholds_and_since_until_and_person(page, store: Store) -> None:
    save(store, "w1", page(ED), WEEK[0])
    save(store, "w2", page(ED).count("u5HHmVD_uO8C", 20).count("u-x6o8ySG0sC", 12), WEEK[1])
    save(store, "w3", page(ED).count("u5HHmVD_uO8C", 21).count("u-x6o8ySG0sC", 12), WEEK[2])
    assert kinds(changes(store, thresholds=Thresholds(citations=5))) == []
    assert kinds(changes(store, since="w1", until="w2", thresholds=Thresholds(citations=5))) == [
        ("citations", "P1RwlvoAAAAJ:u-x6o8ySG0sC", 7, 12)]
    # 18 -> 21 is 16.7%, 7 -> 12 is 71.4%
    assert kinds(changes(store, since="2026-11-14", thresholds=Thresholds(percent=20))) == [
        ("citations", "P1RwlvoAAAAJ:u-x6o8ySG0sC", 7, 12)]
    assert kinds(changes(store, since=WEEK[1], until="2026-11-27")) == [
        ("citations", "P1RwlvoAAAAJ:u5HHmVD_uO8C", 20, 21)]
    save(store, "x1", page(LZ), WEEK[0])
    save(store, "x2", page(LZ).count("u-x6o8ySG0sC", 26), WEEK[1])
    assert {c.profile.id for c in changes(store, since="w1").changes} == {"P1RwlvoAAAAJ", "LZ5D_p4AAAAJ"}
    for person in ("LZ5D_p4AAAAJ", "scholar:LZ5D_p4AAAAJ"):
        assert {c.profile.id for c in changes(store, since="w1", persons=[person]).changes} == {"LZ5D_p4AAAAJ"}


def test_older_store_history_without_versions_still_compares_counts(page, tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    save(store, "w1", page(ED), WEEK[0])
    save(store, "w2", page(ED).count("u5HHmVD_uO8C", 30), WEEK[1])
    with sqlite3.connect(tmp_path / "s.sqlite") as connection:
        connection.execute("UPDATE run_publications SET version = NULL")
    [change] = changes(store).changes
    assert (change.kind, change.after) == ("citations", 30)
    assert change.paper and change.paper.title == "Set in stone: Analysis of an immutable web3 social media platform"
    store.close()


def test_a_schema_2_store_read_only_tells_partial_from_drifted_runs_by_their_warnings(page, tmp_path: Path) -> None:
    location = tmp_path / "old.sqlite"
    store = Store(location)
    save(store, "w1", page(RX), WEEK[0])
    save(store, "w2", class_dropped(page(RX).text, "gsc_a_ac"), WEEK[1])  # drifted: no counts
    save(store, "w3", page(RX).count("qjMakFHDy7sC", 1190), WEEK[2])
    store.close()
    with sqlite3.connect(location) as db:  # as schema 2 wrote it: no standing columns, no capture times
        for table, column in (("profile_runs", "partial"), ("profile_runs", "trusted"), ("profile_runs", "taken_at"),
                              ("profile_runs", "time_source"), ("run_publications", "version")):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        for table in ("publication_versions", "run_failures", "added_pages"):
            db.execute(f"DROP TABLE {table}")
        db.execute("UPDATE profile_runs SET saved_at = ? WHERE run_id = 'w1'", (WEEK[0],))
        db.execute("UPDATE profile_runs SET saved_at = ? WHERE run_id = 'w2'", (WEEK[1],))
        db.execute("UPDATE profile_runs SET saved_at = ? WHERE run_id = 'w3'", (WEEK[2],))
        db.execute("UPDATE store_meta SET value = '2' WHERE name = 'schema'")
    db.close()
    old = Store(location, readonly=True)
    report = changes(old, since="w1")
    assert kinds(report) == [("citations", "RxmmtT8AAAAJ:qjMakFHDy7sC", 1185, 1190)]
    assert report.changes[0].from_run.standing == report.changes[0].to_run.standing == "partial"
    assert [(s.run.id, s.run.standing) for s in report.runs_skipped] == [("w2", "drifted")]
    old.close()


def test_a_store_without_history_compares_nothing(tmp_path: Path) -> None:
    from pubharvest.store import SCHEMA

    location = tmp_path / "schema1.sqlite"
    with sqlite3.connect(location) as db:
        for statement in SCHEMA[:4]:
            db.execute(statement)
        db.execute("INSERT INTO profiles VALUES ('scholar', 'U', 'N', NULL, '{}', 'r1', 'r1', '2024-01-01')")
    db.close()
    old = Store(location, readonly=True)
    report = changes(old, since="2024-01-01")
    assert report.changes == [] and [(u.profile.id, u.reason) for u in report.uncompared] == [
        ("U", "no run in the store's history")]
    old.close()


def test_two_captures_of_one_second_are_ordered_as_they_were_saved(page, store: Store) -> None:
    """A job's fetch times are whole seconds: the later saved is the later run, whatever the run ids."""
    save(store, "zz-first", page(ED), WEEK[0])
    save(store, "aa-second", page(ED).count("u5HHmVD_uO8C", 20), WEEK[0])
    [change] = changes(store).changes
    assert (change.from_run.id, change.to_run.id, change.before, change.after) == ("zz-first", "aa-second", 18, 20)


def test_years_revised_and_a_coauthor_removed(page, store: Store) -> None:
    # RxmmtT8AAAAJ's co-author box starts with Kalpana Platel (5RZfcocAAAAJ); its last three bars are
    # 2024: 1,266, 2025: 1,063, 2026: 113
    save(store, "w1", page(RX), WEEK[0])
    save(store, "w2", page(RX).without_first_coauthor().bar(-2, 1070).bar(-1, 131), WEEK[1])
    report = changes(store)
    assert kinds(report) == [("citations_by_year", "2025", 1063, 1070), ("citations_by_year", "2026", 113, 131),
                             ("coauthor_removed", "5RZfcocAAAAJ", None, None)]
    assert report.changes[-1].coauthor and report.changes[-1].coauthor.name == "Kalpana Platel"


def test_a_doi_filled_in_and_authors_changed_but_a_venue_lost_is_no_change(page, store: Store) -> None:
    first = parse(page(ED).text.encode())
    save(store, "w1", page(ED), WEEK[0])
    later = msgspec.structs.replace(first, publications=list(first.publications))
    one, two = later.publications[0], later.publications[1]
    later.publications[0] = msgspec.structs.replace(one, ids=msgspec.structs.replace(one.ids, doi="10.1145/3589334"))
    later.publications[1] = msgspec.structs.replace(two, authors=[*two.authors, "A Newcomer"], venue=None)
    store.save("w2", "", later, taken_at=WEEK[1])
    assert kinds(changes(store)) == [
        ("field", "P1RwlvoAAAAJ:d1gkVwhDpl0C", two.authors, [*two.authors, "A Newcomer"]),
        ("field", "P1RwlvoAAAAJ:u5HHmVD_uO8C", None, "10.1145/3589334")]
