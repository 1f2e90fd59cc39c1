"""The inputs of ``parse`` and ``merge``: a size ceiling (gzip bombs too), a batch that survives any one
input, and unreadable files and folders reported per path."""

from __future__ import annotations

import builtins
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import zlib
from pathlib import Path

import pytest
from conftest import FIXTURES

from pubharvest.cli import main
from pubharvest.errors import ExitCode, TooLarge, Truncated
from pubharvest.inputs import read_stream
from pubharvest.parsers import parse
from pubharvest.parsers.page import gunzip

SEED = FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt"
MSR = FIXTURES / "msr" / "001_0be51d225ce2b3fb.txt"
DENIED = "Permission denied"


def run(capsys, *args: str) -> tuple[int, str, list[str]]:
    """Exit status, stdout, and the stderr lines that are not a page's warnings."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if ": warning: " not in line]


def write_zeros_gzip(path: Path, blocks: int, block: int = 1 << 24) -> Path:
    """A valid one-member gzip file of ``blocks * block`` zero bytes, ~1000 times smaller, written in
    seconds: one deflate block of ``block`` zeros, fully flushed (so that it stands alone), repeated."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressed = deflate.compress(bytes(block)) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc, zeros = 0, bytes(block)
    for _ in range(blocks):
        crc = zlib.crc32(zeros, crc)
    with open(path, "wb") as stream:
        stream.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")
        for _ in range(blocks):
            stream.write(compressed)
        stream.write(zlib.compressobj(9, zlib.DEFLATED, -15).flush())
        stream.write(struct.pack("<II", crc, (blocks * block) & 0xFFFFFFFF))
    return path


def test_the_zeros_gzip_is_what_it_says(tmp_path: Path) -> None:
    assert gzip.decompress(write_zeros_gzip(tmp_path / "z.gz", 3, 1 << 16).read_bytes()) == bytes(3 << 16)


# --- the size ceiling ---------------------------------------------------------------------------------


def test_a_gzip_bomb_stops_at_the_ceiling_in_little_memory(tmp_path: Path) -> None:
    """2 GB of zeros in a 2 MB file: one too_large line, exit 1, and the process' peak memory small."""
    bomb = write_zeros_gzip(tmp_path / "bomb.html.gz", 128)
    assert bomb.stat().st_size < 3_000_000
    # A fresh Python runs pubharvest and reports its child's peak RSS (kB on Linux): only that child counts.
    measure = ("import resource, subprocess, sys; "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
               "print(done.stderr, end='')")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "pubharvest.cli", "parse",
                           "--max-bytes", "10M", str(bomb)], capture_output=True, text=True, check=True, timeout=120)
    status, _, err = done.stdout.partition("\n")
    code, peak_kb = map(int, status.split())
    assert err.splitlines() == [f"{bomb}: too_large: the input decompresses to more than {10 << 20} bytes"]
    assert code == 1
    assert peak_kb < 300 * 1024, f"peak RSS {peak_kb} kB"


def test_a_page_over_the_ceiling_is_refused_and_the_others_parse(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "parse", "--max-bytes", "8K", str(MSR), str(SEED), "-o", str(tmp_path / "o.json"))
    assert MSR.stat().st_size > 8 * 1024 > SEED.stat().st_size
    assert (code, out, err) == (1, "", [f"{MSR}: too_large: the input is larger than 8192 bytes"])
    assert [r["site"] for r in json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))] == ["scholar"]


def test_stdin_over_the_ceiling_and_gzip_on_stdin() -> None:
    command = [sys.executable, "-m", "pubharvest.cli", "parse", "-f", "jsonl", "--max-bytes", "1K", "-"]
    done = subprocess.run(command, input=SEED.read_bytes(), capture_output=True, check=False)
    assert (done.returncode, done.stderr) == (1, b"<stdin>: too_large: the input is larger than 1024 bytes\n")
    command[-2] = "256M"
    done = subprocess.run(command, input=gzip.compress(SEED.read_bytes()), capture_output=True, check=False)
    assert done.returncode == 0 and len(json.loads(done.stdout)["publications"]) == 20


def test_merge_has_the_ceiling_too(capsys, tmp_path: Path) -> None:
    packed = tmp_path / "msr.txt.gz"
    packed.write_bytes(gzip.compress(MSR.read_bytes()))
    code, out, err = run(capsys, "merge", "--max-bytes", "8K", str(packed), str(SEED))
    assert code == 1 and err == [f"{packed}: too_large: the input decompresses to more than 8192 bytes"]
    assert json.loads(out)["papers"]


