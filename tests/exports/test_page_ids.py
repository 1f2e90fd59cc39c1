"""The DOIs and arXiv ids read from real pages (``parsers/identifiers.py``) reach every format, as the tools that
read those formats see them: bibtexparser and biber (BibTeX), pandoc (CSL-JSON), rispy (RIS), ORCID's work schema
(ORCID); and merge joins papers on them. Expected ids are the ones read by hand in tests/parsers/test_identifiers.py."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import bibtexparser
import pytest
import rispy
from orcid_xml import schema_errors, work_xml
from test_consumers import assert_biber_reads, tools  # noqa: F401 (the fixture: which tools run)

from pubharvest.bibtex import bibtex
from pubharvest.csl import csl_items
from pubharvest.keys import Keys
from pubharvest.merge import merge
from pubharvest.orcid import orcid_work
from pubharvest.parsers import parse
from pubharvest.parsers.records import PageResult, Publication
from pubharvest.ris import ris

CRAYFISH = "scholar/search_q_crayfish_gsscraper_2020.html"
# The six DOIs of that page's title links, by hand (test_identifiers.SEARCH_DOIS): two SICI DOIs with <, >, ; and
# a slash inside, which every format must carry whole.
CRAYFISH_DOIS = {
    "10.1577/1548-8446(1979)004<0005:rasofp>2.0.co;2", "10.1002/etc.5620131212",
    "10.1577/1548-8675(1989)009<0101:daaofa>2.3.co;2",
    "10.1002/(sici)1099-0755(199807/08)8:4<515::aid-aqc261>3.0.co;2-j",
    "10.1111/j.1600-0587.2008.05526.x", "10.1177/0309133311409092",
}
MATTERGEN = "msr/publication_mattergen_990378_2026-08-26.excerpt.html"


@pytest.fixture
def crayfish(read_corpus) -> list[Publication]:
    return parse(read_corpus(CRAYFISH)).publications


@pytest.fixture
def mattergen(read_corpus) -> Publication:
    return parse(read_corpus(MATTERGEN)).publications[0]


def test_bibtexparser_reads_each_doi_back(crayfish: list[Publication]) -> None:
    library = bibtexparser.parse_string(bibtex(crayfish))
    assert not library.failed_blocks
    dois = {entry.fields_dict["doi"].value for entry in library.entries if "doi" in entry.fields_dict}
    assert dois == CRAYFISH_DOIS


def test_biber_reads_each_doi_whole(crayfish: list[Publication], tools: dict[str, str],  # noqa: F811
                                    tmp_path: Path) -> None:
    assert_biber_reads(crayfish, tools, tmp_path)  # no warning, no error in biber's log
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8")
    assert set(re.findall(r"\\verb\{doi\}\s*\\verb (.*)\n\s*\\endverb", bbl)) == CRAYFISH_DOIS


def test_pandoc_reads_each_doi_from_the_csl_json(crayfish: list[Publication], tmp_path: Path) -> None:
    (tmp_path / "refs.json").write_text(json.dumps(csl_items(crayfish)), encoding="utf-8")
    done = subprocess.run(["pandoc", "-f", "csljson", "-t", "csljson", "refs.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert {item["DOI"] for item in json.loads(done.stdout) if "DOI" in item} == CRAYFISH_DOIS


def test_rispy_reads_each_doi_back(crayfish: list[Publication]) -> None:
    assert {record["doi"] for record in rispy.loads(ris(crayfish)) if "doi" in record} == CRAYFISH_DOIS


def test_each_paper_with_a_doi_is_an_orcid_work_the_schema_accepts(crayfish: list[Publication], corpus: Path) -> None:
    keys, found = Keys(), set()
    for pub in crayfish:
        work = orcid_work(pub, keys.key(pub))
        if work is None or not pub.ids.doi:
            continue
        assert schema_errors(work, corpus / "enrichment" / "orcid") == []
        ids = work_xml(work).iterfind(".//{*}external-id")
        doi = [(e.findtext("{*}external-id-value"), e.findtext("{*}external-id-relationship")) for e in ids
               if e.findtext("{*}external-id-type") == "doi"]
        assert doi == [(pub.ids.doi, "self")]
        found.add(pub.ids.doi)
    assert found == CRAYFISH_DOIS


def test_an_arxiv_id_from_a_link_is_the_eprint_the_note_and_the_orcid_id(mattergen: Publication,
                                                                           corpus: Path) -> None:
    assert mattergen.ids.arxiv == "2312.03687"
    [entry] = bibtexparser.parse_string(bibtex([mattergen])).entries
    assert (entry.fields_dict["eprint"].value, entry.fields_dict["archivePrefix"].value) == ("2312.03687", "arXiv")
    [record] = rispy.loads(ris([mattergen]))
    assert "arXiv: 2312.03687" in record["notes"]
    work = orcid_work(mattergen, "zeni2023mattergen")
    assert work is not None and schema_errors(work, corpus / "enrichment" / "orcid") == []
    assert ("arxiv", "2312.03687") in {(e.findtext("{*}external-id-type"), e.findtext("{*}external-id-value"))
                                       for e in work_xml(work).iterfind(".//{*}external-id")}


def test_merge_joins_a_paper_by_the_doi_its_pages_link_whatever_its_titles(read_corpus) -> None:
    page = read_corpus(CRAYFISH)
    first = parse(page)
    # the same result listed under a reworded title (as another site lists it): only the DOI says it is one paper
    title = b'jRM_ZSuAkycJ">Long&#8208;term change to <b>fish </b>assemblages and the flow regime'
    assert page.count(title) == 1
    second = parse(page.replace(title, b'jRM_ZSuAkycJ">Fish assemblages and flow regimes over the long term'))
    second = PageResult(site="scholar", page="search", publications=[
        p for p in second.publications if p.ids.doi == "10.1111/j.1600-0587.2008.05526.x"])
    papers = merge([("a", first), ("b", second)]).papers
    [paper] = [p for p in papers if p.ids.doi == "10.1111/j.1600-0587.2008.05526.x"]
    assert len(paper.sources) == 2 and [m.reason for m in paper.matched_by] == ["doi"]
    assert len(papers) == len(first.publications)
    assert [(p.field, p.value, p.method, p.where) for p in paper.provenance] == [
        ("ids.doi", "10.1111/j.1600-0587.2008.05526.x", "link",
         "https://onlinelibrary.wiley.com/doi/abs/10.1111/j.1600-0587.2008.05526.x")]
