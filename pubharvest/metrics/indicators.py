"""The citation indicators of Publish or Perish, as pure functions over rows: one ``Row`` per paper
(its citation count, year, number of authors and whether that list was cut short) and a reference
year ``as_of`` (the year the counts were read: never the wall clock). Each definition, and where it
comes from, is docs/metrics.md's; the examples below are computed by hand.

A row without a count is left out of every figure of counts, one without a year out of every figure
of ages, one without authors out of every figure of authors: ``complete`` (``pubharvest.metrics``)
says which figures that touched.

>>> rows = [Row(10, 2020, 2), Row(4, 2022, 1), Row(1, 2024, 4), Row(0, 2024, 1)]
>>> values = indicators(rows, as_of=2024)
>>> values["h_index"], values["g_index"], values["years"], values["cites_per_year"]
(2, 3, 5, 3.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import NamedTuple

__all__ = [
    "Row", "METRICS", "Metric", "indicators", "h_index", "g_index", "i10_index", "e_index", "hc_index",
    "hi_index", "hi_norm", "hi_annual", "ha_index", "m_quotient", "acc", "awcr", "awcr_per_author", "aw_index",
    "years_active", "age", "h_of", "HC_GAMMA", "HC_DELTA",
]

HC_GAMMA, HC_DELTA = 4.0, 1.0  # the contemporary h-index's weights, as Publish or Perish sets them
Value = int | float | None


class Row(NamedTuple):
    """One paper as the indicators see it: its citation count (None: the page gave none), its year
    (None: none given), its number of authors (None: none listed) and whether its author list was
    cut short (``...``: the count is then a lower bound)."""

    citations: int | None
    year: int | None = None
    authors: int | None = None
    authors_truncated: bool = False


class Metric(NamedTuple):
    """One figure: its name (a column, a JSON key), its label as Publish or Perish shows it, and the
    inputs it is computed from (``rows``: all of a listing's rows; ``citations``, ``years``,
    ``authors``: that part of each row)."""

    name: str
    label: str
    inputs: tuple[str, ...]


_C, _Y, _A = ("rows", "citations"), ("rows", "citations", "years"), ("rows", "citations", "authors")
# Every figure, in the order Publish or Perish lists them; docs/metrics.md defines each.
METRICS: tuple[Metric, ...] = (
    Metric("papers", "Papers", ("rows",)),
    Metric("citations", "Citations", _C),
    Metric("years", "Years", ("rows", "years")),
    Metric("cites_per_year", "Cites/year", _Y),
    Metric("cites_per_paper", "Cites/paper", _C),
    Metric("cites_per_paper_median", "Cites/paper (median)", _C),
    Metric("cites_per_author", "Cites/author", _A),
    Metric("papers_per_author", "Papers/author", ("rows", "authors")),
    Metric("authors_per_paper", "Authors/paper", ("rows", "authors")),
    Metric("h_index", "h-index", _C),
    Metric("g_index", "g-index", _C),
    Metric("i10_index", "i10-index", _C),
    Metric("e_index", "e-index", _C),
    Metric("hc_index", "hc-index", _Y),
    Metric("hi_index", "hI-index", _A),
    Metric("hi_norm", "hI,norm", _A),
    Metric("hi_annual", "hI,annual", ("rows", "citations", "authors", "years")),
    Metric("ha_index", "hA-index", _Y),
    Metric("m_quotient", "m-quotient", _Y),
    Metric("acc10", "ACC>=10", _Y),
    Metric("awcr", "AWCR", _Y),
    Metric("awcr_per_author", "AWCRpA", ("rows", "citations", "years", "authors")),
    Metric("aw_index", "AW-index", _Y),
)


def h_of(scores: Iterable[float]) -> int:
    """The largest ``k`` such that ``k`` of ``scores`` are at least ``k`` each (Hirsch's rule, over any scores).

    >>> h_of([3.5, 3, 2.9, 1]), h_of([]), h_of([0.5])
    (2, 0, 0)
    """
    return _h_of_ranked(sorted(scores, reverse=True))


def _h_of_ranked(ranked: Sequence[float]) -> int:
    """``h_of`` of scores already sorted, highest first (bisection: the scores fall as the ranks rise)."""
    low, high = 0, len(ranked)
    while low < high:
        middle = (low + high + 1) // 2
        if ranked[middle - 1] >= middle:
            low = middle
        else:
            high = middle - 1
    return low


def age(year: int, as_of: int) -> int:
    """A paper's age in years as Publish or Perish counts it: 1 in the year it appeared (``as_of - year + 1``),
    never less than 1 (a paper dated after ``as_of`` is as young as one of that year).

    >>> age(2020, 2024), age(2024, 2024), age(2026, 2024)
    (5, 1, 1)
    """
    return max(1, as_of - year + 1)


class _Rows(NamedTuple):
    """What the figures are computed from, worked out once: the counts (highest first); ``(count,
    authors)`` of the rows with both; ``(count, age, authors)`` of the dated rows with a count (authors
    0 when none are listed); the authors of the rows that list some; the first year; the reference year."""

    ranked: list[int]
    authored: list[tuple[int, int]]
    dated: list[tuple[int, int, int]]
    authors: list[int]
    first_year: int | None
    as_of: int | None


def _rows(rows: Iterable[Row], as_of: int | None) -> _Rows:
    ranked, authored, dated, listed, first = [], [], [], [], None
    for count, year, authors, _ in rows:
        if authors:
            listed.append(authors)
        if year is not None and (first is None or year < first):
            first = year
        if count is None:
            continue
        ranked.append(count)
        if authors:
            authored.append((count, authors))
        if year is not None and as_of is not None:
            dated.append((count, max(1, as_of - year + 1), authors or 0))  # age(year, as_of), inline: the hot loop
    ranked.sort(reverse=True)
    return _Rows(ranked, authored, dated, listed, first, as_of)


def h_index(rows: Sequence[Row]) -> int:
    """Hirsch's h: the largest ``h`` such that ``h`` papers have at least ``h`` citations each.

    >>> h_index([Row(10), Row(4), Row(1), Row(0)])
    2
    """
    return _h_of_ranked(_rows(rows, None).ranked)


def g_index(rows: Sequence[Row]) -> int:
    """Egghe's g: the largest ``g`` such that the ``g`` most cited papers have at least ``g**2`` citations
    together (never more than the papers there are).

    >>> g_index([Row(10), Row(4), Row(1), Row(0)])  # 10 >= 1, 14 >= 4, 15 >= 9, 15 < 16
    3
    """
    return _g(_rows(rows, None))


def _g(prepared: _Rows) -> int:
    total, g = 0, 0
    for rank, count in enumerate(prepared.ranked, 1):
        total += count
        if total < rank * rank:  # never again: every later count is below the mean so far, below rank
            break
        g = rank
    return g


def i10_index(rows: Sequence[Row]) -> int:
    """Scholar's i10: the papers with at least 10 citations.

    >>> i10_index([Row(10), Row(9), Row(None), Row(40)])
    2
    """
    return _acc_n(_rows(rows, None).ranked, 10)


def _acc_n(ranked: Sequence[float], at_least: float) -> int:
    """How many of ``ranked`` (highest first) are at least ``at_least``."""
    return next((rank for rank, value in enumerate(ranked) if value < at_least), len(ranked))


def e_index(rows: Sequence[Row]) -> float:
    """Zhang's e: the square root of the citations of the ``h`` most cited papers beyond ``h**2``.

    >>> e_index([Row(10), Row(4), Row(1), Row(0)])  # h = 2: sqrt(10 + 4 - 4)
    3.1622776601683795
    """
    return _e(_rows(rows, None).ranked)


def _e(ranked: Sequence[int]) -> float:
    h = _h_of_ranked(ranked)
    return math.sqrt(sum(ranked[:h]) - h * h)


def years_active(rows: Sequence[Row], as_of: int | None) -> int | None:
    """The years from the first paper's to ``as_of``, both counted (first paper 1995, ``as_of`` 2010: 16);
    None without a dated paper or a reference year.

    >>> years_active([Row(3, 2020), Row(1, 2022), Row(0)], 2024), years_active([Row(3)], 2024)
    (5, None)
    """
    return _years(_rows(rows, as_of))


def _years(prepared: _Rows) -> int | None:
    first, as_of = prepared.first_year, prepared.as_of
    return None if first is None or as_of is None else age(first, as_of)


def hc_index(rows: Sequence[Row], as_of: int, gamma: float = HC_GAMMA, delta: float = HC_DELTA) -> int:
    """The contemporary h of Sidiropoulos et al.: the h of each paper's ``gamma * age**-delta * citations``
    (by default 4 times the citations of a paper of the year, once those of a paper 4 years old).

    >>> hc_index([Row(10, 2020), Row(4, 2022), Row(1, 2024)], 2024)  # 8.0, 5.33, 4.0
    3
    """
    return _hc(_rows(rows, as_of), gamma, delta)


def _hc(prepared: _Rows, gamma: float = HC_GAMMA, delta: float = HC_DELTA) -> int:
    return h_of(gamma * years ** -delta * count for count, years, _ in prepared.dated)


def hi_index(rows: Sequence[Row]) -> float:
    """Batista's individual h: ``h**2`` over the authors of the ``h`` most cited papers, together (of
    papers tied at the ``h``-th count, those with fewer authors come first, so that the order of the rows
    never matters). 0 when ``h`` is 0.

    >>> hi_index([Row(10, authors=2), Row(4, authors=1), Row(1, authors=4)])  # 4 / (2 + 1)
    1.3333333333333333
    """
    return _hi(_rows(rows, None))


def _hi(prepared: _Rows) -> float:
    ranked = sorted(prepared.authored, key=itemgetter(1))
    ranked.sort(key=itemgetter(0), reverse=True)  # stable: of equal counts, fewer authors first
    h = _h_of_ranked([count for count, _ in ranked])
    return h * h / sum(authors for _, authors in ranked[:h]) if h else 0.0


def hi_norm(rows: Sequence[Row]) -> int:
    """Publish or Perish's hI,norm: the h of each paper's citations divided by its number of authors.

    >>> hi_norm([Row(10, authors=2), Row(4, authors=1), Row(6, authors=4)])  # 5, 4, 1.5
    2
    """
    return _hi_norm(_rows(rows, None))


def _hi_norm(prepared: _Rows) -> int:
    return h_of(count / authors for count, authors in prepared.authored)


def hi_annual(rows: Sequence[Row], as_of: int) -> float | None:
    """Harzing's hI,annual (hIa): hI,norm over the years active; None without a dated paper.

    >>> hi_annual([Row(10, 2020, 2), Row(4, 2022, 1), Row(6, 2023, 4)], 2024)  # 2 / 5
    0.4
    """
    prepared = _rows(rows, as_of)
    return _ratio(_hi_norm(prepared), _years(prepared))


def ha_index(rows: Sequence[Row], as_of: int) -> int:
    """Fassin's hA: the h of each paper's citations per year of its age (its annual citation count, ACC).

    >>> ha_index([Row(10, 2020), Row(4, 2022), Row(1, 2024)], 2024)  # 2.0, 1.33, 1.0
    1
    """
    return _ha(_rows(rows, as_of))


def _ha(prepared: _Rows) -> int:
    return h_of(count / years for count, years, _ in prepared.dated)


def m_quotient(rows: Sequence[Row], as_of: int) -> float | None:
    """Hirsch's m: h over the years active; None without a dated paper.

    >>> m_quotient([Row(10, 2020), Row(4, 2022), Row(1, 2024)], 2024)  # 2 / 5
    0.4
    """
    prepared = _rows(rows, as_of)
    return _ratio(_h_of_ranked(prepared.ranked), _years(prepared))


def acc(rows: Sequence[Row], as_of: int, at_least: float = 10) -> int:
    """ACC>=n: the papers cited at least ``at_least`` times per year of their age (acc10 by default).

    >>> acc([Row(50, 2020), Row(20, 2023), Row(9, 2024)], 2024)  # 10.0, 10.0, 9.0
    2
    """
    return _acc(_rows(rows, as_of), at_least)


def _acc(prepared: _Rows, at_least: float = 10) -> int:
    return sum(1 for count, years, _ in prepared.dated if count >= at_least * years)


def awcr(rows: Sequence[Row], as_of: int) -> float:
    """The age-weighted citation rate: each paper's citations over its age, summed over all papers.

    >>> round(awcr([Row(10, 2020), Row(4, 2022), Row(1, 2024)], 2024), 4)  # 2 + 1.3333 + 1
    4.3333
    """
    return _awcr(_rows(rows, as_of))


def _awcr(prepared: _Rows) -> float:
    return math.fsum(count / years for count, years, _ in prepared.dated)


def aw_index(rows: Sequence[Row], as_of: int) -> float:
    """The AW-index: the square root of the AWCR.

    >>> aw_index([Row(12, 2022), Row(4, 2024)], 2024)  # sqrt(4 + 4)
    2.8284271247461903
    """
    return math.sqrt(awcr(rows, as_of))


def awcr_per_author(rows: Sequence[Row], as_of: int) -> float:
    """AWCRpA: the AWCR with each paper's term divided by its number of authors.

    >>> awcr_per_author([Row(12, 2022, 2), Row(4, 2024, 4)], 2024)  # 4/2 + 4/4
    3.0
    """
    return _awcr_per_author(_rows(rows, as_of))


def _awcr_per_author(prepared: _Rows) -> float:
    return math.fsum(count / years / authors for count, years, authors in prepared.dated if authors)


def _mean(values: Sequence[int]) -> float:
    """``statistics.fmean`` of ``values``: their ``math.fsum`` over how many there are.

    >>> _mean([1, 2, 2]), _mean([2**60 + 1, 1])
    (1.6666666666666667, 5.764607523034235e+17)
    """
    return math.fsum(values) / len(values)


def _median_ranked(ranked: Sequence[int]) -> int | float:
    """``statistics.median`` of counts already sorted, highest first: the middle one, or the mean of the two.

    >>> _median_ranked([9, 4, 1]), _median_ranked([9, 4, 2, 1])
    (4, 3.0)
    """
    half = len(ranked) // 2
    return ranked[half] if len(ranked) % 2 else (ranked[half - 1] + ranked[half]) / 2


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return None if top is None or not bottom else top / bottom


def indicators(rows: Sequence[Row], as_of: int | None) -> dict[str, Value]:
    """Every figure of ``METRICS`` for ``rows``, by name: None where it cannot be computed (no row with
    a count, a year or authors, as the figure needs; no reference year for figures of age).

    >>> values = indicators([Row(10, 2020, 2), Row(4, 2022, 1), Row(1, 2024, 4), Row(None, None, 3)], 2024)
    >>> values["papers"], values["citations"], values["cites_per_paper"], values["cites_per_paper_median"]
    (4, 15, 5.0, 4)
    >>> values["cites_per_author"]  # 10/2 + 4/1 + 1/4
    9.25
    >>> values["papers_per_author"], values["authors_per_paper"], values["hi_norm"], values["acc10"]
    (2.0833333333333335, 2.5, 2, 0)
    >>> indicators([], None)["h_index"], indicators([Row(None)], None)["citations"]
    (0, None)
    """
    prepared = _rows(rows, as_of)
    ranked, authors = prepared.ranked, prepared.authors
    counted = bool(ranked) or not rows  # no rows at all: an h of 0; rows, none counted: no figure
    years = _years(prepared)
    citations = sum(ranked) if ranked else None
    by_author = prepared.authored
    aged = bool(prepared.dated)  # a reference year, and a dated row with a count
    h = _h_of_ranked(ranked)
    hi_norm_ = _hi_norm(prepared) if by_author else None
    awcr_ = _awcr(prepared) if aged else None
    return {
        "papers": len(rows),
        "citations": citations,
        "years": years,
        "cites_per_year": _ratio(citations, years) if aged else None,
        "cites_per_paper": _mean(ranked) if ranked else None,
        "cites_per_paper_median": _median_ranked(ranked) if ranked else None,
        "cites_per_author": math.fsum(count / n for count, n in by_author) if by_author else None,
        "papers_per_author": math.fsum(1 / n for n in authors) if authors else None,
        "authors_per_paper": _mean(authors) if authors else None,
        "h_index": h if counted else None,
        "g_index": _g(prepared) if counted else None,
        "i10_index": _acc_n(ranked, 10) if counted else None,
        "e_index": _e(ranked) if counted else None,
        "hc_index": _hc(prepared) if aged else None,
        "hi_index": _hi(prepared) if by_author else None,
        "hi_norm": hi_norm_,
        "hi_annual": _ratio(hi_norm_, years) if aged and by_author else None,
        "ha_index": _ha(prepared) if aged else None,
        "m_quotient": _ratio(h, years) if aged else None,
        "acc10": _acc(prepared) if aged else None,
        "awcr": awcr_,
        "awcr_per_author": _awcr_per_author(prepared) if aged and by_author else None,
        "aw_index": math.sqrt(awcr_) if awcr_ is not None else None,
    }
