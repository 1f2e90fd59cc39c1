"""Shared test plumbing: where fixtures and the real-page corpus live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


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
