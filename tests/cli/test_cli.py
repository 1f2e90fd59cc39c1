"""The ``pubharvest`` command: formats, folders, stdin, gzip, failures and exit codes, atomic -o."""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from pubharvest.cli import COMMANDS, main

SEED = FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt"
JA = FIXTURES / "scholar" / "handwritten_ja_profile.html"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def failures(err: str) -> list[str]:
    """The stderr lines that are not warnings (a page's warnings print as ``path: warning: ...``)."""
    return [line for line in err.splitlines() if ": warning: " not in line]


def test_json_is_an_array_in_input_order(capsys) -> None:
    code, out, err = run(capsys, "parse", str(JA), str(SEED))
    assert (code, failures(err)) == (0, [])
    results = json.loads(out)
    assert [r["page"] for r in results] == ["profile", "publication_list"]


def test_jsonl_one_result_per_line(capsys) -> None:
    code, out, _ = run(capsys, "parse", "--format", "jsonl", str(SEED), str(JA))
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2
    assert json.loads(lines[0])["source"]["parser"] == "scholar.publication_list"


def test_csv_rows_carry_site_and_profile_name_and_are_formula_safe(capsys, tmp_path: Path) -> None:
    page = JA.read_text(encoding="utf-8").replace("Method for segmenting text", "=HYPERLINK(&quot;x&quot;)")
    hostile = tmp_path / "hostile.html"
    hostile.write_text(page, encoding="utf-8")
    code, out, _ = run(capsys, "parse", "-f", "csv", str(hostile))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 4
    assert {r["site"] for r in rows} == {"scholar"} and {r["profile_name"] for r in rows} == {"山田 花子"}
    assert rows[2]["title"] == "'=HYPERLINK(\"x\")"


def test_folder_is_read_recursively_and_skips_expected_records(capsys) -> None:
    code, out, err = run(capsys, "parse", "-f", "jsonl", str(FIXTURES / "scholar"))
    assert (code, failures(err)) == (0, [])
    pages = [p for p in (FIXTURES / "scholar").iterdir() if not (p.suffix == ".json" and ".page." not in p.name)]
    assert len(out.splitlines()) == len(pages)


def test_failed_input_is_one_line_and_the_others_still_parse(capsys, tmp_path: Path) -> None:
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    code, out, err = run(capsys, "parse", str(empty), str(SEED), str(tmp_path / "missing.html"))
    assert code == 1
    assert len(json.loads(out)) == 1
    assert failures(err) == [f"{empty}: empty: the input is empty",
                                f"{tmp_path / 'missing.html'}: unreadable: No such file or directory"]


def test_gzip_file(capsys, tmp_path: Path) -> None:
    packed = tmp_path / "seed.txt.gz"
    packed.write_bytes(gzip.compress(SEED.read_bytes()))
    code, out, _ = run(capsys, "parse", str(packed))
    assert code == 0 and len(json.loads(out)[0]["publications"]) == 20


def test_stdin() -> None:
    done = subprocess.run([sys.executable, "-m", "pubharvest.cli", "parse", "-f", "jsonl", "-"],
                          input=SEED.read_bytes(), capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["publications"]) == 20


