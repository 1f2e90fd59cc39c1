"""Targeted checks of the Elamur parser; full expected records live in fixtures/elamur/."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES, ROOT

import pubharvest.parsers as parsers
from pubharvest.parsers import elamur
from pubharvest.parsers.elamur.publications import split_title
from pubharvest.parsers.page import Document
from pubharvest.parsers.records import Profile, to_builtins


def profile_of(result: parsers.PageResult) -> Profile:
    """The page's profile, which these pages all have."""
    assert result.profile is not None
    return result.profile

HERE = FIXTURES / "elamur"
BAD = ROOT / "tests" / "data" / "elamur"
SEED = HERE / "000_e63c2e80f8ecde3e.txt"
MULTILINE = HERE / "000_multiline.md"
SECOND = HERE / "010_handwritten_quintero.txt"


def records(data: bytes | str) -> dict:
    result = to_builtins(parsers.parse(data))
    result.pop("source")
    return result


@pytest.fixture(scope="module")
def seed() -> parsers.PageResult:
    return parsers.parse(SEED.read_bytes())


def test_seed_is_one_line() -> None:
    assert b"\n" not in SEED.read_bytes()


def test_seed_profile_head(seed: parsers.PageResult) -> None:
    profile = profile_of(seed)
    assert (seed.site, seed.page) == ("elamur", "profile")
    assert profile.name == "Olatunji Ruwase"
    assert profile.url == seed.url == "https://research.elamur.ai/free/en/authors/olatunji-ruwase/"
    assert profile.markdown_url == "https://md.research.elamur.ai/free/en/authors/olatunji-ruwase/"
    assert (profile.ids.elamur, profile.ids.openalex, profile.ids.orcid, profile.ids.wikidata) == (
        "olatunji-ruwase", "A5022644245", "0000-0002-5508-0728", "Q131023905")
    assert (profile.snapshot_date, profile.updated) == ("2026-10-14", "2026-11-02")
    assert seed.warnings == []


def test_seed_headline_affiliation_is_the_title_one_not_the_first_listed(seed: parsers.PageResult) -> None:
    assert profile_of(seed).affiliation == "Bellevue College"
    assert profile_of(seed).affiliations[0].name == "Snowflake Inc."


def test_seed_five_affiliations(seed: parsers.PageResult) -> None:
    affiliations = profile_of(seed).affiliations
    assert [(a.name, a.kind, a.current) for a in affiliations] == [
        ("Snowflake Inc.", "company", True),
        ("Bellevue College", "education", True),
        ("Overlake Hospital Medical Center", "healthcare", True),
        ("Microsoft", "company", False),
        ("Carnegie Mellon University", "education", False),
    ]
    microsoft = affiliations[3]
    assert (microsoft.city, microsoft.country, microsoft.start_year, microsoft.end_year, microsoft.papers) == (
        "Redmond", "United States", 2014, 2025, 25)
    assert (affiliations[1].start_year, affiliations[1].end_year) == (2026, 2026)


def test_seed_three_kinds_of_work_counts_stay_apart(seed: parsers.PageResult) -> None:
    metrics = profile_of(seed).metrics
    assert (metrics.works, metrics.library_works, metrics.library_works_all) == (72, 2, 3)
    assert (metrics.h_index, metrics.citations, metrics.library_citations, metrics.rank) == (22, 4916, 2743, 3972)
    assert (metrics.library_citing_papers, metrics.library_papers_read) == (537, 149439)


def test_seed_eight_coauthors(seed: parsers.PageResult) -> None:
    coauthors = profile_of(seed).coauthors
    assert len(coauthors) == 8
    assert [(c.name, c.papers) for c in coauthors[:3]] == [
        ("Samyam Rajbhandari", 2), ("Yuxiong He", 2), ("Dong Li", 1)]
    assert coauthors[-1].ids.elamur == "shaden-smith"


def test_seed_topics_keep_shelf_level_and_counts(seed: parsers.PageResult) -> None:
    topics = profile_of(seed).topics
    assert [t.kind for t in topics] == ["field"] + ["subfield"] * 4 + ["topic"]
    assert (topics[-1].name, topics[-1].count) == ("GPU & parallel computing", 1)


