"""Ids read from the pages themselves (``parsers/identifiers.py``): DOIs and arXiv ids of papers, ORCID, OpenAlex and
Wikidata ids of people, each with its provenance. Expected values are read by hand from the real pages' links
(``$PUBHARVEST_CORPUS``); the recognisers are also held to properties over generated ids, text and addresses."""

from __future__ import annotations

import re
import string
from urllib.parse import quote

import pytest
from conftest import FIXTURES, from_corpus
from drift import doi_address_variants
from hypothesis import example, given
from hypothesis import strategies as st

from pubharvest.parsers import parse
from pubharvest.parsers.identifiers import (
    arxiv_in_url,
    doi_in_url,
    find_arxiv_id,
    find_doi,
    normal_arxiv,
    normal_doi,
    orcid_in_url,
    valid_orcid,
)
from pubharvest.parsers.records import PageResult, Provenance, json_schema

# Each Scholar results page of the corpus: the DOI of each result (by its data-cid), read by hand from the
# result's title link (a publisher's /doi/ or Springer address). Results not listed link no DOI: ScienceDirect's
# pii, IEEE's and OUP's document numbers, Nature's article names, repositories and a Handle (20.500.…).
SEARCH_DOIS = {
    "scholar/search_q_crayfish_gsscraper_2020.html": {
        "jgn1Rfu9GOQJ": ("10.1577/1548-8446(1979)004<0005:rasofp>2.0.co;2",
                         "https://www.tandfonline.com/doi/abs/10.1577/1548-8446(1979)004%3C0005%3ARASOFP%3E2.0.CO%3B2"),
        "l_m1ve33lQoJ": ("10.1002/etc.5620131212", "https://setac.onlinelibrary.wiley.com/doi/abs/10.1002/etc.5620131212"),
        "xtfwjfSUxtEJ": ("10.1577/1548-8675(1989)009<0101:daaofa>2.3.co;2",
                         "https://afspubs.onlinelibrary.wiley.com/doi/abs/10.1577/1548-8675(1989)009%3C0101:DAAOFA%3E2.3.CO;2"),
        "_yzHiOgFb70J": ("10.1002/(sici)1099-0755(199807/08)8:4<515::aid-aqc261>3.0.co;2-j",
                         "https://onlinelibrary.wiley.com/doi/abs/10.1002/(SICI)1099-0755(199807/08)8:4%3C515::"
                         "AID-AQC261%3E3.0.CO;2-J"),
        "jRM_ZSuAkycJ": ("10.1111/j.1600-0587.2008.05526.x",
                         "https://onlinelibrary.wiley.com/doi/abs/10.1111/j.1600-0587.2008.05526.x"),
        "rIhbnoUNBgoJ": ("10.1177/0309133311409092", "https://journals.sagepub.com/doi/abs/10.1177/0309133311409092"),
    },
    "scholar/search_scholar_q_geomap_2020.html": {
        "L2O5OTQ-LPoJ": ("10.1002/jqs.691", "https://onlinelibrary.wiley.com/doi/abs/10.1002/jqs.691"),
    },
    "scholar/search_q_zhTW_gscholar_2025.html": {
        "pdcI9r5sCJcJ": ("10.1126/science.aaa8415", "https://www.science.org/doi/abs/10.1126/science.aaa8415"),
        "6uA6mpei2rcJ": ("10.1007/978-3-319-18305-3_1", "https://link.springer.com/chapter/10.1007/978-3-319-18305-3_1"),
    },
    "scholar/search_q_browsersaved_google-scholar-research_2025.html": {
        "fZwQFf2_b5UJ": ("10.1186/s40854-021-00321-6", "https://link.springer.com/article/10.1186/s40854-021-00321-6"),
        "sZC8ponAN4EJ": ("10.1098/rsos.150288", "https://royalsocietypublishing.org/doi/abs/10.1098/rsos.150288"),
        "wbgyid-lgRwJ": ("10.1007/s10614-020-09972-6", "https://link.springer.com/article/10.1007/s10614-020-09972-6"),
    },
}


