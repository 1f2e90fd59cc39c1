"""Google Scholar: the seed's saved table row by row, the real pages of the corpus, bad inputs.

Every expected value here was read off the page itself (the seed text, or the saved HTML), not
taken from the parser's output.
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest
from conftest import FIXTURES, ROOT

import pubharvest.parsers as parsers
from pubharvest.parsers.records import Profile, to_builtins


def profile_of(result: parsers.PageResult) -> Profile:
    """The page's profile, which these pages all have."""
    assert result.profile is not None
    return result.profile

SEED = FIXTURES / "scholar" / "003_9ea93ed9343d2054.txt"
DATA = ROOT / "tests" / "data" / "scholar"

# (title, first author, last author shown, truncated, venue, venue_truncated, year, citations),
# typed from the seed's rows.
SEED_ROWS = [
    ("Bloom: A 176b-parameter open-access multilingual language model", "T Le Scao", "R Castagné", True,
     None, False, 2023, 1750),
    ("ZeRO: Memory optimizations toward training trillion parameter models", "S Rajbhandari", "Y He", False,
     "SC20: International Conference for High Performance Computing, Networking", True, 2020, 1325),
    ("Deepspeed: System optimizations enable training deep learning models with over 100 billion parameters",
     "J Rasley", "Y He", False,
     "Proceedings of the 26th ACM SIGKDD International Conference on Knowledge", True, 2020, 1234),
    ("Using deepspeed and megatron to train megatron-turing nlg 530b, a large-scale generative language model",
     "S Smith", "J Casper", True, "arXiv preprint arXiv:2201.11990", False, 2022, 686),
    ("Zero-offload: Democratizing billion-scale model training", "J Ren", "D Li", True,
     "2021 USENIX Annual Technical Conference (USENIX ATC 21), 551-564", False, 2021, 405),
    ("Zero-infinity: Breaking the gpu memory wall for extreme scale deep learning", "S Rajbhandari", "Y He", False,
     "Proceedings of the international conference for high performance computing", True, 2021, 348),
    ("Deepspeed-inference: enabling efficient inference of transformer models at unprecedented scale",
     "RY Aminabadi", "O Ruwase", True,
     "SC22: International Conference for High Performance Computing, Networking", True, 2022, 307),
    ("Deepspeed-moe: Advancing mixture-of-experts inference and training to power next-generation ai scale",
     "S Rajbhandari", "J Rasley", True, "International conference on machine learning, 18332-18346", False, 2022, 256),
    ("Learning intrinsic sparse structures within long short-term memory", "W Wen", "Y Chen", True,
     "arXiv preprint arXiv:1709.05027", False, 2017, 159),
    ("Rewon Child, Reza Yazdani Aminabadi, Julie Bernauer, Xia Song, Mohammad Shoeybi, Yuxiong He, "
     "Michael Houston, Saurabh Tiwary, and Bryan Catanzaro", "S Smith", "J Casper", True,
     "Using deepspeed and megatron to train megatron-turing nlg 530b, a large", True, 2022, 151),
    ("DeepCPU: Serving RNN-based Deep Learning Models 10x Faster", "M Zhang", "Y He", False,
     "2018 USENIX Annual Technical Conference (USENIX ATC 18), 951-965", False, 2018, 126),
    ("1-bit adam: Communication efficient large-scale training with adam’s convergence speed", "H Tang", "C Zhang",
     True, "International Conference on Machine Learning, 10118-10129", False, 2021, 96),
    ("Scalable and efficient moe training for multitask multilingual models", "YJ Kim", "S Rajbhandari", True,
     "arXiv preprint arXiv:2109.10465", False, 2021, 82),
    ("Deepspeed ulysses: System optimizations for enabling training of extreme long sequence transformer models",
     "SA Jacobs", "Y He", False, "arXiv preprint arXiv:2309.14509", False, 2023, 60),
    ("Deepspeed-chat: Easy, fast and affordable rlhf training of chatgpt-like models at all scales",
     "Z Yao", "AA Awan", True, "arXiv preprint arXiv:2308.01320", False, 2023, 55),
    ("Neural network training performance optimization framework", "TA Chilimbi", "Y He", False,
     "US Patent App. 14/986,186", False, 2017, 53),
    ("Deepspeed-fastgen: High-throughput text generation for llms via mii and deepspeed-inference",
     "C Holmes", "S Rajbhandari", True, "arXiv preprint arXiv:2401.08671", False, 2024, 42),
    ("Zero++: Extremely efficient collective communication for giant model training", "G Wang", "F Yan", True,
     "arXiv preprint arXiv:2306.10209", False, 2023, 40),
    ("Optimizing cnns on multicores for scalability, performance and goodput", "S Rajbhandari", "T Chilimbi", False,
     "ACM SIGARCH Computer Architecture News 45 (1), 267-280", False, 2017, 37),
    ("1-bit LAMB: communication efficient large-scale large-batch training with LAMB’s convergence speed",
     "C Li", "Y He", False,
     "2022 IEEE 29th International Conference on High Performance Computing, Data", True, 2022, 36),
]


