"""Properties of ``pubharvest.merge`` on random inputs: the fast matching gives the groups
and joins of a plain all-pairs scan, and a set of consistent listings merges into its papers
whatever the order of pages and rows. Listings split into pages and cut titles on real pages are
in test_merge_listings.py."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pubharvest.merge import (
    MIN_PREFIX_KEY,
    UNIQUE_ID_KINDS,
    _Groups,
    _title_cut,
    _title_usable,
    _titles_agree,
    listing_of,
    merge,
    paper_id_kinds,
    paper_ids,
    source_record,
)
from pubharvest.parsers.records import PageResult, Profile, Publication, PublicationIds
from pubharvest.parsers.text import title_key

pytestmark = pytest.mark.slow  # hundreds of random inputs each
SITES = ("scholar", "msr", "elamur")
# few words, so that titles collide, begin one another and repeat on one page
WORDS = ("deep", "Deep", "nets", "NETS", "sparse", "widgets", "of", "graphs", "at", "scale")



def reference_groups(pages: list[PageResult]) -> list[tuple[list[str], list[tuple[int, int, str, str | None]]]]:
    """The groups (sources by label) and the joins inside each, by scanning every pair of sources
    in input order: each source tries the earlier ones with the same identifier (the first only), the
    same title (until one joins), then each cut title, longest first, collects the groups of every
    longer title it begins and joins the only one it may join."""
    sources, listing, labels = [], [], []
    numbers: dict = {}
    for index, result in enumerate(pages):
        for pub in result.publications:
            sources.append(source_record(None, result, pub))
            listing.append(numbers.setdefault(listing_of(index, result), len(numbers)))
            labels.append(str(pub.url))
    ids = [paper_ids(s) for s in sources]
    groups = _Groups(sources, listing, ids, UNIQUE_ID_KINDS)
    for kind in paper_id_kinds():
        for i in range(len(sources)):
            same = [j for j in range(i) if ids[i].get(kind) and ids[j].get(kind) == ids[i][kind]]
            if same and (kind != "isbn" or _titles_agree(sources[same[0]], sources[i])):
                groups.join(same[0], i, kind, ids[i][kind])
    keys = [title_key(s.title) if _title_usable(s) else "" for s in sources]
    for i in range(len(sources)):
        for j in range(i):
            if keys[i] and keys[j] == keys[i] and groups.join(j, i, "title_year", keys[i], same_listing_ok=False,
                                                             max_year_gap=1):
                break
    cut = [i for i, source in enumerate(sources) if len(keys[i]) >= MIN_PREFIX_KEY and _title_cut(source)]
    twice = Counter((listing[i], keys[i]) for i in cut)
    for i in sorted(cut, key=lambda i: -len(keys[i])):
        own, joinable = groups.find(i), dict[int, int]()
        for j in range(len(sources)):
            if j != i and len(keys[j]) > len(keys[i]) and keys[j].startswith(keys[i]):
                root = groups.find(j)
                if root != own and not groups.conflicts(own, root, same_listing_ok=False, max_year_gap=1):
                    joinable.setdefault(root, j)
        if len(joinable) == 1 and twice[listing[i], keys[i]] == 1:
            groups.join(next(iter(joinable.values())), i, "title_prefix", keys[i], same_listing_ok=False,
                        max_year_gap=1)
    members: dict[int, list[int]] = {}
    for i in range(len(sources)):
        members.setdefault(groups.find(i), []).append(i)
    found = []
    for group in sorted(members.values()):
        position = {source: n for n, source in enumerate(group)}
        joins = [(position[i], position[j], r, v) for i, j, r, v in groups.matches if i in position]
        found.append(([labels[i] for i in group], joins))
    return found


def merged_groups(pages: list[PageResult]) -> list[tuple[list[str], list[tuple[int, int, str, str | None]]]]:
    return [([s.url or "" for s in paper.sources], [(m.sources[0], m.sources[1], m.reason, m.value)
                                                   for m in paper.matched_by])
            for paper in merge((None, page) for page in pages).papers]


@st.composite
def messy_pages(draw: st.DrawFn) -> list[PageResult]:
    """Pages of rows with colliding titles, cut titles, near years and shared or differing ids; some
    pages of one profile (one listing), some of none."""
    pages = []
    for index in range(draw(st.integers(1, 12))):
        site, owner = draw(st.sampled_from(SITES)), draw(st.sampled_from([None, "ada", "ben"]))
        rows = []
        for row in range(draw(st.integers(0, 40))):
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
            title = " ".join(words) + draw(st.sampled_from(["", "", "", " ...", "…", "\u00a0…"]))
            ids = PublicationIds(doi=draw(st.sampled_from([None, None, None, "10.1/a", "10.1/A", "10.1/b"])),
                                 arxiv=draw(st.sampled_from([None, None, None, "2101.00001", "2101.00002"])),
                                 isbn=draw(st.sampled_from([None, None, None, None, "978-1-4673-8815-3"])))
            rows.append(Publication(title=title, year=draw(st.sampled_from([None, 2019, 2020, 2021, 2022])),
                                    ids=ids, url=f"page{index}#{row}"))
        profile = Profile(url=f"https://{site}/{owner}") if owner else None
        pages.append(PageResult(site=site, page="publication_list", url=f"page{index}", profile=profile,
                                publications=rows))
    return pages


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messy_pages())
def test_fast_matching_gives_the_groups_and_joins_of_an_all_pairs_scan(pages: list[PageResult]) -> None:
    assert merged_groups(pages) == reference_groups(pages)


@st.composite
def consistent_listings(draw: st.DrawFn) -> tuple[list[PageResult], list[set[str]]]:
    """Papers listed on up to five pages each (once per page at most), in the sites' variants of
    their title (capitals, spacing, cut short), a year apart at most, with the paper's own DOI or
    arXiv id or none; and the papers as sets of row labels. Each title starts with its paper's
    number, so no paper's title begins another's."""
    page_count = draw(st.integers(1, 5))
    papers = draw(st.integers(1, 60))
    rows: list[list[Publication]] = [[] for _ in range(page_count)]
    truth: list[set[str]] = []
    for number in range(papers):
        title = f"P{number}x " + " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=8)))
        year = draw(st.integers(1990, 2024))
        listed = draw(st.sets(st.integers(0, page_count - 1), min_size=1))
        labels = set()
        for page in sorted(listed):
            variant = draw(st.sampled_from(["same", "upper", "lower", "spaced", "cut"]))
            written = {"same": title, "upper": title.upper(), "lower": title.lower(),
                       "spaced": title.replace(" ", "  "), "cut": title[:max(14, len(title) - 6)] + " …"}[variant]
            ids = draw(st.sampled_from([PublicationIds(), PublicationIds(doi=f"10.9/{number}"),
                                        PublicationIds(arxiv=f"2301.{number:05d}")]))
            label = f"page{page}#{number}"
            rows[page].append(Publication(title=written, year=year + draw(st.integers(0, 1)), ids=ids, url=label))
            labels.add(label)
        truth.append(labels)
    pages = [PageResult(site=SITES[page % 3], page="publication_list", url=f"page{page}", publications=listing)
             for page, listing in enumerate(rows)]
    return pages, truth


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(consistent_listings(), st.randoms(use_true_random=False))
def test_consistent_listings_merge_into_their_papers_in_any_order(case, rng) -> None:
    pages, truth = case
    shuffled = [PageResult(site=p.site, page=p.page, url=p.url, publications=rng.sample(p.publications,
                                                                                          len(p.publications)))
                for p in rng.sample(pages, len(pages))]
    want = sorted(map(sorted, truth))
    for given_pages in (pages, shuffled):
        papers = merge((None, p) for p in given_pages).papers
        got = sorted(sorted(s.url or "" for s in paper.sources) for paper in papers)
        assert got == want
