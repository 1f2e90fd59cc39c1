"""A job's WARC archive survives anything: cut at any byte (a kill -9 mid-write), filled up (a full
disk), or damaged in the middle by an older version, it is repaired on the next start and read
whole by ``pubharvest parse``."""

from __future__ import annotations

import builtins
import errno
import json
import random
import zlib
from pathlib import Path

import pytest
from fakesite import FakeSite, scholar_page
from scrapejobs import records, scrape, write_job

from pubharvest.cli import main
from pubharvest.scrapers import archive
from pubharvest.scrapers.archive import ArchiveWriter, cut_damaged_tail
from pubharvest.scrapers.runner import IN_FLIGHT_PER_CONNECTION

USERS = [f"Disk{i:04d}xxAAAAJ" for i in range(5)]


def member_ends(data: bytes) -> list[int]:
    """Where each gzip member of ``data`` ends, found with zlib alone (not with the code under test)."""
    ends, at = [], 0
    while at < len(data):
        inflater = zlib.decompressobj(wbits=31)
        inflater.decompress(data[at:])
        assert inflater.eof
        at = len(data) - len(inflater.unused_data)
        ends.append(at)
    return ends


def written_archive(path: Path, targets: int = 6, run: str = "run1") -> bytes:
    """An archive as a job writes it: per target, two Scholar pages (request and response each), then its metadata."""
    writer = ArchiveWriter(path, {"software": "pubharvest", "job": "test"})
    for t in range(targets):
        user = f"User{t:04d}{run}AAAAJ"
        ids = [writer.make_id() for _ in range(2)]
        for page, record_id in enumerate(ids):
            body = scholar_page(user, 200, page * 100, 100).encode()
            writer.exchange("GET", f"http://127.0.0.1/citations?user={user}&cstart={page * 100}", [("User-Agent", "t")],
                            200, "OK", [("Content-Type", "text/html")], body, record_id)
        writer.target_done(run, f"scholar:{user}", "done", ids)
    writer.close()
    return path.read_bytes()


def test_a_cut_anywhere_is_cut_back_to_the_last_whole_record(tmp_path: Path) -> None:
    data = written_archive(tmp_path / "whole.warc.gz")
    ends = member_ends(data)
    assert len(ends) == 1 + 6 * 5, "one gzip member per record: warcinfo, then 2 x (response, request) + metadata"
    last_two = range(ends[-3] + 1, len(data))
    cuts = sorted(set(random.Random(12).sample(range(1, len(data)), 200)) | set(last_two))
    cut = tmp_path / "cut.warc.gz"
    for offset in cuts:
        cut.write_bytes(data[:offset])
        cut_damaged_tail(cut)
        kept = max((end for end in ends if end <= offset), default=0)
        assert cut.read_bytes() == data[:kept], f"cut at {offset}"


def test_a_damaged_record_in_the_middle_is_skipped_with_one_line(tmp_path: Path, capsys) -> None:
    """What an older version left: a member cut short by a kill, then the rerun's records appended after it."""
    first = written_archive(tmp_path / "first.warc.gz", targets=2, run="run1")
    second = written_archive(tmp_path / "second.warc.gz", targets=3, run="run2")
    path = tmp_path / "old.warc.gz"
    path.write_bytes(first[:-30] + second)  # the first run's last record cut short, the rerun's after it
    code, results, err = parsed(capsys, path)
    assert len(err.splitlines()) == 1 and ": damaged: bytes " in err, err
    assert code == 0 and len(results) == 1 + 3, "the first run's first target and every target of the rerun"


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def parsed(capsys, path: Path) -> tuple[int, list[dict], str]:
    code = main(["parse", "-f", "jsonl", str(path)])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_a_job_resumed_on_a_cut_archive_ends_with_an_archive_read_whole(tmp_path: Path, site, capsys) -> None:
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in USERS], {"scholar": site.url})
    assert scrape(capsys, job)[0] == 0
    warc = tmp_path / "out.warc.gz"
    data = warc.read_bytes()
    ends = member_ends(data)
    metadata = [end for end, start in zip(ends, [0, *ends], strict=False) if b"pubharvest:target:" in zlib.decompress(
        data[start:end], wbits=31)]
    assert len(metadata) == len(USERS)
    rng = random.Random(7)
    for offset in [*rng.sample(range(ends[0] + 1, len(data)), 3), len(data) - 5]:
        warc.write_bytes(data[:offset])
        code, err = scrape(capsys, job)  # every target finished: a new run, archived after the cut
        assert code == 0, err
        code, results, err = parsed(capsys, warc)
        assert (code, err) == (0, ""), f"cut at {offset}"
        assert len(results) == sum(end <= offset for end in metadata) + len(USERS), f"cut at {offset}"


