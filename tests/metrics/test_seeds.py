"""The seeds, the user's own pages of one person on three sites (Scholar's saved table of 20 rows, MSR's
publication list of 20 without counts, Elamur's author page listing 3 of 72 works), side by side: each
figure per source and merged, and the papers behind each gap. Every value below was read off the
pages by hand (the sums and counts are written out)."""

from __future__ import annotations

import pytest
from conftest import ROOT

from pubharvest.metrics import MetricSet, PersonMetrics, metrics
from pubharvest.parsers import parse

SEEDS = ["fixtures/scholar/003_9ea93ed9343d2054.txt", "fixtures/msr/001_0be51d225ce2b3fb.txt",
         "fixtures/elamur/000_e63c2e80f8ecde3e.txt"]
# Scholar's 20 counts, as the saved table lists them.
SCHOLAR = [1750, 1325, 1234, 686, 405, 348, 307, 256, 159, 151, 126, 96, 82, 60, 55, 53, 42, 40, 37, 36]
ELAMUR = [309, 254, 1606]  # ZeRO-Offload, ZeRO-Infinity, BLOOM


@pytest.fixture(scope="module")
def person() -> PersonMetrics:
    result = metrics([(name, parse((ROOT / name).read_bytes())) for name in SEEDS], by="source", at="2026-01-01")
    (only,) = result.people  # the saved table names nobody: it shares 6 papers with Olatunji Ruwase, and joins him
    return only


def by_source(person: PersonMetrics) -> dict[str, MetricSet]:
    return {each.source: each for each in person.sets}


def test_one_person_three_sources_and_the_merge(person: PersonMetrics) -> None:
    assert person.name == "Olatunji Ruwase"
    assert [each.source for each in person.sets] == ["scholar", "msr", "elamur", "merged"]
    assert person.first_year == 2004  # MSR's "A Practical Dynamic Buffer Overflow Detector"


def test_each_source_side_by_side(person: PersonMetrics) -> None:
    sets = by_source(person)
    side = {name: [sets[s].value(name) for s in ("scholar", "msr", "elamur", "merged")]
            for name in ("papers", "citations", "years", "h_index", "i10_index", "g_index")}
    assert sum(SCHOLAR) == 7248 and sum(ELAMUR) == 2169
    assert side == {
        # merged: 43 rows, 9 joins (ZeRO-Offload and ZeRO-Infinity on all three, five papers on two)
        "papers": [20, 20, 3, 34],
        # merged: every paper of Elamur is on Scholar with a higher count, MSR gives none: Scholar's sum
        "citations": [7248, None, 2169, 7248],
        "years": [2026 - 2017 + 1, 2026 - 2004 + 1, 2026 - 2021 + 1, 2026 - 2004 + 1],
        "h_index": [20, None, 3, 20],  # Scholar's 20th row has 36 citations
        "i10_index": [20, None, 3, 20],
        "g_index": [20, None, 3, 20],  # bounded by the papers counted
    }


def test_each_source_says_what_it_lacks(person: PersonMetrics) -> None:
    sets = by_source(person)
    assert [(s.input, s.rows, s.of) for s in sets["msr"].shortfalls] == [("citations", 20, 20)]
    assert [(s.input, s.rows, s.of) for s in sets["elamur"].shortfalls] == [("rows", 69, 72), ("authors", 3, 3)]
    assert sets["elamur"].figure("h_index").incomplete == ["rows"]
    assert sets["msr"].figure("h_index").incomplete == ["citations"] and sets["msr"].figure("papers").complete
    # Scholar's saved table cuts 12 author lists ("..."): only the figures of authors are incomplete
    assert [(s.input, s.rows) for s in sets["scholar"].shortfalls] == [("authors", 12)]
    assert sets["scholar"].figure("h_index").complete and not sets["scholar"].figure("hi_norm").complete


def test_elamurs_stated_figures_are_explained_by_the_works_it_does_not_list(person: PersonMetrics) -> None:
    checks = {c.name: c for c in by_source(person)["elamur"].checks}
    assert {name: (c.stated, c.computed) for name, c in checks.items()} == {"h_index": (22, 3),
                                                                            "citations": (4916, 2169)}
    for c in checks.values():
        (reason,) = c.reasons
        assert reason.code == "rows_missing" and reason.accounts
        assert [(row.title or "")[:12] for row in reason.rows] == ["BLOOM: A 176", "ZeRO-Offload", "ZeRO-Infinit"]
    assert "19 more rows cited at least 22 times" in checks["h_index"].reasons[0].message  # 22 - 3 listed
    assert "69 rows are not in the input" in checks["h_index"].reasons[0].message


def test_the_papers_behind_each_gap(person: PersonMetrics) -> None:
    gaps = {(gap.a, gap.b): gap for gap in person.gaps}
    assert list(gaps) == [("scholar", "msr"), ("scholar", "elamur"), ("msr", "elamur")]
    scholar_elamur = gaps["scholar", "elamur"]
    differently = {(p.title or "")[:13]: p.counts for p in scholar_elamur.papers if p.kind == "counted_differently"}
    assert differently == {"BLOOM: A 176B": {"scholar": 1750, "elamur": 1606},
                           "ZeRO-Offload:": {"scholar": 405, "elamur": 309},
                           "ZeRO-Infinity": {"scholar": 348, "elamur": 254}}
    assert sum(p.kind == "only_on" for p in scholar_elamur.papers) == 17  # 20 on Scholar, 3 of them on Elamur
    assert scholar_elamur.figures["papers"] == [20, 3] and scholar_elamur.figures["h_index"] == [20, 3]
    assert len(scholar_elamur.by_figure["papers"]) == 17
    scholar_msr = gaps["scholar", "msr"]
    # listed by both, MSR without a count: ZeRO, ZeRO-Offload, ZeRO-Infinity, ZeRO++, DeepSpeed Inference, CNNs
    assert sum(p.kind == "no_count" for p in scholar_msr.papers) == 6
    assert sum(p.kind == "only_on" for p in scholar_msr.papers) == 14 + 14
    msr_elamur = gaps["msr", "elamur"]
    first = [((p.title or "")[:5], p.kind) for p in msr_elamur.papers][:3]
    assert first == [("BLOOM", "only_on"), ("ZeRO-", "no_count"), ("ZeRO-", "no_count")]
