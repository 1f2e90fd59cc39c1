"""ORCID works (``pubharvest.orcid``), judged by ORCID's own work schema: each JSON work, in the XML form
ORCID's API gives the same work (``tests/helpers/orcid_xml.py``), validates with lxml against
``$PUBHARVEST_CORPUS/enrichment/orcid/record_3.0/work-3.0.xsd``; the values the schema leaves as plain
strings are checked against ORCID's lists (FORMATS.md §5, written out here); every work carries a
``self`` external id. The mapper itself is checked against ORCID's own JSON and XML samples."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES
from orcid_xml import element_paths, schema_errors, work_xml
from test_consumers import PAGES, publications

import pubharvest.parsers as parsers
from pubharvest.citable import Citable
from pubharvest.cli import main
from pubharvest.keys import Keys
from pubharvest.orcid import orcid_work
from pubharvest.parsers.records import Publication, PublicationIds

# ORCID's lists (orcid-model's WorkType, Relationship, ContributorRole, CitationType; FORMATS.md §5)
WORK_TYPES = frozenset("""annotation artistic-performance blog-post book-chapter book-review book
cartographic-material clinical-study conference-abstract conference-output conference-paper conference-poster
conference-presentation conference-proceedings data-management-plan data-set design dictionary-entry disclosure
dissertation-thesis edited-book encyclopedia-entry image invention journal-article journal-issue learning-object
lecture-speech license magazine-article manual moving-image musical-composition newsletter-article
newspaper-article online-resource other patent physical-object preprint public-speech registered-copyright report
research-technique research-tool review software sound spin-off-company standards-and-policy
supervised-student-publication technical-standard test trademark transcription translation website working-paper
undefined""".split())
RELATIONSHIPS = frozenset({"self", "part-of", "version-of", "funded-by"})
SEQUENCES = frozenset({"first", "additional"})
ROLES = frozenset({"author", "assignee", "editor", "chair-or-translator", "co-investigator", "co-inventor",
                   "graduate-student", "other-inventor", "principal-investigator", "postdoctoral-researcher",
                   "support-staff"})
CITATION_TYPES = frozenset({"bibtex", "ris", "formatted-apa", "formatted-chicago", "formatted-harvard",
                            "formatted-ieee", "formatted-mla", "formatted-vancouver", "formatted-unspecified"})
# The identifier types written, each in ORCID's identifier list (pub.orcid.org/v3.0/identifiers)
ID_TYPES = frozenset({"doi", "arxiv", "isbn", "pat", "other-id", "source-work-id", "uri"})


@pytest.fixture(scope="session")
def orcid_folder(corpus: Path) -> Path:
    folder = corpus / "enrichment" / "orcid"
    assert (folder / "record_3.0" / "work-3.0.xsd").is_file(), f"ORCID's schema missing under {folder}"
    return folder


# --- the mapper, against ORCID's own samples ---------------------------------------------------------


def test_mapper_gives_orcids_xml_sample_from_its_json_sample(orcid_folder: Path) -> None:
    """ORCID's write sample in JSON, mapped, is valid and has the elements of the same sample in XML
    (the JSON sample has a contributor-email the XML sample lacks; both have put the rest alike)."""
    sample = json.loads((orcid_folder / "samples" / "write_work-full-3.0.json").read_text(encoding="utf-8"))
    assert schema_errors(sample, orcid_folder) == []
    from lxml import etree

    xml = etree.parse(str(orcid_folder / "samples" / "write_work-full-3.0.xml")).getroot()
    email = ("{http://www.orcid.org/ns/work}work", "{http://www.orcid.org/ns/work}contributors",
             "{http://www.orcid.org/ns/work}contributor", "{http://www.orcid.org/ns/work}contributor-email")
    assert element_paths(work_xml(sample)) - {email} == element_paths(xml)


@pytest.mark.parametrize("broken", [
    lambda work: work.pop("type"),                                              # required
    lambda work: work.update({"jounal-title": work.pop("journal-title")}),     # no such element
    lambda work: work["publication-date"].update(month={"value": "13"}),      # no such month
    lambda work: work["title"]["title"].update(value=" "),                     # a blank title
    lambda work: work["contributors"]["contributor"][0]["contributor-attributes"].update(
        {"contributor-sequence": "last"}),                                      # not first/additional
])
def test_the_schema_refuses_a_broken_sample(broken: Any, orcid_folder: Path) -> None:
    """The check can fail: ORCID's sample, broken in one place, is refused."""
    sample = json.loads((orcid_folder / "samples" / "write_work-full-3.0.json").read_text(encoding="utf-8"))
    broken(sample)
    assert schema_errors(sample, orcid_folder)