def test_output_file_is_written_whole(capsys, tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code, out, _ = run(capsys, "parse", str(SEED), "-o", str(target))
    assert code == 0 and out == ""
    assert len(json.loads(target.read_text(encoding="utf-8"))[0]["publications"]) == 20
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_output_file_survives_an_interrupted_run(capsys, tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "out.json"
    target.write_text("previous records", encoding="utf-8")

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("pubharvest.parsers.parse", interrupted)
    code, _, err = run(capsys, "parse", str(SEED), "-o", str(target))
    assert code == 130 and "interrupted" in err
    assert target.read_text(encoding="utf-8") == "previous records"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("args", [[], ["parse"], ["parse", "x", "--format", "xml"], ["frobnicate"]])
def test_usage_errors_exit_2(capsys, args: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        code = main(args)
        raise SystemExit(code)
    assert caught.value.code == 2


def test_schema_command_prints_the_json_schema(capsys) -> None:
    code, out, _ = run(capsys, "schema")
    schema = json.loads(out)
    assert code == 0 and "PageResult" in json.dumps(schema)
    assert {"title", "authors", "citations", "facets", "flags"} <= set(schema["$defs"]["Publication"]["properties"])


def _fixture_pages() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*.*") if not (p.suffix == ".json" and ".page." not in p.name))


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
@pytest.mark.parametrize("page", _fixture_pages(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_page_in_every_format(capsys, page: Path, fmt: str) -> None:
    code, out, err = run(capsys, "parse", "--format", fmt, str(page))
    assert (code, failures(err)) == (0, [])
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        expected = json.loads(page.with_name(page.name.split(".")[0] + ".json").read_text(encoding="utf-8"))
        assert len(rows) == len(expected.get("publications", []))
        assert all(r["site"] == page.parent.name for r in rows)
    else:
        (result,) = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
        assert result["site"] == page.parent.name


def test_help_names_the_registered_sites(capsys) -> None:
    import pubharvest.parsers as parsers

    with pytest.raises(SystemExit):
        main(["--help"])
    assert f"({parsers.site_titles()})" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit):
        main(["scrape", "--help"])
    assert f"({', '.join(parsers.SITES)})" in " ".join(capsys.readouterr().out.split())


def modules_imported_by(argv: list[str]) -> set[str]:
    """The modules a fresh interpreter holds after ``pubharvest ARGV`` ran (its output thrown away)."""
    code = ("import contextlib, io, json, sys\nfrom pubharvest.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            "    try:\n        main(json.loads(sys.argv[1]))\n    except SystemExit:\n        pass\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code, json.dumps(argv)], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_help_imports_no_parser_and_no_command() -> None:
    """``pubharvest --help`` names the sites from the registry (``pubharvest.siteregistry``): no parser, no
    record model, no command's module is imported to print it."""
    modules = modules_imported_by(["--help"])
    assert "pubharvest.siteregistry" in modules
    assert {m for m in modules if m.startswith(("pubharvest.parsers", "pubharvest.cli.", "lxml", "msgspec"))} == {
        "pubharvest.cli.options"}


def test_building_the_command_imports_no_site_module() -> None:
    """Building every command's arguments imports no site parser: they are read when a page is."""
    code = ("import sys; from pubharvest.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith('pubharvest.parsers.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "scholar" not in done.stdout and "elamur" not in done.stdout


# What only some commands use, by the module that brings it: none is imported by a command that does not.
ONLY_FOR = {"pubharvest.metrics": {"metrics", "report"}, "pubharvest.scrapers": {"scrape"},
            "pubharvest.enrich": set(), "pubharvest.report": {"report"}, "pubharvest.sync": {"sync"},
            "pubharvest.store": {"changes", "merge", "metrics", "report", "scrape", "store", "sync"},
            "pandas": set(), "pyarrow": set(), "httpx": {"scrape"}, "markdown_it": set()}


@pytest.mark.parametrize("command", ["parse", "schema", "changes", "merge", "report", "metrics", "scrape", "store",
                                     "sync"])
def test_a_commands_help_imports_only_what_it_uses(command: str) -> None:
    """``pubharvest COMMAND --help`` imports the command's own module and what it runs on, never another
    command's module, the enrichment (only with --enrich), pandas (only for parquet) nor a site parser."""
    modules = modules_imported_by([command, "--help"])
    assert f"pubharvest.cli.{command}" in modules
    others = {f"pubharvest.cli.{name}" for name in COMMANDS} - {f"pubharvest.cli.{command}"}
    assert modules & others <= ({"pubharvest.cli.merge"} if command == "sync" else set())
    brought = {package for package, users in ONLY_FOR.items() if command not in users
               and any(m == package or m.startswith(package + ".") for m in modules)}
    assert brought == set()
    assert not {m for m in modules if m.startswith(("pubharvest.parsers.scholar", "pubharvest.parsers.elamur",
                                                     "pubharvest.parsers.msr"))}


SEED_WARNING = (f"{SEED}: warning: title_looks_like_authors: row 10: the title looks like an author list: 'Rewon "
                "Child, Reza Yazdani Aminabadi, Julie Bernauer, Xia Song, Mohammad Shoeybi, Yuxiong He, Michael "
                "Houston, Saurabh Tiwary, and Bryan Catanzaro'")


@pytest.mark.parametrize("command", ["parse", "merge"])
@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv", "bibtex", "csl-json", "ris"])
def test_warnings_reach_stderr_in_every_format_and_strict_fails(capsys, tmp_path: Path, command: str,
                                                                fmt: str) -> None:
    assert json.loads((FIXTURES / "scholar" / "003_9ea93ed9343d2054.json").read_text())["warnings"]
    code, out, err = run(capsys, command, "-f", fmt, str(SEED))
    assert (code, err.splitlines()) == (0, [SEED_WARNING]) and out
    target = tmp_path / "out"
    code, out, err = run(capsys, command, "-f", fmt, "--strict", str(SEED), "-o", str(target))
    assert (code, out, err.splitlines()) == (1, "", [SEED_WARNING])
    assert target.stat().st_size > 100  # the records are still written


def test_strict_passes_pages_without_warnings(capsys) -> None:
    assert run(capsys, "parse", "--strict", str(FIXTURES / "msr" / "020_faceted_search.page.json"))[::2] == (0, "")