def test_parse_given_gzip_bytes_stops_at_the_default_ceiling(tmp_path: Path) -> None:
    bomb = write_zeros_gzip(tmp_path / "bomb.gz", 17).read_bytes()  # 272 MiB of zeros, past 256 MiB
    with pytest.raises(TooLarge, match="more than 268435456 bytes"):
        parse(bomb)


def test_gunzip_reads_members_and_chunks_and_refuses_a_cut_stream() -> None:
    packed = gzip.compress(b"<html>" * 1000) + gzip.compress(b"</html>")
    chunks = [packed[i:i + 7] for i in range(0, len(packed), 7)]
    assert gunzip(chunks) == b"<html>" * 1000 + b"</html>"
    assert read_stream(io.BytesIO(packed)) == b"<html>" * 1000 + b"</html>"
    with pytest.raises(Truncated):
        gunzip(packed[:20])
    with pytest.raises(TooLarge):
        gunzip(chunks, limit=6000)
    assert len(gunzip(chunks, limit=6007)) == 6007


@pytest.mark.parametrize("size", ["0", "ten", "-5", "1X"])
def test_a_bad_max_bytes_is_a_usage_error(capsys, size: str) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["parse", "--max-bytes", size, str(SEED)])
    assert caught.value.code == 2 and "not a size in bytes" in capsys.readouterr().err


# --- a batch survives any one input ---------------------------------------------------------------------


