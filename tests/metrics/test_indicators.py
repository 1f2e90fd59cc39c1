"""Every figure equals a hand computation on two fixtures, and the properties any h-type index keeps
hold on random rows (hypothesis).

The hand computations (docs/metrics.md names them) are written out beside each value: fixture A is
``fixtures/elamur/010_handwritten_quintero.txt`` (4 rows), fixture B ``fixtures/scholar/
handwritten_ja_profile.html`` (4 rows, one without a year, one cut author list), both as of 2025.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import pytest
from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from pubharvest.metrics import METRICS, Row, indicators, metrics
from pubharvest.metrics.indicators import hc_index, hi_index
from pubharvest.parsers import parse

AS_OF = 2025
FIXTURE_A = FIXTURES / "elamur" / "010_handwritten_quintero.txt"
FIXTURE_B = FIXTURES / "scholar" / "handwritten_ja_profile.html"

# A: (citations, year, authors) = (11902, 2021, 3 cut), (1025, 2018, 2), (402, 2023, 1), (88, 2021, 3 cut).
# Ages as of 2025 (2025 - year + 1): 5, 8, 3, 5.
HAND_A = {
    "papers": 4,
    "citations": 13417,  # 11902 + 1025 + 402 + 88
    "years": 8,  # 2025 - 2018 + 1
    "cites_per_year": 13417 / 8,
    "cites_per_paper": 13417 / 4,
    "cites_per_paper_median": (1025 + 402) / 2,
    "cites_per_author": 11902 / 3 + 1025 / 2 + 402 / 1 + 88 / 3,
    "papers_per_author": 1 / 3 + 1 / 2 + 1 + 1 / 3,
    "authors_per_paper": (3 + 2 + 1 + 3) / 4,
    "h_index": 4,  # 11902, 1025, 402, 88 are all >= 4
    "g_index": 4,  # the top 4 have 13417 >= 16; there are no more papers
    "i10_index": 4,
    "e_index": math.sqrt(13417 - 4 * 4),
    "hc_index": 4,  # 4 * c / age: 9521.6, 512.5, 536, 70.4
    "hi_index": 4 * 4 / (3 + 2 + 1 + 3),  # the h-core is all four papers
    "hi_norm": 4,  # c / authors: 3967.3, 512.5, 402, 29.3
    "hi_annual": 4 / 8,
    "ha_index": 4,  # c / age: 2380.4, 128.125, 134, 17.6
    "m_quotient": 4 / 8,
    "acc10": 4,  # 17.6 >= 10 too
    "awcr": 11902 / 5 + 1025 / 8 + 402 / 3 + 88 / 5,
    "awcr_per_author": 11902 / 5 / 3 + 1025 / 8 / 2 + 402 / 3 / 1 + 88 / 5 / 3,
    "aw_index": math.sqrt(11902 / 5 + 1025 / 8 + 402 / 3 + 88 / 5),
}
# B: (1100, 2023, 6 cut, Scholar's "*" over two clusters), (12, 2024, 1, a duplicate row), (0, 2022, 2),
# (2, no year, 1). Ages as of 2025: 3, 2, 4; the yearless row is left out of every figure of age.
HAND_B = {
    "papers": 4,
    "citations": 1114,  # 1100 + 12 + 0 + 2
    "years": 4,  # 2025 - 2022 + 1
    "cites_per_year": 1114 / 4,
    "cites_per_paper": 1114 / 4,
    "cites_per_paper_median": (12 + 2) / 2,
    "cites_per_author": 1100 / 6 + 12 / 1 + 0 / 2 + 2 / 1,
    "papers_per_author": 1 / 6 + 1 + 1 / 2 + 1,
    "authors_per_paper": (6 + 1 + 2 + 1) / 4,
    "h_index": 2,  # 1100 >= 1, 12 >= 2, 2 < 3
    "g_index": 4,  # cumulative 1100, 1112, 1114, 1114 against 1, 4, 9, 16
    "i10_index": 2,
    "e_index": math.sqrt(1100 + 12 - 2 * 2),
    "hc_index": 2,  # 4 * c / age: 1466.7, 24, 0
    "hi_index": 2 * 2 / (6 + 1),  # h-core: 1100 (6 authors), 12 (1 author)
    "hi_norm": 2,  # 183.3, 12, 0, 2
    "hi_annual": 2 / 4,
    "ha_index": 2,  # 366.7, 6, 0
    "m_quotient": 2 / 4,
    "acc10": 1,  # only 366.7
    "awcr": 1100 / 3 + 12 / 2 + 0 / 4,
    "awcr_per_author": 1100 / 3 / 6 + 12 / 2 / 1 + 0 / 4 / 2,
    "aw_index": math.sqrt(1100 / 3 + 12 / 2),
}


def test_every_metric_has_two_hand_computations() -> None:
    assert set(HAND_A) == set(HAND_B) == {m.name for m in METRICS}


@pytest.mark.parametrize(("fixture", "hand"), [(FIXTURE_A, HAND_A), (FIXTURE_B, HAND_B)], ids=["A", "B"])
def test_each_metric_equals_the_hand_computation(fixture, hand) -> None:
    result = metrics([(fixture.name, parse(fixture.read_bytes()))], by="page", at=str(AS_OF))
    (figures,) = result.people[0].sets
    for name, want in hand.items():
        assert figures.value(name) == pytest.approx(want, rel=1e-12), name


def test_fixture_b_says_which_figures_rest_on_incomplete_inputs() -> None:
    (figures,) = metrics([("b", parse(FIXTURE_B.read_bytes()))], by="page", at="2025").people[0].sets
    assert {(s.input, s.rows, s.of) for s in figures.shortfalls} == {("years", 1, 4), ("authors", 1, 4)}
    incomplete = {f.name: f.incomplete for f in figures.figures if not f.complete}
    assert incomplete["hc_index"] == ["years"]
    assert incomplete["hi_annual"] == ["authors", "years"]
    assert incomplete["authors_per_paper"] == ["authors"]
    assert "h_index" not in incomplete and "citations" not in incomplete  # counts and rows are whole


def test_figures_of_age_need_a_reference_year_never_the_clock() -> None:
    (figures,) = metrics([("b", parse(FIXTURE_B.read_bytes()))], by="page").people[0].sets  # a page of no date
    assert figures.as_of is None and figures.as_of_from.startswith("none")
    for name in ("years", "cites_per_year", "hc_index", "hi_annual", "ha_index", "m_quotient", "acc10", "awcr",
                 "awcr_per_author", "aw_index"):
        assert figures.value(name) is None, name
    assert figures.value("h_index") == 2
    # Elamur's page states the day it was updated (2026-11-28): that year, and where it came from
    (dated,) = metrics([("a.txt", parse(FIXTURE_A.read_bytes()))], by="page").people[0].sets
    assert (dated.as_of, dated.as_of_from) == (2026, "page date 2026-11-28 (a.txt)")


# --- properties -------------------------------------------------------------------------------------

rows_strategy = st.lists(st.builds(Row, st.one_of(st.none(), st.integers(0, 5000)),
                                   st.one_of(st.none(), st.integers(1990, 2025)),
                                   st.one_of(st.none(), st.integers(1, 40)), st.booleans()), max_size=60)
CITATION_BASED = ("citations", "h_index", "i10_index", "e_index", "hc_index", "hi_index", "hi_norm", "ha_index",
                  "acc10", "awcr", "awcr_per_author", "aw_index", "cites_per_author")


@settings(max_examples=300, deadline=None)
@given(rows_strategy, st.randoms())
def test_h_is_at_most_the_papers_g_at_least_h_and_order_is_irrelevant(rows, random) -> None:
    values: dict[str, Any] = indicators(rows, AS_OF)
    counted = [row for row in rows if row.citations is not None]
    if counted:
        assert values["h_index"] <= len(counted) and values["g_index"] >= values["h_index"]
        assert values["i10_index"] <= len(counted) and values["e_index"] >= 0
        assert values["hi_norm"] is None or values["hi_norm"] <= values["h_index"]  # per-author counts are lower
    shuffled = list(rows)
    random.shuffle(shuffled)
    assert indicators(shuffled, AS_OF) == values


@settings(max_examples=300, deadline=None)
@given(rows_strategy, st.one_of(st.none(), st.integers(1990, 2025)), st.one_of(st.none(), st.integers(1, 40)))
def test_an_uncited_paper_changes_no_citation_based_index(rows, year, authors) -> None:
    before = indicators(rows, AS_OF)
    after = indicators([*rows, Row(0, year, authors)], AS_OF)
    for name in CITATION_BASED:
        if before[name] is not None:
            assert after[name] == pytest.approx(before[name]), name
    counts = [row.citations for row in rows if row.citations is not None]
    if counts:  # g is bounded by the papers there are: one more uncited paper raises it only when it was at that bound
        assert after["g_index"] == before["g_index"] or before["g_index"] == len(counts)


@settings(max_examples=200, deadline=None)
@given(rows_strategy)
def test_more_citations_never_lower_an_h_type_index(rows) -> None:
    raised = [row._replace(citations=row.citations + 1) if row.citations is not None else row for row in rows]
    before: dict[str, Any] = indicators(rows, AS_OF)
    after: dict[str, Any] = indicators(raised, AS_OF)
    for name in ("h_index", "g_index", "i10_index", "hc_index", "hi_norm", "ha_index", "acc10"):
        if before[name] is not None:
            assert after[name] >= before[name], name


def test_hc_weights_recent_papers_four_times() -> None:
    assert hc_index([Row(1, 2025)] * 4, 2025) == 4  # each 1 citation counts 4
    assert hc_index([Row(4, 2022)] * 4, 2025) == 4  # age 4: weight 1
    assert hc_index([Row(4, 2021)] * 4, 2025) == 3  # age 5: 3.2 each


def test_hi_index_core_ties_do_not_depend_on_order() -> None:
    tied = [Row(5, authors=1), Row(5, authors=5), Row(5, authors=2), Row(5, authors=3), Row(5, authors=4)]
    assert hi_index(tied) == hi_index(tied[::-1]) == 25 / 15
    assert hi_index([Row(9, authors=2), Row(3, authors=1), Row(3, authors=7)]) == 9 / (2 + 1 + 7)  # h = 3
    # h = 2; of the two rows cited twice, the one of fewer authors is in the core, whichever comes first
    assert hi_index([Row(9, authors=2), Row(2, authors=7), Row(2, authors=1)]) == 4 / (2 + 1)


@settings(max_examples=200, deadline=None)
@given(rows_strategy)
def test_the_table_of_figures_equals_each_figures_own_function(rows) -> None:
    module = importlib.import_module("pubharvest.metrics.indicators")  # the package names the function so

    values = indicators(rows, AS_OF)
    if not any(row.citations is not None for row in rows):
        return
    assert values["h_index"] == module.h_index(rows) and values["g_index"] == module.g_index(rows)
    assert values["i10_index"] == module.i10_index(rows) and values["e_index"] == module.e_index(rows)
    if any(row.citations is not None and row.authors for row in rows):
        assert values["hi_index"] == module.hi_index(rows) and values["hi_norm"] == module.hi_norm(rows)
    if any(row.citations is not None and row.year is not None for row in rows):
        for name, fn in (("hc_index", module.hc_index), ("ha_index", module.ha_index), ("acc10", module.acc),
                         ("awcr", module.awcr), ("aw_index", module.aw_index), ("m_quotient", module.m_quotient)):
            assert values[name] == fn(rows, AS_OF), name
