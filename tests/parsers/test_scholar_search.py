"""Google Scholar search results, the author search page and the pre-2014 profile layout.

Every expected value was typed from the saved page's own text (link texts such as "Cited by 188",
the ``cites=`` / ``cluster=`` ids of those links, the byline under each title), not taken from the
parser's output.
"""

from __future__ import annotations

import pytest

import pubharvest.parsers as parsers
from pubharvest.parsers.records import PageResult, Publication

# (result id data-cid or None for 2016, cited by, cluster id of "Cited by", "All N versions" or None)
RESULTS = {
    "search_q_quoted_title_goscholar_2016.html": [
        ("pYyS8T9g_kkJ", 2441, "5331804836605365413", 58),
    ],
    "search_cluster_goscholar_2016.html": [
        ("0qfs6zbVakoJ", 409, "5362332738201102290", None),
    ],
    "search_q_crayfish_gsscraper_2020.html": [
        ("jgn1Rfu9GOQJ", 188, "16436095726996752782", 4),
        ("rV3KK7iWwfcJ", 116, "17852716115626188205", 7),
        ("l_m1ve33lQoJ", 132, "762788312371296663", 5),
        ("QrCsuD7OyLMJ", 66, "12954831096912851010", 2),
        ("xtfwjfSUxtEJ", 209, "15115932977389950918", 5),
        ("_yzHiOgFb70J", 85, "13650135491868568831", 6),
        ("8Dx8wgzWsRMJ", 28, "1419150707889290480", 7),
        ("jRM_ZSuAkycJ", 59, "2851763912926237581", 11),
        ("rIhbnoUNBgoJ", 60, "722279657778153644", 11),
        ("mAJo7ORypkwJ", 234, "5523228320560841368", 4),
    ],
    "search_scholar_q_geomap_2020.html": [
        ("4qAC3XBmStsJ", 4, "15801554877513113826", None),
        ("cXeT3ShOpHEJ", 6, "8188755959889491825", 3),
        ("eDyUGDpGRA4J", 80, "1028023830281731192", 7),
        ("dLNPlCNB8QkJ", 7, "716425436796531572", 2),
        ("qVE2xTHe5SgJ", 30, "2947005836527292841", 8),
        ("TVE33_MDk5YJ", 92, "10850020273222537549", 12),
        ("L2O5OTQ-LPoJ", 67, "18026851802484925231", 3),
        ("Q_9n7Bgu5NoJ", 18, "15772782479538650947", 4),
        ("fHfqiP8NgnAJ", 41, "8107057670385203068", 4),
        ("fdjrhXUi8SEJ", 3, "2445773960792234109", 3),
    ],
    "search_q_zhTW_gscholar_2025.html": [
        ("EQ8shYj8Ai8J", 3307, "3387547533016043281", 5),
        ("_zuqxloS2b0J", 1556, "13679985524203994111", 11),
        ("pdcI9r5sCJcJ", 13501, "10883068066968164261", 20),
        ("6uA6mpei2rcJ", 2012, "13248080025875046634", 5),
        ("sgzh8w-wKWIJ", 284, "7073378272324684978", 6),
        ("LyT44hZeFM0J", 203, "14777539729699644463", 7),
        ("TVVEPP7WNfUJ", 5362, "17669265100479157581", 5),
        ("p7YVSi5UNiMJ", 2036, "2537307997858018983", 4),
        ("LDE5SAcBB-gJ", 827, "16719333272424362284", 10),
        ("i7tgqUFf020J", 364, "7913773705839295371", 10),
    ],
    "search_q_browsersaved_google-scholar-research_2025.html": [
        ("8kIZgzgPiqQJ", 12, "11856305704398308082", 5),
        ("6hYbNZFiMKoJ", 2, "12263410161130608362", None),
        ("fZwQFf2_b5UJ", 524, "10768036327767186557", 17),
        ("TXo0mMiA2hAJ", 3, "1214424648565160525", 3),
        ("sZC8ponAN4EJ", 270, "9311122452052218033", 20),
        ("uPoCz_Cu6d4J", 10, "16062561895282047672", 3),
        ("wbgyid-lgRwJ", 16, "2054105284555749569", 8),
        # no "Cited by" link: the cluster is the d= of the title link's data-clk
        ("XSMc9VJYaj8J", 0, "4569561885243614045", None),
        ("J6nvyeM_wo4J", 17, "10286854746445687079", 5),
        ("zYiUF7y7ZpYJ", 12, "10837555969837533389", 3),
    ],
}

