"""Exporters fuzzed with hypothesis: a field of any text (braces, ``@``, ``%``, backslashes, newlines,
lone surrogates, the ``112}} @misc{injected,`` of issue reports) never closes its entry or opens a
second one. BibTeX is read back by bibtexparser (every example) and by biber (one batch of many);
CSL-JSON is read back as JSON."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import bibtexparser
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pubharvest.bibtex import bibtex
from pubharvest.csl import csl_item, csl_item_json, csl_items
from pubharvest.keys import STOP_WORDS, ascii_letters, base_key
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


@st.composite
def citable(draw: st.DrawFn) -> Publication:
    """``publications`` with what decides a CSL item's other fields: a type, a date, an arXiv id or DOI, a cut
    author list, report and patent venues."""
    pub = draw(publications())
    pub.type = draw(st.sampled_from([None, "article-journal", "paper-conference", "report", "patent", "preprint"]))
    pub.date = draw(st.sampled_from([None, "2021", "2021-05", "2021-05-07", "May 2021"]))
    pub.authors_truncated = draw(st.booleans())
    pub.venue = draw(st.sampled_from([pub.venue, "arXiv preprint arXiv:2101.06840", "MSR-TR-2020-12",
                                      "Proceedings of SC'23, 1-12", "US Patent 11,080,123"]))
    pub.ids.doi = draw(st.sampled_from([None, "10.1145/3448016.3452841"]))
    pub.ids.arxiv = draw(st.sampled_from([pub.ids.arxiv, None, "2101.06840"]))
    return pub


@settings(max_examples=400)
@given(citable(), st.sampled_from(["ren2021zero", 'k"\\ey', "ключ"]))
def test_the_csl_item_written_as_text_is_json_dumps_of_the_item(pub: Publication, key: str) -> None:
    # The CSL-JSON writer writes each item as text (csl_item_json); csl_item gives the same item as a dict.
    assert csl_item_json(pub, key) == json.dumps(csl_item(pub, key), ensure_ascii=False)


@settings(max_examples=400)
@given(st.one_of(st.none(), st.text(max_size=60), st.lists(st.sampled_from(
    ["a", "the", "of", "on", "2021", "ZeRO", "x2", "über", "-", " ", "3d", "an"]), max_size=6).map(" ".join)))
def test_a_keys_title_word_is_the_first_word_neither_a_stop_word_nor_a_number(title: str | None) -> None:
    words = re.findall(r"[a-z0-9]+", ascii_letters(title or ""))
    word = next((w for w in words if w not in STOP_WORDS and not w.isdigit()), "")
    assert base_key(Publication(title=title)) == f"anon{word}"
