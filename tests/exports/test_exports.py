"""BibTeX, CSL-JSON and CSV exports, checked by the tools that read them: bibtexparser, the
CSL-JSON schema (``$PUBHARVEST_CORPUS/reference/csl-data.json``) with citeproc-py, and pandas."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import bibtexparser
import jsonschema
import msgspec
import pandas as pd
import pytest
from anyascii import anyascii
from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
from citeproc.source.json import CiteProcJSON
from conftest import FIXTURES
from pylatexenc.latex2text import LatexNodes2Text
from test_fixtures import PAIRS, WITH_PUBLICATIONS

import pubharvest.parsers as parsers
from pubharvest.bibtex import bibtex, entry_type
from pubharvest.citable import Bibliographic, Citable, csl_type, shown_title
from pubharvest.csl import csl_items
from pubharvest.keys import Keys, base_key
from pubharvest.latex import is_invisible
from pubharvest.merge import MergeResult
from pubharvest.names import NameParts, split_name
from pubharvest.parsers.records import PageResult, Publication, PublicationIds
from pubharvest.tables import csv_writer

PAGES = [page for page, _ in PAIRS]
IDS = [str(page.relative_to(FIXTURES)) for page in PAGES]


def parsed(page: Path) -> PageResult:
    return parsers.parse(page.read_bytes())


# --- names and keys ----------------------------------------------------------------------------


@pytest.mark.parametrize("name,parts", [
    ("RY Aminabadi", NameParts(family="Aminabadi", given="R. Y.")),
    ("T Le Scao", NameParts(family="Le Scao", given="T.")),
    ("T van de Ven", NameParts(family="Ven", given="T.", particle="van de")),
    ("AB van der Berg", NameParts(family="Berg", given="A. B.", particle="van der")),
    ("Reza Yazdani Aminabadi", NameParts(family="Aminabadi", given="Reza Yazdani")),
    ("Gustavo de Rosa", NameParts(family="Rosa", given="Gustavo", particle="de")),
    ("Allie Del Giorno", NameParts(family="Del Giorno", given="Allie")),
    ("Marah I Abdin", NameParts(family="Abdin", given="Marah I.")),
    ("Phillip B. Gibbons", NameParts(family="Gibbons", given="Phillip B.")),
    ("AFC Salinas", NameParts(family="Salinas", given="A. F. C.")),
    ("J-Y Kim", NameParts(family="Kim", given="J.-Y.")),
    ("LI WEI", NameParts(family="WEI", given="LI")),                # capitals, not initials
    ("WENRUI ZUO", NameParts(family="ZUO", given="WENRUI")),
    ("S Ilić", NameParts(family="Ilić", given="S.")),
    ("Martin Luther King Jr.", NameParts(family="King", given="Martin Luther", suffix="Jr.")),
    ("BigScience Workshop", NameParts(literal="BigScience Workshop")),
    ("山田 花子", NameParts(family="山田", given="花子")),
])
def test_names_split_into_parts(name: str, parts: NameParts) -> None:
    assert split_name(name) == parts


def test_keys_are_family_year_first_significant_word_with_suffixes_on_collisions() -> None:
    keys = Keys()
    pubs = [Publication(title="The ZeRO paper", authors=["S Ilić"], year=2020),
            Publication(title="ZeRO-Offload", authors=["Stefan Ilić"], year=2020),
            Publication(title="Zero++", authors=["S Ilic"], year=2020)]
    assert [keys.key(p) for p in pubs] == ["ilic2020zero", "ilic2020zeroa", "ilic2020zerob"]
    assert base_key(Publication(title="On the GPU", authors=["T Le Scao"], year=2023)) == "lescao2023gpu"


# --- BibTeX ------------------------------------------------------------------------------------

# What bibtexparser gives back after LaTeX decoding (pylatexenc) is compared with the record;
# url, doi and eprint are verbatim fields, compared undecoded.
VERBATIM = {"url", "doi", "eprint", "archivePrefix"}


def bibtex_library(text: str, decode: bool = True) -> bibtexparser.Library:
    middleware = [LatexDecodingMiddleware()] if decode else [SeparateCoAuthors(), SplitNameParts()]
    return bibtexparser.parse_string(text, append_middleware=middleware)


# Real pages of the corpus that parse, exported and checked like the fixtures.
CORPUS_PAGES = [
    "scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html",
    "scholar/profile_8daWuo4AAAAJ_fr_bborrel_2019.html",
    "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html",
    "scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html",
    "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html",
    "scholar/profile_amIMrIEAAAAJ_scholar-scraper_2026.html",
    "msr/publication_mattergen_990378_2026-08-26.excerpt.html",
    # search results (page: search) and the pre-2014 layout
    "scholar/search_q_crayfish_gsscraper_2020.html",
    "scholar/search_scholar_q_geomap_2020.html",
    "scholar/search_q_zhTW_gscholar_2025.html",
    "scholar/search_q_browsersaved_google-scholar-research_2025.html",
    "scholar/search_cluster_goscholar_2016.html",
    "scholar/legacy2013_profile_oSJgw2cAAAAJ_full_web-scrapper_2016.html",
]


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_bibtex_of_every_fixture_parses_with_the_same_values(page: Path) -> None:
    assert_bibtex_reads_back(parsed(page).publications)


@pytest.mark.parametrize("name", CORPUS_PAGES)
def test_bibtex_of_real_pages_parses_with_the_same_values(name: str, read_corpus) -> None:
    assert_bibtex_reads_back(parsers.parse(read_corpus(name)).publications)


def assert_bibtex_reads_back(pubs: Sequence[Citable]) -> None:
    text = bibtex(pubs)
    decoded, raw = bibtex_library(text), bibtex_library(text, decode=False)
    assert decoded.failed_blocks == [] and len(decoded.entries) == len(pubs)
    assert len({e.key for e in decoded.entries}) == len(pubs)
    for pub, entry, names in zip(pubs, decoded.entries, raw.entries, strict=True):
        # pylatexenc decodes \textasciicircum{} to the modifier letter ˆ (U+02C6), not to ^
        fields = {f.key: f.value.replace("\u02c6", "^") for f in entry.fields}
        verbatim = {f.key: f.value for f in names.fields}
        assert entry.entry_type == entry_type(pub)
        title = fields.get("title")
        # characters pdflatex has no form for are transliterated (U+02B9 -> ', pubharvest.latex's rule 6)
        shown = visible(shown_title(pub))  # a cut title ends in its ellipsis
        assert title == shown or anyascii(title or "") == anyascii(shown or "")
        assert fields.get("year") == (str(pub.year) if pub.year else None)
        assert {k: verbatim.get(k) for k in VERBATIM} == {
            "url": pub.url, "doi": pub.ids.doi, "eprint": pub.ids.arxiv,
            "archivePrefix": "arXiv" if pub.ids.arxiv else None}
        venue = fields.get("booktitle") or fields.get("journal") or fields.get("howpublished")
        assert venue is None or (pub.venue or "").startswith(venue) or venue == shown_id(pub)
        if pub.ids.report_number or pub.ids.patent_number:
            assert fields["number"] in (pub.ids.report_number, pub.ids.patent_number)
        assert_same_authors(pub, verbatim.get("author", []))


def visible(text: str | None) -> str | None:
    """``text`` without the invisible characters the BibTeX leaves out."""
    return None if text is None else "".join(char for char in text if not is_invisible(char))


def shown_id(pub: Citable) -> str | None:
    """What a preprint or a patent without a venue shows where plain prints a venue."""
    if pub.ids.arxiv and csl_type(pub) == "article":
        return f"arXiv preprint arXiv:{pub.ids.arxiv}"
    return f"Patent {pub.ids.patent_number}" if pub.ids.patent_number else None


def assert_same_authors(pub: Citable, names: list) -> None:
    """One BibTeX name per author (plus ``others`` for a cut list), whose family part (with
    particles) is made of words of the name as written (the whole name for a group), compared as
    LaTeX-decoded ASCII (what pdflatex cannot typeset is transliterated)."""
    written = [anyascii(visible(name) or "").split() for name in pub.authors]
    written += [["others"]] if pub.authors_truncated else []
    assert len(names) == len(written)
    for name, words in zip(names, written, strict=True):
        family = anyascii(LatexNodes2Text().latex_to_text(" ".join(name.von + name.last))).split()
        assert family and set(family) <= set(words), (family, words)


def test_bibtex_entry_types_and_their_fields() -> None:
    pubs = [
        Publication(title="A", authors=["J Ren"], venue="USENIX ATC 21, 551-564", year=2021),
        Publication(title="B", authors=["J Ren"], venue="Nature 45 (1), 2-9", year=2017),
        Publication(title="C", authors=["J Ren"], type="report", venue="MSR-TR-2022-21", publisher="Microsoft",
                    year=2022, ids=PublicationIds(report_number="MSR-TR-2022-21")),
        Publication(title="D", authors=["J Ren"], type="article", venue="arXiv preprint arXiv:2101.06840",
                    year=2021, ids=PublicationIds(arxiv="2101.06840")),
        Publication(title="E", authors=["J Ren"], type="patent", venue="US Patent 11,234,567",
                    ids=PublicationIds(patent_number="US 11,234,567")),
        Publication(title="F", authors=["J Ren"], type="thesis", publisher="CMU", year=2013),
    ]
    entries = bibtex_library(bibtex(pubs)).entries
    got = [(e.entry_type, {f.key: f.value for f in e.fields}) for e in entries]
    assert [t for t, _ in got] == ["inproceedings", "article", "techreport", "misc", "misc", "phdthesis"]
    assert got[0][1]["booktitle"] == "USENIX ATC 21" and got[0][1]["pages"] == "551–564"
    assert (got[1][1]["journal"], got[1][1]["volume"], got[1][1]["number"]) == ("Nature", "45", "1")
    assert (got[2][1]["institution"], got[2][1]["number"]) == ("Microsoft", "MSR-TR-2022-21")
    assert (got[3][1]["eprint"], got[3][1]["archivePrefix"]) == ("2101.06840", "arXiv")
    assert "journal" not in got[3][1] and got[3][1]["howpublished"] == "arXiv preprint arXiv:2101.06840"
    assert got[4][1]["number"] == "US 11,234,567" and got[4][1]["howpublished"] == "US Patent 11,234,567"
    assert got[5][1]["school"] == "CMU"


def test_bibtex_escapes_special_characters_and_keeps_braces_balanced() -> None:
    title = "ZeRO & 50% of $5 #1 a_b ~x R&D ``Zur'' 1--2 <<a>>"
    pub = Publication(title=title, authors=["T Le Scao", "BigScience Workshop", "T van de Ven"],
                      authors_truncated=True, year=2024, url="https://x.org/?a=1&b=c_d%20e")
    text = bibtex([pub])
    decoded, raw = bibtex_library(text), bibtex_library(text, decode=False)
    assert decoded.failed_blocks == []
    fields = {f.key: f.value for f in decoded.entries[0].fields}
    assert fields["title"] == title
    assert {f.key: f.value for f in raw.entries[0].fields}["url"] == pub.url
    names = {f.key: f.value for f in raw.entries[0].fields}["author"]
    assert [(n.von, n.last, n.first) for n in names] == [
        ([], ["{Le Scao}"], ["T."]), ([], ["{BigScience Workshop}"], []), (["van", "de"], ["Ven"], ["T."]),
        ([], ["others"], [])]
    # braces and carets have no pylatexenc round trip: they are written as balanced commands
    braced = bibtex([Publication(title="a {b} c^2 \\d", authors=["J Ren"])])
    assert bibtex_library(braced).failed_blocks == []
    assert r"a \textbraceleft{}b\textbraceright{} c\textasciicircum{}2 \textbackslash{}d" in braced


# --- CSL-JSON ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def csl_schema(corpus: Path) -> dict:
    path = corpus / "reference" / "csl-data.json"
    assert path.is_file(), f"CSL-JSON schema missing: {path}"
    return json.loads(path.read_text(encoding="utf-8"))


def render_bibliography(items: list[dict]) -> list[str]:
    """The items as citeproc-py renders them (plain text) in the Harvard style it ships."""
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


# citeproc-py models CSL 1.0.1, which has no ``citation-key`` nor ``custom`` (both CSL 1.0.2, and in
# the schema): it warns that it leaves them out, which is all a renderer should do with them.
@pytest.mark.filterwarnings("ignore:The following arguments for Reference are unsupported")
@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_csl_json_of_every_fixture_validates_and_renders(page: Path, csl_schema: dict) -> None:
    assert_csl_valid_and_renders(parsed(page).publications, csl_schema)


@pytest.mark.filterwarnings("ignore:The following arguments for Reference are unsupported")
@pytest.mark.parametrize("name", CORPUS_PAGES)
def test_csl_json_of_real_pages_validates_and_renders(name: str, read_corpus, csl_schema: dict) -> None:
    assert_csl_valid_and_renders(parsers.parse(read_corpus(name)).publications, csl_schema)


@pytest.mark.filterwarnings("ignore:The following arguments for Reference are unsupported")
def test_exports_of_the_merged_seeds_pass_the_same_checks(csl_schema: dict) -> None:
    from test_merge import merged_seeds

    papers = merged_seeds().papers
    assert_bibtex_reads_back(papers)
    assert_csl_valid_and_renders(papers, csl_schema)
    assert [item["id"] for item in csl_items(papers)] == [paper.key for paper in papers]


def assert_csl_valid_and_renders(pubs: Sequence[Citable], csl_schema: dict) -> None:
    items = json.loads(json.dumps(csl_items(pubs)))
    jsonschema.validate(items, csl_schema)
    rendered = render_bibliography(items)
    assert len(rendered) == len(items)
    for item in items:
        first_word = item["title"].split()[0]
        assert sum(first_word.casefold() in entry.casefold() for entry in rendered) >= 1


def test_csl_items_carry_types_name_parts_dates_and_numbers() -> None:
    pubs = [
        Publication(title="BLOOM", authors=["BigScience Workshop"], authors_truncated=True, year=2022,
                    type="article", ids=PublicationIds(arxiv="2211.05100")),
        Publication(title="DeepSpeed Inference", authors=["Reza Yazdani Aminabadi", "T van de Ven"],
                    type="report", venue="MSR-TR-2022-21", date="2022-06", year=2022, publisher="Microsoft",
                    ids=PublicationIds(report_number="MSR-TR-2022-21", doi="10.1/x")),
        Publication(title="Optimizing CNNs", authors=["S Rajbhandari"], year=2017,
                    venue="ACM SIGARCH Computer Architecture News 45 (1), 267-280"),
    ]
    bloom, report, journal = csl_items(pubs)
    assert bloom["author"] == [{"literal": "BigScience Workshop"}, {"literal": "others"}]
    assert bloom["custom"] == {"authors_truncated": True}
    assert (bloom["type"], bloom["number"], bloom["publisher"]) == ("article", "2211.05100", "arXiv")
    assert report["author"] == [{"family": "Aminabadi", "given": "Reza Yazdani"},
                                {"family": "Ven", "given": "T.", "non-dropping-particle": "van de"}]
    assert (report["type"], report["number"], report["issued"], report["DOI"]) == (
        "report", "MSR-TR-2022-21", {"date-parts": [[2022, 6]]}, "10.1/x")
    assert "container-title" not in report
    assert (journal["type"], journal["container-title"], journal["volume"], journal["issue"], journal["page"]) == (
        "article-journal", "ACM SIGARCH Computer Architecture News", "45", "1", "267-280")


# --- CSV ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", WITH_PUBLICATIONS, ids=lambda page: str(page.relative_to(FIXTURES)))
def test_csv_of_every_fixture_opens_in_pandas_with_numbers_and_booleans(page: Path) -> None:
    stream = io.StringIO()
    writer = csv_writer("publications")(stream)
    writer.write(parsed(page))
    frame = pd.read_csv(io.StringIO(stream.getvalue()))
    for column in ("year", "citations"):
        assert pd.api.types.is_numeric_dtype(frame[column]), (column, frame[column].dtype)
    for column in ("authors_truncated", "venue_truncated"):
        assert pd.api.types.is_bool_dtype(frame[column]), (column, frame[column].dtype)


def test_the_historic_csv_headers_are_the_columns_they_always_were() -> None:
    """``--columns historic`` (the publications and papers tables' CSVs used to have only these): the
    headers come from the registry and ``PublicationIds``; they are the same bytes."""
    stream = io.StringIO()
    csv_writer("publications", "historic")(stream).write(PageResult(site="msr", page="publication_list"))
    csv_writer("papers", "historic")(stream).write(MergeResult())
    assert stream.getvalue().splitlines() == [
        "site,page,profile_name,title,authors,authors_truncated,venue,venue_truncated,year,date,type,citations,"
        "scholar_id,arxiv,doi,isbn,report_number,patent_number,msr_id,elamur_id,url,publisher,flags,profile_id,page_url",
        "key,title,authors,authors_truncated,venue,venue_truncated,year,date,type,citations_max,citations_scholar,"
        "citations_msr,citations_elamur,sites,matched_by,arxiv,doi,isbn,report_number,patent_number,url,publisher",
    ]


def test_the_bibliographic_fields_are_those_of_publication() -> None:
    """``citable.Bibliographic``, what merge carries and the exporters read, has the names, types and
    defaults of the record model's ``Publication``, in its order."""
    publication = {f.name: f for f in msgspec.structs.fields(Publication)}
    fields = msgspec.structs.fields(Bibliographic)
    assert [f.name for f in fields] == [name for name in publication if name in Bibliographic.__struct_fields__]
    for field in fields:
        want = publication[field.name]
        assert (field.type, field.default, field.default_factory) == (want.type, want.default, want.default_factory)


# --- the command -------------------------------------------------------------------------------


def test_parse_exports_keep_keys_unique_across_pages(capsys) -> None:
    """The two Elamur seed forms hold the same three papers: the second page's keys get suffixes."""
    from pubharvest.cli import main

    pages = [str(FIXTURES / "elamur" / "000_e63c2e80f8ecde3e.txt"), str(FIXTURES / "elamur" / "000_multiline.md")]
    assert main(["parse", "-f", "bibtex", *pages]) == 0
    keys = [entry.key for entry in bibtex_library(capsys.readouterr().out).entries]
    assert keys == ["ren2021zero", "rajbhandari2021zero", "bigscienceworkshop2022bloom",
                    "ren2021zeroa", "rajbhandari2021zeroa", "bigscienceworkshop2022blooma"]
    assert main(["parse", "-f", "csl-json", *pages]) == 0
    assert [item["id"] for item in json.loads(capsys.readouterr().out)] == keys