def dois_by_result(result: PageResult) -> dict[str, str]:
    return {pub.result_id or "": pub.ids.doi for pub in result.publications if pub.ids.doi}


@pytest.mark.parametrize("name", [from_corpus(name) for name in SEARCH_DOIS])
def test_a_search_result_gives_the_doi_of_its_title_link(read_corpus, name: str) -> None:
    result = parse(read_corpus(name))
    want = SEARCH_DOIS[name]
    assert dois_by_result(result) == {cid: doi for cid, (doi, _) in want.items()}
    for pub in result.publications:
        if pub.result_id in want:
            doi, link = want[pub.result_id]
            # the title link first; a [PDF] link to the same DOI (Wiley, Springer) adds nothing
            assert pub.provenance == [Provenance(field="ids.doi", value=doi, source="page", method="link", where=link)]
        else:
            assert pub.provenance == []
    assert "id_conflict" not in {w.code for w in result.warnings}


@pytest.mark.parametrize("label", ["the resolver's address", "an old resolver over http", "another view",
                                   "a tracking query", "the DOI in capitals"])
def test_publisher_addresses_written_otherwise_give_the_same_dois(read_corpus, label: str) -> None:
    data = read_corpus("scholar/search_q_crayfish_gsscraper_2020.html")  # ISO-8859-1, as it declares
    variant = dict(doi_address_variants(data.decode("iso-8859-1")))[label]
    assert variant != data.decode("iso-8859-1")
    result = parse(variant.encode("iso-8859-1"))
    want = {cid: doi for cid, (doi, _) in SEARCH_DOIS["scholar/search_q_crayfish_gsscraper_2020.html"].items()}
    assert dois_by_result(result) == want


def test_a_second_different_doi_is_kept_as_a_rejected_candidate_and_warned(read_corpus) -> None:
    # The [PDF] link beside "Toxicity of metal-contaminated sediments…" named another DOI than its title link.
    page = read_corpus("scholar/search_q_crayfish_gsscraper_2020.html")
    pdf = b"https://setac.onlinelibrary.wiley.com/doi/pdf/10.1002/etc.5620131212"
    assert page.count(pdf) == 1
    result = parse(page.replace(pdf, b"https://setac.onlinelibrary.wiley.com/doi/pdf/10.1002/etc.5620139999"))
    pub = next(p for p in result.publications if p.result_id == "l_m1ve33lQoJ")
    assert pub.ids.doi == "10.1002/etc.5620131212"
    assert [(p.value, p.accepted, p.reason) for p in pub.provenance] == [
        ("10.1002/etc.5620131212", True, None),
        ("10.1002/etc.5620139999", False, "the page gave 10.1002/etc.5620131212 first")]
    conflicts = [w.message for w in result.warnings if w.code == "id_conflict"]
    assert len(conflicts) == 1 and "10.1002/etc.5620139999" in conflicts[0] and "Toxicity" in conflicts[0]


def test_an_msr_publication_page_gives_the_arxiv_id_of_its_links_and_a_doi_of_its_meta_data(read_corpus) -> None:
    page = read_corpus("msr/publication_mattergen_990378_2026-08-26.excerpt.html")
    pub = parse(page).publications[0]
    # the "Publication" button (arxiv.org/abs/2312.03687) and the PDF button (arxiv.org/pdf/2312.03687.pdf)
    assert (pub.ids.arxiv, pub.ids.doi) == ("2312.03687", None)
    assert pub.provenance == [Provenance(field="ids.arxiv", value="2312.03687", source="page", method="link",
                                         where="https://arxiv.org/abs/2312.03687")]
    # the same page as a publisher would write it, with Highwire's citation_doi
    meta = b'<meta name="citation_title"'
    with_doi = page.replace(meta, b'<meta name="citation_doi" content="10.1038/s41586-025-08628-5" />' + meta, 1)
    pub = parse(with_doi).publications[0]
    assert pub.ids.doi == "10.1038/s41586-025-08628-5"
    assert pub.provenance[-1] == Provenance(field="ids.doi", value="10.1038/s41586-025-08628-5", source="page",
                                            method="meta", where="meta[name=citation_doi]")