# The 2016 pages carry no data-cid: the result's own id is the one in its related: link.


def search_page(read_corpus, name: str) -> PageResult:
    result = parsers.parse(read_corpus(f"scholar/{name}"))
    assert (result.site, result.page) == ("scholar", "search")
    assert result.search is not None
    return result


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_result_with_its_count_and_cluster(read_corpus, name: str) -> None:
    result = search_page(read_corpus, name)
    got = [(p.result_id, p.citations, p.ids.scholar_clusters[0] if p.ids.scholar_clusters else None,
            p.versions) for p in result.publications]
    assert got == RESULTS[name]
    assert all(p.title for p in result.publications)
    assert [w.code for w in result.warnings if w.code != "charset_mismatch"] == []


def test_search_page_facts(read_corpus) -> None:
    crayfish = search_page(read_corpus, "search_q_crayfish_gsscraper_2020.html").search
    assert crayfish is not None
    assert (crayfish.query, crayfish.total_results, crayfish.page_number, crayfish.next_start) == (
        "river aquatic crayfish OR fish", 1620000, 1, 10)  # "About 1.620.000 results"
    assert crayfish.next_url is not None and "start=10" in crayfish.next_url
    zh = search_page(read_corpus, "search_q_zhTW_gscholar_2025.html").search
    assert zh is not None and (zh.query, zh.total_results) == ("machine learning", 6030000)  # 約有 6,030,000 項結果
    saved = search_page(read_corpus, "search_q_browsersaved_google-scholar-research_2025.html").search
    assert saved is not None
    # "Page 2 of about 22,600 results": the page number is not the total
    assert (saved.total_results, saved.page_number, saved.next_start) == (22600, 2, 20)
    cluster = search_page(read_corpus, "search_cluster_goscholar_2016.html").search
    assert cluster is not None
    assert (cluster.cluster, cluster.total_results, cluster.next_start, cluster.query) == (
        "5362332738201102290", 7, 1, None)
    quoted = search_page(read_corpus, "search_q_quoted_title_goscholar_2016.html").search
    # "Showing the best result for this search": no count, no next page
    assert quoted is not None and (quoted.query, quoted.total_results, quoted.next_start) == (
        '"Learning deep architectures for AI"', None, None)


def test_result_bylines(read_corpus) -> None:
    pubs = search_page(read_corpus, "search_q_crayfish_gsscraper_2020.html").publications
    # "J Kail, K Brabec, M Poppe, K Januschke - Ecological Indicators, 2015 - Elsevier", K Brabec linked
    second = pubs[1]
    assert second.title == ("The effect of river restoration on fish, macroinvertebrates and aquatic macrophytes: "
                            "A meta-analysis")
    assert (second.authors, second.authors_truncated) == (["J Kail", "K Brabec", "M Poppe", "K Januschke"], False)
    assert [(a.name, a.ids.scholar) for a in second.author_links] == [("K Brabec", "ePxv1tcAAAAJ")]
    assert (second.venue, second.year, second.publisher) == ("Ecological Indicators", 2015, "Elsevier")
    assert second.url == "https://www.sciencedirect.com/science/article/pii/S1470160X15003362"
    assert second.summary is not None and second.summary.startswith("An increasing number of rivers have been")
    # "NE Kemble, WG Brumbaugh… - … and Chemistry: An …, 1994 - Wiley Online Library"
    third = pubs[2]
    assert (third.authors, third.authors_truncated) == (["NE Kemble", "WG Brumbaugh"], True)
    assert (third.venue, third.venue_truncated, third.year) == ("… and Chemistry: An", True, 1994)
    assert [(link.kind, link.url) for link in third.links if link.kind == "pdf"] == [
        ("pdf", "https://setac.onlinelibrary.wiley.com/doi/pdf/10.1002/etc.5620131212")]
    # "[PDF]" before the title, and a "View as HTML" cache link
    fourth = pubs[3]
    assert fourth.result_type == "PDF" and fourth.title is not None and fourth.title.startswith("Aquatic habitats")
    assert "cached" in [link.kind for link in fourth.links]
    kinds = [link.kind for link in pubs[0].links]
    assert kinds == ["cited_by", "related", "versions"]


