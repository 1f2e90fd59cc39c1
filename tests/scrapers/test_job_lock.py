"""One runner per job: a second ``pubharvest scrape`` of a job that is running refuses with one line
and exit 2, touching nothing; once the first is gone (even by kill -9), a new run proceeds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from scrapejobs import ENGINES, profile_key, records
from test_resume import held_job

from pubharvest.cli import main
from pubharvest.errors import ExitCode

USERS = [f"Lock{i:04d}xxAAAAJ" for i in range(4)]


@pytest.fixture
def running_job(tmp_path: Path):
    """A job whose process is held on its third target's page (a slow server); yields (job, process)."""
    with held_job(tmp_path, USERS, 2) as (_, job, process):
        yield job, process


@pytest.mark.parametrize("engine", ENGINES)
def test_a_second_runner_of_a_running_job_refuses(running_job, tmp_path: Path, engine: str) -> None:
    if engine == "scrapy":
        pytest.importorskip("scrapy")  # the README's test command installs the test extra only
    job, first = running_job
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file() and p.suffix != ".lock"}
    second = subprocess.run([sys.executable, "-m", "pubharvest.cli", "scrape", str(job), "--engine", engine],
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == ExitCode.USAGE, second.stderr
    [line] = second.stderr.splitlines()
    assert "already running" in line and f"pid {first.pid}" in line, line
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file() and p.suffix != ".lock"}
    assert after == before, "the second runner wrote nothing, cut nothing"
    assert first.poll() is None


def test_after_kill_9_of_the_runner_a_new_run_proceeds(running_job, tmp_path: Path, capsys) -> None:
    job, first = running_job
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    assert main(["scrape", str(job)]) == 0, capsys.readouterr().err
    assert [profile_key(r) for r in records(tmp_path / "out.jsonl")] == [f"scholar:{u}" for u in USERS]
    assert main(["scrape", str(job)]) == 0, "the lock is let go when a run ends"
