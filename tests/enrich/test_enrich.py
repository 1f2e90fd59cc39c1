"""``--enrich crossref,openalex`` against stand-ins serving the corpus's recorded Crossref and OpenAlex
answers (``enrichment/raw/``, never copied here): a DOI the page gives confirmed and completed, a
search match accepted, near misses refused, a 404, a 429 with Retry-After, a redirect to a versioned
DOI, an answer that is no JSON, a huge answer, and a second run answered from the cache alone.

Every expected value was read by hand from the recorded answer named beside it.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest
from enrichapi import CONTACT, Api, cache_at, stand_ins

from pubharvest.enrich import enrich
from pubharvest.parsers.records import (
    Coauthor,
    PageResult,
    Profile,
    Provenance,
    Publication,
    PublicationIds,
    YearCitations,
    json_schema,
    to_builtins,
    to_json,
)

ACM = "front-matter__commonmeta-py__crossref_works_doi_3_incl_acm_proceedings.yaml"  # 3rd: 10.1145/3448016.3452841
ACM_OPENALEX = "front-matter__commonmeta-py__openalex_works_doi_acm_proceedings.yaml"
BOETTIGER = "sckott__habanero__crossref_works_query_author_boettiger.yaml"  # 20 works, query.author=carl boettiger
NOT_FOUND = "sckott__habanero__crossref_works_doi_404.yaml"
REDIRECT = "sckott__serrano__crossref_works_doi_301_redirect.yml"
ACM_DOI = "10.1145/3448016.3452841"


@pytest.fixture(scope="module")
def api(corpus: Path):
    with stand_ins(corpus) as api:
        api.serve_file("crossref", "/works/10[.]1145/3448016[.]3452841", ACM, 2)
        api.serve_file("openalex", "/works/https://doi[.]org/10[.]1145/3448016[.]3452841", ACM_OPENALEX)
        api.serve_file("crossref", "/works", BOETTIGER)
        api.serve_file("crossref", "/works/10[.]1371/notarealdoi", NOT_FOUND)
        api.serve_file("crossref", "/works/10[.]26434/chemrxiv[.]5406907", REDIRECT, 0)
        api.serve_file("crossref", "/works/10[.]26434/chemrxiv[.]5406907[.]v5", REDIRECT, 1)
        api.crossref.answer("html", 200, [("Content-Type", "text/html")], b"<html><body>Maintenance</body></html>")
        api.crossref.route("/works/10[.]9999/html", "html")
        yield api


def vqf(**changes) -> Publication:
    """The VQF paper as a Scholar row gives it: the DOI of a publisher link (what the page-id readers find)."""
    fields = {"title": "Vector quotient filters: Overcoming the time/space trade-off in filter design",
              "authors": ["P Pandey", "A Conway", "J Durie", "MA Bender", "M Farach-Colton", "R Johnson"],
              "year": 2021, "ids": PublicationIds(doi=ACM_DOI)}
    return Publication(**{**fields, **changes})


def profile_page(*publications: Publication, name: str | None = "Prashant Pandey", coauthors=()) -> PageResult:
    return PageResult(site="scholar", page="profile",
                      profile=Profile(name=name, coauthors=[Coauthor(name=c) for c in coauthors]),
                      publications=list(publications))


def new_requests(api: Api, before: list[str]) -> list[str]:
    seen = list(before)
    fresh = []
    for path in api.requests():
        if path in seen:
            seen.remove(path)
        else:
            fresh.append(path)
    return fresh


def accepted(pub: Publication, field: str) -> list[Provenance]:
    return [p for p in pub.provenance if p.field == field and p.accepted]


def test_a_doi_on_the_page_confirmed_and_completed(api: Api) -> None:
    page = profile_page(vqf(), coauthors=["Alex Conway", "Michael A. Bender"])
    before = api.requests()
    enrich([page], api.options())
    pub, profile = page.publications[0], page.profile
    assert page.warnings == [] and profile is not None and pub.open_access is not None
    # Crossref's /works/10.1145/3448016.3452841: container-title, page, publisher, issued 2021-06-09
    assert (pub.container, pub.pages, pub.publisher, pub.date, pub.type) == (
        "Proceedings of the 2021 International Conference on Management of Data", "1386-1399", "ACM", "2021-06-09",
        "paper-conference")
    assert pub.ids.doi == ACM_DOI and pub.year == 2021  # the page's own, confirmed
    confirmed = accepted(pub, "ids.doi")
    assert [(p.source, p.method, p.score) for p in confirmed] == [("crossref", "doi", 1.0), ("openalex", "doi", 1.0)]
    # OpenAlex's W3174427814: gold open access, 39 citations, counts 2021..2026 (no year missing here)
    assert pub.ids.openalex == "W3174427814"
    assert (pub.open_access.is_oa, pub.open_access.status, pub.open_access.url) == (
        True, "gold", "https://dl.acm.org/doi/pdf/10.1145/3448016.3452841")
    cited = pub.cited_by[0]
    assert (cited.source, cited.citations) == ("openalex", 39)
    assert cited.by_year == [YearCitations(year=y, citations=n) for y, n in
                             [(2021, 1), (2022, 3), (2023, 9), (2024, 17), (2025, 6), (2026, 3)]]
    # the authorships' ORCID ids go to the profile's person and its co-authors, found by name
    assert profile.ids.orcid == "0000-0001-5576-0320"
    assert [c.ids.orcid for c in profile.coauthors] == ["0000-0003-4890-7413", "0000-0001-7639-530X"]
    assert {p.field for p in profile.provenance} == {"ids.orcid", "coauthors[0].ids.orcid", "coauthors[1].ids.orcid"}
    jsonschema.validate(to_builtins(page), json_schema())  # the enriched record is one the schema allows
    asked = new_requests(api, before)
    assert [urlsplit(p).path for p in asked] == ["/works/10.1145/3448016.3452841",
                                                 "/works/https://doi.org/10.1145/3448016.3452841"]
    assert all(parse_qs(urlsplit(p).query)["mailto"] == [CONTACT] for p in asked)
    agents = {agent for _, path, agent in api.crossref.log if path.startswith("/works/10.1145")}
    assert all(f"mailto:{CONTACT}" in agent for agent in agents)


def test_a_search_match_accepted_and_the_candidates_before_it_refused(api: Api) -> None:
    """The 7th work of the recorded search is the page's paper; the six before it are refused by title."""
    pub = Publication(title="Early warning signals: the charted and uncharted territories", authors=["C Boettiger",
                      "A Ross-Gillespie", "A Hastings"], year=2013)
    page = profile_page(pub, name="Carl Boettiger")
    before = api.requests()
    enrich([page], api.options())
    assert pub.ids.doi == "10.1007/s12080-013-0192-6"
    taken = accepted(pub, "ids.doi")[0]
    assert (taken.source, taken.method, taken.score) == ("crossref", "query", 1.0)
    refused = [p for p in pub.provenance if not p.accepted]
    assert [p.value for p in refused] == ["10.1111/ele.14024", "10.1111/ele.13085", "10.1007/s12080-020-00477-4",
                                          "10.1101/055319", "10.1111/2041-210x.14013",
                                          "10.1111/j.2041-210x.2012.00247.x"]
    assert all((p.reason or "").startswith("the titles differ") and p.method == "query" for p in refused)
    asked = parse_qs(urlsplit(new_requests(api, before)[0]).query)
    assert asked["query.bibliographic"] == [pub.title] and asked["query.author"] == ["Boettiger"]
    assert pub.container == "Theoretical Ecology" and pub.volume == "6" and pub.issue == "3"


