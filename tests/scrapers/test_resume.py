"""A job killed midway (SIGKILL) or stopped with Ctrl-C (SIGINT) leaves no partial record, and a
rerun skips the finished targets and completes the rest, each record once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fakesite import FakeSite
from scrapejobs import profile_key, records, write_job
from scrapyjobs import cli

from pubharvest.cli import main

USERS = [f"User{i:04d}xAAAAJ" for i in range(6)]


def start_job(job: Path) -> subprocess.Popen:
    return subprocess.Popen(cli("scrape", str(job)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for(condition, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def journal_done(journal: Path) -> int:
    lines = journal.read_text(encoding="utf-8").splitlines() if journal.exists() else []
    return sum('"outcome": "done"' in line for line in lines)


@contextmanager
def held_job(folder: Path, users: list[str], held: int) -> Iterator[tuple[FakeSite, Path, subprocess.Popen]]:
    """A job over ``users`` running in its own process, held on target ``held`` (its page never comes)
    once the targets before it are durable; gives (site, job, process), killed at the end."""
    with FakeSite() as site:
        site.fault(f"user={users[held]}", "hang")
        job = write_job(folder, [{"site": "scholar", "id": u} for u in users], {"scholar": site.url}, timeout=60)
        process = start_job(job)
        try:
            # Records are committed on a writer thread: wait until those before the held one are durable.
            wait_for(lambda: site.paths(f"user={users[held]}") and journal_done(folder / "job.journal") == held)
            yield site, job, process
        finally:
            if process.poll() is None:
                process.kill()
            process.wait()


@pytest.fixture
def hanging_job(tmp_path: Path):
    """A six-target job whose fourth target's page never comes; yields (site, job, process)."""
    with held_job(tmp_path, USERS, 3) as held:
        yield held


def test_killed_job_leaves_whole_records_and_the_rerun_completes(hanging_job, tmp_path: Path, capsys) -> None:
    site, job, process = hanging_job
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    output, archive = tmp_path / "out.jsonl", tmp_path / "out.warc.gz"
    assert [profile_key(r) for r in records(output)] == [f"scholar:{u}" for u in USERS[:3]]
    # What a kill during a write would leave: the journal's note of the record it writes, a torn record
    # line, and a torn archive record.
    journal = tmp_path / "job.journal"
    run = json.loads(journal.read_bytes().splitlines()[-1])["run"]
    with open(journal, "ab") as stream:
        stream.write(json.dumps({"run": run, "target": f"scholar:{USERS[3]}", "writing": 900, "sha256": "0" * 64,
                                 "at": output.stat().st_size}).encode() + b"\n")
    with open(output, "ab") as stream:
        stream.write(b'{"site":"scholar","page":"prof')
    with open(archive, "ab") as stream:
        stream.write(b"\x1f\x8b\x08\x00torn")
    code = main(["scrape", str(job)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "6 done" not in err and "3 done" in err and "3 already finished" in err
    assert [profile_key(r) for r in records(output)] == [f"scholar:{u}" for u in USERS]
    assert all(len(site.paths(f"user={u}")) == 1 for u in USERS[:3])
    assert main(["parse", "-f", "jsonl", str(archive)]) == 0
    assert capsys.readouterr().out == output.read_text(encoding="utf-8")


@pytest.mark.parametrize(("stop", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_stops_cleanly_with_a_summary(hanging_job, tmp_path: Path, capsys, stop: int,
                                                        status: int) -> None:
    _site, job, process = hanging_job
    process.send_signal(stop)
    _, err = process.communicate(timeout=20)
    assert process.returncode == status, err
    assert "Traceback" not in err
    assert "interrupted" in err and "3 done" in err and "3 pending" in err
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == [f"scholar:{u}" for u in USERS[:3]]
    assert main(["scrape", str(job)]) == 0
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == [f"scholar:{u}" for u in USERS]
