"""A charset the HTTP ``Content-Type`` header names, and the page does not, reaches the parsers: in both
engines, and again when the job's archive is parsed. Without the header the same bytes read otherwise (the
last resort, windows-1252, or a guess with ``charset_guessed``), so each case can fail."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakesite import FakeSite, scholar_page
from scrapejobs import ENGINES, SCHOLAR_B, records, write_job
from test_hostile_server import run

from pubharvest import parsers
from pubharvest.cli import main

# A Scholar profile without its meta charset; its owner's name and the row count it states are Japanese.
PAGE = re.sub(r'<meta charset="utf-8">', "", scholar_page(SCHOLAR_B, 4, 0, 100), count=1)
DECODING = {"charset_guessed", "charset_mismatch", "charset_unsupported", "invalid_bytes"}


@pytest.fixture
def site():
    with FakeSite() as fake:
        yield fake


def test_the_page_declares_no_charset_and_names_its_owner_in_japanese() -> None:
    assert "charset" not in PAGE.lower() and "山田 花子" in PAGE


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("label", "codec"), [("Shift_JIS", "cp932"), ("EUC-JP", "euc_jp"),
                                              ("ISO-2022-JP", "iso2022_jp"), ("GBK", "gb18030")])
def test_a_charset_named_only_by_the_header_reaches_the_parser(engine: str, label: str, codec: str, site,
                                                               tmp_path: Path, capsys) -> None:
    body = PAGE.encode(codec, "xmlcharrefreplace")  # the en dash of "1–4" is in none of them
    unaided = parsers.parse(body)  # what the bytes alone give
    assert any(w.code in {"charset_guessed"} for w in unaided.warnings)
    site.answer("ja", 200, [("Content-Type", f"text/html; charset={label}")], body)
    site.fault(f"user={SCHOLAR_B}", *["answer:ja"] * 5)
    job = write_job(tmp_path, [{"site": "scholar", "id": SCHOLAR_B}], {"scholar": site.url})
    code, err = run(engine, capsys, job)
    assert code == 0, err
    [record] = records(tmp_path / "out.jsonl")
    assert record["profile"]["name"] == "山田 花子"
    assert not {w["code"] for w in record["warnings"]} & DECODING, record["warnings"]
    assert [p["title"] for p in record["publications"]] == [f"Paper {i} of {SCHOLAR_B}" for i in range(1, 5)]
    assert main(["parse", "-o", str(tmp_path / "again.jsonl"), "-f", "jsonl", str(tmp_path / "out.warc.gz")]) == 0
    [again] = records(tmp_path / "again.jsonl")
    assert again["profile"]["name"] == "山田 花子" and again["warnings"] == record["warnings"]