@pytest.mark.parametrize(("year", "authors", "reason"), [
    (2016, ["C Boettiger"], "the work's year 2013 is more than one from the page's 2016"),
    (2013, ["A Hastings", "C Boettiger"], "the work's first author 'Carl Boettiger' is not the page's 'A Hastings'"),
    (2013, ["D Boettiger"], "the work's first author 'Carl Boettiger' is not the page's 'D Boettiger'"),
])
def test_a_near_miss_refused(api: Api, year: int, authors: list[str], reason: str) -> None:
    """Same title, another year or another first author: refused, and said why."""
    pub = Publication(title="Early warning signals: the charted and uncharted territories", authors=authors, year=year)
    page = profile_page(pub, name=None)
    enrich([page], api.options("crossref"))
    assert pub.ids.doi is None and pub.container is None
    near = next(p for p in pub.provenance if p.value == "10.1007/s12080-013-0192-6")
    assert (near.accepted, near.reason, near.score) == (False, reason, 1.0)


def test_a_404_is_no_match_and_asks_nothing_more(api: Api) -> None:
    pub = Publication(title="A paper of a DOI nobody registered", authors=["A Author"], year=2020,
                      ids=PublicationIds(doi="10.1371/notarealdoi"))
    before = api.requests()
    page = profile_page(pub)
    enrich([page], api.options())
    assert page.warnings == [] and pub.provenance == [] and pub.ids.doi == "10.1371/notarealdoi"
    assert [urlsplit(p).path for p in new_requests(api, before)] == [
        "/works/10.1371/notarealdoi", "/works/https://doi.org/10.1371/notarealdoi"]  # OpenAlex's stand-in: 404 too


def test_a_429_with_retry_after_is_waited_for(api: Api) -> None:
    api.crossref.fault("/works/10.1145/3448016.3452841", "429:2")
    page = profile_page(vqf())
    enrich([page], api.options("crossref"))
    assert page.publications[0].publisher == "ACM" and page.warnings == []
    times = [t for t, path, _ in api.crossref.log if path.startswith("/works/10.1145")][-2:]
    assert times[1] - times[0] >= 2.0