def test_seed_three_distinct_works(seed: parsers.PageResult) -> None:
    offload, infinity, bloom = seed.publications
    assert offload.title == "ZeRO-Offload: Democratizing Billion-Scale Model Training"
    assert (offload.ids.arxiv, offload.venue, offload.citations) == ("2101.06840", None, 309)
    assert (offload.summary or "").startswith("Training models with billions")
    assert infinity.title == "ZeRO-Infinity: Breaking the GPU Memory Wall for Extreme Scale Deep Learning"
    assert infinity.venue == "SC 2021"
    assert infinity.authors == ["Samyam Rajbhandari", "Olatunji Ruwase", "Jeff Rasley"]
    assert infinity.authors_truncated
    assert bloom.title == "BLOOM: A 176B-Parameter Open-Access Multilingual Language Model"
    assert (bloom.url, bloom.ids.arxiv, bloom.ids.elamur, bloom.summary) == (
        "https://arxiv.org/abs/2211.05100", "2211.05100", None, None)
    assert (bloom.authors, bloom.authors_truncated, bloom.year, bloom.citations) == (
        ["BigScience Workshop"], True, 2022, 1606)


def test_search_links_are_not_ids(seed: parsers.PageResult) -> None:
    searches = [link for link in profile_of(seed).links if link.kind == "search"]
    assert [link.label for link in searches] == ["Google Scholar", "Semantic Scholar", "dblp", "ACL Anthology"]
    assert profile_of(seed).ids.scholar is None


def test_one_line_and_multi_line_forms_agree() -> None:
    assert records(SEED.read_bytes()) == records(MULTILINE.read_bytes())


def test_collapsing_the_multi_line_form_changes_nothing() -> None:
    text = MULTILINE.read_text(encoding="utf-8")
    assert records(re.sub(r"\s+", " ", text)) == records(text)
    # Newlines that vanish without a space change nothing either.
    assert records(re.sub(r"\n(?=[\[*])", "", text)) == records(text)


def test_a_leading_comment_line_changes_nothing() -> None:
    seed = SEED.read_text(encoding="utf-8")
    assert records("<!-- saved by hand -->\n" + seed) == records(seed)
    assert records("[//]: # (saved by hand)\n" + seed) == records(seed)


def test_second_page_shapes() -> None:
    result = parsers.parse(SECOND.read_bytes())
    profile = profile_of(result)
    assert profile.name == "Ana María Quintero"
    assert profile.ids.orcid is None
    assert len(profile.affiliations) == 1 and profile.affiliations[0].papers == 1204
    assert profile.coauthors == []
    assert profile.metrics.citations == 48207
    assert "Natural language processing for low-resource languages" in [t.name for t in profile.topics]
    assert [w.year for w in profile.works_by_year] == [2018, 2021, 2023]
    # Item text holding " - ", "v2. " or a closing number is not cut into another item.
    assert len(result.publications) == 4
    assert (result.publications[1].summary or "").endswith("Quechua by 2.")


def test_detect_and_sniff() -> None:
    assert parsers.detect(SEED.read_bytes()) == parsers.Detection(site="elamur", page="profile")
    assert elamur.sniff(Document.from_input(MULTILINE.read_bytes())) == "profile"
    others = (FIXTURES / "scholar/003_9ea93ed9343d2054.txt", FIXTURES / "msr/001_0be51d225ce2b3fb.txt",
              BAD / "020_other_site.md")
    for other in others:
        assert elamur.sniff(Document.from_input(other.read_bytes())) is None, other


@pytest.mark.parametrize("case,says", [("021_paper_page.txt", "paper page"), ("022_topic_page.md", "topic page")])
def test_other_elamur_pages_say_what_they_are(case: str, says: str) -> None:
    with pytest.raises(parsers.Unrecognised, match=says):
        parsers.parse((BAD / case).read_bytes())


def test_a_cut_multi_line_page_is_truncated() -> None:
    text = MULTILINE.read_text(encoding="utf-8")
    with pytest.raises(parsers.Truncated):
        parsers.parse(text[: text.index("## Venues")])


