"""The store keeps history: a bad run never erases a good one, records
say when they were fetched, and ``store export`` reads any store without writing into it."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import ENGINES, SCHOLAR_A, records, scrape, write_job
from scrapyjobs import run_cli

from pubharvest.cli import main
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds
from pubharvest.store import Store


def run(engine: str, capsys, job: Path, *args: str) -> tuple[int, str]:
    if engine == "httpx":
        return scrape(capsys, job, *args)
    done = run_cli("scrape", str(job), "--engine", "scrapy", *args)
    return done.returncode, done.stderr


def exported(store: Path, capsys) -> list[dict]:
    assert main(["store", "export", "--store", str(store)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def outcomes(journal: Path) -> list[tuple[str, str]]:
    return [(e["run"], e["outcome"]) for e in records(journal) if "outcome" in e]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("change", ["rows", "cut"])
def test_a_layout_change_or_a_cut_page_keeps_the_stored_publications(engine: str, change: str, tmp_path: Path,
                                                                      capsys) -> None:
    if engine == "scrapy":
        pytest.importorskip("scrapy")
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 12
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        code, err = run(engine, capsys, job)
        assert code == 0 and "1 done" in err, err
        site.change = change
        code, err = run(engine, capsys, job, "--new-run")
    assert "1 done" not in err and ("shrunk" in err or "failed" in err), err
    assert "Traceback" not in err
    [first, second] = outcomes(tmp_path / "job.journal.jsonl" if (tmp_path / "job.journal.jsonl").exists()
                               else next(p for p in tmp_path.glob("*journal*") if p.suffix != ".lock"))
    assert second[1] != "done" and first[0] != second[0]
    [profile] = exported(tmp_path / "store.sqlite", capsys)
    assert len(profile["publications"]) == 12, "run 1's listing still stands"
    store = Store(tmp_path / "store.sqlite")
    history = store.listings("scholar", SCHOLAR_A)
    store.close()
    assert len(history[0][2]) == 12
    assert all(complete is False for _, complete, _ in history[1:]), "a later record is never the complete one"


def test_a_shrink_is_kept_and_reported_and_accepted_once_seen_twice(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        site.scholar[SCHOLAR_A] = 12
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        assert scrape(capsys, job)[0] == 0
        site.scholar[SCHOLAR_A] = 4
        code, err = scrape(capsys, job, "--new-run")
        assert code == 0 and f"scholar:{SCHOLAR_A}: shrunk: lists 4 publications where run" in err, err
        assert "1 partial" in err
        assert [len(p["publications"]) for p in exported(tmp_path / "store.sqlite", capsys)] == [12]
        code, err = scrape(capsys, job, "--new-run")
        assert code == 0 and "1 done" in err and "shrunk" not in err, err
    [profile] = exported(tmp_path / "store.sqlite", capsys)
    assert len(profile["publications"]) == 4, "the same count twice in a row is the profile's new list"


def test_records_a_job_writes_say_when_and_an_offline_parse_does_not(tmp_path: Path, capsys) -> None:
    with FakeSite() as site:
        job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_A}], {"scholar": site.url})
        assert scrape(capsys, job)[0] == 0
    [record] = records(tmp_path / "out.jsonl")
    [run] = {e["run"] for e in records(next(p for p in tmp_path.glob("*journal*") if p.suffix != ".lock"))}
    assert record["source"]["run"] == run and record["source"]["fetched_at"].endswith("Z")
    [stored] = exported(tmp_path / "store.sqlite", capsys)
    assert stored["source"] == record["source"]
    page = tmp_path / "page.html"
    page.write_text(FakeSite_page(), encoding="utf-8")
    assert main(["parse", "--format", "jsonl", str(page)]) == 0
    assert set(json.loads(capsys.readouterr().out)["source"]) == {"sha256", "parser"}


def FakeSite_page() -> str:
    from fakesite import scholar_page

    return scholar_page(SCHOLAR_A, 4, 0, 20)


# --- store export: older, newer, foreign and damaged stores --------------------------------------


def profile(titles: tuple[str, ...], run: str = "") -> PageResult:
    return PageResult(site="scholar", page="profile", profile=Profile(name="N", ids=Ids(scholar="U")),
                      publications=[Publication(title=t, ids=PublicationIds(scholar=f"U:{t}")) for t in titles])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export(path: Path, capsys) -> tuple[int, str, str]:
    code = main(["store", "export", "--store", str(path)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def schema_1_store(path: Path) -> None:
    """A store as pubharvest wrote it before history: one listing per profile."""
    from pubharvest.store import SCHEMA

    with sqlite3.connect(path) as db:
        for statement in SCHEMA[:4]:
            db.execute(statement)
        record = '{"site":"scholar","page":"profile","profile":{"name":"N","ids":{"scholar":"U"}}}'
        db.execute("INSERT INTO profiles VALUES ('scholar', 'U', 'N', NULL, ?, 'r1', 'r1', '2024-01-01')", (record,))
        for position, title in enumerate(("A", "B")):
            db.execute("INSERT INTO publications VALUES ('scholar', ?, ?, NULL, 1, ?, 'r1', '2024-01-01')",
                       (f"U:{title}", title, json.dumps({"title": title})))
            db.execute("INSERT INTO profile_publications VALUES ('scholar', 'U', ?, ?)", (f"U:{title}", position))
    db.close()


def test_an_older_store_is_exported_untouched_and_migrated_in_place_when_a_job_writes(tmp_path: Path, capsys) -> None:
    path = tmp_path / "old.sqlite"
    schema_1_store(path)
    before = digest(path)
    code, out, err = export(path, capsys)
    assert (code, err) == (0, "") and [p["title"] for p in json.loads(out)["publications"]] == ["A", "B"]
    assert digest(path) == before, "export never writes"
    store = Store(path)
    assert store.listings("scholar", "U") == [("r1", True, ["U:A", "U:B"])], "the old listing is run r1's"
    assert store.save("r2", "U", profile(())) is not None, "shrunk against the migrated run"
    store.close()
    assert [p["title"] for p in json.loads(export(path, capsys)[1])["publications"]] == ["A", "B"]


def test_a_newer_stores_unknown_fields_are_ignored(tmp_path: Path, capsys) -> None:
    path = tmp_path / "new.sqlite"
    store = Store(path)
    store.save("r1", "U", profile(("A",)))
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("""UPDATE profiles SET record = json_set(record, '$.added_later', 1, '$.profile.also_new', 'x')""")
        db.execute("""UPDATE publications SET record = json_set(record, '$.ids.new_id', 'z', '$.new', 2)""")
    db.close()
    code, out, err = export(path, capsys)
    assert (code, err) == (0, "") and json.loads(out)["publications"][0]["title"] == "A"


@pytest.mark.parametrize("content", ["foreign", "empty", "random", "text"])
def test_export_refuses_what_is_not_a_store_in_one_line_and_leaves_it_as_it_was(content: str, tmp_path: Path,
                                                                                 capsys) -> None:
    path = tmp_path / "file.sqlite"
    if content == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
        db.close()
    else:
        path.write_bytes({"empty": b"", "random": bytes(range(256)) * 64, "text": b"SQLite format 3 lies"}[content])
    before = digest(path)
    code, out, err = export(path, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "pubharvest store" in err
    assert digest(path) == before and not list(tmp_path.glob("file.sqlite-*")), "nothing written beside it either"


def test_a_cut_store_is_one_line_and_a_failure(tmp_path: Path, capsys) -> None:
    path = tmp_path / "cut.sqlite"
    store = Store(path)
    for n in range(40):
        store.save(f"r{n}", f"U{n}", profile(tuple(f"title {i} " * 20 for i in range(30))))
    store.close()
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 3])
    code, _, err = export(path, capsys)
    assert code in (1, 2) and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
