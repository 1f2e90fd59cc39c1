"""``pubharvest sync`` end to end: the summary, --dry-run, --person, exit codes, and the same files whatever
the order of the inputs, from the fixtures and from the corpus's real Scholar profiles."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import msgspec
import pytest
from conftest import FIXTURES

from pubharvest.cli import main
from pubharvest.errors import ExitCode
from pubharvest.parsers.records import Ids, PageResult, Profile, Publication, PublicationIds

JA = str(FIXTURES / "scholar/handwritten_ja_profile.html")
SHOW_MORE = str(FIXTURES / "scholar/handwritten_show_more.page.json")  # more rows of the same profile
CORPUS_PAGES = ["scholar/profile_8daWuo4AAAAJ_en_pagesize2_bborrel_2019.html",
                "scholar/profile_8daWuo4AAAAJ_fr_bborrel_2019.html",
                "scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html",
                "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"]
BIB = b"% mine\n@article{bert,\n  title = {{BERT}-style pretraining for {J}apanese legal texts},\n  year = 2023\n}\n"


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_dry_run_prints_the_diff_and_the_summary_and_writes_nothing(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(BIB)
    assert main(["sync", "bib", str(path), JA, "--dry-run", "--as-of", "2026-12-04"]) == ExitCode.OK
    out, err = capsys.readouterr()
    assert out == ("--- a/refs.bib\n+++ b/refs.bib\n@@ -1,5 +1,7 @@\n % mine\n @article{bert,\n"
                   "   title = {{BERT}-style pretraining for {J}apanese legal texts},\n"
                   "-  year = 2023\n+  year = 2023,\n+  google_scholar_id = {u5HHmVD_uO8C},\n"
                   "+  pubharvest_citations = {1100 (scholar, 2026-12-04)}\n }\n")
    assert f"sync bib {path}: 1 matched, 0 unmatched, 0 added, 3 missing, 0 conflicts; 1 file would change" in err
    assert files(tmp_path) == {"refs.bib": BIB}


@pytest.mark.parametrize(("make", "words"), [
    (lambda p: p.mkdir(), "is a folder"),
    (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00"), "binary"),
    (lambda p: p.write_bytes(b"@article{k,\n  title = {never closed,\n"), "line 2: a block that never closes"),
])
def test_a_bad_path_is_one_line_exit_7_and_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           make, words: str) -> None:
    path = tmp_path / "refs.bib"
    make(path)
    before = files(tmp_path)
    assert main(["sync", "bib", str(path), JA]) == ExitCode.BAD_TARGET
    err = [line for line in capsys.readouterr().err.splitlines() if "warning:" not in line]
    assert len(err) == 1 and "bad_target" in err[0] and words in err[0], err
    assert files(tmp_path) == before


def test_several_people_need_person(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"  # records of someone else's profile, as `pubharvest parse` writes them
    other.write_bytes(msgspec.json.encode(PageResult(
        site="scholar", page="profile", profile=Profile(name="Otto Other", ids=Ids(scholar="OtherPAAAAJ")),
        publications=[Publication(title="Glacial erosion", year=2001, ids=PublicationIds(scholar="OtherPAAAAJ:x"))])))
    path = tmp_path / "refs.bib"
    path.write_bytes(BIB)
    assert main(["sync", "bib", str(path), JA, str(other)]) == ExitCode.USAGE
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == ("pubharvest sync: the inputs show 2 people; choose one with --person: "
                   "Otto Other (scholar OtherPAAAAJ); "
                   "山田 花子 (scholar Yamada12AAAAJ, scholar_org 1234567890123456789)")
    assert path.read_bytes() == BIB
    assert main(["sync", "bib", str(path), JA, str(other), "--person", "otto other", "--add-missing"]) == ExitCode.OK
    assert b"Glacial erosion" in path.read_bytes() and b"u5HHmVD_uO8C" not in path.read_bytes()
    assert main(["sync", "bib", str(path), JA, str(other), "--person", "Yamada12AAAAJ"]) == ExitCode.OK
    assert b"u5HHmVD_uO8C" in path.read_bytes()


def test_person_names_no_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(BIB)
    assert main(["sync", "bib", str(path), JA, "--person", "Nobody"]) == ExitCode.USAGE
    assert "names no one" in capsys.readouterr().err and path.read_bytes() == BIB


@pytest.mark.parametrize("target", ["bib", "al-folio"])
def test_fixtures_in_any_order_give_the_same_files_and_a_second_run_changes_nothing(tmp_path: Path,
                                                                                    target: str) -> None:
    results = []
    for n, order in enumerate(itertools.permutations([JA, SHOW_MORE])):
        root = tmp_path / str(n)
        path = root / "refs.bib" if target == "bib" else root
        root.mkdir()
        args = ["sync", target, str(path), *order, "--add-missing", "--as-of", "2026-12-04"]
        assert main(args) == ExitCode.OK
        first = files(root)
        assert main(args) == ExitCode.OK
        assert files(root) == first
        results.append(first)
    assert results[0] == results[1] and results[0]
    bib = next(data for name, data in results[0].items() if name.endswith(".bib"))
    assert b"W7OEmFMy1HYC" in bib  # the show-more row joined the profile's papers


@pytest.mark.parametrize("target", ["bib", "al-folio"])
def test_corpus_profiles_in_any_order_give_the_same_files(tmp_path: Path, read_corpus, corpus: Path,
                                                          target: str) -> None:
    pages = [str(corpus / page) for page in CORPUS_PAGES]
    results = []
    orders = list(itertools.permutations(pages))[::5]
    for n, order in enumerate(orders):
        root = tmp_path / str(n)
        path = root / "refs.bib" if target == "bib" else root
        root.mkdir()
        args = ["sync", target, str(path), *order, "--add-missing", "--as-of", "2026-12-04", "--person", "Anne Kietzig"]
        assert main(args) == ExitCode.OK
        first = files(root)
        assert main(args) == ExitCode.OK
        assert files(root) == first
        results.append(first)
    assert all(result == results[0] for result in results)
    bib = next(data for name, data in results[0].items() if name.endswith(".bib"))
    if target == "al-folio":  # a new papers.bib opens with the front matter Jekyll needs
        bib = bib.removeprefix(b"---\n---\n\n")
        assert results[0]["_data/citations.yml"].count(b"  8daWuo4AAAAJ:") == 2
    assert bib.startswith(b"@article{karthikeyan2018boiling,\n") and bib.count(b"\n@") == 1  # her two papers only
    assert b"NhqRSupF_l8C" in bib and b"RxmmtT8AAAAJ" not in bib and b"P1RwlvoAAAAJ" not in bib


def test_an_unwritable_target_is_one_line_and_keeps_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied", dst)

    monkeypatch.setattr(os, "replace", refuse)  # as a read-only folder refuses the rename (root ignores modes)
    path = tmp_path / "refs.bib"
    path.write_bytes(BIB)
    assert main(["sync", "bib", str(path), JA]) == ExitCode.FAILED
    assert capsys.readouterr().err.splitlines()[-1] == f"{path}: unwritable: Permission denied"
    assert files(tmp_path) == {"refs.bib": BIB}  # the temporary file removed