def test_a_stated_count_that_disagrees_is_a_warning() -> None:
    text = SEED.read_text(encoding="utf-8").replace("8 co-authors with a page", "9 co-authors with a page")
    result = parsers.parse(text)
    assert [w.code for w in result.warnings] == ["count_mismatch"]
    assert len(profile_of(result).coauthors) == 8


def test_an_unknown_section_is_skipped_with_a_warning() -> None:
    text = SEED.read_text(encoding="utf-8").replace(" ## Venues ", " ## Awards Best paper. ## Venues ")
    result = parsers.parse(text)
    assert [w.code for w in result.warnings] == ["unknown_section"]
    assert profile_of(result).venues == ["SC 2021"]


def test_title_and_venue_split_by_venue_list_when_no_paper_title_is_known() -> None:
    assert split_title("Deep Nets LREC 2023", None, ["LREC 2023"], None) == ("Deep Nets", "LREC 2023", None)
    assert split_title("Deep Nets arXiv:2101.06840v2", None, [], None) == ("Deep Nets", None, "2101.06840")


def test_name_found_from_the_breadcrumb_when_the_intro_does_not_repeat_it() -> None:
    text = SEED.read_text(encoding="utf-8").replace("Ruwase Olatunji Ruwase has 2", "Ruwase This author has 2")
    result = parsers.parse(text)
    assert profile_of(result).name == "Olatunji Ruwase"
    assert records(text)["profile"]["affiliations"] == records(SEED.read_bytes())["profile"]["affiliations"]


def test_italics_inside_a_summary_are_kept() -> None:
    text = SEED.read_text(encoding="utf-8").replace("the parameters, gradients", "the *parameters*, gradients")
    summary = parsers.parse(text).publications[0].summary
    assert (summary or "").endswith("can hold the parameters, gradients and optimizer states.")


def test_one_more_work_without_a_page_adds_up() -> None:
    text = SEED.read_text(encoding="utf-8").replace("[1 more in our library", "[2 more in our library")
    assert [w.code for w in parsers.parse(text).warnings] == ["count_mismatch"]


def test_papers_and_all_works_that_disagree_keep_one_record_and_warn_listings_disagree() -> None:
    """The same paper in *Papers* and *All works* is one record (``listings.distinct``): the first
    listing's count stays, and the disagreement is the one warning code every site uses."""
    text = MULTILINE.read_text(encoding="utf-8")
    line = "*(2021 · 309 citations)*"
    assert text.count(line) == 1
    result = parsers.parse(text.replace(line, "*(2021 · 310 citations)*"))
    offload = [p for p in result.publications if (p.title or "").startswith("ZeRO-Offload")]
    assert len(offload) == 1 and offload[0].citations == 310
    assert [w.code for w in result.warnings] == ["listings_disagree"]
    assert "citations: kept 310, not 309" in result.warnings[0].message


@pytest.mark.parametrize("closing", ["Actualizado el 2 de noviembre de 2026", "Aktualisiert am 2. November 2026",
                                     "Mis à jour le 2 novembre 2026", "Bijgewerkt op 2 november 2026"])
def test_the_closing_date_reads_in_any_language(closing: str) -> None:
    page = MULTILINE.read_text(encoding="utf-8").replace("Updated 2 November 2026", closing)
    result = parsers.parse(page.encode("utf-8"))
    assert result.profile is not None and result.profile.updated == "2026-11-02" and not result.warnings


def test_a_closing_month_in_no_known_language_is_the_year_with_a_warning() -> None:
    page = MULTILINE.read_text(encoding="utf-8").replace("Updated 2 November 2026", "Updated 2 Brumaire 2026")
    result = parsers.parse(page.encode("utf-8"))
    assert result.profile is not None and result.profile.updated == "2026"
    assert [w.code for w in result.warnings] == ["profile_unreadable"] and "Brumaire" in result.warnings[0].message


def test_a_page_cut_before_its_closing_date_is_truncated() -> None:
    page = MULTILINE.read_text(encoding="utf-8").replace("Updated 2 November 2026", "Updated 2 November")
    with pytest.raises(parsers.Truncated):
        parsers.parse(page.encode("utf-8"))
