"""``pubharvest store add``: saved pages enter the store as runs, as a job's pages do."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timezone
from io import BytesIO
from pathlib import Path

import pytest
from fakesite import FakeSite, scholar_page
from scrapejobs import SCHOLAR_A, SCHOLAR_B, scrape, write_job
from singlefile import wrapped

from pubharvest.cli import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scholar"
JA = (FIXTURES / "handwritten_ja_profile.html").read_bytes()  # user Yamada12AAAAJ, 4 rows
BASE = "https://scholar.google.com/citations"
SINGLEFILE = (b"<!--\n Page saved with SingleFile \n url: %s \n"
              b" saved date: Thu Mar 14 2024 12:05:09 GMT+0100 (CET)\n-->\n")


def saved(folder: Path, name: str, body: bytes | str, url: str | None = None, mtime: str | None = None) -> Path:
    """``body`` saved as a browser saves a page: with a ``saved from url=`` comment when ``url`` is given."""
    data = body.encode() if isinstance(body, str) else body
    if url is not None:
        data = b"<!-- saved from url=(%04d)%s -->\n" % (len(url), url.encode()) + data
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        stamp = datetime.fromisoformat(mtime).replace(tzinfo=timezone.utc).timestamp()
        os.utime(path, (stamp, stamp))
    return path


def add(capsys, *args: str | Path) -> tuple[int, str]:
    code = main(["store", "add", *map(str, args)])
    return code, capsys.readouterr().err


def runs(store: Path) -> list[tuple]:
    """``(profile, run, taken_at, time_source, publications, complete)`` of every stored run, oldest first."""
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT profile_id, run_id, taken_at, time_source, publications, complete "
                          "FROM profile_runs ORDER BY profile_id, taken_at").fetchall()
    db.close()
    return rows


def exported(store: Path, profile: str) -> str:
    with sqlite3.connect(store) as db:
        row = db.execute("SELECT last_run FROM profiles WHERE profile_id = ?", (profile,)).fetchone()
    db.close()
    return row[0]


def test_each_capture_is_timed_by_at_else_the_saving_tools_mark_else_the_files_time(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    marked = saved(tmp_path / "a", "singlefile.html", SINGLEFILE % BASE.encode() + JA)
    plain = saved(tmp_path / "b", "chrome.html", scholar_page(SCHOLAR_A, 3, 0, 100), mtime="2023-01-02T03:04:05")
    assert add(capsys, marked, plain, "--store", store)[0] == 0
    assert [row[:1] + row[2:4] for row in runs(store)] == [
        (SCHOLAR_A, "2023-01-02T03:04:05.000000+00:00", "mtime"),
        ("Yamada12AAAAJ", "2024-03-14T11:05:09.000000+00:00", "page")]  # 12:05:09 at GMT+0100
    other = saved(tmp_path / "c", "later.html", scholar_page(SCHOLAR_A, 4, 0, 100))
    assert add(capsys, other, "--store", store, "--at", "2024-06-01T09:30+02:00")[0] == 0
    assert runs(store)[1][2:4] == ("2024-06-01T07:30:00.000000+00:00", "at")


def test_the_same_bytes_added_twice_add_nothing(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    page = saved(tmp_path / "pages", "p.html", scholar_page(SCHOLAR_A, 3, 0, 100))
    code, err = add(capsys, tmp_path / "pages", "--store", store)
    assert code == 0 and "1 run(s) of 1 profile(s) stored" in err, err
    before = runs(store)
    code, err = add(capsys, page, "--store", store, "--at", "2030-01-01")  # another time changes nothing either
    assert code == 0 and "0 run(s) of 0 profile(s) stored" in err and "1 already there" in err, err
    assert runs(store) == before


def test_a_refused_page_stores_nothing_and_a_readme_beside_the_pages_is_a_note(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    folder = tmp_path / "pages"
    saved(folder, "good.html", scholar_page(SCHOLAR_A, 3, 0, 100))
    saved(folder, "captcha.html", '<html><head><title>Google Scholar</title></head><body><div id="gs_captcha_ccl">'
                                  "<h1>Please show you're not a robot</h1><form id=\"gs_captcha_f\"></form></div>"
                                  "</body></html>")
    saved(folder, "README.md", "My saved Scholar pages, one folder a week.\n")
    code, err = add(capsys, folder, "--store", store)
    lines = err.splitlines()
    assert code == 1, err
    assert any(line.startswith(f"{folder / 'captcha.html'}: blocked:") for line in lines), err
    assert any(line.startswith(f"{folder / 'README.md'}: note: skipped:") for line in lines), err
    assert [row[0] for row in runs(store)] == [SCHOLAR_A]


@pytest.mark.parametrize("make", ["empty folder", "only notes"])
def test_inputs_without_a_profile_page_are_one_line_and_no_store_is_made(tmp_path: Path, capsys, make: str) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    if make == "only notes":
        saved(folder, "notes.txt", "nothing here\n")
    code, err = add(capsys, folder, "--store", tmp_path / "s.sqlite")
    assert code == 1 and len(err.splitlines()) <= 2 and "no_pages" in err, err
    assert not (tmp_path / "s.sqlite").exists()


def test_a_bad_at_and_a_file_that_is_no_store_are_usage_errors_and_nothing_is_written(tmp_path: Path, capsys) -> None:
    page = saved(tmp_path, "p.html", scholar_page(SCHOLAR_A, 3, 0, 100))
    code, err = add(capsys, page, "--store", tmp_path / "s.sqlite", "--at", "last tuesday")
    assert code == 2 and "--at 'last tuesday' is not a date" in err and not (tmp_path / "s.sqlite").exists()
    notes = tmp_path / "notes.sqlite"
    notes.write_bytes(b"these are my notes, not a database\n" * 200)
    code, err = add(capsys, page, "--store", notes)
    assert code == 2 and len(err.splitlines()) == 1 and "not a readable pubharvest store" in err, err
    assert notes.read_bytes() == b"these are my notes, not a database\n" * 200


def test_a_page_saved_long_ago_and_added_later_takes_its_place_in_the_history(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    new = saved(tmp_path / "new", "p.html", scholar_page(SCHOLAR_A, 5, 0, 100), mtime="2024-05-01T00:00:00")
    old = saved(tmp_path / "old", "p.html", scholar_page(SCHOLAR_A, 3, 0, 100), mtime="2022-05-01T00:00:00")
    assert add(capsys, new, "--store", store)[0] == 0
    newest = exported(store, SCHOLAR_A)
    assert add(capsys, old, "--store", store)[0] == 0
    assert exported(store, SCHOLAR_A) == newest, "the older capture does not replace the newer one"
    assert [(row[2][:10], row[4]) for row in runs(store)] == [("2022-05-01", 3), ("2024-05-01", 5)]


def test_the_pages_of_one_long_profile_saved_together_are_one_complete_run(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    url = f"{BASE}?user={SCHOLAR_A}&hl=ja&pagesize=100"
    first = saved(tmp_path / "week1", "b-first.html", scholar_page(SCHOLAR_A, 150, 0, 100), f"{url}&cstart=0",
                  "2024-01-01T10:00:00")
    second = saved(tmp_path / "week1", "a-second.html", scholar_page(SCHOLAR_A, 150, 100, 100), f"{url}&cstart=100",
                   "2024-01-01T10:02:00")
    assert add(capsys, first, second, "--store", store)[0] == 0
    assert [row[4:] for row in runs(store)] == [(150, 1)]
    with sqlite3.connect(store) as db:
        listed = [pub for (pub,) in db.execute("SELECT publication_id FROM run_publications ORDER BY position")]
    db.close()
    assert listed[0] == f"{SCHOLAR_A}:P00000000000" and listed[149] == f"{SCHOLAR_A}:P00000000149"
    # the first page alone a week later ("Show more" still enabled): a partial run, never the exported one
    alone = saved(tmp_path / "week2", "p.html", scholar_page(SCHOLAR_A, 150, 0, 100, cites=1), f"{url}&cstart=0",
                  "2024-01-08T10:00:00")
    assert add(capsys, alone, "--store", store)[0] == 0
    assert [row[4:] for row in runs(store)] == [(150, 1), (100, 0)]
    assert exported(store, SCHOLAR_A) == runs(store)[0][1]


def test_pages_saved_as_mhtml_are_timed_by_their_date_and_placed_by_their_address(tmp_path: Path, capsys) -> None:
    # Chrome's single-file saves of a 150-row profile's two pages: one run, complete, at the files' Date
    store = tmp_path / "s.sqlite"
    url = f"{BASE}?user={SCHOLAR_A}&hl=en&pagesize=100"
    for name, start, date in (("b-first.mhtml", 0, "Mon, 1 Jan 2024 11:00:00 +0100"),
                              ("a-second.mhtml", 100, "Mon, 1 Jan 2024 10:02:00 -0000")):
        page = scholar_page(SCHOLAR_A, 150, start, 100).encode()
        saved(tmp_path / "week1", name, wrapped(page, f"{url}&cstart={start}", date=date), mtime="2025-06-01T00:00:00")
    assert add(capsys, tmp_path / "week1", "--store", store)[0] == 0
    assert [row[2:] for row in runs(store)] == [("2024-01-01T10:00:00.000000+00:00", "page", 150, 1)]


def test_a_capture_that_lost_most_rows_without_the_page_saying_so_is_shrunk(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.sqlite"
    assert add(capsys, saved(tmp_path / "1", "p.html", scholar_page(SCHOLAR_A, 40, 0, 100)), "--store", store,
               "--at", "2024-01-01")[0] == 0
    code, err = add(capsys, saved(tmp_path / "2", "p.html", scholar_page(SCHOLAR_A, 5, 0, 100)), "--store", store,
                    "--at", "2024-01-08")
    assert code == 0 and "warning: shrunk: lists 5 publications where run" in err, err
    assert [row[4:] for row in runs(store)] == [(40, 1), (5, 0)]
    assert exported(store, SCHOLAR_A) == runs(store)[0][1]


def foreign_archive(path: Path, pages: list[tuple[str, bytes, str]]) -> None:
    """A WARC as another crawler writes it: one response per ``(url, body, WARC-Date)``."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, body, date in pages:
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers)
            record.rec_headers.replace_header("WARC-Date", date)
            writer.write_record(record)


