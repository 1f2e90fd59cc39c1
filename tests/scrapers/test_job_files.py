"""A job owns its files: another writer's lines in a shared output are never cut, an archive path
naming a file that is not this job's archive is never truncated, and output and warc cannot be one file."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, records, scrape, write_job

from pubharvest.errors import ExitCode
from pubharvest.scrapers.archive import ArchiveWriter


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def job_in(folder: Path, site: FakeSite, user: str, **settings) -> Path:
    folder.mkdir(exist_ok=True)
    return write_job(folder, [{"site": "scholar", "id": user}], {"scholar": site.url}, **settings)


def test_a_job_never_cuts_the_lines_another_job_appended_to_its_output(tmp_path: Path, site, capsys) -> None:
    first = job_in(tmp_path / "a", site, SCHOLAR_A, output="../shared.jsonl")
    second = job_in(tmp_path / "b", site, SCHOLAR_B, output="../shared.jsonl")
    assert scrape(capsys, first)[0] == 0
    assert scrape(capsys, second)[0] == 0
    shared = tmp_path / "shared.jsonl"
    before = digest(shared)
    assert len(records(shared)) == 2
    code, err = scrape(capsys, first, "--new-run")
    assert code == ExitCode.NOT_OUR_FILE and len(err.strip().splitlines()) == 1, err
    assert "not written by this job" in err and "Traceback" not in err
    assert digest(shared) == before, "nothing of the other job's records is lost"


def test_its_own_record_whose_journal_line_never_came_is_cut_and_fetched_again(tmp_path: Path, site,
                                                                               capsys) -> None:
    job = job_in(tmp_path, site, SCHOLAR_A, store="store.sqlite")
    assert scrape(capsys, job)[0] == 0
    journal = tmp_path / "job.journal"
    lines = journal.read_bytes().splitlines(keepends=True)
    assert "writing" in json.loads(lines[-2]) and "outcome" in json.loads(lines[-1])
    journal.write_bytes(b"".join(lines[:-1]))  # killed after the record was appended, before its outcome
    output = tmp_path / "out.jsonl"
    whole = output.read_bytes()
    for kept in (whole, whole[:len(whole) // 2]):  # the record whole, or cut short by the kill
        output.write_bytes(kept)
        journal.write_bytes(b"".join(lines[:-1]))
        code, err = scrape(capsys, job)
        assert code == 0, err
        assert len(records(output)) == 1, "its own record once, never twice, never half"


def test_a_half_line_that_is_not_its_record_is_not_cut(tmp_path: Path, site, capsys) -> None:
    job = job_in(tmp_path, site, SCHOLAR_A)
    assert scrape(capsys, job)[0] == 0
    output = tmp_path / "out.jsonl"
    with open(output, "ab") as stream:
        stream.write(b'{"site": "scholar", "page": "profile", "written by": "someone else"')
    before = digest(output)
    code, err = scrape(capsys, job, "--new-run")
    assert code == ExitCode.NOT_OUR_FILE and digest(output) == before, err


@pytest.mark.parametrize("how", ["same name", "relative path", "symbolic link", "hard link"])
def test_output_and_warc_may_not_be_one_file(how: str, tmp_path: Path, site, capsys) -> None:
    output = tmp_path / "out.jsonl"
    output.write_bytes(b'{"kept": 1}\n')
    warc = {"same name": "out.jsonl", "relative path": "./sub/../out.jsonl", "symbolic link": "link.warc.gz",
            "hard link": "hard.warc.gz"}[how]
    (tmp_path / "sub").mkdir()
    if how == "symbolic link":
        (tmp_path / warc).symlink_to(output)
    if how == "hard link":
        os.link(output, tmp_path / warc)
    job = job_in(tmp_path, site, SCHOLAR_A, warc=warc)
    code, err = scrape(capsys, job)
    assert code == ExitCode.USAGE and len(err.strip().splitlines()) == 1 and "same file" in err, err
    assert output.read_bytes() == b'{"kept": 1}\n'
    assert site.paths() == [], "refused before anything is fetched"


def other_archive(path: Path, job: str) -> None:
    writer = ArchiveWriter(path, {"software": "pubharvest", "job": job})
    writer.exchange("GET", "http://127.0.0.1/x", [], 200, "OK", [], b"a page of another job", writer.make_id())
    writer.close()


@pytest.mark.parametrize("what", ["text", "another job's archive", "another tool's", "link to text", "cut file"])
def test_a_warc_that_is_not_this_jobs_archive_is_refused_and_left_as_it_was(what: str, tmp_path: Path, site,
                                                                            capsys) -> None:
    warc = tmp_path / "out.warc.gz"
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"ten records a person wrote\n" * 10)
    if what == "text":
        warc.write_bytes(notes.read_bytes())
    elif what == "another job's archive":
        other_archive(warc, "another")
    elif what == "another tool's":
        from test_archive import foreign_archive

        foreign_archive(warc)
    elif what == "link to text":
        warc.symlink_to(notes)
    else:  # a gzip stream of something else, cut short
        import gzip

        warc.write_bytes(gzip.compress(b"not a WARC record at all " * 500)[:-40])
    before, notes_before = digest(warc), digest(notes)
    job = job_in(tmp_path, site, SCHOLAR_A)
    code, err = scrape(capsys, job)
    assert code == ExitCode.NOT_OUR_FILE and "not this job's archive" in err and "Traceback" not in err, err
    assert digest(warc) == before and digest(notes) == notes_before, "never truncated"


def test_its_own_archive_is_appended_to_run_after_run(tmp_path: Path, site, capsys) -> None:
    job = job_in(tmp_path, site, SCHOLAR_A)
    assert scrape(capsys, job)[0] == 0
    size = (tmp_path / "out.warc.gz").stat().st_size
    code, err = scrape(capsys, job, "--new-run")
    assert code == 0, err
    assert (tmp_path / "out.warc.gz").stat().st_size > size
