"""Which merged paper each of the user's entries (a ``.bib`` entry, a site's page) stands for.

By identifiers first (DOI, case-insensitive and without a resolver prefix; arXiv id without its
version; Scholar's ``UID:PUBID`` or its PUBID alone, as al-folio's ``google_scholar_id`` holds it),
else by title and year as ``pubharvest.merge`` joins papers: equal title keys
(``parsers.text.title_key``) with years at most ``MAX_TITLE_YEAR_GAP`` apart. A paper goes to one
entry at most: an entry whose ids name two papers, or whose title fits two, matches none, and a paper
two entries claim equally goes to neither (the summary lists them as unmatched).

>>> from pubharvest.merge import Paper
>>> from pubharvest.parsers.records import PublicationIds
>>> papers = [Paper(key="a", title="Deep Nets", year=2020, sources=[], ids=PublicationIds(doi="10.1145/X")),
...           Paper(key="b", title="Shallow nets", year=2019, sources=[])]
>>> entries = [EntryFacts(ids={"doi": "https://doi.org/10.1145/x"}), EntryFacts(title="{Shallow} Nets", year=2020),
...            EntryFacts(title="Shallow nets", year=2016)]
>>> [paper.key if paper else None for paper in match_entries(entries, papers)]
['a', 'b', None]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pubharvest.parsers.identifiers import arxiv_in_url, find_arxiv_id, normal_arxiv, normal_doi
from pubharvest.parsers.text import title_key

from ..merge import MAX_TITLE_YEAR_GAP, Paper, normalised_id

ID_KINDS = ("doi", "arxiv", "scholar")


@dataclass(frozen=True)
class EntryFacts:
    """What an entry of the user's says that matching reads: ids by kind (``ID_KINDS``), title, year."""

    ids: dict[str, str] = field(default_factory=dict)
    title: str | None = None
    year: int | None = None


_Candidates = Callable[[EntryFacts], set[int]]  # the papers (indexes) an entry may be


def match_entries(entries: Sequence[EntryFacts], papers: Sequence[Paper]) -> list[Paper | None]:
    """The paper each entry stands for, or None: by ids, then by title and year; each paper once."""
    by_ids = _claims(entries, papers, _id_candidates(papers))
    taken = {id(paper) for paper in by_ids if paper is not None}
    free = [paper for paper in papers if id(paper) not in taken]
    by_titles = _claims([e if by_ids[n] is None else EntryFacts() for n, e in enumerate(entries)], free,
                        _title_candidates(free))
    return [by_id if by_id is not None else by_title for by_id, by_title in zip(by_ids, by_titles, strict=True)]


def entry_id(kind: str, value: str) -> str:
    """An entry's ``value`` of id ``kind`` spelt as the papers' are indexed (``paper_id``): a DOI or arXiv id
    as ``parsers.identifiers`` reads one (a resolver's or arXiv's address, a ``doi:`` or ``arXiv:`` prefix, a
    version), else as written.

    >>> entry_id("doi", "https://doi.org/10.48550/ARXIV.2101.00001"), entry_id("arxiv", "arXiv:2101.00001v3")
    ('10.48550/arxiv.2101.00001', '2101.00001')
    >>> entry_id("arxiv", "https://arxiv.org/pdf/hep-th/9901001v2.pdf"), entry_id("doi", "see the paper")
    ('hep-th/9901001', 'see the paper')
    >>> entry_id("scholar", "abcD:u5HHmVD_uO8C"), entry_id("scholar", "u5HHmVD_uO8C")
    ('u5HHmVD_uO8C', 'u5HHmVD_uO8C')
    """
    value = value.strip()
    if kind == "doi":
        value = normal_doi(value) or value
    elif kind == "arxiv":
        value = normal_arxiv(value) or arxiv_in_url(value) or find_arxiv_id(value) or value
    elif kind == "scholar":
        value = value.rsplit(":", 1)[-1]  # al-folio keeps the PUBID alone; a paper's id is UID:PUBID
    return normalised_id(kind, value)


def paper_id_values(paper: Paper) -> set[tuple[str, str]]:
    """Every ``(kind, value)`` of ``ID_KINDS`` the paper or any of its sources holds, as ``entry_id`` spells them
    (each Scholar profile gives a shared paper its own id, so every source's counts)."""
    found = set()
    for ids in [paper.ids, *(source.ids for source in paper.sources)]:
        for kind in ID_KINDS:
            if value := getattr(ids, kind):
                found.add((kind, entry_id(kind, value)))
    return found


def _id_candidates(papers: Sequence[Paper]) -> _Candidates:
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for n, paper in enumerate(papers):
        for key in paper_id_values(paper):
            index[key].append(n)

    def candidates(entry: EntryFacts) -> set[int]:
        keys = {(kind, entry_id(kind, value)) for kind, value in entry.ids.items() if kind in ID_KINDS and value}
        return {n for key in keys for n in index.get(key, ())}

    return candidates


def _title_candidates(papers: Sequence[Paper]) -> _Candidates:
    index: dict[str, list[int]] = defaultdict(list)
    for n, paper in enumerate(papers):
        for key in {title_key(t) for t in [paper.title, *(s.title for s in paper.sources)] if t}:
            index[key].append(n)

    def candidates(entry: EntryFacts) -> set[int]:
        key = title_key(entry.title)
        return {n for n in index.get(key, ()) if _years_agree(entry.year, _years(papers[n]))} if key else set()

    return candidates


def _years(paper: Paper) -> set[int]:
    return {year for year in [paper.year, *(source.year for source in paper.sources)] if year is not None}


def _years_agree(year: int | None, years: Iterable[int]) -> bool:
    """Merge's rule: the years together span at most ``MAX_TITLE_YEAR_GAP`` (an unknown year agrees)."""
    every = {*years, *([year] if year is not None else [])}
    return not every or max(every) - min(every) <= MAX_TITLE_YEAR_GAP


def _claims(entries: Sequence[EntryFacts], papers: Sequence[Paper],
            candidates: _Candidates) -> list[Paper | None]:
    """Each entry's one candidate paper, unless the entry has several or another entry claims it too."""
    sole = [next(iter(found)) if len(found := candidates(entry)) == 1 else None for entry in entries]
    claimed: dict[int, int] = defaultdict(int)
    for n in sole:
        if n is not None:
            claimed[n] += 1
    return [papers[n] if n is not None and claimed[n] == 1 else None for n in sole]