def test_another_tools_archive_gives_a_run_per_capture_at_its_warc_dates(tmp_path: Path, capsys) -> None:
    store, archive = tmp_path / "s.sqlite", tmp_path / "crawl.warc.gz"
    foreign_archive(archive, [(f"{BASE}?user={SCHOLAR_A}", scholar_page(SCHOLAR_A, 3, 0, 100).encode(),
                               "2020-02-03T04:05:06Z"),
                              (f"{BASE}?user={SCHOLAR_A}", scholar_page(SCHOLAR_A, 4, 0, 100).encode(),
                               "2020-02-10T04:05:06Z")])
    assert add(capsys, archive, "--store", store)[0] == 0
    assert [row[2:] for row in runs(store)] == [("2020-02-03T04:05:06.000000+00:00", "archive", 3, 1),
                                                ("2020-02-10T04:05:06.000000+00:00", "archive", 4, 1)]


def store_contents(store: Path) -> list[tuple]:
    """What a store holds of each run, without run ids and times: per profile and run, in capture order, the
    run's standing, its listing with each publication's version and count."""
    with sqlite3.connect(store) as db:
        found = []
        for profile, run, complete, partial, trusted in db.execute(
                "SELECT profile_id, run_id, complete, partial, trusted FROM profile_runs "
                "ORDER BY profile_id, taken_at"):
            listing = db.execute(
                "SELECT l.publication_id, v.record, s.citations FROM run_publications l "
                "JOIN publication_versions v ON v.digest = l.version JOIN citation_snapshots s ON s.run_id = l.run_id "
                "AND s.publication_id = l.publication_id WHERE l.profile_id = ? AND l.run_id = ? ORDER BY l.position",
                (profile, run)).fetchall()
            found.append((profile, complete, partial, trusted, listing))
    db.close()
    return found