@pytest.mark.parametrize("name,title,arxiv", [
    from_corpus("scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html", "Elementary Considerations", "1107.3701"),
    from_corpus("scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html", "Promoting the Culture", "2410.03532"),
])
def test_a_scholar_row_gives_the_arxiv_id_of_its_venue(read_corpus, name: str, title: str, arxiv: str) -> None:
    result = parse(read_corpus(name))
    found = [(pub.ids.arxiv, pub.provenance) for pub in result.publications if pub.ids.arxiv]
    # the one row whose grey venue line reads "arXiv preprint arXiv:<id>"
    assert found == [(arxiv, [Provenance(field="ids.arxiv", value=arxiv, source="page", method="venue")])]
    assert (next(p for p in result.publications if p.ids.arxiv).title or "").startswith(title)


def test_an_elamur_page_gives_its_authors_ids_with_the_links_they_were_read_from() -> None:
    profile = parse((FIXTURES / "elamur" / "000_e63c2e80f8ecde3e.txt").read_bytes()).profile  # the seed page
    assert profile is not None
    assert (profile.ids.orcid, profile.ids.openalex, profile.ids.wikidata) == (
        "0000-0002-5508-0728", "A5022644245", "Q131023905")
    assert [(p.field, p.where) for p in profile.provenance] == [
        ("ids.openalex", "https://openalex.org/A5022644245"), ("ids.orcid", "https://orcid.org/0000-0002-5508-0728"),
        ("ids.wikidata", "https://www.wikidata.org/wiki/Q131023905")]


def test_the_schema_describes_provenance() -> None:
    schema = json_schema()["$defs"]
    assert schema["Publication"]["properties"]["provenance"]["items"] == {"$ref": "#/$defs/Provenance"}
    assert schema["Profile"]["properties"]["provenance"]["items"] == {"$ref": "#/$defs/Provenance"}
    assert schema["Provenance"]["required"] == ["field", "value", "source", "method"]


# --- the recognisers, by property ---------------------------------------------------------------

REGISTRANT = st.integers(1000, 999_999_999).map(str)
# DOI suffixes as publishers write them (letters, digits, . - _ ; ( ) / : < >), not ending in a sentence's
# punctuation nor in what an address adds after a DOI (a view such as /full, .pdf)
SUFFIX = st.text(string.ascii_letters + string.digits + ".-_;()/:<>", min_size=1, max_size=40).filter(
    lambda s: s[-1] not in ".;:/)>" and s[0] != "/" and "//" not in s
    and not re.search(r"(?:/(?:abstract|full|fulltext|pdf|epdf|html|meta|references|figures|tables|summary|citedby|"
                      r"metrics|info|suppl|supplemental)|\.full|\.abstract|\.pdf)$", s, re.I))
DOIS = st.builds(lambda registrant, suffix: f"10.{registrant}/{suffix}", REGISTRANT, SUFFIX)


@given(DOIS)
@example("10.1002/(SICI)1099-0755(199807/08)8:4<515::AID-AQC261>3.0.CO;2-J")
def test_a_doi_comes_back_from_every_form_it_is_written_in(doi: str) -> None:
    want = doi.lower()
    assert normal_doi(doi) == want
    assert normal_doi(want) == want  # normalising twice changes nothing
    assert normal_doi(f"https://doi.org/{quote(doi)}") == want
    assert doi_in_url(f"https://onlinelibrary.wiley.com/doi/abs/{quote(doi)}") == want
    assert doi_in_url(f"https://link.springer.com/content/pdf/{quote(doi)}.pdf") == want
    assert doi_in_url(f"https://journals.plos.org/plosone/article?id={quote(doi, safe='')}") == want
    assert find_doi(f"Published as doi:{doi}. Read it.") == want