@pytest.fixture(scope="module")
def seed():
    return parsers.parse(SEED.read_bytes())


def test_seed_has_every_row(seed) -> None:
    assert (seed.site, seed.page) == ("scholar", "publication_list")
    assert len(seed.publications) == len(SEED_ROWS) == 20


@pytest.mark.parametrize("index", range(len(SEED_ROWS)))
def test_seed_row(seed, index: int) -> None:
    title, first, last, truncated, venue, venue_cut, year, cites = SEED_ROWS[index]
    pub = seed.publications[index]
    assert pub.title == title
    assert (pub.authors[0], pub.authors[-1], pub.authors_truncated) == (first, last, truncated)
    assert (pub.venue, pub.venue_truncated) == (venue, venue_cut)
    assert (pub.year, pub.citations) == (year, cites)


def test_seed_full_author_lists(seed) -> None:
    assert seed.publications[4].authors == [
        "J Ren", "S Rajbhandari", "RY Aminabadi", "O Ruwase", "S Yang", "M Zhang", "D Li"]
    assert seed.publications[0].authors[:3] == ["T Le Scao", "A Fan", "C Akiki"]


def test_seed_identifiers_and_types(seed) -> None:
    pubs = seed.publications
    assert (pubs[3].ids.arxiv, pubs[3].type) == ("2201.11990", "article")
    assert (pubs[15].type, pubs[15].ids.patent_number) == ("patent", "US 14/986,186")
    assert pubs[1].type is None


def test_seed_author_list_title_is_flagged(seed) -> None:
    assert seed.publications[9].flags == ["title_looks_like_authors"]
    assert [w.code for w in seed.warnings] == ["title_looks_like_authors"]
    assert all(not p.flags for i, p in enumerate(seed.publications) if i != 9)


def test_seed_coauthor_line(seed) -> None:
    (coauthor,) = profile_of(seed).coauthors
    assert (coauthor.name, coauthor.affiliation, coauthor.email_domain) == ("He Yuxiong", "Snowflake", "snowflake.com")


# --- the real pages (PUBHARVEST_CORPUS) ---------------------------------------------------

