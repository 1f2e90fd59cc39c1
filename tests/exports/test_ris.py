"""RIS (``pubharvest.ris``) read back by rispy, and by pandoc's RIS reader (pandoc 3, from
pypandoc-binary, when installed): every fixture and corpus page, hostile variants and fuzzed text give
one record per paper, with its authors in order and its title, DOI and year; a few records are
compared with what was written by hand from their page."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
import rispy
from conftest import FIXTURES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_consumers import PAGES, publications

import pubharvest.parsers as parsers
from pubharvest.citable import Citable, shown_title
from pubharvest.cli import main
from pubharvest.keys import Keys
from pubharvest.parsers.records import PageResult, Publication, PublicationIds, Source
from pubharvest.ris import ris, ris_record

# What a value becomes on its way (docs/exports.md#ris): a run of control characters or line breaks a space,
# a lone surrogate U+FFFD, no space at either end
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
_SURROGATES = re.compile("[\ud800-\udfff]")


def as_written(text: str) -> str:
    return _SURROGATES.sub("\ufffd", _CONTROLS.sub(" ", text)).strip()


def read_back(text: str) -> list[dict]:
    """What rispy reads, as a reader of a file does: lines split at \\n only (never str.splitlines)."""
    return rispy.loads(text)


def assert_reads_back(pubs: Sequence[Citable]) -> None:
    text = ris(pubs)
    assert "\r" not in text
    records = read_back(text)
    assert len(records) == len(pubs), text[:2000]
    keys = Keys()
    for pub, record in zip(pubs, records, strict=True):
        assert record["id"] == keys.key(pub)
        assert record.get("title") == (as_written(shown_title(pub) or "") or None)
        assert record.get("doi") == (as_written(pub.ids.doi) if pub.ids.doi else None)
        assert record.get("year") == (str(pub.year) if pub.year else None)
        assert_authors_in_order(pub.authors, record.get("authors", []))
        if pub.authors_truncated and pub.authors:
            assert any("cut short" in note for note in record.get("notes", []))
        assert "others" not in record.get("authors", [])


def assert_authors_in_order(names: list[str], written: list[str]) -> None:
    """One ``AU`` per author with printable text, in order, each holding its family name first."""
    cleaned = [" ".join(as_written(name).split()) for name in names]
    cleaned = [name for name in cleaned if name]
    assert len(written) == len(cleaned), (names, written)
    for name, au in zip(cleaned, written, strict=True):
        family = au.split(",")[0]
        assert family and family in name, (name, au)


# --- every page ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES)
def test_ris_of_every_page_reads_back_with_rispy(page: Path) -> None:
    assert_reads_back(list(publications(page)))


# --- hostile variants ----------------------------------------------------------------------------------

HOSTILE = [
    Publication(title="Line\nbreak\r\nER  - \nTY  - JOUR", authors=["A\nB Name", "ER  - x"], year=2020,
                ids=PublicationIds(doi="10.1/a\nER  - ")),
    Publication(title="Augmentative and Alternative Communication:\u2028Potential Contributions", authors=["J Light"],
                year=2014, type="article-journal", venue="Augment Altern Commun 30 (2), 99-105"),
    Publication(title="\u2028 ends in a separator \u2029", authors=["\u2028 X Y"]),
    Publication(title="ER  - ", venue="ER  - ", publisher="\nER  - \n", url="https://x.org/a;b c\nER  - "),
    Publication(title="Surrogate \ud800 title", authors=["X \udc00 Y"], ids=PublicationIds(arxiv="2101.\ud8001")),
    Publication(title="T" * 5000, authors=["Very " * 300 + "Long"], type="report",
                ids=PublicationIds(report_number="MSR-TR-2024-12")),
    Publication(title="非拉丁文字 Кириллица עברית العربية", authors=["山田 花子", "Иван Петров", "محمد علي"],
                type="book", ids=PublicationIds(isbn="978-3-16-148410-0")),
    Publication(title="No authors, no year"),
    Publication(title="\x00\x1f", authors=["\n"]),  # nothing printable: no TI, no AU
]


def test_hostile_records_read_back_one_record_each(tmp_path: Path) -> None:
    assert_reads_back(HOSTILE)
    records = read_back(ris(HOSTILE))
    # as a file is read (Python's universal newlines would split a value at a \r)
    (tmp_path / "hostile.ris").write_text(ris(HOSTILE), encoding="utf-8", newline="")
    assert rispy.load(tmp_path / "hostile.ris", encoding="utf-8") == records
    assert records[1]["title"] == "Augmentative and Alternative Communication:\u2028Potential Contributions"
    assert records[3]["urls"] == ["https://x.org/a%3Bb%20c%20ER%20%20-"]
    assert len(records[5]["title"]) == 5000


text_strategy = st.one_of(st.text(max_size=40), st.sampled_from([
    "ER  - ", "\nER  - \n", "\r\nTY  - JOUR\r\n", "\u2028", "\u2029", "\x85", "\ud800", "\n\n", "TY  - ", ";"]))
maybe = st.one_of(st.none(), text_strategy)


@st.composite
def hostile_publications(draw: st.DrawFn) -> Publication:
    return Publication(title=draw(text_strategy), authors=draw(st.lists(text_strategy, max_size=3)),
                       authors_truncated=draw(st.booleans()), venue=draw(maybe), publisher=draw(maybe),
                       volume=draw(maybe), issue=draw(maybe), pages=draw(maybe), url=draw(maybe),
                       year=draw(st.one_of(st.none(), st.integers(1500, 2099))),
                       ids=PublicationIds(doi=draw(maybe), arxiv=draw(maybe), isbn=draw(maybe)))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile_publications(), min_size=1, max_size=4))
@example([Publication(title="a\nER  - \n\nTY  - JOUR\nTI  - injected", pages="1\nER  - ")])
def test_any_field_text_gives_one_rispy_record_per_paper(pubs: list[Publication]) -> None:
    """A field of any text never yields a second record, or loses one."""
    records = read_back(ris(pubs))
    keys = Keys()
    assert [record["id"] for record in records] == [keys.key(pub) for pub in pubs]


# --- by hand -------------------------------------------------------------------------------------------


def test_fixture_records_give_the_ris_written_by_hand() -> None:
    """fixtures/scholar/handwritten_view_citation_fr.html, as its fields say, fetched by a job on 2024-05-01."""
    page = parsers.parse((FIXTURES / "scholar" / "handwritten_view_citation_fr.html").read_bytes())
    fetched = PageResult(site=page.site, page=page.page, publications=page.publications,
                         source=Source(sha256="", parser="", fetched_at="2024-05-01T09:30:00Z"))
    assert ris_record(page.publications[0], "dupont2021reseaux", fetched) == """\
