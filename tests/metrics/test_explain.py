"""Each reason a stated figure differs from the rows, on pages built for it, with the rows it must name
worked out by hand; and ``--at`` choosing the records as of a date."""

from __future__ import annotations

from collections.abc import Sequence

from pubharvest.metrics import metrics
from pubharvest.parsers.records import Ids, Metrics, PageResult, Profile, Publication, PublicationIds, Source
from pubharvest.parsers.warning_codes import Warn

ADA = "ADA0000AAAAJ"  # a Scholar user id: rows name their profile by it (UID:PUBID)


def page(counts: Sequence[int | None], stated: Metrics, years: list[int | None] | None = None,
         flags: dict[int, list[str]] | None = None, clusters: dict[int, int] | None = None,
         partial: bool = False) -> PageResult:
    """A Scholar profile of one row per count (titles ``r1``, ``r2``, ...), stating ``stated``."""
    years = years or [2020] * len(counts)
    pubs = [Publication(title=f"r{n}", citations=count, year=year, authors=["A B"], flags=(flags or {}).get(n, []),
                        ids=PublicationIds(scholar_clusters=[str(k) for k in range((clusters or {}).get(n, 1))]))
            for n, (count, year) in enumerate(zip(counts, years, strict=True), 1)]
    result = PageResult(site="scholar", page="profile", profile=Profile(name="Ada", ids=Ids(scholar=ADA),
                                                                         metrics=stated), publications=pubs)
    if partial:
        result.warn(Warn.partial, "the page holds rows 1-20 of a longer list")
    return result


def reasons(result: PageResult, name: str) -> list[tuple[str, bool, list[str | None]]]:
    (figures,) = metrics([("p.html", result)], by="page").people[0].sets
    (found,) = [c for c in figures.checks if c.name == name]
    return [(r.code, r.accounts, [row.title for row in r.rows]) for r in found.reasons]


def test_rows_missing_from_a_partial_page() -> None:
    # h: stated 5, rows cited 9, 7, 5, 2: three reach 5, two more must be among the rows not read
    got = reasons(page([9, 7, 5, 2], Metrics(h_index=5), partial=True), "h_index")
    assert got == [("rows_missing", True, ["r1", "r2", "r3"])]


def test_rows_without_a_count() -> None:
    # i10: stated 3, two rows of 10 or more read, one row without a count could be the third
    got = reasons(page([30, 12, None, 4], Metrics(i10_index=3)), "i10_index")
    assert got == [("uncounted_rows", True, ["r3"])]


def test_a_duplicate_row_counted_twice() -> None:
    # h: rows 6, 4, 4, 4 give 4; without the duplicate r3 (its count is r2's) 6, 4, 4 give 3
    got = reasons(page([6, 4, 4, 4], Metrics(h_index=3), flags={3: [f"duplicate_of:{ADA}:r2"]}), "h_index")
    assert ("duplicate_rows", True, ["r3"]) in got


def test_a_row_of_merged_versions() -> None:
    # i10: stated 1; r1 (40, Scholar's * over 3 clusters) and r2 (11): without r1, 1
    merged = page([40, 11, 3], Metrics(i10_index=1), flags={1: ["merged_citations"]}, clusters={1: 3})
    got = reasons(merged, "i10_index")
    assert got == [("merged_versions", True, ["r1"])]


def test_yearless_rows() -> None:
    # citations: stated 12; rows 10 (2020), 5 (no year), 2 (2021): without the yearless row, 12
    got = reasons(page([10, 5, 2], Metrics(citations=12), years=[2020, None, 2021]), "citations")
    assert got == [("yearless_rows", True, ["r2"])]


def test_rows_at_the_threshold() -> None:
    # h: rows 7, 6, 5, 5, 5 give 5; stated 4: the three rows cited exactly 5, one citation fewer each, give 4
    got = reasons(page([7, 6, 5, 5, 5], Metrics(h_index=4)), "h_index")
    assert got == [("at_threshold", True, ["r3", "r4", "r5"])]
    # i10: rows 12, 9, 9; stated 3: the two rows cited 9 times, one more each, give 3
    got = reasons(page([12, 9, 9], Metrics(i10_index=3)), "i10_index")
    assert got == [("at_threshold", True, ["r2", "r3"])]


def test_a_difference_nothing_accounts_for_says_so() -> None:
    # a complete page: h 3 computed from 9, 8, 7; stated 1: no row of any kind explains it
    (figures,) = metrics([("p.html", page([9, 8, 7], Metrics(h_index=1)))], by="page").people[0].sets
    (found,) = figures.checks
    assert not found.agree and not found.explained and found.reasons == []


def fetched(counts: list[int], when: str) -> PageResult:
    result = page(counts, Metrics())
    result.source = Source(sha256="0" * 64, parser="test", run=when[:10], fetched_at=when)
    return result


