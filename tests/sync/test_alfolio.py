"""The al-folio target: papers.bib as the bib target syncs it, and _data/citations.yml in the shape al-folio's
updater writes, read back by PyYAML and by Debian's jekyll."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES

from pubharvest.cli import main
from pubharvest.errors import BadTarget, ExitCode
from pubharvest.inputs import read_results
from pubharvest.merge import merge
from pubharvest.sync import SyncOptions
from pubharvest.sync.alfolio import AlFolioTarget

PROFILE = FIXTURES / "scholar/handwritten_ja_profile.html"
# written by hand from the fixture page (its four rows), in the layout yaml.dump(width=1000, sort_keys=True)
# gives: keys sorted, the date quoted (it reads as a date otherwise), text outside ASCII as \u escapes
EXPECTED = """metadata:
  last_updated: '2026-12-04'
papers:
  Yamada12AAAAJ:9yKSN-GCB0IC:
    citations: 0
    title: Method for segmenting text
    year: '2022'
  Yamada12AAAAJ:OLDpaper0001:
    citations: 5
    title: "A paper Scholar no longer lists \\u2013 kept"
    year: Unknown Year
  Yamada12AAAAJ:d1gkVwhDpl0C:
    citations: 12
    title: "\\u81EA\\u7136\\u8A00\\u8A9E\\u51E6\\u7406\\u306E\\u305F\\u3081\\u306E\\u6DF1\\u5C64\\u5B66\\u7FD2"
    year: '2024'
  Yamada12AAAAJ:qjMakFHDy7sC:
    citations: 2
    title: Hanako Yamada, Ichiro Tanaka, Jane Smith, and Kim Lee
    year: Unknown Year
  Yamada12AAAAJ:u5HHmVD_uO8C:
    citations: 1100
    title: BERT-style pretraining for Japanese legal texts
    year: '2023'
"""
OLD = """metadata:
  last_updated: '2025-01-01'
papers:
  Yamada12AAAAJ:OLDpaper0001:
    citations: 5
    title: "A paper Scholar no longer lists \\u2013 kept"
    year: Unknown Year
  Yamada12AAAAJ:u5HHmVD_uO8C:
    citations: 900
    title: BERT-style pretraining for Japanese legal texts
    year: '2023'
"""
BIB = ("---\n---\n\n@inproceedings{yamada2023bert,\n  title={{BERT}-style pretraining for Japanese legal texts},\n"
       "  year={2023},\n  selected={true},\n}\n")


def site(root: Path) -> Path:
    (root / "_bibliography").mkdir(parents=True)
    (root / "_data").mkdir()
    (root / "_bibliography/papers.bib").write_text(BIB)
    (root / "_data/citations.yml").write_text(OLD)
    (root / "_data/socials.yml").write_text("scholar_userid: Yamada12AAAAJ\n")
    return root


def sync(root: Path, *more: str) -> int:
    return main(["sync", "al-folio", str(root), str(PROFILE), "--as-of", "2026-12-04", *more])


def test_citations_yml_is_the_updaters_file_with_the_sites_history_kept(tmp_path: Path) -> None:
    root = site(tmp_path)
    assert sync(root) == ExitCode.OK
    assert (root / "_data/citations.yml").read_text() == EXPECTED
    data = yaml.safe_load(EXPECTED)
    assert set(data) == {"metadata", "papers"} and isinstance(data["metadata"]["last_updated"], str)
    for key, paper in data["papers"].items():
        assert key.startswith("Yamada12AAAAJ:") and set(paper) == {"citations", "title", "year"}
        assert isinstance(paper["citations"], int) and isinstance(paper["title"], str)
        assert isinstance(paper["year"], str) and (paper["year"].isdigit() or paper["year"] == "Unknown Year")


def test_papers_bib_gains_the_scholar_id_the_badge_looks_up(tmp_path: Path) -> None:
    root = site(tmp_path)
    assert sync(root) == ExitCode.OK
    assert (root / "_bibliography/papers.bib").read_text() == BIB.replace(
        "  selected={true},\n", "  selected={true},\n  google_scholar_id={u5HHmVD_uO8C},\n"
        "  pubharvest_citations={1100 (scholar, 2026-12-04)},\n")


def test_a_second_sync_changes_nothing(tmp_path: Path) -> None:
    root = site(tmp_path)
    assert sync(root, "--add-missing") == ExitCode.OK
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert sync(root, "--add-missing") == ExitCode.OK
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == files


def test_the_user_id_comes_from_the_records_when_the_site_names_none(tmp_path: Path) -> None:
    root = site(tmp_path)
    (root / "_data/socials.yml").unlink()
    (root / "_data/citations.yml").unlink()
    papers = merge([("p", result) for result in read_results(PROFILE.read_bytes())]).papers
    plan = AlFolioTarget().plan(root, papers, [], SyncOptions(as_of="2026-12-04"))
    (yml,) = [c for c in plan.changes if c.path.name == "citations.yml"]
    assert yml.before is None and len(yaml.safe_load(yml.after)["papers"]) == 4


def test_a_file_for_a_site_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.bib").write_text("")
    with pytest.raises(BadTarget, match="not a folder"):
        AlFolioTarget().plan(tmp_path / "x.bib", [], [], SyncOptions(as_of="2026-12-04"))


def test_saved_pages_without_a_date_need_as_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = site(tmp_path)
    assert main(["sync", "al-folio", str(root), str(PROFILE)]) == ExitCode.USAGE
    assert "--as-of" in capsys.readouterr().err
    assert (root / "_data/citations.yml").read_text() == OLD


@pytest.mark.skipif(shutil.which("jekyll") is None, reason="jekyll is not installed (Debian: jekyll)")
def test_jekyll_reads_citations_yml_as_the_theme_does(tmp_path: Path) -> None:
    root = site(tmp_path / "site")
    assert sync(root) == ExitCode.OK
    (root / "_config.yml").write_text("title: t\nexclude: [_bibliography]\n")
    (root / "index.html").write_text(
        "---\n---\n{% for paper in site.data.citations.papers %}{{ paper[0] }}={{ paper[1].citations }}"
        "|{{ paper[1].year }}\n{% endfor %}{{ site.data.citations.papers['Yamada12AAAAJ:u5HHmVD_uO8C'].citations }}"
        "|{{ site.data.citations.metadata.last_updated }}\n")
    done = subprocess.run(["jekyll", "build", "--safe", "--strict_front_matter", "-s", str(root),
                           "-d", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out/index.html").read_text() == (
        "Yamada12AAAAJ:9yKSN-GCB0IC=0|2022\nYamada12AAAAJ:OLDpaper0001=5|Unknown Year\n"
        "Yamada12AAAAJ:d1gkVwhDpl0C=12|2024\nYamada12AAAAJ:qjMakFHDy7sC=2|Unknown Year\n"
        "Yamada12AAAAJ:u5HHmVD_uO8C=1100|2023\n1100|2026-12-04\n")