# --- works of every page -----------------------------------------------------------------------------

def names_the_paper(pub: Citable) -> bool:
    """Whether a record holds something ORCID can take as the work's own id (docs/exports.md#orcid-works)."""
    ids = pub.ids
    return bool(ids.doi or ids.arxiv or ids.patent_number or ids.report_number or ids.scholar or ids.msr
                or ids.elamur or ids.other or pub.url or (ids.isbn and pub.type == "book"))


def has_title(pub: Citable) -> bool:
    """Whether a title holds something XML 1.0 can carry but space."""
    return bool(re.sub(r"[\x00-\x20\x7f\ufffe\uffff]", "", pub.title or ""))


@pytest.mark.parametrize("page", PAGES)
def test_works_of_every_page_are_valid_orcid_works(page: Path, orcid_folder: Path) -> None:
    assert_valid_works(list(publications(page)), orcid_folder)


def assert_valid_works(pubs: list[Publication], orcid_folder: Path) -> None:
    keys = Keys()
    for pub in pubs:
        work = orcid_work(pub, keys.key(pub))
        if work is None:
            assert not names_the_paper(pub) or not has_title(pub), pub
            continue
        assert schema_errors(work, orcid_folder) == [], (pub, work)
        assert work["type"] in WORK_TYPES
        assert work["citation"]["citation-type"] in CITATION_TYPES
        assert work["citation"]["citation-value"].startswith("@")
        external = work["external-ids"]["external-id"]
        assert {e["external-id-type"] for e in external} <= ID_TYPES
        assert {e["external-id-relationship"] for e in external} <= RELATIONSHIPS
        assert any(e["external-id-relationship"] == "self" for e in external)
        people = work.get("contributors", {}).get("contributor", [])
        assert [p["contributor-attributes"]["contributor-sequence"] for p in people] == (
            ["first"] + ["additional"] * (len(people) - 1) if people else [])
        assert {p["contributor-attributes"]["contributor-role"] for p in people} <= ROLES
        assert len(people) == len([name for name in pub.authors if name.strip()])
        assert len(work["title"]["title"]["value"]) <= 1000


HOSTILE = [
    Publication(title="Line\nbreak\r\nand\x00nul\x0b and \x1f", authors=["A\nB Name"], year=2020,
                ids=PublicationIds(doi="10.1/a\nb")),
    Publication(title="Surrogate \ud800 title", authors=["X \udc00 Y"], year=1899, ids=PublicationIds(arxiv="2101.1")),
    Publication(title="T" * 1500, authors=["Very " * 60 + "Long"], venue="V" * 1200, year=2100, date="2100-12-31",
                type="article-journal", ids=PublicationIds(scholar="U:P")),
    Publication(title="非拉丁文字 Кириллица עברית", authors=["山田 花子", "Иван Петров"], type="book",
                ids=PublicationIds(isbn="978-3-16-148410-0")),
    Publication(title="Only a URL", url="https://example.org/paper?a=1&b=2"),
    Publication(title="\ufffe\uffff", ids=PublicationIds(doi="10.1/x")),  # nothing XML can hold: no title
    Publication(title="No id at all", authors=["A B"]),
    Publication(title="Report", type="report", ids=PublicationIds(report_number="MSR-TR-2024-12")),
    Publication(title="Patent", type="patent", ids=PublicationIds(patent_number="US 10,438,946")),
]


def test_hostile_records_give_valid_works_or_none(orcid_folder: Path) -> None:
    assert_valid_works(HOSTILE, orcid_folder)
    works = [orcid_work(pub, f"k{n}") for n, pub in enumerate(HOSTILE)]
    assert [work is None for work in works] == [False, False, False, False, False, True, True, False, False]
    long = works[2]
    assert long is not None and long["title"]["title"]["value"] == "T" * 999 + "…"
    assert long["contributors"]["contributor"][0]["credit-name"]["value"].endswith("…")
    assert long["publication-date"] == {"year": {"value": "2100"}, "month": {"value": "12"}, "day": {"value": "31"}}
    assert works[1] is not None and "publication-date" not in works[1]  # 1899: before ORCID's years


