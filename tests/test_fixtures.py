"""One test per fixture pair: ``fixtures/<site>/<case>.<html|md|txt|...>`` against ``<case>.json``.
A page that is itself JSON is named ``<case>.page.json``.

The expected JSON is a ``PageResult`` checked by hand against the page, or ``{"error": CODE}``
for a page that must be refused. Adding a case is adding two files.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import parsers
from parsers.records import to_builtins

from conftest import FIXTURES

def fixture_pairs() -> list[tuple[Path, Path]]:
    """Every page with its expected records: ``case.html`` (or ``case.page.json``) with ``case.json``."""
    pairs = []
    for page in sorted(FIXTURES.rglob("*.*")):
        expected = page.with_name(page.name.split(".")[0] + ".json")
        if page.is_file() and page != expected and expected.exists():
            pairs.append((page, expected))
    return pairs


PAIRS = fixture_pairs()
SCHEMA = parsers.json_schema()


@pytest.mark.parametrize("page,expected", PAIRS, ids=[str(p.relative_to(FIXTURES)) for p, _ in PAIRS])
def test_fixture(page: Path, expected: Path) -> None:
    want = json.loads(expected.read_text(encoding="utf-8"))
    if "error" in want:
        with pytest.raises(parsers.ParseError) as caught:
            parsers.parse(page.read_bytes(), url=want.get("url"))
        assert caught.value.code == want["error"]
        return
    got = to_builtins(parsers.parse(page.read_bytes(), url=want.get("url")))
    got.pop("source")
    want.pop("source", None)
    assert got == want


@pytest.mark.parametrize("page,expected", PAIRS, ids=[str(p.relative_to(FIXTURES)) for p, _ in PAIRS])
def test_fixture_output_matches_schema(page: Path, expected: Path) -> None:
    if "error" in json.loads(expected.read_text(encoding="utf-8")):
        pytest.skip("a refused page has no output")
    jsonschema.validate(to_builtins(parsers.parse(page.read_bytes())), SCHEMA)


def test_there_are_fixtures_for_every_site() -> None:
    sites = {page.parent.name for page, _ in PAIRS}
    assert set(parsers.SITES) <= sites