PROFILES: dict[str, dict[str, Any]] = {
    "profile_RxmmtT8AAAAJ_scholar-scraper_2026.html": dict(
        user="RxmmtT8AAAAJ", name="K. Srinivasan", rows=20, partial=True,
        affiliation="Chief Scientist (Retired), CSIR - Central Food Technological Research Institute",
        org="4213696343938761553", email="cftri.res.in", table=(18747, 6496, 67, 38, 167, 108, 2021),
        years=(2002, 2026), zero_years=[], some_bars={2002: 77, 2003: 83, 2026: 113},
        access=(10, 10), coauthors=["Kalpana Platel", "Susmita Barman", "Hithamani G.", "Sreeramaiah Hemalatha",
                                    "Shubhra Pande", "Vidyashankar Satyakumar", "Suresha BS"],
        first_title="Black pepper and its pungent principle-piperine: a review of diverse physiological effects"),
    "profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html": dict(
        user="LZ5D_p4AAAAJ", name="Doaa Elmatary", rows=12, partial=False,
        affiliation="مدرس هندسة الاتصالات في معهد الصفوة العالي للهندسة", org=None, email="alsafwa.edu.eg",
        table=(56, 30, 4, 2, 2, 1, 2021), years=(2012, 2025), zero_years=[2017, 2020],
        some_bars={2012: 4, 2016: 2, 2018: 3, 2025: 9}, access=None, coauthors=[],
        first_title="Performance comparison of various machine learning approaches to identify the best one "
                    "in predicting heart disease"),
    "profile_P1RwlvoAAAAJ_scholar-scraper_2026.html": dict(
        user="P1RwlvoAAAAJ", name="WENRUI ZUO", rows=5, partial=False, affiliation="The University of Edinburgh",
        org="4408345423101314415", email="ed.ac.uk", table=(39, 38, 4, 4, 2, 2, 2021), years=(2023, 2026),
        zero_years=[], some_bars={2023: 4, 2024: 7, 2025: 25, 2026: 2}, access=(2, 0), coauthors=[],
        first_title="Set in stone: Analysis of an immutable web3 social media platform"),
    "profile_amIMrIEAAAAJ_scholar-scraper_2026.html": dict(
        user="amIMrIEAAAAJ", name="Bangar Raju Cherukuri", rows=20, partial=True,
        affiliation="Senior .NET Web Developer", org=None, email="dc.gov", table=(425, 417, 11, 11, 11, 11, 2021),
        years=(2020, 2026), zero_years=[], some_bars={2020: 8, 2025: 95, 2026: 212}, access=None, coauthors=[],
        first_title="Optimization of Data Structures and Trade-Offs with Concurrency Control in Multithread "
                    "Software Structures Using Artificial Intelligence"),
    "profile_8daWuo4AAAAJ_en_pagesize2_bborrel_2019.html": dict(
        user="8daWuo4AAAAJ", name="Anne Kietzig", rows=2, partial=True,
        affiliation="Professor of Chemical Engineering, McGill Univeristy", org="13784427342582529234",
        email="mcgill.ca", table=(1338, 1149, 17, 16, 21, 21, 2014), years=(2009, 2019), zero_years=[],
        some_bars={2009: 6, 2018: 348, 2019: 83}, access=None, coauthors=[],
        first_title="Interaction of oxygen functionalized multi-walled carbon nanotube nanofluids with copper"),
}


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_real_profile(read_corpus, name: str) -> None:
    want = PROFILES[name]
    result = parsers.parse(read_corpus(f"scholar/{name}"))
    prof = profile_of(result)
    assert (result.site, result.page) == ("scholar", "profile")
    assert (prof.ids.scholar, prof.name, prof.affiliation) == (want["user"], want["name"], want["affiliation"])
    assert (prof.ids.scholar_org, prof.email_domain) == (want["org"], want["email"])
    m = prof.metrics
    got_table = (m.citations, m.citations_since, m.h_index, m.h_index_since, m.i10_index, m.i10_index_since,
                 m.since_year)
    assert got_table == want["table"]
    years = [y.year for y in prof.citations_by_year]
    assert years == list(range(want["years"][0], want["years"][1] + 1))
    by_year = {y.year: y.citations for y in prof.citations_by_year}
    assert [y for y, c in by_year.items() if c == 0] == want["zero_years"]
    assert {y: by_year[y] for y in want["some_bars"]} == want["some_bars"]
    access = prof.public_access and (prof.public_access.available, prof.public_access.not_available)
    assert access == want["access"]
    assert [c.name for c in prof.coauthors] == want["coauthors"]
    assert len(result.publications) == want["rows"]
    assert result.publications[0].title == want["first_title"]
    assert ("partial" in [w.code for w in result.warnings]) == want["partial"]
    assert prof.photo_url and want["user"] in prof.photo_url


