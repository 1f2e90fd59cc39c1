"""Entries matched to papers: ids first, then merge's title and year rule; each paper once."""

from __future__ import annotations

from pubharvest.merge import Paper, SourceRecord
from pubharvest.parsers.records import PublicationIds
from pubharvest.sync.matching import EntryFacts, match_entries


def paper(key: str, title: str, year: int | None, doi: str | None = None, arxiv: str | None = None,
          scholar: str | None = None) -> Paper:
    ids = PublicationIds(doi=doi, arxiv=arxiv, scholar=scholar)
    return Paper(key=key, title=title, year=year, ids=ids, sources=[SourceRecord(site="scholar", title=title,
                                                                                 year=year, ids=ids)])


PAPERS = [paper("doi", "Alpha beta", 2020, doi="10.1145/AbC"),
          paper("arx", "Gamma delta", 2019, arxiv="2101.00001"),
          paper("gs", "Epsilon", 2018, scholar="USERxxAAAAJ:PubId_1"),
          paper("t1", "Same title", 2010), paper("t2", "Same title", 2011), paper("t3", "Lonely paper", 2015)]


def keys(entries: list[EntryFacts]) -> list[str | None]:
    return [p.key if p else None for p in match_entries(entries, PAPERS)]


def test_ids_match_however_they_are_spelt() -> None:
    assert keys([EntryFacts(ids={"doi": "https://doi.org/10.1145/abc"}, title="Something else"),
                 EntryFacts(ids={"arxiv": "arXiv:2101.00001v4"}),
                 EntryFacts(ids={"scholar": "PubId_1"})]) == ["doi", "arx", "gs"]


def test_a_scholar_pub_id_is_case_sensitive() -> None:
    assert keys([EntryFacts(ids={"scholar": "pubid_1"})]) == [None]


def test_titles_match_within_a_year_and_not_beyond() -> None:
    assert keys([EntryFacts(title="{LONELY} Paper", year=2016)]) == ["t3"]
    assert keys([EntryFacts(title="Lonely paper", year=2013)]) == [None]
    assert keys([EntryFacts(title="Lonely paper")]) == ["t3"]  # no year: the title alone


def test_a_title_two_papers_share_matches_neither() -> None:
    assert keys([EntryFacts(title="Same title", year=2010)]) == [None]  # 2010 and 2011 both within a year
    assert keys([EntryFacts(title="Same title", year=2009)]) == ["t1"]  # 2011 is two years off


def test_a_paper_two_entries_claim_goes_to_neither() -> None:
    assert keys([EntryFacts(title="Lonely paper"), EntryFacts(title="lonely PAPER", year=2015)]) == [None, None]


def test_an_id_match_wins_over_a_title_match_of_the_same_paper() -> None:
    assert keys([EntryFacts(title="Alpha beta", year=2020), EntryFacts(ids={"doi": "10.1145/abc"})]) == [None, "doi"]


def test_ids_naming_two_papers_match_none() -> None:
    assert keys([EntryFacts(ids={"doi": "10.1145/abc", "arxiv": "2101.00001"})]) == [None]


def test_a_page_links_its_doi_through_a_publishers_address_too() -> None:
    from pubharvest.sync.sites import page_facts
    facts = page_facts({"title": "Long-term change", "url_pdf": "https://onlinelibrary.wiley.com/doi/pdf/10.1111/"
                        "j.1600-0587.2008.05526.x", "links": [{"url": "https://arxiv.org/abs/0704.0001v2"}]},
                       ["url_pdf"])
    assert facts.ids == {"doi": "10.1111/j.1600-0587.2008.05526.x", "arxiv": "0704.0001"}
