"""A work as a service describes it, in the terms of the record model: what verification compares
(``claim``) and what may be added to a paper (``values``, ``open_access``, ``cited_by``, ``authors``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from pubharvest.citable import csl_type
from pubharvest.parsers.records import CitedBy, OpenAccess, Publication

from .verify import Claim


@dataclass
class Work:
    claim: Claim
    doi: str | None = None
    openalex: str | None = None  # the OpenAlex work id
    # Publication fields the work gives, by name (``date``, ``container``, ...), as the record holds them
    values: dict[str, str | int] = field(default_factory=dict)
    open_access: OpenAccess | None = None
    cited_by: CitedBy | None = None
    authors: list[tuple[str, str | None]] = field(default_factory=list)  # (name, ORCID id) in order


def page_claim(pub: Publication) -> Claim:
    """What the page says of a paper, as verification compares it."""
    return Claim(title=pub.title, first_author=pub.authors[0] if pub.authors else None, year=pub.year,
                 kind=csl_type(pub), title_cut=pub.title_truncated)


def doi_path(doi: str) -> str:
    """A DOI as a URL path segment: its slashes kept, everything else that a path cannot hold escaped.

    >>> doi_path("10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0")
    '10.1002/%28SICI%291097-4571%28199806%2949%3A8%3C693%3A%3AAID-ASI4%3E3.0.CO%3B2-0'
    """
    return quote(doi, safe="/")


def first_year(parts: object) -> tuple[int | None, str | None]:
    """The year and ISO date of a ``{"date-parts": [[Y, M, D]]}`` (Crossref's dates).

    >>> first_year({"date-parts": [[2021, 6, 9]]}), first_year({"date-parts": [[2018]]}), first_year(None)
    ((2021, '2021-06-09'), (2018, '2018'), (None, None))
    """
    try:
        numbers = [int(n) for n in parts["date-parts"][0] if n is not None]  # type: ignore[index]
    except (TypeError, KeyError, IndexError, ValueError):
        return None, None
    if not numbers or not 1500 <= numbers[0] < 2100:
        return None, None
    return numbers[0], "-".join([f"{numbers[0]:04d}", *(f"{n:02d}" for n in numbers[1:3])])
