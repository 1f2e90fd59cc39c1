"""The merge rules of docs/exports.md's "Merging" on real listings: a profile's rows merge alike on one
page or split into pages at random (as Scholar's ``cstart`` pages and "Show more" rows split them),
and a cut title joins only the one paper whose title it begins, never two papers of one listing."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from pathlib import Path

import msgspec
import pytest
from conftest import FIXTURES, corpus_dir, from_corpus
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pubharvest.parsers as parsers
from pubharvest.merge import MergeResult, merge
from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds, to_builtins
from pubharvest.parsers.text import title_key

pytestmark = pytest.mark.slow  # a hundred random splits of each listing

# Real pages that list one profile's rows: fixtures, and the corpus's profile pages with the
# 1,114-row Einstein fragment (rows only: its rows' UID:PUBID name the profile).
FIXTURE_LISTINGS = ["scholar/handwritten_ja_profile.html", "msr/010_people_publications.html",
                    "elamur/000_e63c2e80f8ecde3e.txt", "elamur/010_handwritten_quintero.txt"]
CORPUS_LISTINGS = ["scholar/fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html",
                   "scholar/profile_kQqERkIAAAAJ_en_2017_bowding.html",
                   "scholar/profile_RxmmtT8AAAAJ_scholar-scraper_2026.html",
                   "scholar/profile_amIMrIEAAAAJ_scholar-scraper_2026.html",
                   "scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html",
                   "scholar/legacy2013_profile_oSJgw2cAAAAJ_full_web-scrapper_2016.html"]
LISTINGS = [pytest.param(f"fixtures/{name}", id=name) for name in FIXTURE_LISTINGS] + [
    from_corpus(f"corpus/{name}") for name in CORPUS_LISTINGS]
CUT_MARKS = ["...", "…", " ...", " …", "\u00a0…", "\u00a0..."]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])


@functools.cache
def listing(name: str) -> PageResult:
    """The page ``name`` (``fixtures/...`` or ``corpus/...``) parsed, each row labelled by its position
    in ``url`` (which no rule matches on)."""
    folder, relative = name.split("/", 1)
    root = FIXTURES if folder == "fixtures" else corpus_dir()
    if root is None:
        pytest.skip("PUBHARVEST_CORPUS is not set: real-page tests need ../shared/research")
    result = parsers.parse((Path(root) / relative).read_bytes())
    assert len(result.publications) >= 2, name
    for n, pub in enumerate(result.publications):
        pub.url = f"row{n}"
    return result


def pages_of(whole: PageResult, cuts: Sequence[int], rows_only: Sequence[bool]) -> list[PageResult]:
    """``whole``'s rows split at ``cuts`` into pages, as a profile saved page by page: each page is a
    ``cstart`` page with the profile, or (``rows_only``: Scholar's "Show more" answer) its rows alone."""
    bounds = [0, *cuts, len(whole.publications)]
    pages = []
    for n, (start, end) in enumerate(itertools.pairwise(bounds)):
        page = msgspec.structs.replace(whole, publications=whole.publications[start:end],
                                       url=f"{whole.url}&cstart={start}")
        if n and rows_only[n]:
            page.page, page.profile = "rows", None
        pages.append(page)
    return pages


def papers(pages: Sequence[PageResult]) -> list[dict]:
    """The merged papers, without where each source was read (its page's URL and input name)."""
    found = to_builtins(merge((f"page{n}.html", page) for n, page in enumerate(pages)))["papers"]
    for paper in found:
        for source in paper["sources"]:
            source.pop("page_url", None)
            source.pop("input", None)
    return found


def cut_title(title: str, at: int, mark: str) -> str:
    return title[:at].rstrip() + mark


@st.composite
def splits(draw: st.DrawFn, whole: PageResult) -> tuple[list[int], list[bool]]:
    """Random cut points (one page to a page per row) and, for Scholar, which pages are rows alone."""
    rows = len(whole.publications)
    cuts = sorted(draw(st.sets(st.integers(1, rows - 1), max_size=min(rows - 1, 12))))
    scholar_rows = whole.site == "scholar" and all(pub.ids.scholar for pub in whole.publications)
    rows_only = [draw(st.booleans()) and scholar_rows for _ in range(len(cuts) + 1)]
    return cuts, rows_only


@st.composite
def companion(draw: st.DrawFn, whole: PageResult) -> PageResult:
    """Another site's listing of some of ``whole``'s papers, in other casings and cut short, without ids."""
    rows = []
    for n in draw(st.sets(st.integers(0, len(whole.publications) - 1), max_size=8)):
        pub = whole.publications[n]
        title = pub.title or ""
        variant = draw(st.sampled_from(["same", "upper", "cut"]))
        if variant == "upper":
            title = title.upper()
        elif variant == "cut" and len(title) > 2:
            title = cut_title(title, draw(st.integers(1, len(title) - 1)), draw(st.sampled_from(CUT_MARKS)))
        rows.append(Publication(title=title, year=pub.year, authors=pub.authors, url=f"other{n}"))
    site = "msr" if whole.site != "msr" else "elamur"
    return PageResult(site=site, page="publication_list", profile=Profile(url=f"https://{site}/other"),
                      publications=rows)


@pytest.mark.parametrize("name", LISTINGS)
@SETTINGS
@given(data=st.data())
def test_a_listing_merges_alike_on_one_page_or_split_into_pages(name: str, data: st.DataObject) -> None:
    whole = listing(name)
    cuts, rows_only = data.draw(splits(whole))
    other = data.draw(companion(whole))
    split = pages_of(whole, cuts, rows_only)
    assert papers([other, *split]) == papers([other, whole])


def groups_of(result: MergeResult) -> list[set[str]]:
    return [{source.url or "" for source in paper.sources} for paper in result.papers]


@pytest.mark.parametrize("name", LISTINGS)
@SETTINGS
@given(data=st.data())
def test_a_cut_title_joins_the_one_paper_it_begins_and_none_when_it_begins_two(name: str,
                                                                                 data: st.DataObject) -> None:
    whole = listing(name)
    row = data.draw(st.sampled_from(whole.publications))
    title = row.title or ""
    assume(len(title_key(title)) > 1 and "title_looks_like_authors" not in row.flags)
    at = data.draw(st.integers(1, len(title) - 1))
    cut = cut_title(title, at, data.draw(st.sampled_from(CUT_MARKS)))
    key = title_key(cut)
    assume(key and key != title_key(title))
    usable = [pub for pub in whole.publications if "title_looks_like_authors" not in pub.flags]
    assume(all(title_key(pub.title) != key for pub in usable))  # an equal title is matched as a whole title
    other = PageResult(site="elamur", page="publication_list", profile=Profile(url="https://elamur/other"),
                       publications=[Publication(title=cut, year=row.year, url="cut")])
    own = groups_of(merge([(None, whole)]))  # the listing's papers (its rows join by identifiers alone)
    years = {pub.url: pub.year for pub in whole.publications}
    begun = [paper for paper in own if any(title_key(pub.title).startswith(key) for pub in usable if pub.url in paper)
             and _within_a_year({years[label] for label in paper} | {row.year})]
    want = begun[0] | {"cut"} if len(begun) == 1 and len(key) >= 10 else {"cut"}
    (got,) = [group for group in groups_of(merge([(None, whole), (None, other)])) if "cut" in group]
    assert got == want, (cut, [sorted(paper) for paper in begun])


def _within_a_year(years: set[int | None]) -> bool:
    known = [year for year in years if year is not None]
    return not known or max(known) - min(known) <= 1


@pytest.mark.parametrize("name", LISTINGS)
@SETTINGS
@given(data=st.data())
def test_cut_titles_never_join_two_papers_of_one_listing(name: str, data: st.DataObject) -> None:
    whole = listing(name)
    other = data.draw(companion(whole))
    own = groups_of(merge([(None, whole)]))
    merged = merge([(None, page) for page in [*pages_of(whole, *data.draw(splits(whole))), other]])
    keys = {pub.url: title_key(pub.title) for pub in [*whole.publications, *other.publications]}
    for paper in merged.papers:
        labels = {source.url or "" for source in paper.sources}
        cut = [label for label in labels if label.startswith("other")]
        assert len(cut) <= 1  # one row of the other listing at most
        assert sum(1 for group in own if group & labels) <= 1  # one paper of the listing at most
        if cut and labels - set(cut):  # and it begins that paper's title (one of them, for rows joined by ids)
            assert any(keys[label].startswith(keys[cut[0]]) for label in labels - set(cut)), labels


# --- the examples the rules came from ------------------------------------------------------------


def scholar_page(*titles: str, start: int = 0, owner: str = "TnormsAAAAJ", year: int = 1999) -> PageResult:
    rows = [Publication(title=title, year=year, ids=PublicationIds(scholar=f"{owner}:row{start + n}"))
            for n, title in enumerate(titles)]
    return PageResult(site="scholar", page="profile", url=f"https://scholar.google.com/citations?user={owner}",
                      profile=Profile(ids=parsers.records.Ids(scholar=owner)), publications=rows)


TNORMS = ("Triangular norms on product lattices", "Triangular norms on the real unit square")


@pytest.mark.parametrize("pages", [[scholar_page(*TNORMS)],
                                   [scholar_page(TNORMS[0]), scholar_page(TNORMS[1], start=1)]],
                         ids=["one page", "two cstart pages"])
def test_a_cut_title_that_begins_two_papers_of_a_listing_joins_neither(pages: list[PageResult]) -> None:
    cut = PageResult(site="msr", page="publication_list", publications=[Publication(title="Triangular norms on...",
                                                                                    year=1999)])
    result = merge([(None, page) for page in [*pages, cut]])
    assert [[s.title for s in paper.sources] for paper in result.papers] == [[TNORMS[0]], [TNORMS[1]],
                                                                             ["Triangular norms on..."]]


def test_a_cut_title_joins_the_one_paper_it_begins_within_a_year() -> None:
    pages = [scholar_page(TNORMS[0]), scholar_page(TNORMS[1], start=1, year=2005)]
    cut = PageResult(site="msr", page="publication_list", publications=[Publication(title="Triangular norms on\u00a0…",
                                                                                    year=2005)])
    result = merge([(None, page) for page in [*pages, cut]])
    assert [[s.title for s in paper.sources] for paper in result.papers] == [[TNORMS[0]], [TNORMS[1],
                                                                                          "Triangular norms on\u00a0…"]]
    assert [(m.reason, m.value) for m in result.papers[1].matched_by] == [("title_prefix", "triangularnormson")]


def test_rows_of_one_title_on_two_pages_of_a_profile_stay_two_papers() -> None:
    pages = [scholar_page("Overview of sparse widgets"), scholar_page("Overview of sparse widgets", start=1)]
    assert len(merge([(None, page) for page in pages]).papers) == 2
    rows_alone = msgspec.structs.replace(pages[1], page="rows", profile=None)  # a "Show more" answer
    assert len(merge([(None, pages[0]), (None, rows_alone)]).papers) == 2
    other_profile = scholar_page("Overview of sparse widgets", owner="OtherPrAAAAJ")
    assert len(merge([(None, pages[0]), (None, other_profile)]).papers) == 1


def test_a_cut_title_its_listing_holds_twice_joins_nothing() -> None:
    twins = scholar_page("Triangular norms on...", "Triangular norms on...")
    whole = PageResult(site="msr", page="publication_list", publications=[Publication(title=TNORMS[0], year=1999)])
    assert len(merge([(None, twins), (None, whole)]).papers) == 3


def test_of_two_cut_rows_of_a_listing_the_longer_joins_the_paper_it_begins() -> None:
    cuts = scholar_page("Triangular norms on...", "Triangular norms on product lat…")
    whole = PageResult(site="msr", page="publication_list", publications=[Publication(title=TNORMS[0], year=1999)])
    result = merge([(None, cuts), (None, whole)])
    assert [[s.title for s in paper.sources] for paper in result.papers] == [
        ["Triangular norms on..."], ["Triangular norms on product lat…", TNORMS[0]]]
