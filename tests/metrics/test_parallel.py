"""``metrics`` over one large file of records, read in worker processes (``pubharvest.metrics.parallel``): the
threshold forced to 0 and the parts to a line each, every output is byte for byte the one the serial reading
gives (people of one page, of several sites, of one name, pages that name nobody, a page fetched again, --at),
and every file the workers do not take (a bad record, a key given twice, a blank line, a lone surrogate, a
worker that raises or dies) is read as any input: the same one line, the same exit status."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from conftest import FIXTURES

from pubharvest.cli import main
from pubharvest.errors import ExitCode
from pubharvest.metrics import parallel
from pubharvest.parsers import parse
from pubharvest.parsers.records import (
    Coauthor,
    Ids,
    Metrics,
    PageResult,
    Profile,
    Publication,
    PublicationIds,
    Source,
    YearCitations,
)

TOPICS = ("sparse attention for long documents", "graph networks that count citations",
          "robust estimates of the h-index", "a survey of author name disambiguation")
SEEDS = ["scholar/003_9ea93ed9343d2054.txt", "msr/001_0be51d225ce2b3fb.txt", "elamur/000_e63c2e80f8ecde3e.txt"]
FORMATS = [("json",), ("csv",), ("csv", "--table", "gaps"), ("csv", "--table", "years"), ("md",)]


def scholar(user: str, name: str | None, counts: list[int], fetched: str | None = "2026-02-16T10:00:00Z",
            coauthors: tuple[str, ...] = ()) -> PageResult:
    """A Scholar profile of ``counts`` rows (titles ``name: topic``, years from 2015), stating an h-index of 2."""
    return PageResult(
        site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={user}",
        profile=Profile(name=name, ids=Ids(scholar=user), metrics=Metrics(h_index=2, citations=sum(counts)),
                        coauthors=[Coauthor(name=c) for c in coauthors],
                        citations_by_year=[YearCitations(year=2024, citations=3)]),
        publications=[Publication(title=f"{name or user}: {TOPICS[k]}", year=2015 + k, citations=count,
                                  authors=[name or "A B", *coauthors], ids=PublicationIds(scholar=f"{user}:p{k}"))
                      for k, count in enumerate(counts)],
        source=Source(sha256="0" * 64, parser="test", run="r1", fetched_at=fetched) if fetched else None)


def people_file(tmp_path: Path) -> Path:
    """Nine people in fourteen lines: the seeds' one person on three sites; Bo Li fetched twice (the later
    counts); two Ann Lees (Scholar and MSR) who share two co-authors, so one person; a rows page of Bo Li's
    listing that names nobody; a saved table that names nobody and shares two papers with Cy; Dee, fetched
    after 2026-01; a page without a fetch time; and one person's page whose rows merely need reading."""
    seeds = [parse((FIXTURES / seed).read_bytes()) for seed in SEEDS]
    cy = scholar("CyAAAAJ", "Cy Wu", [40, 12, 3])
    ann_msr = PageResult(site="msr", page="profile", profile=Profile(
        name="Ann Lee", ids=Ids(msr="ann-lee"), coauthors=[Coauthor(name="Kim Park"), Coauthor(name="Lu Chen")]),
        publications=[Publication(title="On MSR", year=2020, citations=9, authors=["Ann Lee", "Kim Park"])])
    rows = PageResult(site="scholar", page="rows", publications=[
        Publication(title="Bo more", year=2019, citations=30, ids=PublicationIds(scholar="BoAAAAJ:p9"))])
    table = PageResult(site="scholar", page="publication_list", publications=[
        Publication(title=f"Cy Wu: {TOPICS[0]}", year=2015, citations=41),
        Publication(title=f"Cy Wu: {TOPICS[1]}", year=2016, citations=12)])
    pages = [seeds[0], scholar("BoAAAAJ", "Bo Li", [5, 1], fetched="2025-01-01T00:00:00Z"), cy, seeds[1],
             scholar("AnnAAAJ", "Ann Lee", [8, 8, 2], coauthors=("Kim Park", "Lu Chen")), ann_msr, rows,
             scholar("BoAAAAJ", "Bo Li", [6, 2, 2]), table, scholar("DeeAAAJ", "Dee", [1], "2026-03-01T00:00:00Z"),
             seeds[2], scholar("EveAAAJ", "Eve", [3, 3, 3], fetched=None), scholar("FoAAAAJ", None, [2]),
             scholar("GusAAAJ", "Gus", [])]
    path = tmp_path / "people.jsonl"
    path.write_bytes(b"".join(msgspec.json.encode(page) + b"\n" for page in pages))
    return path


def forced(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    """Every file read in workers, a line a part (``on``), or none."""
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 0 if on else 1 << 62)
    monkeypatch.setattr(parallel, "PART_BYTES", 1)