def test_a_redirect_to_a_versioned_doi_is_followed_and_the_pages_doi_kept(api: Api) -> None:
    pub = Publication(title="Binding Modes of Ligands Using Enhanced Sampling (BLUES): Rapid Decorrelation of Ligand "
                            "Binding Modes Using Nonequilibrium Candidate Monte Carlo",
                      authors=["S Gill", "NM Lim", "P Grinaway"], year=2018,
                      ids=PublicationIds(doi="10.26434/chemrxiv.5406907"))
    page = profile_page(pub)
    enrich([page], api.options("crossref"))
    assert pub.ids.doi == "10.26434/chemrxiv.5406907"
    versioned = next(p for p in pub.provenance if p.field == "ids.doi")
    assert (versioned.value, versioned.accepted, versioned.reason) == (
        "10.26434/chemrxiv.5406907.v5", False, "the page gives 10.26434/chemrxiv.5406907")
    assert (versioned.where or "").endswith("/works/10.26434/chemrxiv.5406907.v5")
    assert [w.code for w in page.warnings] == ["enrich_differs"]
    assert pub.publisher == "American Chemical Society (ACS)" and pub.date == "2018-02-23"


def test_an_answer_that_is_no_json_is_one_warning_and_the_run_goes_on(api: Api) -> None:
    broken = Publication(title="A paper", authors=["A Author"], year=2020, ids=PublicationIds(doi="10.9999/html"))
    page = profile_page(broken, vqf())
    enrich([page], api.options("crossref"))
    assert [w.code for w in page.warnings] == ["enrich_failed"]
    assert "is not JSON (it starts '<html><body>Maintenance" in page.warnings[0].message
    assert broken.provenance == [] and page.publications[1].publisher == "ACM"


def test_a_huge_answer_is_one_warning_and_the_run_goes_on(api: Api) -> None:
    api.crossref.fault("/works/10.1371/huge", "huge:3")
    huge = Publication(title="A paper", authors=["A Author"], year=2020, ids=PublicationIds(doi="10.1371/huge"))
    page = profile_page(huge, vqf())
    enrich([page], api.options("crossref", max_bytes=2**20))
    assert [w.code for w in page.warnings] == ["enrich_failed"]
    assert "larger than max_bytes = 1048576 bytes" in page.warnings[0].message
    assert page.publications[1].publisher == "ACM"


def test_a_second_run_asks_nothing(api: Api, tmp_path: Path) -> None:
    def run() -> bytes:
        page = profile_page(vqf(), Publication(title="Early warning signals: the charted and uncharted territories",
                                               authors=["C Boettiger"], year=2013))
        cache = cache_at(tmp_path / "store.sqlite")
        try:
            enrich([page], api.options(cache=cache))
        finally:
            cache.close()
        return to_json(page)

    first = run()
    before = api.requests()
    assert run() == first
    assert new_requests(api, before) == []


def test_the_cache_keeps_answers_in_the_store(location: Path | str) -> None:
    """In an SQLite store and in PostgreSQL (when one is configured), as the job's store is."""
    from pubharvest.enrich import AnswerCache

    cache = AnswerCache.of_store(location)
    cache.put("crossref", "/works/10.1/a", 200, b'{"message": {}}', "2026-12-04T10:00:00+00:00")
    cache.put("openalex", "/works/https://doi.org/10.1/a", 404, None, "2026-12-04T10:00:01+00:00")
    cache.close()
    again = AnswerCache.of_store(location)
    try:
        assert again.get("crossref", "/works/10.1/a") == (200, b'{"message": {}}', "2026-12-04T10:00:00+00:00")
        assert again.get("openalex", "/works/https://doi.org/10.1/a") == (404, None, "2026-12-04T10:00:01+00:00")
        assert again.get("crossref", "/works/10.1/b") is None
    finally:
        again.close()


@pytest.mark.parametrize(("file", "expected", "total"), [
    # 10.1101/097196 (2016): counts 2017-2021 only, updated 2026-07-22: 2016 and 2022-2026 are zeros; 21 in all
    ("front-matter__commonmeta-py__openalex_works_doi_biorxiv_preprint.yaml",
     [(2016, 0), (2017, 5), (2018, 5), (2019, 4), (2020, 3), (2021, 4), (2022, 0), (2023, 0), (2024, 0), (2025, 0),
      (2026, 0)], 21),
    # 10.14264/3e10f66 (2022): never cited, updated 2026-03-25
    ("front-matter__commonmeta-py__openalex_works_doi_dissertation.yaml",
     [(2022, 0), (2023, 0), (2024, 0), (2025, 0), (2026, 0)], 0),
    # 10.1371/journal.pone.0000030 (2006): counted from 2012 on, each year given; of its 85 citations, the 19
    # before 2012 are in no year, and no year before 2012 is made up
    ("front-matter__commonmeta-py__openalex_works_doi_plos_article.yaml",
     [(2012, 3), (2013, 6), (2014, 6), (2015, 5), (2016, 5), (2017, 3), (2018, 10), (2019, 6), (2020, 2), (2021, 3),
      (2022, 3), (2023, 3), (2024, 5), (2025, 4), (2026, 2)], 85),
])
def test_counts_by_year_with_the_years_without_citations(corpus: Path, file: str, expected: list, total: int) -> None:
    from recorded import RAW, json_body

    from pubharvest.enrich import openalex

    cited = openalex.works(json_body(corpus / RAW / file), "doi")[0].cited_by
    assert cited is not None
    assert [(y.year, y.citations) for y in cited.by_year] == expected
    assert cited.citations == total
