"""Citations per year of people side by side: each source's chart (``Profile.citations_by_year``, every
year on its axis) with the cumulative count, aligned by calendar year or by career year (years since
the person's first paper: 0 in the year of that paper).

>>> from pubharvest.parsers.records import YearCitations
>>> points = year_points("Ada", "scholar", [YearCitations(year=2021, citations=4),
...                                         YearCitations(year=2019, citations=1)], first_year=2018)
>>> [(p.year, p.career_year, p.citations, p.cumulative) for p in points]
[(2019, 1, 1, 1), (2020, 2, 0, 1), (2021, 3, 4, 5)]
>>> side_by_side(points, "career")
[('career_year', 'Ada (scholar)'), (1, 1), (2, 1), (3, 5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Literal

from pubharvest.parsers.records import YearCitations

from .model import YearPoint

__all__ = ["year_points", "side_by_side", "ALIGNMENTS", "Alignment"]

Alignment = Literal["calendar", "career"]
ALIGNMENTS: tuple[Alignment, ...] = ("calendar", "career")


def year_points(person: str | None, source: str, years: Iterable[YearCitations],
                first_year: int | None) -> list[YearPoint]:
    """The chart ``years`` of ``person`` on ``source`` as points, every year from its first to its
    last (a year without a bar is 0), with the cumulative count and the career year."""
    counts = {bar.year: bar.citations for bar in years}
    if not counts:
        return []
    axis = range(min(counts), max(counts) + 1)
    per_year = [counts.get(year, 0) for year in axis]
    return [YearPoint(person=person, source=source, year=year,
                      career_year=None if first_year is None else year - first_year,
                      citations=citations, cumulative=cumulative)
            for year, citations, cumulative in zip(axis, per_year, accumulate(per_year), strict=True)]


def side_by_side(points: Sequence[YearPoint], align: Alignment = "calendar",
                 value: Literal["cumulative", "citations"] = "cumulative") -> list[tuple[object, ...]]:
    """A table of ``points``: a header row (the year column, then one column per person and source),
    then one row per year (calendar or career), None where a column has no point of that year.
    Points without a career year (a person with no dated paper) are left out of a career table."""
    key = "year" if align == "calendar" else "career_year"
    columns = list(dict.fromkeys((p.person, p.source) for p in points))
    cells: dict[tuple[int, tuple[str | None, str]], int] = {}
    for point in points:
        at = getattr(point, key)
        if at is not None:
            cells[at, (point.person, point.source)] = getattr(point, value)
    rows = sorted({at for at, _ in cells})
    header = (key, *(f"{person} ({source})" for person, source in columns))
    return [header, *((at, *(cells.get((at, column)) for column in columns)) for at in rows)]
