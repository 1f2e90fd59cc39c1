"""Google Scholar's single-publication page (``view_op=view_citation``) and full co-author list
(``view_op=list_colleagues``): the real pages of the corpus, values typed from the page text, and
the self-checks that refuse a page whose structure changed."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

import pubharvest.parsers as parsers
from pubharvest.parsers.records import PageResult, Profile, YearCitations

VIEW_CITATION = "scholar/view_citation_SbUmSEAAAAAJ_compscidr_2024_prettified.html"
LEGACY_VIEW_CITATION = "scholar/legacy2013_view_citation_fragment_ruby-google-scholar.htm"
SIX_COAUTHORS = "scholar/list_colleagues_-FW8OqsAAAAJ_6coauthors_bowding_2017.html"
NO_COAUTHORS = "scholar/list_colleagues_-6MSlJkAAAAJ_none_bowding_2017.html"


def profile_of(result: PageResult) -> Profile:
    assert result.profile is not None
    return result.profile


# --- the single publication page ----------------------------------------------------------------


def test_real_publication_page(read_corpus) -> None:
    result = parsers.parse(read_corpus(VIEW_CITATION))
    assert (result.site, result.page) == ("scholar", "publication")
    (pub,) = result.publications
    assert pub.title == "Decentralized applications: The blockchain-empowered software system"
    assert pub.authors == ["Wei Cai", "Zehua Wang", "Jason B Ernst", "Zhen Hong", "Chen Feng", "Victor CM Leung"]
    assert not pub.authors_truncated
    assert (pub.date, pub.year) == ("2018-09-16", 2018)
    assert (pub.volume, pub.issue, pub.pages, pub.publisher) == ("6", None, "53019-53033", "IEEE")
    assert pub.venue == "IEEE access 6, 53019-53033"
    assert pub.type == "article-journal"
    assert pub.citations == 485
    assert pub.ids.scholar == "SbUmSEAAAAAJ:HoB7MX3m0LUC"
    assert pub.ids.scholar_clusters == ["16589742970128240413"]
    assert pub.versions == 11
    assert (pub.summary or "").startswith("Blockchain technology has attracted tremendous attention in both academia")
    assert (pub.summary or "").endswith("get familiar with recent developments in the blockchain.")
    assert pub.citations_by_year == [YearCitations(year=y, citations=c) for y, c in
                                     [(2019, 44), (2020, 67), (2021, 91), (2022, 114), (2023, 148), (2024, 17)]]
    links = {link.kind: link.url for link in pub.links}
    assert links["publisher"] == "https://ieeexplore.ieee.org/abstract/document/8466786/"
    assert links["pdf"] == "https://ieeexplore.ieee.org/iel7/6287639/6514899/08466786.pdf"
    assert "related:HQ-HyVWbOuYJ" in links["related"]
    assert (profile_of(result).name, profile_of(result).ids.scholar) == ("Jason Ernst", "SbUmSEAAAAAJ")
    assert [w.code for w in result.warnings] == ["charset_mismatch"]


def test_publication_histogram_years_come_from_the_bar_links_not_their_order(read_corpus) -> None:
    page = read_corpus(VIEW_CITATION)
    # drop the 2021 bar: its year stays on the axis with 0, the others keep their own counts
    start = page.index(b"as_ylo=2021")
    cut_from = page.rindex(b"<a", 0, start)
    cut_to = page.index(b"</a>", start) + 4
    result = parsers.parse(page[:cut_from] + page[cut_to:])
    years = {y.year: y.citations for y in result.publications[0].citations_by_year}
    assert years == {2019: 44, 2020: 67, 2021: 0, 2022: 114, 2023: 148, 2024: 17}


def test_legacy_publication_page_parses_from_its_section_ids(read_corpus) -> None:
    result = parsers.parse(read_corpus(LEGACY_VIEW_CITATION))
    (pub,) = result.publications
    assert pub.title == "Weblogs and the \u2018middle space\u2019for learning"
    assert pub.authors == ["Anne-Marie Deitering", "Shaun Huston"]
    assert (pub.date, pub.volume, pub.issue, pub.pages) == ("2004", "8", "4", "273-278")
    assert pub.venue == "Academic Exchange Quarterly 8 (4), 273-278"
    assert (pub.citations, pub.ids.scholar_clusters, pub.versions) == (25, ["10042010289416132119"], 3)
    assert pub.ids.scholar == "M7uPknsAAAAJ:kNdYIx-mwKoC"
    assert (pub.summary or "").startswith("Abstract Advocates suggest that Course Management Systems")
    assert pub.citations_by_year == []
    assert [w.code for w in result.warnings] == ["legacy_layout"]


UNTITLED = (b'<html><body><div id="gsc_oci_table"><div class="gs_scl"><div class="gsc_oci_field">Authors</div>'
            b'<div class="gsc_oci_value">A Bee</div></div></div></body></html>')


@pytest.mark.parametrize("change,named", [
    ((b"gsc_oci_value", b"gsc_xxx_value"), "#gsc_oci_table"),  # the table's cells renamed
    (None, "title"),  # a table and no title anywhere
])
def test_publication_page_missing_its_parts_is_layout_changed(read_corpus, change, named: str) -> None:
    page = read_corpus(VIEW_CITATION).replace(*change) if change else UNTITLED
    with pytest.raises(parsers.LayoutChanged) as caught:
        parsers.parse(page)
    assert named in caught.value.message


def test_publication_page_without_its_heading_warns_and_takes_the_full_title_elsewhere(read_corpus) -> None:
    page = read_corpus(VIEW_CITATION).replace(b'id="gsc_oci_title"', b'id="gsc_xxx_title"')
    result = parsers.parse(page)
    assert result.publications[0].title == "Decentralized applications: The blockchain-empowered software system"
    assert "publication_unreadable" in [w.code for w in result.warnings]




def test_publication_page_bar_without_a_year_warns(read_corpus) -> None:
    page = read_corpus(VIEW_CITATION).replace(b"&amp;as_ylo=2019&amp;as_yhi=2019", b"")
    result = parsers.parse(page)
    assert "histogram_unreadable" in [w.code for w in result.warnings]
    assert {y.year for y in result.publications[0].citations_by_year} == {2019, 2020, 2021, 2022, 2023, 2024}


def test_publication_detected_as_its_kind(read_corpus) -> None:
    assert parsers.detect(read_corpus(VIEW_CITATION)) == parsers.Detection(site="scholar", page="publication")
    assert parsers.detect(read_corpus(SIX_COAUTHORS)) == parsers.Detection(site="scholar", page="coauthors")


# --- the co-author list -------------------------------------------------------------------------


def test_real_coauthor_list(read_corpus) -> None:
    result = parsers.parse(read_corpus(SIX_COAUTHORS))
    assert (result.site, result.page, result.publications) == ("scholar", "coauthors", [])
    prof = profile_of(result)
    assert (prof.name, prof.ids.scholar) == ("Beata Gajewska", "-FW8OqsAAAAJ")
    got = [(c.name, c.ids.scholar, c.affiliation, c.email_domain, c.citations, c.interests) for c in prof.coauthors]
    assert got == [
        ("Andrew Dawson", "QYFKGmsAAAAJ", "Associate Professor, University of Nottingham", "nottingham.ac.uk",
         3037, []),
        ("Leszek Rafalski", "UkWUGCQAAAAJ", "Instytut Badawczy Dróg i Mostów", "ibdim.edu.pl", 48,
         ["inżynieria lądowa", "geotechnika"]),
        ("Cezary Kraszewski", "4C9ukc8AAAAJ", "IBDiM", "ibdim.edu.pl", 114, []),
        ("Marcin Gajewski", "rjap8noAAAAJ", "Warsaw University of Technology/ Road and Bridge Research Institute",
         "il.pw.edu.pl", 130, []),
        ("Pierre Hornych", "kndTVZsAAAAJ", None, "ifsttar.fr", 929, []),
        ("Zbigniew Lechowicz", "LVV1Q6kAAAAJ", "SGGW", None, 190, []),
    ]
    assert prof.coauthors[0].url == "https://scholar.google.com/citations?user=QYFKGmsAAAAJ&hl=en&oe=ASCII"
    # the page declares ISO-8859-1 but is UTF-8: the decoder reads it as UTF-8 and says so
    assert [w.code for w in result.warnings] == ["charset_mismatch"]


def test_real_page_with_no_coauthors_is_an_empty_list(read_corpus) -> None:
    result = parsers.parse(read_corpus(NO_COAUTHORS))
    assert result.page == "coauthors"
    assert (profile_of(result).name, profile_of(result).ids.scholar) == ("Matt Ginsberg", "-6MSlJkAAAAJ")
    assert profile_of(result).coauthors == []


def test_coauthor_cards_renamed_is_layout_changed(read_corpus) -> None:
    page = read_corpus(SIX_COAUTHORS).replace(b"gsc_1usr_name", b"gsc_xxxx_name")
    with pytest.raises(parsers.LayoutChanged) as caught:
        parsers.parse(page)
    assert "6 co-authors" in caught.value.message


def test_coauthor_list_as_a_json_answer() -> None:
    card = ('<div id="gsc_codb_content"><div class="gsc_ucoar gs_scl"><div class="gs_ai_t">'
            '<h3 class="gs_ai_name"><a href="/citations?user=Abc12345AAAJ&amp;hl=en">Ada Lovelace</a></h3>'
            '<div class="gs_ai_aff">Analytical Engines</div><div class="gs_ai_eml">Verified email at engines.org</div>'
            '<div class="gs_ai_cby">Cited by 12</div></div></div></div>')
    result = parsers.parse(json.dumps({"H": card}).encode(), url="https://scholar.google.com/citations?"
                                                                  "view_op=list_colleagues&json=&user=Owner123AAAJ")
    assert result.page == "coauthors"
    assert profile_of(result).ids.scholar == "Owner123AAAJ"
    (ada,) = profile_of(result).coauthors
    assert (ada.name, ada.ids.scholar, ada.affiliation, ada.email_domain, ada.citations) == (
        "Ada Lovelace", "Abc12345AAAJ", "Analytical Engines", "engines.org", 12)


# --- the new kinds in the schema, the exports and merge -------------------------------------------

# A profile row of the same paper as the real publication page, as the profile writes it (authors cut).
PROFILE_ROW = (b'<tr class="gsc_a_tr"><td class="gsc_a_t"><a class="gsc_a_at" href="/citations?view_op=view_citation'
               b'&amp;hl=en&amp;user=SbUmSEAAAAAJ&amp;citation_for_view=SbUmSEAAAAAJ:HoB7MX3m0LUC">Decentralized '
               b'applications: The blockchain-empowered software system</a><div class="gs_gray">W Cai, Z Wang, '
               b'JB Ernst, Z Hong, C Feng, ...</div><div class="gs_gray">IEEE access 6, 53019-53033<span '
               b'class="gs_oph">, 2018</span></div></td><td class="gsc_a_c"><a class="gsc_a_ac" href="https://'
               b'scholar.google.com/scholar?oi=bibs&amp;hl=en&amp;cites=16589742970128240413">480</a></td><td '
               b'class="gsc_a_y"><span class="gsc_a_h">2018</span></td></tr>')


def test_schema_names_the_new_page_kinds_and_fields() -> None:
    schema = parsers.json_schema()["$defs"]
    assert {"publication", "coauthors"} <= set(schema["PageResult"]["properties"]["page"]["enum"])
    assert {"citations_by_year", "volume", "issue", "pages", "versions"} <= set(schema["Publication"]["properties"])
    assert {"interests", "citations"} <= set(schema["Coauthor"]["properties"])


def test_publication_page_and_profile_row_merge_into_one_paper_with_the_full_authors(read_corpus) -> None:
    from pubharvest.merge import merge

    page = parsers.parse(read_corpus(VIEW_CITATION))
    row = parsers.parse(PROFILE_ROW)
    assert row.publications[0].authors_truncated
    merged = merge([("row.html", row), ("view_citation.html", page)])
    (paper,) = merged.papers
    assert paper.authors == ["Wei Cai", "Zehua Wang", "Jason B Ernst", "Zhen Hong", "Chen Feng", "Victor CM Leung"]
    assert not paper.authors_truncated
    assert paper.date == "2018-09-16"
    assert paper.citations_max == 485
    assert [s.citations for s in paper.sources] == [480, 485]


def test_two_publication_pages_of_one_person_are_two_sources() -> None:
    from pubharvest.merge import source_key

    pages = [parsers.parse((FIXTURES / "scholar" / f"handwritten_view_citation_{n}.html").read_bytes())
             for n in ("chapter", "uncited")]
    assert source_key(pages[0]) != source_key(pages[1])
    assert source_key(pages[0]) == ("scholar", "publication", "Chaptr1AAAAJ:9yKSN-GCB0IC")


@pytest.mark.parametrize("fmt", ["csv", "bibtex", "csl-json"])
def test_publication_page_exports_with_its_full_values(read_corpus, tmp_path, capsys, fmt: str) -> None:
    from pubharvest.cli import main

    page = tmp_path / "view_citation.html"
    page.write_bytes(read_corpus(VIEW_CITATION))
    assert main(["parse", str(page), "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        assert "Wei Cai; Zehua Wang; Jason B Ernst; Zhen Hong; Chen Feng; Victor CM Leung" in out
        assert ",publication," in out and "2018-09-16" in out
    elif fmt == "bibtex":
        assert "@article{" in out and "journal = {IEEE access}," in out
        assert "pages = {53019--53033}" in out and "volume = {6}" in out and "publisher = {IEEE}" in out
        assert "Leung, Victor CM" in out
    else:
        (item,) = json.loads(out)
        assert (item["type"], item["container-title"], item["volume"], item["page"]) == (
            "article-journal", "IEEE access", "6", "53019-53033")
        assert item["issued"] == {"date-parts": [[2018, 9, 16]]}
        assert len(item["author"]) == 6


def test_coauthor_list_page_merges_with_the_owners_profile(read_corpus) -> None:
    from pubharvest.merge import merge

    coauthors = parsers.parse(read_corpus(SIX_COAUTHORS))
    owner = PageResult(site="scholar", page="profile", profile=Profile(name="Beata Gajewska",
                                                                        ids=parsers.records.Ids(scholar="-FW8OqsAAAAJ")))
    (person,) = merge([("profile", owner), ("coauthors", coauthors)]).profiles
    assert [s.name for s in person.sources] == ["Beata Gajewska", "Beata Gajewska"]
