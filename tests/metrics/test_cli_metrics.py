"""``pubharvest metrics``: every format read back by its consumer (jsonschema for JSON, csv for CSV,
pandas and DuckDB for Parquet), people side by side by calendar and career year, and bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import duckdb
import jsonschema
import pytest
from conftest import FIXTURES, ROOT

from pubharvest import frames
from pubharvest.cli import main
from pubharvest.errors import ExitCode
from pubharvest.metrics import metrics, metrics_json_schema
from pubharvest.parsers import parse
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, YearCitations, to_json

SEEDS = [str(ROOT / name) for name in ("fixtures/scholar/003_9ea93ed9343d2054.txt",
                                       "fixtures/msr/001_0be51d225ce2b3fb.txt",
                                       "fixtures/elamur/000_e63c2e80f8ecde3e.txt")]
JA = FIXTURES / "scholar" / "handwritten_ja_profile.html"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def bo_record(tmp_path: Path) -> Path:
    """A second person as a record file: first paper 2019, cited 5, 7 and 9 times in 2020-2022."""
    page = PageResult(site="scholar", page="profile",
                      profile=Profile(name="Bo Li", ids=Ids(scholar="BoLi00AAAAJ"), citations_by_year=[
                          YearCitations(year=2020, citations=5), YearCitations(year=2021, citations=7),
                          YearCitations(year=2022, citations=9)]),
                      publications=[Publication(title="First", year=2019, citations=15, authors=["B Li"]),
                                    Publication(title="Second", year=2021, citations=6, authors=["B Li", "A N"])])
    path = tmp_path / "bo.json"
    path.write_bytes(to_json(page))
    return path


def test_json_is_valid_against_its_schema(capsys) -> None:
    code, out, _ = run(capsys, "metrics", *SEEDS, "--at", "2026")
    assert code == 0
    document = json.loads(out)
    jsonschema.validate(document, metrics_json_schema())
    code, schema, _ = run(capsys, "schema", "--metrics")
    assert code == 0 and json.loads(schema) == metrics_json_schema()
    (person,) = document["people"]
    assert [s["source"] for s in person["sets"]] == ["scholar", "msr", "elamur", "merged"]
    assert all(s["as_of"] == 2026 and s["as_of_from"] == "2026 (given with --at)" for s in person["sets"])


def test_csv_tables(capsys) -> None:
    code, out, _ = run(capsys, "metrics", *SEEDS, "--at", "2026", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [(r["source"], r["papers"], r["h_index"], r["h_index_stated"]) for r in rows] == [
        ("scholar", "20", "20", ""), ("msr", "20", "", ""), ("elamur", "3", "3", "22"), ("merged", "34", "20", "")]
    assert rows[2]["disagree"] == "h_index; citations" and rows[2]["unexplained"] == ""
    code, out, _ = run(capsys, "metrics", *SEEDS, "-f", "csv", "--table", "gaps")
    gaps = list(csv.DictReader(io.StringIO(out)))
    bloom = [g for g in gaps if g["a"] == "scholar" and g["b"] == "elamur" and g["title"].startswith("BLOOM")]
    assert [(g["kind"], g["citations_a"], g["citations_b"]) for g in bloom] == [("counted_differently", "1750", "1606")]


def test_people_side_by_side_by_calendar_and_career_year(capsys, tmp_path: Path) -> None:
    bo = bo_record(tmp_path)
    code, out, _ = run(capsys, "metrics", str(JA), str(bo), "--by", "person", "-f", "csv", "--table", "years")
    years = [(r["person"], r["year"], r["career_year"], r["citations"], r["cumulative"])
             for r in csv.DictReader(io.StringIO(out))]
    # 山田 花子's chart 2021-2025 (40, 0, 1100, 0, 300), first paper 2022; Bo Li's 2020-2022, first paper 2019
    assert code == 0 and years == [
        ("山田 花子", "2021", "-1", "40", "40"), ("山田 花子", "2022", "0", "0", "40"),
        ("山田 花子", "2023", "1", "1100", "1140"), ("山田 花子", "2024", "2", "0", "1140"),
        ("山田 花子", "2025", "3", "300", "1440"),
        ("Bo Li", "2020", "1", "5", "5"), ("Bo Li", "2021", "2", "7", "12"), ("Bo Li", "2022", "3", "9", "21")]
    code, out, _ = run(capsys, "metrics", str(JA), str(bo), "--by", "person", "-f", "md", "--align", "career")
    table = out[out.index("## Citations per year, cumulative, by career year"):].strip().splitlines()
    assert table[2:] == ["| career_year | 山田 花子 (scholar) | Bo Li (scholar) |", "|---|---|---|",
                         "| -1 | 40 | — |", "| 0 | 40 | — |", "| 1 | 1140 | 5 |", "| 2 | 1140 | 12 |",
                         "| 3 | 1440 | 21 |"]


def test_parquet_tables_read_back_by_duckdb(capsys, tmp_path: Path) -> None:
    code, _, _ = run(capsys, "metrics", *SEEDS, "--at", "2026", "-f", "parquet", "-o", str(tmp_path / "out"))
    assert code == 0
    con = duckdb.connect()
    got = con.execute(f"select source, papers, h_index, round(hi_annual, 4) from "
                      f"read_parquet('{tmp_path / 'out' / 'metrics.parquet'}') order by source").fetchall()
    # hI,annual: Scholar hI,norm 12 over 10 years; Elamur 3 over 6
    assert [row[:3] for row in got] == [("elamur", 3, 3), ("merged", 34, 20), ("msr", 20, None), ("scholar", 20, 20)]
    assert dict((row[0], row[3]) for row in got)["elamur"] == 0.5
    assert con.execute(f"select count(*) from read_parquet('{tmp_path / 'out' / 'metric_gaps.parquet'}')").fetchone()


def test_frames_give_the_same_tables() -> None:
    pages = [(name, parse(Path(name).read_bytes())) for name in SEEDS]
    tables = frames([*pages, metrics(pages, at="2026")])
    assert {"metrics", "metric_gaps", "metric_years"} <= set(tables)
    table = tables["metrics"]
    assert table["h_index"].dtype == "Int64" and table["awcr"].dtype == "Float64"
    assert table.set_index("source").loc["elamur", "citations_stated"] == 4916


def test_bad_usage_and_bad_input(capsys, tmp_path: Path) -> None:
    code, out, err = run(capsys, "metrics", *SEEDS, "--at", "last run")
    assert code == ExitCode.USAGE and not out and err.count("\n") == 1 and "--at" in err
    code, _, err = run(capsys, "metrics", *SEEDS, "--table", "gaps")
    assert code == ExitCode.USAGE and "--table goes with --format csv" in err
    code, _, err = run(capsys, "metrics", *SEEDS, "-f", "parquet")
    assert code == ExitCode.USAGE and "-o FOLDER" in err
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    target = tmp_path / "kept.json"
    target.write_text("kept")
    code, out, err = run(capsys, "metrics", str(empty), SEEDS[2], "-o", str(target))
    assert code == ExitCode.FAILED and f"{empty}: empty:" in err and "Traceback" not in err
    assert json.loads(target.read_text())["people"][0]["name"] == "Olatunji Ruwase"  # the other input was read
    code, out, err = run(capsys, "metrics", str(empty), "-o", str(target))
    assert code == ExitCode.FAILED and json.loads(target.read_text())["people"]  # every input failed: -o kept
    folder = tmp_path / "nothing"
    folder.mkdir()
    code, _, err = run(capsys, "metrics", str(folder))
    assert code != 0 and "no_pages" in err


@pytest.mark.parametrize("by", ["source", "person", "page"])
def test_every_by_on_the_seeds(capsys, by: str) -> None:
    code, out, _ = run(capsys, "metrics", *SEEDS, "--by", by, "--at", "2026")
    people = json.loads(out)["people"]
    sources = [[s["source"] for s in person["sets"]] for person in people]
    assert code == 0 and sources == {"source": [["scholar", "msr", "elamur", "merged"]], "person": [["merged"]],
                                     "page": [["scholar"], ["msr"], ["elamur"]]}[by]