def test_citation_only_result_and_byline_without_host(read_corpus) -> None:
    first = search_page(read_corpus, "search_scholar_q_geomap_2020.html").publications[0]
    # "[CITATION] Geology of the Olympus Range Area, Southern Victoria Land", no link of its own
    assert (first.result_type, first.title, first.url) == (
        "CITATION", "Geology of the Olympus Range Area, Southern Victoria Land", None)
    assert "citation_only" in first.flags
    assert first.authors == ["MJ Isaac", "TJ Chinn", "SW Edbrooke", "PJ Forsyth"]
    assert (first.venue, first.year, first.publisher) == ("Antarctica. Institute of Geological and", 1996, None)
    saved = search_page(read_corpus, "search_q_browsersaved_google-scholar-research_2025.html").publications
    # "S Sorsen, J Schulz - 2022 - aisel.aisnet.org": no venue
    assert (saved[1].authors, saved[1].venue, saved[1].year, saved[1].publisher) == (
        ["S Sorsen", "J Schulz"], None, 2022, "aisel.aisnet.org")


def test_localised_links_are_read_by_their_urls(read_corpus) -> None:
    pubs = search_page(read_corpus, "search_q_zhTW_gscholar_2025.html").publications
    # "Machine learning: Trends, perspectives, and prospects", "被引用 13501 次", "全部共 20 個版本"
    third = pubs[2]
    assert (third.title, third.authors, third.venue, third.year) == (
        "Machine learning: Trends, perspectives, and prospects", ["MI Jordan", "TM Mitchell"], "Science", 2015)
    assert [a.ids.scholar for a in third.author_links] == ["yxUduqMAAAAJ", "MnfzuPYAAAAJ"]
    assert "[PS]" not in (pubs[4].title or "") and pubs[4].result_type == "PS"


def test_captcha_instead_of_results_stays_blocked(read_corpus) -> None:
    with pytest.raises(parsers.Blocked):
        parsers.parse(read_corpus("scholar/captcha_gs_captcha_ccl_search_geomap_2020.html"))


def _one_result(body: str) -> bytes:
    return ('<!doctype html><html><body><div id="gs_res_ccl"><div id="gs_res_ccl_mid">' + body +
            "</div></div></body></html>").encode()


def test_result_blocks_without_titles_are_a_changed_layout() -> None:
    renamed = _one_result('<div class="gs_r gs_or gs_scl" data-cid="x"><div class="gs_ri"><h3 class="gs_title">'
                          '<a href="https://example.org/p">A paper</a></h3></div></div>')
    with pytest.raises(parsers.LayoutChanged):
        parsers.parse(renamed)
    no_blocks = _one_result('<div class="gs_result" data-cid="x"><div class="gs_body"><h3 class="gs_rt">'
                            '<a href="https://example.org/p">A paper</a></h3></div></div>')
    with pytest.raises(parsers.LayoutChanged):
        parsers.parse(no_blocks)


def test_a_stated_total_with_no_result_is_a_changed_layout() -> None:
    page = ('<!doctype html><html><body><div id="gs_ab_md"><div class="gs_ab_mdw">About 40 results (0.02 sec)'
            '</div></div><div id="gs_res_ccl"><div id="gs_res_ccl_mid"></div></div></body></html>').encode()
    with pytest.raises(parsers.LayoutChanged):
        parsers.parse(page)


# --- the pre-2014 layout -----------------------------------------------------------------------

LEGACY = "scholar/legacy2013_profile_{}_full_web-scrapper_2016.html"


def test_legacy_profile_header_and_counts(read_corpus) -> None:
    result = parsers.parse(read_corpus(LEGACY.format("oSJgw2cAAAAJ")))
    assert (result.site, result.page) == ("scholar", "profile")
    profile = result.profile
    assert profile is not None
    assert (profile.name, profile.affiliation, profile.email_domain) == (
        "Ola Spjuth", "Uppsala University", "farmbio.uu.se")
    assert profile.ids.scholar == "oSJgw2cAAAAJ"
    assert profile.url == "http://scholar.google.com/citations?user=oSJgw2cAAAAJ&hl=en"
    assert profile.homepage == "http://www.farmbio.uu.se/research/researchgroups/pb/olaspjuth/"
    assert profile.interests == ["Drug discovery", "predictive toxicology", "high-performance bioinformatics"]
    m = profile.metrics
    assert (m.citations, m.citations_since, m.since_year, m.h_index, m.h_index_since, m.i10_index,
            m.i10_index_since) == (437, 394, 2009, 11, 11, 12, 12)
    assert len(profile.coauthors) == 15
    assert (profile.coauthors[0].name, profile.coauthors[0].ids.scholar) == ("Egon Willighagen", "u8SjMZ0AAAAJ")
    assert (profile.coauthors[-1].name, profile.coauthors[-1].ids.scholar) == ("Sean Ekins", "fX40O84AAAAJ")
    assert profile.citations_by_year == []  # the chart is an image
    assert sorted(w.code for w in result.warnings) == ["coauthors_partial", "partial"]