class FullDisk:
    """A file that takes ``room`` bytes (any number while ``room`` is None), then refuses writes as a full
    disk does (after writing what fits)."""

    def __init__(self, stream, room: int | None = None) -> None:
        self.stream, self.room = stream, room

    def write(self, data) -> int:
        if self.room is not None and len(data) > self.room:
            self.stream.write(bytes(data[:self.room]))
            self.room = 0
            raise OSError(errno.ENOSPC, "No space left on device")
        if self.room is not None:
            self.room -= len(data)
        return self.stream.write(data)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


# More targets than a connection holds between their first request and their commit, so that the first
# commit cannot take them all, however the writer thread and the fetching interleave.
MANY_USERS = [f"Full{i:04d}xxAAAAJ" for i in range(IN_FLIGHT_PER_CONNECTION + 3)]


def test_a_full_disk_keeps_what_was_archived_and_a_rerun_completes(tmp_path: Path, site, capsys,
                                                                   monkeypatch) -> None:
    """The disk fills just after the first commit (how many targets that took depends on the threads'
    timing), a few KB into whatever is written next."""
    job = write_job(tmp_path, [{"site": "scholar", "id": u} for u in MANY_USERS], {"scholar": site.url})
    warc = tmp_path / "out.warc.gz"
    disks: list[FullDisk] = []

    def small_disk(file, mode="r", *args, **kwargs):
        stream = builtins.open(file, mode, *args, **kwargs)
        if "a" in mode and Path(file) == warc:
            disks.append(FullDisk(stream))
            return disks[-1]
        return stream

    committed = ArchiveWriter.targets_done

    def fills_after(writer: ArchiveWriter, run: str, targets) -> None:
        committed(writer, run, targets)
        for disk in disks:
            disk.room = 3000 if disk.room is None else disk.room

    monkeypatch.setattr(archive, "open", small_disk, raising=False)
    monkeypatch.setattr(ArchiveWriter, "targets_done", fills_after)
    code, err = scrape(capsys, job)
    assert code == 1 and "Traceback" not in err, err
    assert f"No space left on device ({warc})" in err.splitlines()[-1], err
    kept = records(tmp_path / "out.jsonl")
    assert 0 < len(kept) < len(MANY_USERS), "the first commit's targets were archived before the disk filled"
    code, results, err = parsed(capsys, warc)
    assert code == 0 and results == kept, err  # what was archived before the disk filled is readable

    monkeypatch.undo()  # room again
    code, err = scrape(capsys, job)
    assert code == 0, err
    assert len(records(tmp_path / "out.jsonl")) == len(MANY_USERS)
    code, results, err = parsed(capsys, warc)
    assert (code, err) == (0, "")
    assert [json.dumps(r, sort_keys=True) for r in results] == \
        [json.dumps(r, sort_keys=True) for r in records(tmp_path / "out.jsonl")]


def test_each_record_is_appended_in_one_write(tmp_path: Path) -> None:
    """So that a record is never split between a write that made it and one that did not."""
    writes: list[int] = []
    path = tmp_path / "a.warc.gz"
    writer = ArchiveWriter(path, {"software": "pubharvest"})
    real = writer.stream

    class Spy:
        fileno, close, truncate = real.fileno, real.close, real.truncate

        def write(self, data: bytes) -> int | None:
            writes.append(len(data))
            return real.write(data)

    writer.stream = Spy()  # type: ignore[assignment]
    writer.exchange("GET", "http://127.0.0.1/x", [], 200, "OK", [], b"x" * 5000, writer.make_id())
    writer.close()
    assert len(writes) == 2 and len(member_ends(path.read_bytes())) == 3


# --- hostile archives: each bad stretch is one line, the rest is read, within bounded memory and work --------

def bomb_member(decoded: int) -> bytes:
    """A gzip member of a WARC record whose content is ``decoded`` zero bytes, made without holding them."""
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [deflater.compress(f"WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: {decoded}\r\n\r\n".encode())]
    zeros = bytes(1 << 20)
    for _ in range(decoded >> 20):
        parts.append(deflater.compress(zeros))
    parts.append(deflater.compress(b"\r\n\r\n"))
    parts.append(deflater.flush())
    return b"".join(parts)


def rewritten(member: bytes, old: bytes, new: bytes) -> bytes:
    record = zlib.decompress(member, wbits=31)
    assert old in record
    return gzip_member(record.replace(old, new, 1))


def gzip_member(data: bytes) -> bytes:
    deflater = zlib.compressobj(6, zlib.DEFLATED, 31)
    return deflater.compress(data) + deflater.flush()


def content_length(member: bytes) -> bytes:
    import re

    found = re.search(rb"Content-Length: (\d+)", zlib.decompress(member, wbits=31))
    assert found is not None
    return found[0]


def damage(case: str, member: bytes) -> bytes:
    """``member`` (a request record) as ``case`` spoils it."""
    length = content_length(member)
    value = int(length.split(b": ")[1])
    if case == "bad gzip member":
        middle = len(member) // 2
        return member[:middle] + bytes(b ^ 0x5A for b in member[middle:middle + 8]) + member[middle + 8:]
    if case == "bad WARC header":
        return rewritten(member, b"WARC/1.", b"WARX/1.")
    if case == "huge header block":
        return rewritten(member, b"\r\n\r\n", b"\r\nX-Pad: " + b"a" * 200_000 + b"\r\n\r\n")
    if case == "gzip bomb member":
        return bomb_member(100 * 2**20)
    replacement = {"Content-Length too large": str(value + 1000), "Content-Length too small": str(value - 3),
                   "Content-Length negative": "-5", "Content-Length not a number": "12a"}[case]
    return rewritten(member, length, b"Content-Length: " + replacement.encode())


