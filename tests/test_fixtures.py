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

import pubharvest.parsers as parsers
from pubharvest.parsers.records import from_json, to_builtins

from conftest import FIXTURES, ROOT

BAD_INPUTS = ROOT / "tests" / "data"

def fixture_pairs(folder: Path = FIXTURES) -> list[tuple[Path, Path]]:
    """Every page with its expected records: ``case.html`` (or ``case.page.json``) with ``case.json``."""
    pairs = []
    for page in sorted(folder.rglob("*.*")):
        expected = page.with_name(page.name.split(".")[0] + ".json")
        if page.is_file() and page != expected and expected.exists():
            pairs.append((page, expected))
    return pairs


PAIRS = fixture_pairs()
REFUSED = fixture_pairs(BAD_INPUTS)
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
    # Fields the expected file leaves out are expected at their defaults (null, [] or false):
    # adding a field to the model does not mean rewriting every fixture.
    want = to_builtins(from_json(expected.read_bytes()))
    want.pop("source")
    assert got == want


@pytest.mark.parametrize("page,expected", PAIRS, ids=[str(p.relative_to(FIXTURES)) for p, _ in PAIRS])
def test_fixture_output_matches_schema(page: Path, expected: Path) -> None:
    if "error" in json.loads(expected.read_text(encoding="utf-8")):
        pytest.skip("a refused page has no output")
    jsonschema.validate(to_builtins(parsers.parse(page.read_bytes())), SCHEMA)


@pytest.mark.parametrize("page,expected", REFUSED, ids=[str(p.relative_to(BAD_INPUTS)) for p, _ in REFUSED])
def test_bad_input_is_refused_with_its_code(page: Path, expected: Path) -> None:
    """Bad inputs (``tests/data/<site>/``) pair a page with ``{"error": CODE}``."""
    want = json.loads(expected.read_text(encoding="utf-8"))
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(page.read_bytes(), url=want.get("url"))
    assert caught.value.code == want["error"]
    assert "\n" not in caught.value.message


def test_fixtures_hold_only_pages_that_parse() -> None:
    assert not [p for p, e in PAIRS if "error" in json.loads(e.read_text(encoding="utf-8"))]


def test_there_are_fixtures_for_every_site() -> None:
    sites = {page.parent.name for page, _ in PAIRS}
    assert set(parsers.SITES) <= sites