def _row(pub: Publication) -> tuple[object, ...]:
    return (pub.title, pub.authors, pub.authors_truncated, pub.venue, pub.year, pub.citations,
            pub.ids.scholar, pub.ids.scholar_clusters)


def test_legacy_profile_rows(read_corpus) -> None:
    pubs = parsers.parse(read_corpus(LEGACY.format("oSJgw2cAAAAJ"))).publications
    assert len(pubs) == 20
    assert _row(pubs[0]) == (
        "Bioclipse: an open source workbench for chemo-and bioinformatics",
        ["O Spjuth", "T Helmus", "EL Willighagen", "S Kuhn", "M Eklund", "J Wagener"], True,
        "BMC bioinformatics 8 (1), 59", 2007, 88, "oSJgw2cAAAAJ:u5HHmVD_uO8C", ["6912391300348162186"])
    assert _row(pubs[1]) == (
        "The LCB data warehouse", ["A Ameur", "V Yankovski", "S Enroth", "O Spjuth", "J Komorowski"], False,
        "Bioinformatics 22 (8), 1024-1026", 2006, 41, "oSJgw2cAAAAJ:u-x6o8ySG0sC", ["18217435431424551679"])
    assert _row(pubs[-1]) == (
        "Open source drug discovery with Bioclipse",
        ["O Spjuth", "L Carlsson", "J Alvarsson", "V Georgiev", "E Willighagen", "M Eklund"], False,
        "Current topics in medicinal chemistry 12 (18), 1980-1986", 2012, 4, "oSJgw2cAAAAJ:7PzlFSSx8tAC",
        ["18041408092801020000"])


def test_second_legacy_profile(read_corpus) -> None:
    result = parsers.parse(read_corpus(LEGACY.format("vspCNtYAAAAJ")))
    profile = result.profile
    assert profile is not None
    assert (profile.name, profile.affiliation, profile.email_domain, profile.homepage) == (
        "Yan Xu", "Georgia Insitute of Technology, Intel Labs", "intel.com", "http://www.cc.gatech.edu/~vivixu")
    m = profile.metrics
    assert (m.citations, m.citations_since, m.h_index, m.i10_index) == (263, 245, 9, 9)
    pubs = result.publications
    assert len(pubs) == 20
    # "Proceedings of the SIGCHI conference on Human Factors in computing systems ..." (cut with three dots)
    assert (pubs[0].venue, pubs[0].venue_truncated, pubs[0].citations, pubs[0].year) == (
        "Proceedings of the SIGCHI conference on Human Factors in computing systems", True, 51, 2006)
    assert _row(pubs[-1]) == (
        "Herding nerds on your table: NerdHerder, a mobile augmented reality game",
        ["Y Xu", "S Mendenhall", "V Ha", "P Tillery", "J Cohen"], False,
        "CHI'12 Extended Abstracts on Human Factors in Computing Systems, 1351-1356", 2012, 2,
        "vspCNtYAAAAJ:L8Ckcad2t8MC", ["5776585392300206676"])


def test_legacy_fragment_stays_a_changed_layout(read_corpus) -> None:
    with pytest.raises(parsers.LayoutChanged) as caught:
        parsers.parse(read_corpus("scholar/legacy2013_profile_M7uPknsAAAAJ_fragment_ruby-google-scholar.htm"))
    assert "\n" not in caught.value.message


def test_legacy_rows_missing_is_a_changed_layout(read_corpus) -> None:
    page = read_corpus(LEGACY.format("oSJgw2cAAAAJ")).replace(b'class="cit-table item"', b'class="cit-row"')
    with pytest.raises(parsers.LayoutChanged):
        parsers.parse(page)


# --- search results in merge and the exports ---------------------------------------------------


