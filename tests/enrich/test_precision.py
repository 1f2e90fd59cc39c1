"""Precision first, on every recorded search answer of the corpus: a page made from each work of an
answer (its title, its first author as Scholar writes one, "C Boettiger", its year) is matched
against the whole answer. It must get its own work or nothing, never another; a page whose year is
two off, or whose first author is someone else, must get nothing.

Which works are refused, and why, was judged by hand from the answers' listings:
- a work that is no paper (a data set, a peer review, a work of no stated type) is refused;
- a preprint and its published version of one year both fit: neither is taken (ambiguous); of
  different years, the page's very year decides.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from recorded import RAW, body

from pubharvest.enrich import crossref, openalex
from pubharvest.enrich.client import Answer
from pubharvest.enrich.run import find
from pubharvest.enrich.verify import MIN_TITLE_SIMILARITY, title_similarity
from pubharvest.enrich.work import Work
from pubharvest.names import split_name
from pubharvest.parsers.records import PageResult, Publication

SEARCHES = {
    "sckott__habanero__crossref_works_query_ecology_rows2.yaml": ("crossref", crossref),
    "sckott__habanero__crossref_works_query_author_boettiger.yaml": ("crossref", crossref),
    "sckott__habanero__crossref_journal_works_query_bibliographic_fish.yaml": ("crossref", crossref),
    "sckott__habanero__crossref_works_query_select_plain.yaml": ("crossref", crossref),
    "anapaulagomes__peneira__openalex_works_search_ml_public_health.json": ("openalex", openalex),
}
# Works that no page gets, by answer, each judged by hand (the reason in the comment)
NOT_TAKEN = {
    "sckott__habanero__crossref_works_query_ecology_rows2.yaml": {
        "10.1093/obo/9780199830060-0238",  # "Communicating Ecology": no author to compare
    },
    "sckott__habanero__crossref_works_query_author_boettiger.yaml": {
        "10.32614/cran.package.rfishbase",  # a dataset (an R package), not a paper
    },
    "sckott__habanero__crossref_journal_works_query_bibliographic_fish.yaml": set(),
    "sckott__habanero__crossref_works_query_select_plain.yaml": {
        # select=DOI,title,author,published: no type, so nothing says these are papers
        "10.1093/obo/9780199830060-0238", "10.1093/obo/9780199830060-0026", "10.1093/obo/9780199830060-0202",
    },
    "anapaulagomes__peneira__openalex_works_search_ml_public_health.json": {
        "W4367333911", "W4367311973", "W4367333989",  # eLife decision letter, author response, evaluation: reviews
        # "Connecting Fairness in Machine Learning with Public Health Equity": arXiv preprint and ICHI paper, 2023
        "W4365441044", "W4389543639",
        # "Crowdsourcing for Machine Learning in Public Health Surveillance": two 2021 preprints (OSF, JMIR)
        # (the 2022 JMIR article is taken: the page's year decides)
        "W4242624664", "W4243312951",
        # "Completion of the Transfer of the Online Journal of Public Health Informatics": article and preprint, 2023
        "W4385698099", "W4385961274",
    },
}


def scholar_author(name: str | None) -> list[str]:
    """A name as a Scholar row writes it: initials, then the family name ("Carl Boettiger" -> "C Boettiger")."""
    if not name:
        return []
    parts = split_name(name)
    if parts.literal:
        return [parts.literal]
    initials = "".join(word[0] for word in (parts.given or "").replace("-", " ").split() if word[0].isalpha())
    return [" ".join(filter(None, [initials, parts.particle, parts.family]))]


def page_of(work: Work, **changes) -> Publication:
    return Publication(**{"title": work.claim.title, "authors": scholar_author(work.claim.first_author),
                          "year": work.claim.year, **changes})


def found(service: str, answer: bytes, pub: Publication) -> Work | None:
    async def ask(_service: str, _key: str) -> Answer:
        return Answer(200, answer, "http://stand-in/works", "2026-12-04")

    match = asyncio.run(find(ask, service, PageResult(site="scholar", page="rows"), pub, None, 5))
    return None if match is None else match.work


def name(work: Work) -> str:
    return work.doi if work.doi and work.openalex is None else work.openalex or ""


@pytest.mark.parametrize("file", list(SEARCHES))
def test_each_work_matches_itself_or_nothing(corpus: Path, file: str) -> None:
    service, module = SEARCHES[file]
    answer = body(corpus / RAW / file)
    works = module.works(module_answer(answer), "query")
    not_taken = set()
    for work in works:
        match = found(service, answer, page_of(work))
        if match is None:
            not_taken.add(name(work))
        else:
            assert name(match) == name(work), f"{work.claim.title!r} matched {match.claim.title!r}"
    assert not_taken == NOT_TAKEN[file]


@pytest.mark.parametrize("file", list(SEARCHES))
def test_near_misses_match_nothing(corpus: Path, file: str) -> None:
    """Each work's page two years off, or with another first author: not that work."""
    service, module = SEARCHES[file]
    answer = body(corpus / RAW / file)
    for work in module.works(module_answer(answer), "query"):
        if work.claim.year is not None:
            off = found(service, answer, page_of(work, year=work.claim.year + 2))
            # another version of the paper within a year of the page's (a preprint's journal article) may fit: the
            # JMIR preprint "... Amazon Mechanical Turk (Preprint)" of 2021, put at 2023, gets the 2022 article
            fits = off is None or (off.claim.year is not None and abs(off.claim.year - work.claim.year - 2) <= 1
                                   and title_similarity(work.claim, off.claim) >= MIN_TITLE_SIMILARITY)
            assert fits, work.claim.title
        assert found(service, answer, page_of(work, authors=["Z Nobody"])) is None


def module_answer(answer: bytes) -> object:
    import json

    return json.loads(answer)
