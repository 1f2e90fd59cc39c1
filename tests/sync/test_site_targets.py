"""What every site target shows (``hugo``, ``academicpages``): synced twice from the fixture and corpus
pages, the second run changes nothing; any order of the pages and their rows gives the same files."""

from __future__ import annotations

from pathlib import Path

import pytest
from sitesync import corpus_pages, fixture_pages, papers_of, plan, sync, tree

TARGETS = ["hugo", "academicpages"]


@pytest.mark.corpus
@pytest.mark.parametrize("name", TARGETS)
def test_second_run_changes_nothing(tmp_path: Path, corpus: Path, name: str) -> None:
    every = papers_of(fixture_pages()) + papers_of(corpus_pages(corpus))
    sync(name, tmp_path, every)
    first = tree(tmp_path)
    again = plan(name, tmp_path, every)
    assert again.changes == [] and len(again.matched) == len(every) and again.unmatched == []
    assert tree(tmp_path) == first


@pytest.mark.parametrize("name", TARGETS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reordered_inputs_give_the_same_files(tmp_path: Path, name: str, seed: int) -> None:
    sync(name, tmp_path / "a", papers_of(fixture_pages()))
    sync(name, tmp_path / "b", papers_of(fixture_pages(), seed=seed))
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


@pytest.mark.corpus
@pytest.mark.parametrize("name", TARGETS)
def test_reordered_corpus_gives_the_same_files(tmp_path: Path, corpus: Path, name: str) -> None:
    sync(name, tmp_path / "a", papers_of(corpus_pages(corpus)))
    sync(name, tmp_path / "b", papers_of(corpus_pages(corpus), seed=7))
    assert tree(tmp_path / "a") == tree(tmp_path / "b")