def test_a_search_result_and_a_profile_row_of_one_paper_merge(read_corpus) -> None:
    from pubharvest.merge import merge

    search = parsers.parse(read_corpus("scholar/search_q_crayfish_gsscraper_2020.html"))
    # K Brabec's profile row of the second result, as the 2026 layout shows it (hand-made: the
    # corpus holds no profile of these authors); the profile counts 121 citations, the search 116.
    row = ('<tr class="gsc_a_tr"><td class="gsc_a_t"><a class="gsc_a_at" href="/citations?view_op=view_citation'
           '&amp;user=ePxv1tcAAAAJ&amp;citation_for_view=ePxv1tcAAAAJ:u5HHmVD_uO8C">The effect of river restoration '
           'on fish, macroinvertebrates and aquatic macrophytes: A meta-analysis</a><div class="gs_gray">J Kail, '
           'K Brabec, M Poppe, K Januschke</div><div class="gs_gray">Ecological Indicators 58, 311-321'
           '<span class="gs_oph">, 2015</span></div></td><td class="gsc_a_c"><a class="gsc_a_ac" href="https://'
           'scholar.google.com/scholar?oi=bibs&amp;hl=en&amp;cites=17852716115626188205">121</a></td>'
           '<td class="gsc_a_y"><span class="gsc_a_h">2015</span></td></tr>')
    profile_rows = parsers.parse(row.encode())
    merged = merge([("search.html", search), ("rows.html", profile_rows)])
    assert len(merged.papers) == len(search.publications)
    paper = next(p for p in merged.papers if len(p.sources) == 2)
    assert paper.title == ("The effect of river restoration on fish, macroinvertebrates and aquatic macrophytes: "
                           "A meta-analysis")
    assert paper.citations_max == 121
    assert paper.venue == "Ecological Indicators 58, 311-321"  # the fuller venue of the two


def test_search_pages_in_the_csv_and_the_schema(read_corpus, capsys, tmp_path) -> None:
    import csv
    import io
    import json

    from pubharvest.cli import main

    page = tmp_path / "search.html"
    page.write_bytes(read_corpus("scholar/search_q_crayfish_gsscraper_2020.html"))
    assert main(["parse", "-f", "csv", str(page)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["page"], r["citations"], r["year"], r["publisher"]) for r in rows[:2]] == [
        ("search", "188", "1979", "Taylor & Francis"), ("search", "116", "2015", "Elsevier")]
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "search" in schema["$defs"]["PageResult"]["properties"]["page"]["enum"]
    assert {"SearchInfo", "Profile"} <= set(schema["$defs"])
    assert "profiles" in schema["$defs"]["PageResult"]["properties"]


@pytest.mark.parametrize("name", ["list_colleagues_-FW8OqsAAAAJ_6coauthors_bowding_2017.html",
                                  "list_colleagues_-6MSlJkAAAAJ_none_bowding_2017.html"])
def test_other_pages_with_the_2016_results_container_are_not_search_results(read_corpus, name: str) -> None:
    # The 2017 co-author list also sits in div#gs_ccl, without the results bar (#gs_ab_md)
    try:
        detected = parsers.detect(read_corpus(f"scholar/{name}"))
    except parsers.ParseError:
        return
    assert detected.page != "search"


def test_legacy_row_without_a_venue_line(read_corpus) -> None:
    result = parsers.parse(read_corpus(LEGACY.format("vspCNtYAAAAJ")))
    # row 14: "Chores Are Fun: ..." has only its authors line
    row = result.publications[13]
    assert (row.title, row.authors, row.venue, row.year, row.citations) == (
        "Chores Are Fun: Understanding Social Play in Board Games for Digital Tabletop Game Design",
        ["Y Xu", "E Barba", "I Radu", "M Gandy", "B MacIntyre"], None, 2011, 6)
    assert sorted(w.code for w in result.warnings) == ["coauthors_partial", "partial"]


@pytest.mark.parametrize("token", ["cit-affiliation-display", "cit-data", "cit-dark-link", "cit-gray", "col-year",
                                   "col-citedby", "cit-int-read", "cit-domain-display", "cit-homepage-read"])
def test_legacy_renamed_parts_are_flagged(read_corpus, token: str) -> None:
    page = read_corpus(LEGACY.format("oSJgw2cAAAAJ"))
    original = parsers.parse(page)
    renamed = parsers.parse(page.replace(token.encode(), token.replace("-", "X").encode() + b"drift"))
    new_codes = {w.code for w in renamed.warnings} - {w.code for w in original.warnings}
    assert new_codes & {"profile_unreadable", "rows_unreadable", "column_unreadable"}


def test_the_pre_2014_publication_page_is_not_taken_for_a_profile(read_corpus) -> None:
    # it shows the author's header (#cit-name-display) but no citation table nor rows: a paper's page
    result = parsers.parse(read_corpus("scholar/legacy2013_view_citation_fragment_ruby-google-scholar.htm"))
    assert result.page == "publication" and len(result.publications) == 1