def both(capsys, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """``pubharvest *argv`` read serially, then in workers: each run's exit status, stdout and stderr."""
    runs = []
    for on in (False, True):
        forced(monkeypatch, on)
        code = main(list(argv))
        runs.append((code, *capsys.readouterr()))
    return runs[0], runs[1]


def test_the_workers_take_the_file_and_send_pages_without_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forced(monkeypatch, True)
    path = people_file(tmp_path)
    read = parallel.read(str(path), "people.jsonl", "person", None, 1 << 30)
    assert read is not None
    pages, _ = read
    # the Scholar profiles, Ann's MSR page and the Elamur seed (each with an id on its site) sent without
    # rows; the Scholar and MSR seeds (copied text: a name, no id, no URL), the rows page and the saved
    # table (naming nobody) keep theirs
    assert [len(result.publications) for _, result in pages] == [20, 0, 0, 20, 0, 0, 1, 0, 2] + [0] * 5
    assert {name for name, _ in pages} == {"people.jsonl"}


@pytest.mark.parametrize("by", ["person", "source", "page"])
@pytest.mark.parametrize("at", [None, "2026-02-20"])
def test_every_output_is_the_serial_one(by: str, at: str | None, tmp_path: Path, capsys,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = people_file(tmp_path)
    for format_ in FORMATS:
        argv = ["metrics", str(path), "--by", by, "-f", *format_, *(["--at", at] if at else [])]
        serial, in_workers = both(capsys, monkeypatch, *argv)
        assert serial[0] == 0 and in_workers == serial
    forced(monkeypatch, True)
    assert main(["metrics", str(path), "--by", by, "-f", "csv", *(["--at", at] if at else [])]) == 0
    people = {line.split(",")[0] for line in capsys.readouterr()[0].splitlines()[1:]}
    # by hand: the seeds' person (MSR and Elamur), their Scholar page (copied text naming nobody: a person of its
    # own, by the input file's name), Bo Li, Cy Wu (with the saved table), Ann Lee, Eve, Gus, the nameless FoAAAAJ by
    # its URL, and Dee but with --at; by page every page is one
    if by != "page":
        assert len(people) == 9 - bool(at) and {"Bo Li", "Cy Wu", "Ann Lee", "Eve", "Gus", path.name} <= people


def lines_with(tmp_path: Path, line: bytes, at: int = 3) -> Path:
    """Five canonical lines of records with ``line`` in place of the ``at``-th."""
    records = [msgspec.json.encode(scholar(f"U{k}AAAAJ", f"Person {k}", [4, 2, 1])) for k in range(5)]
    records[at - 1] = line
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"\n".join(records) + b"\n")
    return path


CANONICAL = msgspec.json.encode(scholar("BadAAAJ", "Bad", [4, 2, 1]))
# a line the workers leave to the serial reading, and the line that refuses it (None: it is read, warned of)
LEFT: dict[str, tuple[bytes, str | None]] = {
    "a count below 0": (CANONICAL.replace(b'"citations":2', b'"citations":-1', 1),
                        "bad_records: line 3, publications[1].citations: -1 is below the schema's minimum, 0"),
    "a key given twice": (CANONICAL.replace(b'{"site":"scholar"', b'{"site":"scholar","site":"scholar"', 1),
                          "bad_records: line 3: the key 'site' is given twice in one object"),
    "a year past 2099": (CANONICAL.replace(b'"year":2016', b'"year":2160', 1),
                         "bad_records: line 3, publications[1].year: 2160 is above the schema's maximum, 2099"),
    "no JSON": (b'{"site": "scholar", oops}',
                "bad_records: line 3: not JSON: object keys must be strings at column 21"),
    "a blank line": (b"", None),
    "spaces the encoding has none of": (CANONICAL.replace(b'"page":', b' "page" : ', 1), None),
    "a lone surrogate": (CANONICAL.replace(b"Bad: sparse", b"Bad: \\ud800 sparse", 1), None),
}


@pytest.mark.parametrize("kind", list(LEFT))
def test_a_line_the_workers_leave_is_read_as_any_input_reads_it(kind: str, tmp_path: Path, capsys,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    line, refusal = LEFT[kind]
    path = lines_with(tmp_path, line)
    forced(monkeypatch, True)
    assert parallel.read(str(path), str(path), "person", None, 1 << 30) is None
    serial, in_workers = both(capsys, monkeypatch, "metrics", str(path), "--by", "person", "-f", "csv")
    assert in_workers == serial
    if refusal:
        assert in_workers[:2] == (ExitCode.BAD_RECORDS, "") and in_workers[2] == f"{path}: {refusal}\n"
    else:
        # the header and a row per person: five, four in place of a blank line
        assert in_workers[0] == 0 and in_workers[1].count("\n") == 1 + (5 if line else 4)


def test_a_worker_that_raises_or_dies_leaves_the_file_to_the_serial_reading(tmp_path: Path, capsys,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = people_file(tmp_path)
    serial, _ = both(capsys, monkeypatch, "metrics", str(path), "--by", "source", "-f", "json")

    def raises(*args: object) -> None:
        raise MemoryError

    def dies(*args: object) -> None:
        os._exit(9)

    for failing in (raises, dies):
        forced(monkeypatch, True)
        monkeypatch.setattr(parallel, "person_alone", failing)  # the workers are forked: they run it
        assert parallel.read(str(path), str(path), "source", None, 1 << 30) is None
        code = main(["metrics", str(path), "--by", "source", "-f", "json"])
        assert (code, *capsys.readouterr()) == serial


def test_a_file_past_max_bytes_is_refused_as_before(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    path = lines_with(tmp_path, CANONICAL)
    serial, in_workers = both(capsys, monkeypatch, "metrics", str(path), "--max-bytes", "1000")
    assert in_workers == serial and serial[0] == ExitCode.FAILED and "too_large" in serial[2]