@given(st.text(max_size=200))
@example("Table 10.1234/5678 and version 10.2/3")
def test_text_that_names_no_doi_gives_none(text: str) -> None:
    if "doi" not in text.lower():
        assert find_doi(text) is None


@given(st.from_regex(r"\Ahttps?://[a-z]{1,10}\.(org|com)(/[A-Za-z0-9._~%-]{0,12}){0,5}(\?[a-z]{1,5}=[A-Za-z0-9.%/]{0,12})?\Z"))
def test_an_address_gives_a_doi_only_where_it_holds_one(url: str) -> None:
    found = doi_in_url(url)
    if found is not None:
        assert re.match(r"10\.\d{4,9}/\S+\Z", found) and found == found.lower()
        assert found.split("/")[0] in url.lower()


ARXIV_NEW = st.builds(lambda y, m, n: f"{y:02d}{m:02d}.{n:0{5 if y >= 15 else 4}d}",
                      st.integers(8, 30), st.integers(1, 12), st.integers(1, 9999))
ARXIV_OLD = st.builds(lambda a, y, m, n: f"{a}/{y:02d}{m:02d}{n:03d}", st.sampled_from(["hep-th", "astro-ph", "math"]),
                      st.sampled_from([91, 95, 99, 0, 3, 6]), st.integers(1, 12), st.integers(1, 999))


@given(st.one_of(ARXIV_NEW, ARXIV_OLD), st.integers(1, 9))
def test_an_arxiv_id_comes_back_without_its_version(arxiv: str, version: int) -> None:
    assert normal_arxiv(f"{arxiv}v{version}") == arxiv == normal_arxiv(arxiv)
    assert arxiv_in_url(f"https://arxiv.org/pdf/{arxiv}v{version}.pdf") == arxiv
    assert arxiv_in_url(f"https://doi.org/10.48550/arXiv.{arxiv}") == arxiv
    assert find_arxiv_id(f"arXiv preprint arXiv:{arxiv}, 2021") == arxiv


@given(st.text(max_size=200))
def test_text_that_names_no_arxiv_gives_none(text: str) -> None:
    if "arxiv" not in text.lower():
        assert find_arxiv_id(text) is None


@given(st.text("0123456789", min_size=15, max_size=15), st.integers(0, 14), st.integers(1, 9))
def test_an_orcid_check_digit_catches_every_changed_digit(digits: str, at: int, change: int) -> None:
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    whole = digits + ("X" if check == 10 else str(check))
    orcid = "-".join(whole[i:i + 4] for i in range(0, 16, 4))
    assert valid_orcid(orcid) == orcid == orcid_in_url(f"https://orcid.org/{orcid}")
    wrong = digits[:at] + str((int(digits[at]) + change) % 10) + digits[at + 1:]
    assert valid_orcid(wrong + whole[-1]) is None


def test_an_msr_venue_line_that_names_a_doi_gives_it_as_text(read_corpus) -> None:
    # MSR's citation block holds a venue line on journal papers: one is added under the date of the MatterGen page
    page = read_corpus("msr/publication_mattergen_990378_2026-08-26.excerpt.html")
    date = b'<p class="m-0"><time datetime="2023-12-06">December 2023</time></p>'
    assert page.count(date) == 1
    venue = b'<p class="m-0">Nature 639, 624-632 (2025), DOI: 10.1038/s41586-025-08628-5.</p>'
    pub = parse(page.replace(date, date + venue)).publications[0]
    assert (pub.ids.doi, pub.ids.arxiv) == ("10.1038/s41586-025-08628-5", "2312.03687")
    assert [(p.field, p.method) for p in pub.provenance] == [("ids.arxiv", "link"), ("ids.doi", "text")]
