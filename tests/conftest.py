"""Shared test plumbing: where fixtures and the real-page corpus live, and the closing lines that
say how many tests ran on the corpus's real pages (or why none did), when drift variants were
checked, how many were tried and what each gave (``tests/helpers/drift.py``), and when stated figures
were checked against their rows, how many agree (``tests/helpers/stated.py``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from collections.abc import Iterator

    from _pytest.mark.structures import ParameterSet

    from pubharvest.store import Store

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# Hypothesis's default 200 ms deadline per example is a timed assertion: on a loaded machine it fails tests
# that are right. Speed lives in bench/; a test here checks only what the code gives.
settings.register_profile("pubharvest", deadline=None)
settings.load_profile("pubharvest")


def corpus_dir() -> Path | None:
    """The real third-party pages (``PUBHARVEST_CORPUS``), or None when the variable is unset."""
    value = os.environ.get("PUBHARVEST_CORPUS")
    if not value:
        return None
    path = Path(value)
    if not path.is_absolute():
        path = (Path.cwd() / path).resolve()
    if not path.is_dir():
        raise RuntimeError(f"PUBHARVEST_CORPUS is set to {value!r}, which is not a folder")
    return path


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = corpus_dir()
    if path is None:
        pytest.skip("PUBHARVEST_CORPUS is not set: real-page tests need ../shared/research")
    return path


@pytest.fixture(scope="session")
def read_corpus(corpus: Path):
    """``read_corpus("scholar/x.html")`` -> the bytes of a real page; fails when it is missing."""

    def read(relative: str) -> bytes:
        page = corpus / relative
        assert page.is_file(), f"corpus page missing: {page}"
        return page.read_bytes()

    return read


@pytest.fixture
def page(read_corpus):
    """``page("scholar/x.html")``: a real page of the corpus as a ``histories.Page``, to edit as a profile changes."""
    from histories import Page

    def read(relative: str) -> Page:
        return Page(read_corpus(relative).decode("utf-8"))
    return read


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """A store location: an SQLite file, then a fresh PostgreSQL database when one is configured
    (``PUBHARVEST_TEST_POSTGRES``), so a store test runs on both."""
    if request.param == "sqlite":
        yield tmp_path / "store.sqlite"
        return
    pytest.importorskip("psycopg")
    from scrapyjobs import fresh_database, service

    with fresh_database(service("PUBHARVEST_TEST_POSTGRES")) as url:
        yield url


@pytest.fixture
def store(location: Path | str) -> Iterator[Store]:
    """A store opened on ``location``, closed after the test."""
    from pubharvest.store import Store

    opened = Store(location)
    try:
        yield opened
    finally:
        opened.close()


def from_corpus(*values: object) -> ParameterSet:
    """The parameters of a test case that reads a page of the corpus (found at collection): marked ``corpus``."""
    return pytest.param(*values, marks=pytest.mark.corpus)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.corpus)


def corpus_line(ran: int) -> str:
    """The closing line: how many tests ran on real pages, or why none did."""
    path = corpus_dir()
    if path is None:
        return "corpus: none ran; set PUBHARVEST_CORPUS=../shared/research to test on real pages as well"
    if not ran:
        return f"corpus: none ran (none selected) of the real pages in {path}"
    return f"corpus: {ran} tests on real pages from {path}"


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    ran = {report.nodeid for reports in terminalreporter.stats.values() for report in reports
           if getattr(report, "when", None) == "call" and "corpus" in getattr(report, "keywords", {})}
    terminalreporter.write_line(corpus_line(len(ran)))
    helper = sys.modules.get("drift")  # tests/helpers/drift.py, when a test used it
    line = helper.tally_line(helper.TALLY) if helper is not None else None
    if line:
        terminalreporter.write_line(line)
    stated = sys.modules.get("stated")  # tests/helpers/stated.py: stated figures checked against rows
    line = stated.tally_line(stated.TALLY, len(stated.PAGES)) if stated is not None else None
    if line:
        terminalreporter.write_line(line)
