"""What the speed work on merge, exports and start-up must keep: the streamed merged JSON is the bytes it always was,
keys after many collisions are the keys they always were, records are read as they always were,
and a small parse imports none of what it does not use."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from conftest import ROOT

import pubharvest.parsers as parsers
from pubharvest.inputs import read_results
from pubharvest.keys import Keys
from pubharvest.merge import MergeResult, merge
from pubharvest.output import MergedJsonWriter
from pubharvest.parsers.records import PageResult, Publication, to_json

pytestmark = pytest.mark.slow  # many records, keys and collisions
SEEDS = ["fixtures/scholar/003_9ea93ed9343d2054.txt", "fixtures/msr/001_0be51d225ce2b3fb.txt",
         "fixtures/elamur/000_e63c2e80f8ecde3e.txt"]


def streamed(merged: MergeResult) -> str:
    out = io.StringIO()
    MergedJsonWriter(out).write(merged)
    return out.getvalue()


def test_streamed_merged_json_is_the_whole_encoding() -> None:
    merged = merge((name, parsers.parse((ROOT / name).read_bytes())) for name in SEEDS)
    assert len(merged.papers) == 34 and len(merged.profiles) == 1
    assert streamed(merged) == to_json(merged).decode() + "\n"
    assert streamed(MergeResult()) == '{"profiles":[],"papers":[]}\n'


def test_keys_after_many_collisions_follow_the_alphabet_then_two_letters() -> None:
    keys = Keys()
    same = Publication(title="Zero", authors=["S Ilić"], year=2020)
    got = [keys.key(same) for _ in range(30)]
    assert got[:3] == ["ilic2020zero", "ilic2020zeroa", "ilic2020zerob"]
    assert got[26:] == ["ilic2020zeroz", "ilic2020zeroaa", "ilic2020zeroab", "ilic2020zeroac"]
    # a key handed out under another base is skipped, not given twice
    keys = Keys()
    assert [keys.key(Publication(title=t, authors=["A Ren"], year=2021)) for t in ("Zeroa", "Zero", "Zero")] == [
        "ren2021zeroa", "ren2021zero", "ren2021zerob"]


def test_records_are_read_from_an_array_an_object_and_lines() -> None:
    one = PageResult(site="msr", page="publication_list", publications=[Publication(title="Deep nets", year=2021)])
    encoded = to_json(one)
    assert read_results(encoded) == [one]
    assert read_results(b"[" + encoded + b"," + encoded + b"]") == [one, one]
    assert read_results(encoded + b"\n\n" + encoded + b"\n") == [one, one]
    assert read_results(b"  []") == []


def test_parsing_a_small_page_as_json_imports_no_exporter_and_no_scraper() -> None:
    code = ("import sys; from pubharvest.cli import main; "
            f"main(['parse', {str(ROOT / SEEDS[1])!r}, '-o', '/dev/null']); print(' '.join(sorted(sys.modules)))")
    modules = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
                  .stdout.split())
    assert "pubharvest.parsers.msr" in modules
    unused = {"pubharvest.bibtex", "pubharvest.csl", "pubharvest.merge", "pubharvest.scrapers", "httpx",
              "markdown_it", "bs4", "parsel"}
    assert modules & unused == set()