def hostile_json(folder: Path) -> list[Path]:
    """JSON files the standard decoder raises on: nested too deep, and a number of 100,000 digits."""
    folder.mkdir(exist_ok=True)
    files = {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "deep_records.json": '{"site": "msr", "page": "profile", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "number.json": '{"site": "msr", "page": "profile", "n": ' + "7" * 100_000 + "}",
        "numbers.json": "[" + "7" * 100_000 + "]",
        "payload.json": '{"B": ' + "[" * 100_000 + "]" * 100_000 + "}",  # looks like a Scholar rows payload
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [folder / name for name in files]


@pytest.mark.parametrize("command", ["parse", "merge"])
def test_hostile_json_is_one_line_each_and_the_batch_goes_on(capsys, tmp_path: Path, command: str) -> None:
    hostile = hostile_json(tmp_path / "in")
    target = tmp_path / "out.json"
    code, out, err = run(capsys, command, *map(str, hostile), str(SEED), "-o", str(target))
    assert code == (1 if command == "parse" else ExitCode.BAD_RECORDS) and out == ""
    assert [line.split(": ")[0] for line in err] == [str(p) for p in hostile]
    assert all("Traceback" not in line for line in err)
    written = json.loads(target.read_text(encoding="utf-8"))
    if command == "parse":
        assert [r["page"] for r in written] == ["publication_list"]
    else:
        assert len(written["papers"]) == 20


def test_merge_names_json_it_cannot_read_as_bad_records(capsys, tmp_path: Path) -> None:
    _deep, deep_records, number, numbers, _ = hostile_json(tmp_path)
    code, _, err = run(capsys, "merge", str(deep_records), str(number), str(numbers), str(SEED))
    assert code == ExitCode.BAD_RECORDS
    assert err == [f"{deep_records}: too_deep: the file: JSON nested deeper than records go",
                   f"{number}: bad_records: record 1, n: a whole number of 100,000 digits, past the schema's maximum, "
                   f"{2**63 - 1}",
                   f"{numbers}: unrecognised: a text file that is not a page of any site pubharvest knows"]


def test_a_folder_of_hostile_json_is_walked_and_the_pages_in_it_parse(capsys, tmp_path: Path) -> None:
    hostile_json(tmp_path)
    shutil.copy(SEED, tmp_path / "seed.txt")
    code, out, err = run(capsys, "parse", "-f", "jsonl", str(tmp_path))
    assert code == 1 and len(out.splitlines()) == 1 and len(err) == 5


def test_an_unexpected_error_is_one_line_and_ctrl_c_still_stops(capsys, monkeypatch) -> None:
    def broken(data, url=None):
        raise MemoryError("out of memory")

    monkeypatch.setattr("pubharvest.parsers.parse", broken)
    code, out, err = run(capsys, "parse", str(SEED), str(MSR))
    assert (code, json.loads(out)) == (1, [])
    assert err == [f"{SEED}: error: MemoryError: out of memory", f"{MSR}: error: MemoryError: out of memory"]

    def interrupted(data, url=None):
        raise KeyboardInterrupt

    monkeypatch.setattr("pubharvest.parsers.parse", interrupted)
    assert run(capsys, "parse", str(SEED), str(MSR))[0] == 130


# --- unreadable files and folders -------------------------------------------------------------------------


@pytest.fixture
def deny(monkeypatch):
    """``deny(*paths)``: as a non-root user would meet them, those folders cannot be listed or searched
    (nothing under them can be opened or stat'ed) and those files cannot be opened. The tests run as root,
    for whom permissions do not bite, so this fakes the OS's answers."""
    denied: set[str] = set()

    def blocked(path) -> bool:
        path = os.path.abspath(os.fspath(path))
        return any(path == d or path.startswith(d + os.sep) for d in denied)

    def inside_blocked(path) -> bool:
        return blocked(os.path.dirname(os.path.abspath(os.fspath(path))))

    def refuse(path):
        raise PermissionError(13, DENIED, os.fspath(path))

    real_scandir, real_stat, real_open = os.scandir, os.stat, builtins.open

    def scandir(path="."):
        return refuse(path) if blocked(path) else real_scandir(path)

    def stat(path, *args, **kwargs):
        return refuse(path) if isinstance(path, (str, Path)) and inside_blocked(path) else real_stat(path, *args,
                                                                                                     **kwargs)

    def opener(path, *args, **kwargs):
        return refuse(path) if isinstance(path, (str, Path)) and blocked(path) else real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(builtins, "open", opener)
    monkeypatch.setattr(io, "open", opener)

    def add(*paths: Path) -> None:
        denied.update(os.path.abspath(p) for p in paths)

    return add


def unreadable_tree(root: Path) -> dict[str, Path]:
    """A folder with a page, an unreadable page, an unreadable subfolder holding a page, and beside it an
    unreadable folder holding a page."""
    (root / "tree" / "sub").mkdir(parents=True)
    (root / "locked").mkdir()
    paths = {"page": root / "tree" / "a.txt", "denied_file": root / "tree" / "b.txt",
             "in_sub": root / "tree" / "sub" / "c.txt", "in_locked": root / "locked" / "d.txt"}
    for path in paths.values():
        shutil.copy(SEED, path)
    return {**paths, "tree": root / "tree", "sub": root / "tree" / "sub", "locked": root / "locked"}


def expected_unreadable(paths: dict[str, Path]) -> list[str]:
    return [f"{paths[key]}: unreadable: {DENIED}" for key in ("denied_file", "sub", "locked", "in_locked")]


def test_unreadable_files_and_folders_are_reported_per_path(capsys, tmp_path: Path, deny) -> None:
    paths = unreadable_tree(tmp_path)
    deny(paths["denied_file"], paths["sub"], paths["locked"])
    args = [str(paths[key]) for key in ("tree", "locked", "in_locked")]
    code, out, err = run(capsys, "parse", "-f", "jsonl", *args, "-o", str(tmp_path / "out.jsonl"))
    assert (code, out, err) == (1, "", expected_unreadable(paths))
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 1  # tree/a.txt


def test_merge_reports_unreadable_inputs_per_path(capsys, tmp_path: Path, deny) -> None:
    paths = unreadable_tree(tmp_path)
    deny(paths["denied_file"], paths["sub"], paths["locked"])
    code, out, err = run(capsys, "merge", *(str(paths[key]) for key in ("tree", "locked", "in_locked")))
    assert (code, err) == (1, expected_unreadable(paths))
    assert len(json.loads(out)["papers"]) == 20


def test_an_unreadable_folder_alone_is_a_failure_not_an_empty_success(capsys, tmp_path: Path, deny) -> None:
    deny(tmp_path)
    assert run(capsys, "parse", f"{tmp_path}/") == (1, "[]\n", [f"{tmp_path}: unreadable: {DENIED}"])


def _python_for(user: str) -> list[str] | None:
    """A command running Python with this environment's packages as ``user``, or None when none can."""
    site = sysconfig.get_paths()["purelib"]
    boot = f"import site, sys; site.addsitedir({site!r}); from pubharvest.cli import main; sys.exit(main(sys.argv[1:]))"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, shutil.which(version) or "", f"/usr/bin/{version}"):
        if not python:
            continue
        command = ["runuser", "-u", user, "--", python, "-c", boot]
        try:
            probe = subprocess.run([*command, "schema"], capture_output=True, timeout=60, check=False)
        except OSError:
            return None
        if probe.returncode == 0:
            return command
    return None


@pytest.mark.skipif(os.name != "posix" or not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_real_permissions_as_an_unprivileged_user() -> None:
    """The same tree with real modes, run as ``nobody`` when the tests run as root (as they do here)."""
    if os.geteuid() != 0:
        command: list[str] | None = [sys.executable, "-m", "pubharvest.cli"]
    else:
        command = _python_for("nobody") if shutil.which("runuser") else None
    if command is None:
        pytest.skip("no way to run pubharvest as an unprivileged user here")
    root = Path(tempfile.mkdtemp(prefix="pubharvest-perm-"))
    root.chmod(0o755)
    paths = unreadable_tree(root)
    try:
        paths["denied_file"].chmod(0)
        paths["sub"].chmod(0)
        paths["locked"].chmod(0o600)  # neither listed nor searched by others
        args = [str(paths[key]) for key in ("tree", "locked", "in_locked")]
        done = subprocess.run([*command, "parse", "-f", "jsonl", *args], capture_output=True, text=True,
                              timeout=120, check=False)
        errors = [line for line in done.stderr.splitlines() if ": warning: " not in line]
        assert (done.returncode, errors) == (1, expected_unreadable(paths))
        assert len(done.stdout.splitlines()) == 1
    finally:
        for key in ("denied_file", "sub", "locked"):
            paths[key].chmod(0o755)
        shutil.rmtree(root)


@pytest.mark.parametrize("command", ["parse", "merge", "report"])
def test_files_no_site_claims_beside_saved_pages_are_skipped_with_a_note(capsys, tmp_path: Path,
                                                                          command: str) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    shutil.copy(SEED, folder / SEED.name)
    (folder / "README.md").write_text("# My saved Scholar pages\n\nSaved on Monday.\n", encoding="utf-8")
    (folder / "notes.txt").write_text("ask Ada about the 2019 paper\n", encoding="utf-8")
    (folder / "other.html").write_text("<!doctype html><html><body><p>My blog</p></body></html>", encoding="utf-8")
    output = tmp_path / ("out.html" if command == "report" else "out.json")
    assert main([command, str(folder), "-o", str(output)]) == 0
    err = capsys.readouterr().err
    for name in ("README.md", "notes.txt", "other.html"):
        assert f"{folder / name}: note: skipped: " in err
    assert "unrecognised" not in err and output.stat().st_size > 0
    # named on the command line, such a file is an input that fails
    assert main([command, str(folder / "README.md"), str(folder / SEED.name), "-o", str(output)]) == 1
    assert f"{folder / 'README.md'}: unrecognised: " in capsys.readouterr().err


@pytest.mark.parametrize("command", ["parse", "merge", "report"])
@pytest.mark.parametrize("notes", [(), ("README.md",), ("README.md", "notes.txt")])
def test_inputs_holding_nothing_to_read_fail_and_keep_the_output(capsys, tmp_path: Path, command: str,
                                                                 notes: tuple[str, ...]) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    for name in notes:
        (folder / name).write_text("# My saved Scholar pages\n", encoding="utf-8")
    output = tmp_path / "out"
    output.write_text("what an earlier run wrote\n", encoding="utf-8")
    assert main([command, str(folder), "-o", str(output)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith(f"pubharvest {command}: ") and "Traceback" not in "\n".join(lines)
    if command != "report":  # report says "nothing to report" in its own words
        skipped = f" ({len(notes)} file{'s' * (len(notes) != 1)} skipped)" if notes else ""
        assert lines[-1] == f"pubharvest {command}: no_pages: no page or record pubharvest reads in {folder}{skipped}"
    assert output.read_text(encoding="utf-8") == "what an earlier run wrote\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "pages"]  # no temporary file left


def test_a_cut_page_in_a_folder_still_fails(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    page = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_bytes()
    (folder / "cut.html").write_bytes(page[: len(page) // 2])
    assert main(["parse", str(folder)]) == 1
    assert "truncated" in capsys.readouterr().err
