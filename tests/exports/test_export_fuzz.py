"""Exporters fuzzed with hypothesis: a field of any text (braces, ``@``, ``%``, backslashes, newlines,
lone surrogates, the ``112}} @misc{injected,`` of issue reports) never closes its entry or opens a
second one. BibTeX is read back by bibtexparser (every example) and by biber (one batch of many);
CSL-JSON is read back as JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pubharvest.bibtex import bibtex
from pubharvest.csl import csl_items
from pubharvest.parsers.records import Publication, PublicationIds

INJECTION = "112}} @misc{injected, title={x}}\n@article{second,"
hostile = st.one_of(st.text(max_size=40), st.sampled_from([INJECTION, "}", "{", "\\", "@", "%", "#", "\n@misc{x,",
                                                              "\\}", "a}b{c", "\ud800", "\\url{", "%}\n}"]))
maybe = st.one_of(st.none(), hostile)


@st.composite
def publications(draw: st.DrawFn) -> Publication:
    return Publication(title=draw(hostile) or "t", authors=draw(st.lists(hostile, max_size=3)), venue=draw(maybe),
                       year=draw(st.one_of(st.none(), st.integers(1900, 2099))), publisher=draw(maybe),
                       volume=draw(maybe), issue=draw(maybe), pages=draw(maybe), url=draw(maybe),
                       ids=PublicationIds(isbn=draw(maybe), arxiv=draw(maybe), report_number=draw(maybe)))


def entries(text: str) -> list[str]:
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [block.raw for block in library.failed_blocks]
    return [entry.key for entry in library.entries]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(publications(), min_size=1, max_size=4))
@example([Publication(title="t", volume=INJECTION, pages=INJECTION, ids=PublicationIds(isbn=INJECTION))])
def test_any_field_text_gives_one_bibtex_entry_per_record(pubs: list[Publication]) -> None:
    text = bibtex(pubs)
    keys = entries(text)
    assert len(keys) == len(pubs) and len(set(keys)) == len(pubs), text


@settings(max_examples=200)
@given(st.lists(publications(), min_size=1, max_size=4))
def test_any_field_text_gives_one_csl_item_per_record(pubs: list[Publication]) -> None:
    items = json.loads(json.dumps(csl_items(pubs)))  # lone surrogates would not survive the UTF-8 write
    assert len(items) == len(pubs)
    json.dumps(items, ensure_ascii=False).encode("utf-8")


@pytest.mark.skipif(shutil.which("biber") is None, reason="biber is not installed (CI installs it)")
def test_biber_reads_as_many_entries_as_were_written(tmp_path: Path) -> None:
    """One batch of generated hostile records through the real biber: every entry read, none invented."""
    batch: list[Publication] = []

    @settings(max_examples=150, database=None)
    @given(publications())
    def collect(pub: Publication) -> None:
        batch.append(pub)

    collect()
    batch.append(Publication(title="t", volume=INJECTION, pages=INJECTION, ids=PublicationIds(isbn=INJECTION)))
    source = tmp_path / "fuzz.bib"
    source.write_text(bibtex(batch), encoding="utf-8")
    done = subprocess.run(["biber", "--tool", "--output-file", str(tmp_path / "out.bib"), str(source)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    read_back = bibtexparser.parse_string((tmp_path / "out.bib").read_text(encoding="utf-8"))
    assert len(read_back.entries) == len(batch), done.stdout[-2000:]
    assert "ERROR" not in done.stdout, done.stdout[-2000:]
