"""``pubharvest changes`` on the command line: exit status like diff, the formats, the JSON Schema, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from histories import ED, RX, WEEK, save
from lxml import html

from pubharvest.cli import main
from pubharvest.store import Store


@pytest.fixture
def history(page, tmp_path: Path) -> Path:
    """Two profiles, three weeks: a count raised, a row dropped from a partial page, a blocked run."""
    location = tmp_path / "store.sqlite"
    store = Store(location)
    save(store, "w1", page(ED), WEEK[0])
    save(store, "w1", page(RX), WEEK[0])
    save(store, "w2", page(ED).count("u5HHmVD_uO8C", 25), WEEK[1])
    save(store, "w2", page(RX).drop("5nxA0vEk-isC").count("qjMakFHDy7sC", 1200), WEEK[1])
    store.save_failure("w3", "scholar", "RxmmtT8AAAAJ", "failed", "blocked", "a CAPTCHA page", taken_at=WEEK[2])
    store.close()
    return location


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["changes", *args])
    out, err = capsys.readouterr()
    return code, out, err


def schema(capsys) -> dict:
    assert main(["schema", "--changes"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_is_valid_against_the_schema_and_says_what_changed(history: Path, capsys) -> None:
    code, out, err = run(capsys, "--store", str(history), "--since", "w1", "--format", "json")
    assert code == 1 and err == ""
    report = json.loads(out)
    jsonschema.validate(report, schema(capsys))
    assert report["from"] == "w1" and report["to"] is None
    assert sorted((c["kind"], c["paper"]["id"], c["before"], c["after"]) for c in report["changes"]) == [
        ("citations", "P1RwlvoAAAAJ:u5HHmVD_uO8C", 18, 25), ("citations", "RxmmtT8AAAAJ:qjMakFHDy7sC", 1185, 1200)]
    assert [(n["paper"]["id"], n["seen_in"]) for n in report["not_seen"]] == [("RxmmtT8AAAAJ:5nxA0vEk-isC", "from")]
    assert [(s["profile"]["id"], s["run"]["id"], s["run"]["standing"]) for s in report["runs_skipped"]] == [
        ("RxmmtT8AAAAJ", "w3", "blocked")]


def test_the_schema_refuses_what_is_not_a_change_report(capsys) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"changes": [{"kind": "rumour"}]}, schema(capsys))


def test_jsonl_one_object_a_line_each_valid(history: Path, capsys) -> None:
    code, out, _ = run(capsys, "--store", str(history), "--since", WEEK[0], "--format", "jsonl")
    defs = schema(capsys)
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [line["kind"] for line in lines] == ["citations", "citations", "not_seen", "run_skipped"]
    for line in lines[:2]:
        jsonschema.validate(line, {**defs, "$ref": "#/$defs/Change"})


def test_text_digest_starts_with_a_summary_and_puts_the_biggest_first(history: Path, capsys) -> None:
    code, out, _ = run(capsys, "--store", str(history), "--since", "w1")
    lines = out.splitlines()
    assert code == 1
    assert lines[0] == ("2 changes for 2 of 2 profiles compared: 2 papers' counts; 1 paper not seen (an incomplete "
                        "listing); 1 run skipped (blocked).")
    assert lines.index(next(line for line in lines if "RxmmtT8AAAAJ" in line)) < lines.index(
        next(line for line in lines if "P1RwlvoAAAAJ" in line)), "+15 before +7"
    assert any("+15 (+1.3%): Black pepper and its pungent principle" in line for line in lines), lines


def test_markdown_escapes_titles(history: Path, capsys) -> None:
    code, out, _ = run(capsys, "--store", str(history), "--since", "w1", "--format", "md", "--person",
                       "P1RwlvoAAAAJ")
    assert code == 1 and out.splitlines()[2].startswith("## ")
    assert "- +7 (+38.9%): Set in stone: Analysis of an immutable web3 social media platform (18 → 25)" in out


def test_nothing_changed_is_exit_0(history: Path, capsys, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "--store", str(history), "--person", "scholar:P1RwlvoAAAAJ", "--min-citations", "8",
                       "-o", str(tmp_path / "digest.txt"))
    assert code == 0 and out == ""
    assert (tmp_path / "digest.txt").read_text().startswith("No changes in 1 profile compared.")


@pytest.mark.parametrize(("args", "message"), [
    (["--since", "last tuesday"], "pubharvest changes: bad_point: 'last tuesday' is no run of the store and no date"),
    (["--person", "Nobody"], "pubharvest changes: unknown_person: --person 'Nobody': no profile of the store"),
])
def test_bad_points_and_people_are_one_line_and_exit_2(history: Path, capsys, args: list[str], message: str) -> None:
    code, out, err = run(capsys, "--store", str(history), *args)
    assert code == 2 and out == "" and err.startswith(message) and err.count("\n") == 1


def test_a_missing_or_foreign_store_is_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(capsys, "--store", str(tmp_path / "none.sqlite"))
    assert code == 2 and err == f"pubharvest changes: {tmp_path / 'none.sqlite'}: no such store\n"
    (tmp_path / "notes.sqlite").write_text("not a database, just notes\n" * 100)
    code, _, err = run(capsys, "--store", str(tmp_path / "notes.sqlite"))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_an_unwritable_output_is_trouble_not_a_change(history: Path, capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "--store", str(history), "-o", str(tmp_path / "no" / "such" / "folder" / "x.txt"))
    assert code == 2 and "unwritable" in err and err.count("\n") == 1


def test_pandoc_reads_the_markdown_digest_back_to_the_titles_as_written(page, tmp_path: Path, capsys) -> None:
    pandoc = shutil.which("pandoc")
    if pandoc is None:
        pytest.skip("pandoc is not installed (Debian's pandoc)")
    title = "Deep *learning* for [graphs] <b>_x_</b> & more #1 | `code`"
    store = Store(tmp_path / "s.sqlite")
    save(store, "w1", page(ED), WEEK[0])
    escaped = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    save(store, "w2", page(ED).add("2osOgNQ5qMEC", "NEWPAPER0001", escaped, 3, "998"), WEEK[1])
    store.close()
    code, out, _ = run(capsys, "--store", str(tmp_path / "s.sqlite"), "--format", "md")
    assert code == 1
    rendered = subprocess.run([pandoc, "-f", "commonmark", "-t", "html"], input=out, capture_output=True, text=True,
                              timeout=60, check=True).stdout
    document = html.fromstring(f"<div>{rendered}</div>")
    items = [" ".join(li.text_content().split()) for li in document.iter("li") if isinstance(li, html.HtmlElement)]
    assert f"new paper: {title} (3 citations)" in items, items
    assert [h.text_content() for h in document.iter("h2") if isinstance(h, html.HtmlElement)] == [
        "WENRUI ZUO (scholar:P1RwlvoAAAAJ)"]
