"""On every real profile page that states its h-index or i10-index (the corpus's and the fixtures' real
pages), the figures computed from its rows equal the stated ones, or the difference is explained by
named rows (``pubharvest.metrics.explain``); pytest prints the tally at the end (``tests/helpers/stated.py``).
Hand-written fixture pages are left out: their stated figures are made up."""

from __future__ import annotations

from pathlib import Path

import pytest
import stated
from conftest import FIXTURES, corpus_dir, from_corpus

from pubharvest.errors import ParseError
from pubharvest.metrics import metrics
from pubharvest.parsers import parse
from pubharvest.parsers.records import PageResult


def hand_written(path: Path) -> bool:
    """Whether a fixture page says in its first line that it was written by hand."""
    first = path.read_text("utf-8", "replace").split("\n", 1)[0].casefold()
    return "hand-written" in first or "hand written" in first or path.name.startswith("handwritten")


def real_pages() -> list[Path]:
    corpus = corpus_dir()
    found = [path for path in sorted(corpus.rglob("*")) if path.is_file()] if corpus else []
    fixtures = [path for path in sorted(FIXTURES.rglob("*.*")) if path.suffix != ".json" and not hand_written(path)]
    return found + fixtures


def stating(path: Path) -> PageResult | None:
    """The page's records when it is a profile that states its h-index or i10-index, else None."""
    try:
        result = parse(path.read_bytes())
    except ParseError:
        return None
    metrics_ = result.profile.metrics if result.profile else None
    if metrics_ is None or (metrics_.h_index is None and metrics_.i10_index is None):
        return None
    return result


def in_corpus(path: Path) -> bool:
    corpus = corpus_dir()
    return corpus is not None and path.is_relative_to(corpus)


PAGES = [from_corpus(path) if in_corpus(path) else path for path in real_pages() if stating(path) is not None]


def test_the_corpus_holds_complete_profile_pages(corpus: Path) -> None:
    complete = [path.name for path in real_pages() if in_corpus(path) and (result := stating(path)) is not None
                and not any(w.code == "partial" for w in result.warnings)]
    assert complete == ["profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html",
                        "profile_P1RwlvoAAAAJ_scholar-scraper_2026.html"]


@pytest.mark.parametrize("path", PAGES, ids=lambda path: path.name)
def test_stated_h_and_i10_agree_with_the_rows_or_the_difference_is_explained(path: Path) -> None:
    result = stating(path)
    assert result is not None
    (figures,) = metrics([(path.name, result)], by="page").people[0].sets
    listing = "partial" if any(s.input == "rows" for s in figures.shortfalls) else "complete"
    for check in figures.checks:
        outcome = stated.record(path.name, listing, check)
        assert outcome != "unexplained", (f"{path.name}: {check.name} stated {check.stated}, computed "
                                          f"{check.computed}: {[(r.code, r.message) for r in check.reasons]}")
        for reason in check.reasons:
            assert reason.code and reason.message  # each names its cause; rows named where the input holds them
        if not check.agree and listing == "complete":
            assert any(reason.rows for reason in check.reasons if reason.accounts), path.name
