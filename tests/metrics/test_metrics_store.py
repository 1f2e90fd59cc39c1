"""``pubharvest metrics --store DB [--at RUN|DATETIME]``: a store's profiles as it held them at a run or a time,
by the store's own rule for the record it exports, with each run's own counts; and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pubharvest.cli import main
from pubharvest.parsers.records import (
    Ids,
    PageResult,
    PageWarning,
    Profile,
    Publication,
    PublicationIds,
    to_json,
)
from pubharvest.store import Store

ADA = "AdaL0veAAAAJ"


def ada(*counts: int, partial: bool = False) -> PageResult:
    """Ada's profile listing papers T0, T1, ... cited ``counts`` times (T0 from 2019, a year apart)."""
    pubs = [Publication(title=f"T{i}", year=2019 + i, citations=c, authors=["A Lovelace"],
                        ids=PublicationIds(scholar=f"{ADA}:{i}")) for i, c in enumerate(counts)]
    warnings = [PageWarning(code="partial", message="paging stopped")] if partial else []
    return PageResult(site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={ADA}",
                      profile=Profile(name="Ada Lovelace", ids=Ids(scholar=ADA)), publications=pubs,
                      warnings=warnings)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """Four runs: r1 (2025) complete, r2 (mid 2026) complete, r3 (autumn 2026) partial with a higher count,
    r4 blocked."""
    location = tmp_path / "store.sqlite"
    db = Store(location)
    db.save("r1", ADA, ada(10, 4, 1), taken_at="2025-06-01T08:00:00Z")
    db.save("r2", ADA, ada(12, 5, 3, 1), taken_at="2026-06-01T08:00:00Z")
    db.save("r3", ADA, ada(20, 6, partial=True), taken_at="2026-09-01T08:00:00Z")
    db.save_failure("r4", "scholar", ADA, "failed", "blocked", "a CAPTCHA page", taken_at="2026-10-01T08:00:00Z")
    db.close()
    return location


def figures(capsys, *argv: str) -> tuple[int, list[dict], str]:
    code = main(["metrics", *argv, "--by", "page"])
    out, err = capsys.readouterr()
    return code, json.loads(out)["people"] if out else [], err


def values(person: dict) -> tuple:
    (figure_set,) = person["sets"]
    named = {figure["name"]: figure["value"] for figure in figure_set["figures"]}
    return named["papers"], named["citations"], named["h_index"], figure_set["as_of"]


def test_at_a_run_the_profile_is_as_that_run_listed_it(store: Path, capsys) -> None:
    code, people, err = figures(capsys, "--store", str(store), "--at", "r1")
    assert code == 0 and err == ""
    # r1 listed 10, 4 and 1 citations: 15 in all, h 2; the reference year is the run's own
    assert [values(person) for person in people] == [(3, 15, 2, 2025)]
    assert people[0]["sets"][0]["input"].endswith(f"(scholar:{ADA}, run r1)")


def test_at_a_time_a_complete_run_is_chosen_before_a_later_partial_one(store: Path, capsys) -> None:
    # at 2026-07-01 the latest run is r2: 12+5+3+1 = 21, h 3
    assert [values(p) for p in figures(capsys, "--store", str(store), "--at", "2026-07-01")[1]] == [(4, 21, 3, 2026)]
    # by 2026-12 r3 (partial) and r4 (blocked) came later; the store exports the complete r2, and so does --at
    assert [values(p) for p in figures(capsys, "--store", str(store), "--at", "2026-12")[1]] == [(4, 21, 3, 2026)]
    # at the partial run itself, it is the only run of its time: r2 is still the complete one before it
    assert [values(p) for p in figures(capsys, "--store", str(store), "--at", "r3")[1]] == [(4, 21, 3, 2026)]


def test_without_at_the_exported_record_is_measured(store: Path, capsys) -> None:
    code, people, _ = figures(capsys, "--store", str(store))
    assert code == 0
    # the exported record is r2's listing with each paper's latest trusted count: r3 raised T0 to 20, T1 to 6
    # (20+6+3+1 = 30, h 3); no fetch time and no --at: no reference year
    assert [values(person) for person in people] == [(4, 30, 3, None)]


def test_a_store_and_a_record_file_are_measured_together(store: Path, tmp_path: Path, capsys) -> None:
    bo = PageResult(site="scholar", page="profile", profile=Profile(name="Bo Li"),
                    publications=[Publication(title="Only", year=2020, citations=3, authors=["B Li"])])
    (tmp_path / "bo.json").write_bytes(to_json(bo))
    code, people, _ = figures(capsys, str(tmp_path / "bo.json"), "--store", str(store), "--at", "r2")
    assert code == 0
    assert [values(person) for person in people] == [(1, 3, 1, 2026), (4, 21, 3, 2026)]


@pytest.mark.parametrize(("argv", "message"), [
    (["--at", "2024"], "nothing to measure (the store holds no profile record up to --at)"),
])
def test_a_point_before_every_run_measures_nothing(store: Path, capsys, argv: list[str], message: str) -> None:
    code, people, err = figures(capsys, "--store", str(store), *argv)
    assert (code, people) == (1, []) and message in err


def test_bad_points_and_stores_are_one_line_and_exit_2(store: Path, tmp_path: Path, capsys) -> None:
    code, _, err = figures(capsys, "--store", str(store), "--at", "last week")
    assert code == 2 and err.startswith("pubharvest metrics: bad_point: 'last week' is no run of the store")
    assert err.count("\n") == 1
    code, _, err = figures(capsys, "--store", str(tmp_path / "missing.sqlite"))
    assert code == 2 and err.count("\n") == 1 and "missing.sqlite" in err
    code, _, err = figures(capsys)
    assert code == 2 and err == "pubharvest metrics: give INPUT files or --store\n"
    code, _, err = figures(capsys, str(store.parent / "none.json"), "--at", "r1")  # a run needs a store
    assert code == 2 and "--at" in err