TY  - JOUR
ID  - dupont2021reseaux
AU  - Dupont, Claire
AU  - Moreau, Jean-Luc
AU  - Lefèvre, Élodie
TI  - Réseaux de capteurs sans fil pour la surveillance des ponts : une étude de terrain
T2  - Revue française de génie civil
PY  - 2021
DA  - 2021/03//
VL  - 25
IS  - 3
SP  - 201
EP  - 219
PB  - Lavoisier
UR  - https://scholar.google.com/citations?view_op=view_citation&hl=en&citation_for_view=Dupont1AAAAJ:Zph67rFs4hoC
N1  - Cited by: 9 (Google Scholar, 2024-05-01)
ER  - 
"""


def test_scholar_rows_give_the_ris_written_by_hand() -> None:
    """Rows 5 and 19 of fixtures/scholar/003_9ea93ed9343d2054.txt (a saved profile: no fetch date)."""
    page = parsers.parse((FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt").read_bytes())
    by_title = {pub.title: pub for pub in page.publications}
    offload = by_title["Zero-offload: Democratizing billion-scale model training"]
    assert ris_record(offload, "ren2021zero", page) == """\
TY  - CONF
ID  - ren2021zero
AU  - Ren, J.
AU  - Rajbhandari, S.
AU  - Aminabadi, R. Y.
AU  - Ruwase, O.
AU  - Yang, S.
AU  - Zhang, M.
AU  - Li, D.
TI  - Zero-offload: Democratizing billion-scale model training
T2  - 2021 USENIX Annual Technical Conference (USENIX ATC 21)
PY  - 2021
DA  - 2021///
SP  - 551
EP  - 564
N1  - Cited by: 405 (Google Scholar)
N1  - Author list cut short: the source showed the first 7 authors only (et al.)
ER  - 
"""
    cnns = by_title["Optimizing cnns on multicores for scalability, performance and goodput"]
    assert ris_record(cnns, "rajbhandari2017optimizing", page) == """\
