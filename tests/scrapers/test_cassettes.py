"""Whole jobs replayed from cassettes (pytest-recording / VCR.py): no server, no network.

The cassettes in ``tests/cassettes/`` were recorded against ``tests/helpers/fakesite.py`` serving
the project's own fixture pages on port 8765. CI replays them (``--record-mode=none``, the default);
to record them again: ``pytest tests/scrapers/test_cassettes.py --record-mode=rewrite``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT
from fakesite import FakeSite
from scrapejobs import SCHOLAR_A, SCHOLAR_B, profile_key, records, without_when, write_job

import pubharvest.parsers as parsers
from pubharvest.cli import main
from pubharvest.parsers.records import to_builtins

BASE = "http://127.0.0.1:8765"
ALL_SITES = {"scholar": BASE, "msr": BASE, "elamur": BASE}


@pytest.fixture
def vcr_cassette_dir() -> str:
    """``tests/cassettes/test_cassettes/``: the test data stays beside the other test data, not this module."""
    return str(ROOT / "tests" / "cassettes" / "test_cassettes")


@pytest.fixture
def vcr_config() -> dict:
    return {"match_on": ["method", "scheme", "host", "port", "path", "query"]}


@pytest.fixture
def fake_site(record_mode: str):
    """The fake site while recording; nothing at all while replaying."""
    if record_mode == "none":
        yield None
        return
    with FakeSite(8765) as site:
        site.scholar[SCHOLAR_A] = 250
        site.fault(f"user={SCHOLAR_B}", "captcha")
        site.fault("/people/adaexample/", "500", "429:1")
        yield site


@pytest.mark.vcr
def test_a_whole_job_replayed(fake_site, tmp_path: Path, capsys) -> None:
    targets = [{"site": "scholar", "id": SCHOLAR_A}, {"site": "msr", "id": "adaexample"},
               {"site": "elamur", "id": "olatunji-ruwase"}]
    job = write_job(tmp_path, targets, ALL_SITES)
    code = main(["scrape", str(job)])
    assert code == 0, capsys.readouterr().err
    got = {profile_key(r): r for r in records(tmp_path / "out.jsonl")}
    assert len(got[f"scholar:{SCHOLAR_A}"]["publications"]) == 250
    elamur_page = (FIXTURES / "elamur" / "000_multiline.md").read_bytes()
    expected = to_builtins(parsers.parse(elamur_page, url=f"{BASE}/free/en/authors/olatunji-ruwase/"))
    assert without_when(got["elamur:olatunji-ruwase"]) == expected
    assert len(got["msr:adaexample"]["publications"]) == 5  # after a 500 and a 429
    capsys.readouterr()
    assert main(["parse", "-f", "jsonl", str(tmp_path / "out.warc.gz")]) == 0
    assert capsys.readouterr().out == (tmp_path / "out.jsonl").read_text(encoding="utf-8")


@pytest.mark.vcr
def test_a_captcha_replayed_stops_the_host(fake_site, tmp_path: Path, capsys) -> None:
    targets = [{"site": "scholar", "id": SCHOLAR_B}, {"site": "scholar", "id": SCHOLAR_A}]
    job = write_job(tmp_path, targets, {"scholar": BASE})
    assert main(["scrape", str(job)]) == 3
    err = capsys.readouterr().err
    assert "blocked" in err and f"scholar:{SCHOLAR_A}: blocked" in err
    assert not (tmp_path / "out.jsonl").read_text()