def test_at_keeps_the_records_fetched_by_then_and_sets_the_year() -> None:
    pages = [("jan.json", fetched([3, 3, 3], "2025-01-10T00:00:00Z")),
             ("jun.json", fetched([5, 5, 5, 5, 5], "2026-06-10T00:00:00Z"))]
    latest = metrics(pages, by="person").people[0].sets[0]
    assert (latest.value("h_index"), latest.as_of) == (5, 2026)
    assert latest.as_of_from == "fetched 2026-06-10T00:00:00Z (jun.json)"
    earlier = metrics(pages, by="person", at="2025-12-31").people[0].sets[0]
    assert (earlier.value("h_index"), earlier.as_of, earlier.as_of_from) == (3, 2025, "2025-12-31 (given with --at)")


def test_show_more_rows_complete_the_profiles_listing() -> None:
    # the profile page lists 2 rows and says more follow; Scholar's "Show more" payload gives the third
    # and says no more follow: one listing of 3 rows (9, 7, 3), whole, whose h 3 and citations 19 are the page's
    profile = page([9, 7], Metrics(h_index=3, citations=19), partial=True)
    for n, pub in enumerate(profile.publications, 1):
        pub.ids.scholar = f"{ADA}:p{n}"
    rows = PageResult(site="scholar", page="rows", publications=[
        Publication(title="r3", citations=3, year=2021, authors=["A B"], ids=PublicationIds(scholar=f"{ADA}:p3"))])
    (person,) = metrics([("profile.html", profile), ("rows.json", rows)], by="source").people
    (scholar,) = person.sets
    assert (scholar.value("papers"), scholar.shortfalls) == (3, [])
    assert [(c.name, c.stated, c.computed, c.agree) for c in scholar.checks] == [("h_index", 3, 3, True),
                                                                                ("citations", 19, 19, True)]
    # without the payload, the listing is partial, and the stated h is the rows the input lacks
    (alone,) = metrics([("profile.html", profile)], by="source").people[0].sets
    assert [(s.input, s.rows) for s in alone.shortfalls] == [("rows", None)]
    assert [(c.name, [r.code for r in c.reasons], c.explained) for c in alone.checks if not c.agree] == [
        ("h_index", ["rows_missing"], True), ("citations", ["rows_missing"], True)]


def test_the_kinds_of_gap_between_two_sources() -> None:
    # Ada on Scholar and on Elamur (one person by her ORCID). Scholar: "Alpha" (Scholar's * over 2 clusters,
    # 50), "Beta" (20), "Gamma" (8). Elamur: "Alpha" (45), "Beta" (20), "Beta" again as its preprint
    # (same DOI, 3), "Delta" (6, only there).
    orcid = Ids(orcid="0000-0001-0000-0001")
    scholar = page([50, 20, 8], Metrics(), flags={1: ["merged_citations"]}, clusters={1: 2})
    scholar.profile.ids = Ids(scholar=ADA, orcid=orcid.orcid)  # type: ignore[union-attr]
    for pub, title in zip(scholar.publications, ["Alpha", "Beta", "Gamma"], strict=True):
        pub.title = title
    scholar.publications[1].ids.doi = "10.1/beta"
    elamur = PageResult(site="elamur", page="profile", profile=Profile(name="Ada", ids=orcid), publications=[
        Publication(title="Alpha", year=2020, citations=45, authors=["A B"]),
        Publication(title="Beta", year=2020, citations=20, authors=["A B"], ids=PublicationIds(doi="10.1/beta")),
        Publication(title="Beta (preprint)", year=2019, citations=3, authors=["A B"],
                    ids=PublicationIds(doi="10.1/BETA")),
        Publication(title="Delta", year=2021, citations=6, authors=["A B"])])
    (person,) = metrics([("s.html", scholar), ("e.md", elamur)], by="source").people
    (gap,) = person.gaps
    kinds = {(p.title, p.kind, tuple(sorted(p.counts.items()))) for p in gap.papers}
    assert kinds == {
        ("Alpha", "merged_differently", (("elamur", 45), ("scholar", 50))),  # one row of two versions on Scholar
        # two rows on Elamur, one on Scholar; the merge keeps the fullest title, counts each site's highest
        ("Beta (preprint)", "merged_differently", (("elamur", 20), ("scholar", 20))),
        ("Gamma", "only_on", (("scholar", 8),)),
        ("Delta", "only_on", (("elamur", 6),)),
    }
    assert gap.figures["papers"] == [3, 4] and gap.figures["citations"] == [50 + 20 + 8, 45 + 20 + 3 + 6]
    assert sorted(gap.by_figure["papers"]) == sorted(p.key for p in gap.papers if p.kind == "only_on")
