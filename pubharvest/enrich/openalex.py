"""OpenAlex's API: a work by its DOI (``/works/https://doi.org/{doi}``), else a title search
(``/works?search=``), read into ``Work``s: the work id, type, open access, counts per year (the
years with none filled in as 0) and the authors with their ORCID ids.

>>> doi_key("10.1145/3448016.3452841")
'/works/https://doi.org/10.1145/3448016.3452841'
>>> by_year([{"year": 2023, "cited_by_count": 9}, {"year": 2021, "cited_by_count": 1}], 2020)
[(2020, 0), (2021, 1), (2022, 0), (2023, 9)]
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from pubharvest.parsers.identifiers import normal_doi, orcid_in_url
from pubharvest.parsers.records import CitedBy, OpenAccess, Publication, YearCitations

from .crossref import first_text
from .verify import Claim
from .work import Work, doi_path

NAME = "openalex"
WINDOW = 15  # years counts_by_year covers (2012 to 2026 in the recorded answers)
CSL_TYPES = {"article": "article-journal", "conference-paper": "paper-conference", "preprint": "article",
             "book-chapter": "chapter", "book": "book", "dissertation": "thesis", "report": "report"}


def doi_key(doi: str) -> str:
    return f"/works/https://doi.org/{doi_path(doi)}"


def query_key(pub: Publication, rows: int) -> str | None:
    """The search for ``pub`` by its title; None without a title."""
    if not pub.title:
        return None
    return "/works?" + urlencode({"search": pub.title, "per-page": rows})


def works(answer: Any, method: str) -> list[Work]:
    """The works of an answer: the one asked by DOI, the results of a search, best first."""
    if not isinstance(answer, dict):
        return []
    items = [answer] if method == "doi" else answer.get("results") or []
    return [work(item, date=None) for item in items if isinstance(item, dict) and item.get("id")]


def work(item: dict[str, Any], date: str | None) -> Work:
    """One OpenAlex work: the claim to verify, and what it may add to a paper."""
    year = item.get("publication_year") if isinstance(item.get("publication_year"), int) else None
    authorships = [a for a in item.get("authorships") or [] if isinstance(a, dict)]
    first = next((a for a in authorships if a.get("author_position") == "first"),
                 authorships[0] if authorships else None)
    values: dict[str, str | int] = {}
    kind = item.get("type")
    if isinstance(kind, str) and kind in CSL_TYPES:
        values["type"] = CSL_TYPES[kind]
    if year is not None:
        values["year"] = year
    oa = item.get("open_access")
    counts = item.get("counts_by_year")
    cited = item.get("cited_by_count")
    return Work(
        claim=Claim(title=first_text(item.get("title") or item.get("display_name")), first_author=_name(first),
                    year=year, kind=kind),
        doi=normal_doi(item.get("doi")), openalex=str(item["id"]).rpartition("/")[2], values=values,
        open_access=OpenAccess(is_oa=bool(oa.get("is_oa")), status=oa.get("oa_status"), url=oa.get("oa_url"))
        if isinstance(oa, dict) else None,
        cited_by=CitedBy(source=NAME, citations=cited if isinstance(cited, int) and cited >= 0 else None,
                         by_year=[YearCitations(year=y, citations=n) for y, n in by_year(counts, year, _year_of(
                             item.get("updated_date")))], date=date),
        authors=[(name, orcid_in_url((a.get("author") or {}).get("orcid"))) for a in authorships if (name := _name(a))],
    )


def by_year(counts: object, since: int | None, until: int | None = None) -> list[tuple[int, int]]:
    """``counts_by_year`` as ``(year, citations)`` from ``since`` (the paper's year) to ``until`` (the year
    OpenAlex updated the work, else the last year counted), each year it leaves out (it lists only years
    with some) as 0. OpenAlex counts recent years only (from 2012 in the recorded answers): for an older
    paper the list starts at the first year counted, not with zeros nobody counted.

    >>> by_year([{"year": 2018, "cited_by_count": 5}, {"year": 2017, "cited_by_count": 5}], 2016, 2020)
    [(2016, 0), (2017, 5), (2018, 5), (2019, 0), (2020, 0)]
    >>> by_year([], 2022, 2026), by_year([], None, 2026)
    ([(2022, 0), (2023, 0), (2024, 0), (2025, 0), (2026, 0)], [])
    """
    known = {c["year"]: c["cited_by_count"] for c in counts or [] if isinstance(c, dict)  # type: ignore[attr-defined]
             and isinstance(c.get("year"), int) and isinstance(c.get("cited_by_count"), int)}
    last = max([*known, *([until] if until is not None else [])], default=None)
    if last is None or (not known and since is None):
        return []
    first = min(known, default=last)
    start = since if since is not None and last - WINDOW < since <= first else first
    return [(year, known.get(year, 0)) for year in range(start, last + 1)]


def _year_of(date: object) -> int | None:
    """The year of an ISO date (OpenAlex's ``updated_date``), when it is one."""
    return int(date[:4]) if isinstance(date, str) and date[:4].isdigit() and 1500 <= int(date[:4]) < 2100 else None


def _name(authorship: dict[str, Any] | None) -> str | None:
    if authorship is None:
        return None
    name = (authorship.get("author") or {}).get("display_name") or authorship.get("raw_author_name")
    return name if isinstance(name, str) and name else None