# --- by hand -------------------------------------------------------------------------------------------


def test_a_fixture_record_gives_the_work_written_by_hand() -> None:
    """fixtures/scholar/handwritten_view_citation_fr.html: the fields as the page shows them."""
    page = parsers.parse((FIXTURES / "scholar" / "handwritten_view_citation_fr.html").read_bytes())
    work = orcid_work(page.publications[0], "dupont2021reseaux")
    assert work is not None
    citation = work.pop("citation")
    link = "https://scholar.google.com/citations?view_op=view_citation&hl=en&citation_for_view=Dupont1AAAAJ:Zph67rFs4hoC"

    def person(name: str, sequence: str) -> dict[str, Any]:
        return {"credit-name": {"value": name},
                "contributor-attributes": {"contributor-sequence": sequence, "contributor-role": "author"}}

    title = "Réseaux de capteurs sans fil pour la surveillance des ponts : une étude de terrain"
    assert work == {
        "title": {"title": {"value": title}},
        "journal-title": {"value": "Revue française de génie civil"},
        "type": "journal-article",
        "publication-date": {"year": {"value": "2021"}, "month": {"value": "03"}},
        "external-ids": {"external-id": [{"external-id-type": "source-work-id",
                                          "external-id-value": "scholar:Dupont1AAAAJ:Zph67rFs4hoC",
                                          "external-id-relationship": "self"}]},
        "url": {"value": link},
        "contributors": {"contributor": [person("Claire Dupont", "first"), person("Jean-Luc Moreau", "additional"),
                                         person("Élodie Lefèvre", "additional")]},
    }
    assert citation["citation-type"] == "bibtex"
    assert citation["citation-value"].startswith("@article{dupont2021reseaux,\n  author = {Dupont, Claire and ")
    assert "  volume = {25},\n  number = {3},\n  pages = {201--219},\n" in citation["citation-value"]


def test_an_arxiv_preprint_gives_arxiv_as_self_and_its_page_as_url() -> None:
    work = orcid_work(Publication(title="BLOOM", authors=["T Le Scao"], authors_truncated=True, year=2022,
                                  venue="arXiv preprint arXiv:2211.05100", ids=PublicationIds(arxiv="2211.05100")),
                      "lescao2022bloom")
    assert work is not None
    assert work["type"] == "preprint"
    assert work["journal-title"] == {"value": "arXiv preprint arXiv:2211.05100"}
    assert work["external-ids"]["external-id"] == [{
        "external-id-type": "arxiv", "external-id-value": "2211.05100",
        "external-id-url": {"value": "https://arxiv.org/abs/2211.05100"}, "external-id-relationship": "self"}]
    assert work["url"] == {"value": "https://arxiv.org/abs/2211.05100"}
    assert "and others" in work["citation"]["citation-value"]


def test_a_chapters_isbn_is_its_volumes() -> None:
    work = orcid_work(Publication(title="A chapter", type="chapter", ids=PublicationIds(
        doi="10.1/c", isbn="978-3-16-148410-0")), "k")
    assert work is not None
    assert [(e["external-id-type"], e["external-id-relationship"]) for e in work["external-ids"]["external-id"]] == [
        ("doi", "self"), ("isbn", "part-of")]


# --- the command line ------------------------------------------------------------------------------------


def test_merge_writes_a_json_array_and_says_which_papers_it_left_out(capsys: pytest.CaptureFixture[str],
                                                                      orcid_folder: Path) -> None:
    page = FIXTURES / "msr" / "010_people_publications.html"
    assert main(["merge", str(page), "-f", "orcid"]) == 0
    out, err = capsys.readouterr()
    works = json.loads(out)
    assert isinstance(works, list) and works
    assert all(schema_errors(work, orcid_folder) == [] for work in works)
    left_out = [line for line in err.splitlines() if ": left out: " in line]
    assert left_out and all(line.startswith("pubharvest: warning: orcid: ") for line in left_out)
    total = len(parsers.parse(page.read_bytes()).publications)
    assert len(works) + len(left_out) == total