def test_twelve_row_page_histogram_has_fourteen_years_two_of_them_zero(read_corpus) -> None:
    prof = profile_of(parsers.parse(read_corpus("scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html")))
    assert len(prof.citations_by_year) == 14
    assert sum(1 for y in prof.citations_by_year if y.citations == 0) == 2


def test_real_coauthor_details(read_corpus) -> None:
    prof = profile_of(parsers.parse(read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html")))
    first = prof.coauthors[0]
    assert (first.ids.scholar, first.affiliation, first.email_domain) == (
        "5RZfcocAAAAJ", "CSIR-Central Food Technological Research Institute, Mysuru", "cftri.res.in")
    assert first.url == "https://scholar.google.com/citations?user=5RZfcocAAAAJ&hl=en"


def test_real_rows_2019_data_href_and_empty_citations(read_corpus) -> None:
    result = parsers.parse(read_corpus("scholar/profile_8daWuo4AAAAJ_en_pagesize2_bborrel_2019.html"))
    first = result.publications[0]
    assert first.ids.scholar == "8daWuo4AAAAJ:NhqRSupF_l8C"
    assert first.authors == ["A Karthikeyan", "S Coulombe", "AM Kietzig", "RS Stein", "T van de Ven"]
    assert (first.venue, first.year, first.citations, first.ids.scholar_clusters) == \
        ("Carbon 140, 201-209", 2018, 0, [])
    assert profile_of(result).homepage == "http://kietzig-lab.mcgill.ca/"
    assert profile_of(result).interests == ["laser micromachining", "wetting", "biomimetics"]


def test_fr_page_gives_the_en_records_but_for_translated_links(read_corpus) -> None:
    def comparable(name: str) -> dict:
        data = to_builtins(parsers.parse(read_corpus(f"scholar/{name}")))
        data.pop("source")
        return json.loads(json.dumps(data).replace("hl=fr", "hl=en"))

    assert comparable("profile_8daWuo4AAAAJ_fr_bborrel_2019.html") == comparable(
        "profile_8daWuo4AAAAJ_en_pagesize2_bborrel_2019.html")


def test_einstein_fragment_rows(read_corpus) -> None:
    result = parsers.parse(read_corpus("scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"))
    assert (result.page, len(result.publications)) == ("rows", 1114)
    first, second = result.publications[:2]
    assert first.title == "Can quantum-mechanical description of physical reality be considered complete?"
    assert (first.authors, first.venue, first.year) == (["A Einstein", "B Podolsky", "N Rosen"],
                                                       "Physical Review 47 (10), 777", 1935)
    assert second.flags == ["merged_citations"] and len(second.ids.scholar_clusters) == 6
    assert second.citations == 15795
    duplicates = [p for p in result.publications if any(f.startswith("duplicate_of:") for f in p.flags)]
    assert "duplicate_of:qc6CJjYAAAAJ:oqD4_j7ulsYC" in duplicates[0].flags
    last = result.publications[-1]
    assert (last.citations, last.year, last.venue) == (0, None, None)


@pytest.mark.parametrize("name,code", [
    ("captcha_gs_captcha_ccl_search_geomap_2020.html", "blocked"),
    ("blocked_403_forbidden_output_cite_geomap_2020.html", "blocked"),
    ("invalid_user_AAAAAAAAAAAA_signin_redirect_scholar-scraper_2026.html", "not_found_or_private"),
    ("cite_popup_output_cite_fragment_geomap_2020.html", "unrecognised"),
    ("legacy2013_profile_M7uPknsAAAAJ_fragment_ruby-google-scholar.htm", "layout_changed"),
])
def test_pages_that_are_not_profiles(read_corpus, name: str, code: str) -> None:
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(read_corpus(f"scholar/{name}"))
    assert caught.value.code == code
    assert "\n" not in caught.value.message


def test_captcha_message_differs_from_403(read_corpus) -> None:
    messages = set()
    pages = ("captcha_gs_captcha_ccl_search_geomap_2020.html", "blocked_403_forbidden_output_cite_geomap_2020.html")
    for name in pages:
        with pytest.raises(parsers.Blocked) as caught:
            parsers.parse(read_corpus(f"scholar/{name}"))
        messages.add(caught.value.message)
    assert len(messages) == 2


def test_detect_names_the_parser(read_corpus) -> None:
    page = read_corpus("scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html")
    assert parsers.detect(page) == parsers.Detection(site="scholar", page="profile")
    assert parsers.detect(SEED.read_bytes()) == parsers.Detection(site="scholar", page="publication_list")


# --- bad input ------------------------------------------------------------------------------


def test_truncated_mid_table(read_corpus) -> None:
    page = read_corpus("scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html")
    cut = page[: page.index(b'class="gsc_a_tr"', page.index(b"gsc_a_b") + 5000)]
    with pytest.raises(parsers.Truncated):
        parsers.parse(cut)


def test_truncated_fragment() -> None:
    rows = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_text(encoding="utf-8")
    body = rows[rows.index('<tr class="gsc_a_tr">'): rows.rindex("</tbody>")]
    with pytest.raises(parsers.Truncated):
        parsers.parse(body[: len(body) // 2])


def test_profile_without_its_table_is_layout_changed() -> None:
    page = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_text(encoding="utf-8")
    with pytest.raises(parsers.LayoutChanged):
        parsers.parse(page.replace('id="gsc_a_t"', 'id="renamed"'))


@pytest.mark.parametrize("data,code", [
    (b"", "empty"),
    (b"   \n\t ", "empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "binary"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "binary"),
    (bytes(range(256)) * 16, "binary"),
    (b"<!doctype html><html><head><title>Example Domain</title></head><body><h1>Example</h1></body></html>",
     "unrecognised"),
    (b"# Some notes\n\nNothing to see here.\n", "unrecognised"),
    (gzip.compress(b"<html><body>x</body></html>")[:20], "truncated"),
])
def test_bad_inputs(data: bytes, code: str) -> None:
    with pytest.raises(parsers.ParseError) as caught:
        parsers.parse(data)
    assert caught.value.code == code


@pytest.mark.parametrize("name", ["cp1252_declared.html", "cp1252_undeclared.html"])
def test_windows_1252_saved_page(name: str) -> None:
    result = parsers.parse((DATA / name).read_bytes())
    assert profile_of(result).name == "Jürgen Müller"
    assert profile_of(result).affiliation == "Professeur – Université de Genève"
    assert result.publications[0].title == "Café “résumé” études"


def test_gzip_page_reads_like_the_page() -> None:
    raw = SEED.read_bytes()
    assert parsers.parse(gzip.compress(raw)) == parsers.parse(raw)


def test_str_input_equals_bytes_input() -> None:
    assert parsers.parse(SEED.read_text(encoding="utf-8")) == parsers.parse(SEED.read_bytes())


def test_saved_table_with_a_header_row_and_a_sidebar_heading() -> None:
    text = ("| Title | Cited by | Year |\n|---|---|---|\n" + SEED.read_text(encoding="utf-8")
            + "\nCo-authors\nJane Q Public\n")
    result = parsers.parse(text)
    assert len(result.publications) == 20
    assert [c.name for c in profile_of(result).coauthors] == ["He Yuxiong", "Jane Q Public"]
    assert result.warnings[-1].code == "ignored_line" and "Co-authors" in result.warnings[-1].message


def test_saved_table_rows_after_any_line_break_are_still_found() -> None:
    # The sniff first asks whether any line starts with "|": a row indented, or after a
    # lone carriage return or a Unicode line separator (str.splitlines' line breaks), still counts.
    rows = SEED.read_text(encoding="utf-8").splitlines()
    text = "Saved | copy\r  " + "\r".join(rows[:10]) + "\u2028 \t" + "\u2028".join(rows[10:])
    assert len(parsers.parse(text).publications) == 20


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_saved_table_cut_inside_a_row_keeps_the_rows_before_and_says_truncated(newline: str) -> None:
    # Cuts of the seed from the end of its first row to the end of its last (every one through row 4, then
    # those about each row's end): the rows before the cut as the whole text has them, and `truncated`
    # exactly when the cut leaves part of a row's line.
    text = newline.join(SEED.read_text(encoding="utf-8").splitlines())
    whole = parsers.parse(text).publications
    ends = [m.end() for m in re.finditer(r"\|\s*\d{4}\s*\|(?=\r?\n)", text)]
    assert len(ends) == len(SEED_ROWS)
    near_each_end = {at for end in ends for at in range(end - 14, end + 6)}  # in the cells, the line break, the bar
    for at in sorted({*range(ends[0], ends[3]), *near_each_end} & set(range(ends[0], ends[-1] + 1))):
        cut = text[:at]
        rows = sum(1 for end in ends if end <= at)
        inside = at not in ends and re.split(r"\r|\n", cut)[-1].strip() not in ("", "|")  # a lone bar: a rule
        result = parsers.parse(cut)
        assert result.publications == whole[:rows], at
        truncated = [w.message for w in result.warnings if w.code == "truncated"]
        assert bool(truncated) == inside, (at, truncated)
        assert not [w for w in result.warnings if w.code == "ignored_line"], at
        if inside:
            assert truncated[0].startswith(f"the text stops inside the row after row {rows}: ")


def test_a_saved_table_ending_in_a_header_line_is_not_cut() -> None:
    result = parsers.parse(SEED.read_text(encoding="utf-8") + "\n| Title | Cited by | Year |\n")
    assert len(result.publications) == 20 and "truncated" not in {w.code for w in result.warnings}
    assert result.warnings[-1].code == "ignored_line" and "Cited by" in result.warnings[-1].message


def test_text_with_a_bar_inside_its_lines_is_not_a_saved_table() -> None:
    with pytest.raises(parsers.Unrecognised):
        parsers.parse("Results | 2020 | 3 |\nnot a table row either |\n")


@pytest.mark.parametrize("cell,title,authors,venue", [
    ("A study of things J-P Dupont, M O'Neil Journal of Stuff 3, 1-9, 2019",
     "A study of things", "J-P Dupont, M O'Neil", "Journal of Stuff 3, 1-9"),
    ("A Review of Vitamin A Deficiency K Smith Nutrition Reviews 12, 2001",
     "A Review of Vitamin A Deficiency", "K Smith", "Nutrition Reviews 12"),
    ("Yearless thing A Bee, C Dee", "Yearless thing", "A Bee, C Dee", ""),
])
def test_saved_table_cell_split(cell: str, title: str, authors: str, venue: str) -> None:
    from pubharvest.parsers.scholar.saved_table import split_title_authors_venue

    assert split_title_authors_venue(cell) == (title, authors, venue)


def test_page_cut_after_its_table_parses_with_a_warning(read_corpus) -> None:
    page = read_corpus("scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html")
    cut = page[: page.index(b"</button>", page.index(b'id="gsc_bpf_more"')) + 9]
    result = parsers.parse(cut)
    assert len(result.publications) == 12
    assert [w.code for w in result.warnings] == ["truncated"]


def test_damaged_gzip_is_truncated_not_a_traceback() -> None:
    packed = bytearray(gzip.compress(b"<html><body>" + b"x" * 5000 + b"</body></html>"))
    packed[20:30] = b"\xff" * 10
    with pytest.raises(parsers.Truncated):
        parsers.parse(bytes(packed))


def test_rows_seen_twice_across_pages_are_one_record_by_the_parsers_rule() -> None:
    """Scholar's pages of one profile go through the same ``listings.distinct`` as MSR and Elamur
    listings: the same row id once; a row without an id joins a row of the same title."""
    from pubharvest.parsers.listings import distinct
    from pubharvest.parsers.records import PageResult, Publication, PublicationIds

    result = PageResult(site="scholar", page="profile")
    rows = [Publication(title="Deep nets", citations=3, ids=PublicationIds(scholar="U:1", scholar_clusters=["7"])),
            Publication(title="Other", ids=PublicationIds(scholar="U:2")),
            Publication(title="Deep nets", citations=4, ids=PublicationIds(scholar="U:1", scholar_clusters=["8"])),
            Publication(title="Other", ids=PublicationIds(scholar="U:3")),  # another row id: another paper
            Publication(title="Other", year=2020)]  # no id: the first row of that title
    kept = distinct(rows, result)
    assert [(p.ids.scholar, p.citations, p.year) for p in kept] == [("U:1", 3, None), ("U:2", None, 2020),
                                                                    ("U:3", None, None)]
    assert kept[0].ids.scholar_clusters == ["7", "8"]
    assert [w.code for w in result.warnings] == ["listings_disagree"]
    assert "citations: kept 3, not 4" in result.warnings[0].message


def test_sign_in_and_captcha_pages_are_scholars_own_refusals() -> None:
    """The generic page module knows only the 403 page; Scholar's module refuses its own pages."""
    from pubharvest.parsers import scholar
    from pubharvest.parsers.page import Document, refuse_forbidden

    signin = Document.from_input(b'<html><head><meta http-equiv="refresh" '
                                 b'content="0;url=https://accounts.google.com/v3/signin/identifier"></head></html>')
    captcha = Document.from_input(b'<html><body><div id="gs_captcha_ccl">captcha</div></body></html>')
    for doc in (signin, captcha):
        refuse_forbidden(doc)  # nothing generic about them
    with pytest.raises(parsers.NotFoundOrPrivate):
        scholar.refuse(signin)
    with pytest.raises(parsers.Blocked):
        scholar.refuse(captcha)
    assert 'id="gs_captcha_ccl"' in scholar.SITE.block_markers
    with pytest.raises(parsers.Blocked):
        parsers.parse(b'<html><body><form id="captcha-form">captcha</form></body></html>')


# --- invariants: a renamed class is never a silently hollow record ----------------

NO_ARTICLES = '<tr class="gsc_a_tr"><td class="gsc_a_e" colspan="3">There are no articles in this profile.</td></tr>'
RXMM = "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html"


def _ja_page_with_rows(rows: str) -> str:
    page = (FIXTURES / "scholar" / "handwritten_ja_profile.html").read_text(encoding="utf-8")
    start = page.index('<tbody id="gsc_a_b">') + len('<tbody id="gsc_a_b">')
    return page[:start] + rows + page[page.index("</tbody>", start):].replace("記事 1–4", "")


def test_no_articles_row_is_no_publication() -> None:
    result = parsers.parse(_ja_page_with_rows(NO_ARTICLES).replace("1234", "0"))
    assert result.publications == []


def test_no_articles_row_past_the_end_warns() -> None:
    page = _ja_page_with_rows(NO_ARTICLES).encode("utf-8")
    result = parsers.parse(page, url="https://scholar.google.com/citations?user=Yamada12AAAAJ&cstart=100")
    assert result.publications == [] and "past_end" in [w.code for w in result.warnings]


def codes(result: parsers.PageResult) -> list[str]:
    return [w.code for w in result.warnings]


def test_renamed_row_class_is_layout_changed_not_zero_rows(read_corpus) -> None:
    page = read_corpus(RXMM)
    for variant in (page.replace(b'class="gsc_a_tr"', b'class="gsc_x_tr"'),
                    re.sub(rb'(<tbody id="gsc_a_b">).*?(</tbody>)', rb"\1\2", page, flags=re.S)):
        with pytest.raises(parsers.LayoutChanged, match="1–20"):
            parsers.parse(variant)


@pytest.mark.parametrize("old,new,field", [
    (b"gsc_a_ac", b"gsc_x_ac", "citation count"), (b'"gsc_a_y"', b'"gsc_x_y"', "year"),
    (b"gs_gray", b"gs_grey", "authors and venue"),
])
def test_renamed_cell_class_names_the_column(read_corpus, old: bytes, new: bytes, field: str) -> None:
    """A field unread on every row is the column's drift (``column_unreadable``, untrusted), not some rows'."""
    result = parsers.parse(read_corpus(RXMM).replace(old, new))
    message = next(w.message for w in result.warnings if w.code == "column_unreadable")
    assert message.startswith("none of the 20 publication rows has its") and field in message
    assert "rows_unreadable" not in codes(result)


def test_a_field_unread_on_some_rows_names_those_rows(read_corpus) -> None:
    page = read_corpus(RXMM).replace(b'class="gsc_a_ac gs_ibl"', b'class="gs_ibl"', 3)
    result = parsers.parse(page)
    message = next(w.message for w in result.warnings if w.code == "rows_unreadable")
    assert message.startswith("rows 1–3 of 20") and "citation count" in message
    assert "column_unreadable" not in codes(result)


def test_renamed_title_link_is_layout_changed(read_corpus) -> None:
    with pytest.raises(parsers.LayoutChanged, match="title link"):
        parsers.parse(read_corpus(RXMM).replace(b"gsc_a_at", b"gsc_x_at"))


@pytest.mark.parametrize("old,new", [(b"gsc_rsb_st", b"gsc_x_st"), (b"gsc_rsb_std", b"gsc_x_std"),
                                     (b"gsc_g_a", b"gsc_x_a"), (b"gsc_g_t", b"gsc_x_t")])
def test_renamed_sidebar_class_warns(read_corpus, old: bytes, new: bytes) -> None:
    result = parsers.parse(read_corpus(RXMM).replace(old, new))
    assert "profile_unreadable" in codes(result)


def test_rows_repeated_are_flagged(read_corpus) -> None:
    page = read_corpus(RXMM)
    first = page.index(b'<tr class="gsc_a_tr"')
    end = page.index(b"</tbody>", first)
    result = parsers.parse(page[:first] + page[first:end] * 2 + page[end:])
    assert {"row_count", "duplicate_rows"} <= set(codes(result))


def test_deep_nesting_is_truncated_not_cut_silently(read_corpus) -> None:
    page = read_corpus(RXMM)
    row = page.index(b'<tr class="gsc_a_tr"', page.index(b'<tr class="gsc_a_tr"') + 10)
    with pytest.raises(parsers.Truncated):
        parsers.parse(page[:row] + b"<div>" * 3000 + page[row:])



@pytest.mark.parametrize("header", ["<div id='gsc_prf_in'>", "<div id=gsc_prf_in>", "<div id=gsc_prf_in class=x>"])
def test_a_profile_header_quoted_any_way_is_a_profile(header: str) -> None:
    """The sniff looks for ``gsc_prf_in`` once before its quotings; each quoting still makes a profile (on a
    page with no other sign of Scholar, so that the header alone decides)."""
    page = f"<html><head><title>x</title></head><body>{header}Ada</div></body></html>"
    assert parsers.detect(page.encode("utf-8")) == parsers.Detection(site="scholar", page="profile")
    with pytest.raises(parsers.Unrecognised):
        parsers.detect(page.replace("gsc_prf_in", "gsc_prf_xx").encode("utf-8"))
