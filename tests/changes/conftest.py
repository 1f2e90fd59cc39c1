"""The corpus pages a history test edits."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from histories import Page


@pytest.fixture
def page(read_corpus) -> Callable[[str], Page]:
    """``page("scholar/x.html")``: a real page of the corpus, to edit."""
    def read(name: str) -> Page:
        return Page(read_corpus(name).decode("utf-8"))
    return read