CASES = ["bad gzip member", "bad WARC header", "Content-Length too large", "Content-Length too small",
         "Content-Length negative", "Content-Length not a number", "huge header block", "gzip bomb member"]


def parsed_within(capsys, path: Path) -> tuple[int, list[dict], str, int]:
    """``parsed`` and the peak of Python's allocations while reading."""
    import tracemalloc

    tracemalloc.start()
    try:
        code, results, err = parsed(capsys, path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return code, results, err, peak


@pytest.mark.parametrize("case", CASES)
def test_a_bad_record_in_the_middle_is_one_line_and_every_target_is_read(case: str, tmp_path: Path, capsys) -> None:
    data = written_archive(tmp_path / "whole.warc.gz", targets=4)
    ends = member_ends(data)
    starts = [0, *ends[:-1]]
    request = 1 + 5 * 2 + 1  # the first request record of the third target: no target's page
    members = [data[s:e] for s, e in zip(starts, ends, strict=True)]
    members[request] = damage(case, members[request])
    path = tmp_path / "hostile.warc.gz"
    path.write_bytes(b"".join(members))
    code, results, err, peak = parsed_within(capsys, path)
    damaged = [line for line in err.splitlines() if ": damaged: bytes " in line]
    assert code == 0 and len(results) == 4, err
    assert len(damaged) == 1 and len(err.splitlines()) == 1, err
    assert f"bytes {sum(len(m) for m in members[:request])}-" in damaged[0]
    assert peak < 100 * 2**20, f"{peak} bytes held reading a {path.stat().st_size}-byte archive"


def test_a_record_cut_at_the_end_is_one_line_and_the_rest_is_read(tmp_path: Path, capsys) -> None:
    data = written_archive(tmp_path / "whole.warc.gz", targets=3)
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-10])  # the last target's metadata cut short
    _code, results, err = parsed(capsys, path)
    assert len(results) == 2 and len(err.splitlines()) == 1 and ": damaged: bytes " in err, err


def test_an_uncompressed_archive_with_a_bad_record_is_read_around_it(tmp_path: Path, capsys) -> None:
    path = tmp_path / "plain.warc"
    records_plain = []
    whole = written_archive(tmp_path / "whole.warc.gz", targets=3)
    ends = member_ends(whole)
    for start, end in zip([0, *ends[:-1]], ends, strict=True):
        records_plain.append(zlib.decompress(whole[start:end], wbits=31))
    spoiled = records_plain[1 + 5 + 1]
    records_plain[1 + 5 + 1] = spoiled.replace(content_length(gzip_member(spoiled)), b"Content-Length: 99999999", 1)
    path.write_bytes(b"".join(records_plain))
    code, results, err = parsed(capsys, path)
    assert code == 0 and len(results) == 3, err
    assert len(err.splitlines()) == 1 and ": damaged: bytes " in err, err


@pytest.mark.parametrize("filler", [b"\x1f\x8b\x08", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
                                    b"WARC/1.1\r\nX: ", b"WARC/1.1\r\nContent-Length: 999999\r\n\r\n"])
def test_reading_a_crafted_megabyte_is_linear_work(filler: bytes, tmp_path: Path, capsys) -> None:
    """A megabyte of what looks like record starts, then a whole archive: every byte is scanned a few
    times at most (counted, not timed), and the archive after it is read."""
    from pubharvest.scrapers.archive import Work, spans

    good = written_archive(tmp_path / "whole.warc.gz", targets=2)
    plain = not filler.startswith(b"\x1f")
    if plain:
        ends = member_ends(good)
        good = b"".join(zlib.decompress(good[s:e], wbits=31) for s, e in zip([0, *ends[:-1]], ends, strict=True))
    path = tmp_path / ("crafted.warc" if plain else "crafted.warc.gz")
    # a first whole record, so that the file is read as the kind it is, then the crafted megabyte
    first = b"" if plain else good[:member_ends(good)[0]]
    crafted = filler * (2**20 // len(filler))
    path.write_bytes(first + crafted + good)
    size = path.stat().st_size
    work = Work(size)
    with open(path, "rb") as stream:
        found = list(spans(stream, work))
    assert sum(span.records is not None for span in found) >= 2 * 5, "the archive after the crafted stretch is read"
    assert work.read + work.decoded < 40 * size, f"{work.read} bytes read and {work.decoded} decoded for {size}"
    _code, results, err = parsed(capsys, path)
    assert len(results) == 2 and len([line for line in err.splitlines() if "damaged" in line]) <= 2, err