TY  - JOUR
ID  - rajbhandari2017optimizing
AU  - Rajbhandari, S.
AU  - He, Y.
AU  - Ruwase, O.
AU  - Carbin, M.
AU  - Chilimbi, T.
TI  - Optimizing cnns on multicores for scalability, performance and goodput
T2  - ACM SIGARCH Computer Architecture News
PY  - 2017
DA  - 2017///
VL  - 45
IS  - 1
SP  - 267
EP  - 280
N1  - Cited by: 37 (Google Scholar)
ER  - 
"""


def test_a_preprint_is_ejour_with_its_arxiv_page() -> None:
    pub = Publication(title="BLOOM", authors=["BigScience Workshop"], authors_truncated=True, year=2022,
                      venue="arXiv preprint arXiv:2211.05100", ids=PublicationIds(arxiv="2211.05100"))
    [record] = read_back(ris([pub]))
    assert record["type_of_reference"] == "EJOUR"
    assert record["authors"] == ["BigScience Workshop"]
    assert record["secondary_title"] == "arXiv preprint arXiv:2211.05100"
    assert record["urls"] == ["https://arxiv.org/abs/2211.05100"]
    assert "arXiv: 2211.05100" in record["notes"]


def test_a_merged_paper_notes_each_sources_count_with_its_date(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    from pubharvest.merge import merge

    scholar = PageResult(site="scholar", page="rows", publications=[Publication(
        title="Deep nets", year=2020, citations=12, ids=PublicationIds(doi="10.1/x"))],
        source=Source(sha256="", parser="", run="r", fetched_at="2024-05-01T00:00:00Z"))
    elamur = PageResult(site="elamur", page="profile", publications=[Publication(
        title="Deep Nets", year=2020, citations=10, ids=PublicationIds(doi="10.1/X"))])
    [record] = read_back(ris(merge([("a", scholar), ("b", elamur)]).papers))
    assert record["notes"] == ["Cited by: 12 (Google Scholar, 2024-05-01); 10 (Elamur Research)"]


# --- the command line and pandoc -----------------------------------------------------------------------


def test_parse_merge_and_store_export_write_ris(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    page = FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt"
    expected = len(parsers.parse(page.read_bytes()).publications)
    for command in (["parse", str(page), "-f", "ris"], ["merge", str(page), "-f", "ris"]):
        assert main(command) == 0
        assert len(read_back(capsys.readouterr().out)) == expected
    assert main(["store", "export", "--store", str(tmp_path / "none.sqlite"), "--citations", "-f", "ris"]) == 2
    assert "--citations is a table of counts" in capsys.readouterr().err


def test_store_export_writes_the_latest_runs_counts_with_its_day(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    from test_report import RUN_DAYS, three_run_store

    store = str(three_run_store(tmp_path / "store.sqlite"))
    assert main(["store", "export", "--store", store, "-f", "ris"]) == 0
    records = read_back(capsys.readouterr().out)
    assert len(records) == 30
    assert all(re.fullmatch(rf"Cited by: \d+ \(Google Scholar, {RUN_DAYS[2]}\)", record["notes"][0])
               for record in records)
    assert main(["store", "export", "--store", store, "-f", "orcid"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) + err.count(": left out: ") == 30


def pandoc3() -> str | None:
    """pandoc 3 (the first with a RIS reader): pypandoc-binary's, else one on PATH."""
    try:
        import pypandoc

        path = pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        path = shutil.which("pandoc")
    if not path:
        return None
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.split()
    return path if len(version) > 1 and int(version[1].split(".")[0]) >= 3 else None


@pytest.mark.slow
@pytest.mark.parametrize("page", [FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt",
                                  FIXTURES / "scholar" / "handwritten_view_citation_fr.html"])
def test_pandoc_reads_one_item_per_paper(page: Path, tmp_path: Path) -> None:
    pandoc = pandoc3()
    if pandoc is None:
        pytest.skip("pandoc 3 is not installed (pip install pypandoc-binary; Debian's 2.17 has no RIS reader)")
    pubs = parsers.parse(page.read_bytes()).publications
    source = tmp_path / "papers.ris"
    source.write_text(ris(pubs + HOSTILE), encoding="utf-8")
    done = subprocess.run([pandoc, "-f", "ris", "-t", "csljson", str(source)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    keys = Keys()
    assert [item["id"] for item in items] == [keys.key(pub) for pub in pubs + HOSTILE]
    for pub, item in zip(pubs, items, strict=False):
        assert item.get("issued", {}).get("date-parts", [[None]])[0][0] == pub.year
        assert len(item.get("author", [])) == len(pub.authors)
