"""Plans shown as a diff and applied: each file atomically, its mode kept, refused when it changed since planned,
and a run killed (SIGKILL) at any point leaves every file as it was or as it should be."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pubharvest.errors import TargetChanged
from pubharvest.sync import FileChange, SyncPlan
from pubharvest.sync.apply import apply, diff


def test_the_diff_names_files_relative_to_the_root(tmp_path: Path) -> None:
    plan = SyncPlan([FileChange(tmp_path / "a.bib", b"x\n", b"x\ny\n"), FileChange(tmp_path / "n/new.md", None, b"hi"),
                     FileChange(tmp_path / "same", b"s", b"s")])
    assert diff(plan, tmp_path) == ("--- a/a.bib\n+++ b/a.bib\n@@ -1 +1,2 @@\n x\n+y\n"
                                    "--- /dev/null\n+++ b/n/new.md\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n")


def test_apply_writes_keeps_the_mode_and_makes_folders(tmp_path: Path) -> None:
    old = tmp_path / "a.bib"
    old.write_bytes(b"old")
    old.chmod(0o640)
    written = apply(SyncPlan([FileChange(old, b"old", b"new"), FileChange(tmp_path / "d/e/f.md", None, b"made")]))
    assert old.read_bytes() == b"new" and (old.stat().st_mode & 0o777) == 0o640
    assert (tmp_path / "d/e/f.md").read_bytes() == b"made" and len(written) == 2
    assert sorted(os.listdir(tmp_path)) == ["a.bib", "d"]  # no temporary file left


@pytest.mark.parametrize("now", [b"edited meanwhile", None])
def test_a_file_changed_since_planned_is_refused_and_nothing_is_written(tmp_path: Path, now: bytes | None) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.write_bytes(b"1")
    if now is not None:
        second.write_bytes(now)
    plan = SyncPlan([FileChange(first, b"1", b"one"), FileChange(second, b"2", b"two")])
    with pytest.raises(TargetChanged):
        apply(plan)
    assert first.read_bytes() == b"1"
    assert (second.read_bytes() if second.exists() else None) == now


def test_a_new_file_someone_created_meanwhile_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x").write_bytes(b"theirs")
    with pytest.raises(TargetChanged, match="was created"):
        apply(SyncPlan([FileChange(tmp_path / "x", None, b"ours")]))
    assert (tmp_path / "x").read_bytes() == b"theirs"


KILLED_RUN = """
import sys
from pathlib import Path
from pubharvest.sync import FileChange, SyncPlan
from pubharvest.sync.apply import apply
root = Path(sys.argv[1])
plan = SyncPlan([FileChange(root / f"f{n}.bib", (root / f"f{n}.bib").read_bytes(), bytes([65 + n % 26]) * 3_000_000)
                 for n in range(12)])
print("ready", flush=True)
apply(plan)
"""


def test_a_sync_killed_at_any_point_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    rng = random.Random(9)
    outcomes = set()
    for attempt in range(10):
        root = tmp_path / str(attempt)
        root.mkdir()
        for n in range(12):
            (root / f"f{n}.bib").write_bytes(b"old %d\n" % n)
        proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(root)], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for n in range(12):
            data = (root / f"f{n}.bib").read_bytes()
            new = bytes([65 + n % 26]) * 3_000_000
            assert data in (b"old %d\n" % n, new), f"f{n}.bib half-written ({len(data)} bytes)"
            outcomes.add(data == new)
    assert outcomes == {True, False}, "the kills should land both before and after some renames"
