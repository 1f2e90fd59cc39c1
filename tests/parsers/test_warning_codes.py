"""The warning catalogue (``pubharvest.parsers.warning_codes``): every code a record carries is in it,
the JSON Schema names them as an enum, and docs/warnings.md lists each with its meaning."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, corpus_dir

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.parsers.warning_codes import Warn, codes, lacks_part

DOC = ROOT / "docs" / "warnings.md"
_DOC_ROW = re.compile(r"^\| `(?P<code>[a-z_]+)` \| (?P<meaning>.+?)(?P<lacks> \(\*lacks a part\*\))?"
                      r"(?P<untrusted> \(\*untrusted\*\))? \|$")


def pages() -> list[Path]:
    """Every page of the fixtures and, when ``PUBHARVEST_CORPUS`` is set, of the corpus."""
    roots = [FIXTURES] + ([corpus] if (corpus := corpus_dir()) else [])
    return sorted(p for root in roots for p in root.rglob("*") if p.is_file() and p.suffix in (".html", ".htm", ".txt",
                                                                                                 ".md", ".json", ".gz"))


def variants(data: bytes) -> Iterator[bytes]:
    """The page, cut at two places, gzipped, and re-encoded: each may give warnings the whole page does not."""
    yield data
    yield data[: len(data) * 9 // 10]
    yield data[: len(data) // 2]
    yield gzip.compress(data, mtime=0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    yield text.encode("utf-16")
    yield text.encode("cp1252", errors="replace")


def given_codes(page: Path) -> set[str]:
    found: set[str] = set()
    for data in variants(page.read_bytes()):
        try:
            found.update(w.code for w in parsers.parse(data).warnings)
        except parsers.ParseError:
            continue
    return found


def test_every_warning_the_pages_give_is_in_the_catalogue() -> None:
    given = {code: page.name for page in pages() for code in given_codes(page)}
    assert given, "no page gave any warning: the pages were not found"
    assert {code: page for code, page in given.items() if code not in codes()} == {}


def test_the_schema_lists_the_codes_as_an_enum(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$defs"]["PageWarning"]["properties"]["code"] == {"enum": codes()}


def test_the_docs_list_every_code_with_its_meaning() -> None:
    rows = [m for line in DOC.read_text(encoding="utf-8").splitlines() if (m := _DOC_ROW.match(line))]
    assert [(m["code"], m["meaning"], bool(m["lacks"]), bool(m["untrusted"])) for m in rows] == [
        (w.name, w.value.meaning, w.value.lacks_part, w.value.untrusted) for w in Warn]


def test_a_code_not_in_the_catalogue_lacks_nothing() -> None:
    assert lacks_part("summary_missing") and not lacks_part("group_heading_missing") and not lacks_part("x_missing")


@pytest.mark.parametrize("code", codes())
def test_each_meaning_is_one_line(code: str) -> None:
    meaning = Warn[code].value.meaning
    assert meaning and "\n" not in meaning and len(meaning) <= 120 and meaning[0].islower()