def saved_from_archive(archive: Path, folder: Path) -> None:
    """Every page response of a job's archive saved in ``folder`` as a browser saves it (its URL in a comment)."""
    from warcio.archiveiterator import ArchiveIterator

    with open(archive, "rb") as stream:
        for index, record in enumerate(ArchiveIterator(stream)):
            uri = record.rec_headers.get_header("WARC-Target-URI") or ""
            if record.rec_type == "response" and "/citations?" in uri:
                saved(folder, f"page{index:03d}.html", record.content_stream().read(), uri)


def test_store_add_of_the_saved_pages_stores_what_the_job_that_fetched_them_stored(tmp_path: Path, capsys) -> None:
    job_dir, mine = tmp_path / "job", tmp_path / "mine.sqlite"
    job_dir.mkdir()
    with FakeSite() as site:
        site.scholar.update({SCHOLAR_A: 150, SCHOLAR_B: 3})
        job = write_job(job_dir, [{"site": "scholar", "id": SCHOLAR_A}, {"site": "scholar", "id": SCHOLAR_B}],
                        {"scholar": site.url})
        assert scrape(capsys, job)[0] == 0
        saved_from_archive(job_dir / "out.warc.gz", tmp_path / "week1")
        (job_dir / "out.warc.gz").unlink()
        site.scholar.update({SCHOLAR_A: 152, SCHOLAR_B: 1})  # two papers added; two gone from a complete listing
        site.cites = 5
        assert scrape(capsys, job, "--new-run")[0] == 0
        saved_from_archive(job_dir / "out.warc.gz", tmp_path / "week2")
    assert add(capsys, tmp_path / "week1", "--store", mine, "--at", "2024-01-01")[0] == 0
    assert add(capsys, tmp_path / "week2", "--store", mine, "--at", "2024-01-08")[0] == 0
    theirs = store_contents(job_dir / "store.sqlite")
    assert store_contents(mine) == theirs
    assert [(p, len(listing)) for p, *_, listing in theirs] == [(SCHOLAR_A, 150), (SCHOLAR_A, 152),
                                                                (SCHOLAR_B, 3), (SCHOLAR_B, 1)]
    # and the job's own archive added to its own store adds nothing: its runs are there
    code, err = add(capsys, job_dir / "out.warc.gz", "--store", job_dir / "store.sqlite")
    assert code == 0 and "2 already there" in err, err
