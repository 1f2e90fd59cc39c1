"""``-o FILE``: a regular file replaced atomically keeping its mode and owner, a new file with the umask's
mode, FIFOs and devices written in place, symbolic links followed, temporary files removed on SIGTERM
and after a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

from pubharvest.cli import main

SEED = FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt"


def parse_to(target: Path | str, *extra: str) -> int:
    return main(["parse", str(SEED), *extra, "-o", str(target)])


def publications(path: Path) -> int:
    return len(json.loads(path.read_text(encoding="utf-8"))[0]["publications"])


def test_a_regular_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    assert parse_to(target) == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and publications(target) == 20
    assert os.listdir(tmp_path) == ["out.json"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root may give a file away")
def test_a_regular_file_keeps_its_owner(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    os.chown(target, 65534, 65534)
    assert parse_to(target) == 0
    assert (target.stat().st_uid, target.stat().st_gid) == (65534, 65534)


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        assert parse_to(tmp_path / "new.json") == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real.json").write_text("old", encoding="utf-8")
    (tmp_path / "link.json").symlink_to("real.json")
    (tmp_path / "dangling.json").symlink_to("created.json")
    assert parse_to(tmp_path / "link.json") == 0 and parse_to(tmp_path / "dangling.json") == 0
    assert os.readlink(tmp_path / "link.json") == "real.json" and publications(tmp_path / "real.json") == 20
    assert os.readlink(tmp_path / "dangling.json") == "created.json" and publications(tmp_path / "created.json") == 20


def test_a_fifo_is_written_in_place(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert parse_to(fifo) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert len(json.loads(received[0])[0]["publications"]) == 20
    assert os.listdir(tmp_path) == ["pipe"]


def test_a_device_is_written_in_place(tmp_path: Path) -> None:
    """A character device (a twin of /dev/null made here, so that the real one is never at risk)."""
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        pytest.skip("cannot make a device node here")
    assert parse_to(null) == 0
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.listdir(tmp_path) == ["null"]


def test_a_folder_is_an_unwritable_output(tmp_path: Path, capsys) -> None:
    assert parse_to(tmp_path) == 1
    assert capsys.readouterr().err.splitlines()[-1] == f"{tmp_path}: unwritable: Is a directory"


def start_slow_run(folder: Path) -> subprocess.Popen:
    """``pubharvest parse SEED - -o out.json`` waiting on stdin (kept open), once its temp file holds SEED."""
    process = subprocess.Popen([sys.executable, "-m", "pubharvest.cli", "parse", str(SEED), "-", "-o",
                                str(folder / "out.json")], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not [n for n in os.listdir(folder) if n.startswith(".out.json.")]:
        assert time.monotonic() < deadline and process.poll() is None, "no temporary file appeared"
        time.sleep(0.05)
    return process


def test_sigterm_removes_the_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "out.json").write_text("old", encoding="utf-8")
    process = start_slow_run(tmp_path)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130 and b"interrupted" in err
    assert os.listdir(tmp_path) == ["out.json"] and (tmp_path / "out.json").read_text(encoding="utf-8") == "old"


INTERRUPTED_IN_A_STRING_EXEC = """
import sys
import pubharvest.cli.parse as parse
from pubharvest.cli import main

def read_each(*args, **kwargs):
    exec("raise KeyboardInterrupt", {})  # as a Ctrl-C landing while an import builds a namedtuple's methods
    yield

parse.read_each = read_each
sys.exit(main(sys.argv[1:]))
"""


def test_an_interrupt_caught_after_a_string_exec_exits_130_under_python_m(tmp_path: Path) -> None:
    # CPython marks such an interrupt as unhandled, and `python -m` then died by SIGINT (-2) after main's 130
    (tmp_path / "interrupted_parse.py").write_text(INTERRUPTED_IN_A_STRING_EXEC, encoding="utf-8")
    (tmp_path / "out.json").write_text("old", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "interrupted_parse", "parse", str(SEED), "-o", str(tmp_path / "out.json")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stderr) == (130, "pubharvest: interrupted; nothing was written\n")
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == "old"


def test_a_sigterm_whose_exception_was_swallowed_still_leaves_the_output_as_it_was(tmp_path: Path) -> None:
    # A SIGTERM that lands while lxml initialises (its Cython code catches every exception) lost its
    # KeyboardInterrupt, and the run went on to replace the output (1 in 8 runs of the test above).
    from pubharvest.output import open_output

    out = tmp_path / "out.json"
    out.write_text("old", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        with open_output("json", str(out)):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)  # the handler runs here
            except KeyboardInterrupt:
                pass  # swallowed, as a C extension's initialisation does
    assert os.listdir(tmp_path) == ["out.json"] and out.read_text(encoding="utf-8") == "old"


def test_the_next_run_removes_the_temporary_file_of_a_killed_run(tmp_path: Path) -> None:
    process = start_slow_run(tmp_path)
    process.kill()
    process.communicate(timeout=30)
    assert len(os.listdir(tmp_path)) == 1  # the stale temporary file, and no output
    assert parse_to(tmp_path / "out.json") == 0
    assert os.listdir(tmp_path) == ["out.json"] and publications(tmp_path / "out.json") == 20


def test_the_temporary_file_of_a_live_run_is_kept(tmp_path: Path) -> None:
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as live:
        try:
            temp = tmp_path / f".out.json.pubharvest-tmp-{live.pid}"
            temp.write_text("in progress", encoding="utf-8")
            assert parse_to(tmp_path / "out.json") == 0
            assert sorted(os.listdir(tmp_path)) == [temp.name, "out.json"]
        finally:
            live.kill()
