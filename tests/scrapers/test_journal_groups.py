"""Targets that end together are committed as a group, each file synced once for the group, and a kill
anywhere in a group's writes is repaired as a kill in one target's: what the journal never noted as done
is cut and fetched again, never kept twice or half, and nothing another program wrote is ever cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scrapejobs import SCHOLAR_A, SCHOLAR_B

from pubharvest.cli.scrape import StoreSink
from pubharvest.errors import NotOurFile
from pubharvest.parsers.records import PageResult, Profile, Publication
from pubharvest.scrapers.engine import Engine, Outcome, TargetEnd
from pubharvest.scrapers.job import job_from_toml
from pubharvest.scrapers.journal import Ledger
from pubharvest.store import Store

KEYS = ["scholar:a", "scholar:b", "scholar:c"]
RECORDS = [b'{"n":1}', b'{"n":22}', b'{"n":333}']  # lines of 8, 9 and 10 bytes with their line ends


def committed_group(tmp_path: Path) -> tuple[Path, Path, list[bytes]]:
    """A ledger that committed the three records as one group; (journal, output, the journal's lines)."""
    journal, output = tmp_path / "job.journal", tmp_path / "out.jsonl"
    with Ledger.open(journal, output, KEYS) as ledger:
        ledger.commit_many([(key, "done", None, record) for key, record in zip(KEYS, RECORDS, strict=True)])
    return journal, output, journal.read_bytes().splitlines(keepends=True)


def test_a_group_is_one_note_its_lines_and_then_every_outcome(tmp_path: Path) -> None:
    _, output, lines = committed_group(tmp_path)
    entries = [json.loads(line) for line in lines]
    assert [e.get("event") or ("writing" if "writing" in e else e["outcome"]) for e in entries] == [
        "start", "writing", "done", "done", "done"]
    assert (entries[1]["writing"], entries[1]["at"], [n for n, _ in entries[1]["lines"]]) == (27, 0, [8, 9, 10])
    assert [e["end"] for e in entries[2:]] == [8, 17, 27]
    assert output.read_bytes() == b'{"n":1}\n{"n":22}\n{"n":333}\n'


@pytest.mark.parametrize(("outcomes", "torn", "kept"), [
    (1, True, b'{"n":1}\n'),  # killed while writing the outcomes: after the first, the second half written
    (2, False, b'{"n":1}\n{"n":22}\n'),
    (0, False, b""),  # killed after the lines, before any outcome
])
def test_killed_among_a_groups_outcomes_the_lines_not_noted_are_cut(tmp_path: Path, outcomes: int, torn: bool,
                                                                     kept: bytes) -> None:
    journal, output, lines = committed_group(tmp_path)
    journal.write_bytes(b"".join(lines[:2 + outcomes]) + (lines[2 + outcomes][:12] if torn else b""))
    with Ledger.open(journal, output, KEYS) as ledger:
        assert ledger.finished == {key: "done" for key in KEYS[:outcomes]}
    assert output.read_bytes() == kept


@pytest.mark.parametrize("cut_at", [3, 8, 12, 17, 20])
def test_killed_while_writing_a_groups_lines_they_are_all_cut(tmp_path: Path, cut_at: int) -> None:
    journal, output, lines = committed_group(tmp_path)
    journal.write_bytes(b"".join(lines[:2]))  # the note of the lines, no outcome
    output.write_bytes(output.read_bytes()[:cut_at])
    with Ledger.open(journal, output, KEYS) as ledger:
        assert ledger.finished == {}
    assert output.read_bytes() == b""


@pytest.mark.parametrize("tail", [b'{"n":1}\n{"n":99}\n{"n":333}\n',  # a line of the same length, not ours
                                  b'{"n":1}\n{"n":22}\n{"n":333}\n{"other":1}\n',  # a line after ours
                                  b'{"n":1}\n{"n":2\n'])  # a line end where ours had none
def test_what_the_group_did_not_write_is_never_cut(tmp_path: Path, tail: bytes) -> None:
    journal, output, lines = committed_group(tmp_path)
    journal.write_bytes(b"".join(lines[:3]))
    output.write_bytes(tail)
    with pytest.raises(NotOurFile):
        Ledger.open(journal, output, KEYS)
    assert output.read_bytes() == tail


def record(user: str, titles: list[str]) -> PageResult:
    return PageResult(site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={user}",
                      profile=Profile(name=user), publications=[Publication(title=t) for t in titles])


def engine_with_store(tmp_path: Path, *more_sinks) -> tuple[Engine, Ledger, Store]:
    job = job_from_toml(f'contact = "mailto:a@example.org"\noutput = "out.jsonl"\n[[targets]]\nsite = "scholar"\n'
                        f'id = "{SCHOLAR_A}"\n[[targets]]\nsite = "scholar"\nid = "{SCHOLAR_B}"\n', root=tmp_path)
    ledger = Ledger.open(job.journal, job.output, [t.key for t in job.targets])
    store = Store(tmp_path / "store.sqlite")
    return Engine(job, ledger, [StoreSink(store), *more_sinks]), ledger, store


def stored_profiles(store: Store) -> list[tuple[str, int]]:
    return store.connection.execute("SELECT profile_id, publications FROM profile_runs ORDER BY profile_id").fetchall()


def test_a_group_saves_every_record_in_the_store_and_notes_each_outcome(tmp_path: Path) -> None:
    engine, ledger, store = engine_with_store(tmp_path)
    targets = engine.job.targets
    engine.commit_group([TargetEnd(targets[0], Outcome(targets[0].key, "done"), record(SCHOLAR_A, ["x", "y"])),
                         TargetEnd(targets[1], Outcome(targets[1].key, "done"), record(SCHOLAR_B, ["z"]))])
    ledger.close()
    assert stored_profiles(store) == [(SCHOLAR_A, 2), (SCHOLAR_B, 1)]
    assert ledger.finished == {targets[0].key: "done", targets[1].key: "done"}
    assert len((tmp_path / "out.jsonl").read_bytes().splitlines()) == 2


def test_a_failed_write_in_a_group_leaves_none_of_it_in_the_store_nor_noted(tmp_path: Path) -> None:
    """A store that fails on the group's second record (as a full disk does) ends the job: the first
    record's save is undone with it, and the journal notes neither, so a rerun does both again."""
    def full_disk(run: str, target, result: PageResult) -> None:
        if target.id == SCHOLAR_B:
            raise OSError(28, "No space left on device")

    engine, ledger, store = engine_with_store(tmp_path, full_disk)
    targets = engine.job.targets
    with pytest.raises(OSError):
        engine.commit_group([TargetEnd(t, Outcome(t.key, "done"), record(t.id or "", ["x"])) for t in targets])
    ledger.close()
    assert stored_profiles(store) == []
    assert ledger.finished == {}
    assert not (tmp_path / "out.jsonl").read_bytes()


def test_a_record_a_sink_refuses_fails_alone_and_the_rest_of_its_group_is_kept(tmp_path: Path) -> None:
    def refusing(run: str, target, result: PageResult) -> None:
        if target.id == SCHOLAR_A:
            raise ValueError("a value this sink cannot take")

    engine, ledger, _store = engine_with_store(tmp_path, refusing)
    targets = engine.job.targets
    engine.commit_group([TargetEnd(t, Outcome(t.key, "done"), record(t.id or "", ["x"])) for t in targets])
    ledger.close()
    assert ledger.finished == {targets[0].key: "failed", targets[1].key: "done"}
    assert [json.loads(line)["profile"]["name"] for line in (tmp_path / "out.jsonl").read_bytes().splitlines()] == [
        SCHOLAR_B]
