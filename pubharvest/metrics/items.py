"""The rows the figures are computed from: one ``Item`` per paper of a listing (a page's publication,
or a merged paper), its ``Row`` for the indicators beside what an explanation names of it.

>>> from pubharvest.parsers.records import PageResult, Publication
>>> page = PageResult(site="scholar", page="profile", publications=[
...     Publication(title="A", year=2020, citations=3, authors=["A B", "C D"], authors_truncated=True)])
>>> item = page_items("a.html", page)[0]
>>> item.row, item.ref.position
(Row(citations=3, year=2020, authors=2, authors_truncated=True), 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pubharvest.parsers.records import PageResult, Publication

from ..merge import Paper
from .indicators import Row
from .model import RowRef

DUPLICATE_FLAG = "duplicate_of:"  # Scholar's "*" row whose citations it merged into another row's
MERGED_FLAG = "merged_citations"


class Item(NamedTuple):
    """A paper as a set holds it: its ``Row``, how an explanation names it, and what its page said of
    its versions (flags; how many Scholar clusters its count covers; how many rows merged into it)."""

    row: Row
    ref: RowRef
    flags: tuple[str, ...] = ()
    clusters: int = 0
    merged_rows: int = 1


def row_of(pub: Publication | Paper, citations: int | None) -> Row:
    """The indicators' row of a publication or merged paper counted ``citations`` times."""
    return Row(citations, pub.year, len(pub.authors) or None, pub.authors_truncated)


def page_items(name: str | None, result: PageResult) -> list[Item]:
    """One item per publication of ``result`` (the page read from input ``name``), in page order."""
    return [Item(row_of(pub, pub.citations),
                 RowRef(site=result.site, title=pub.title, citations=pub.citations, year=pub.year, position=position,
                        input=name),
                 tuple(pub.flags), len(pub.ids.scholar_clusters))
            for position, pub in enumerate(result.publications, 1)]


def paper_items(papers: Sequence[Paper], site: str | None = None) -> list[Item]:
    """One item per merged paper: counted by ``site``'s highest count (None: it lists the paper
    without one), or, for ``site`` None (the merged person), by the highest count of any source."""
    items = []
    for paper in papers:
        sources = [s for s in paper.sources if site is None or s.site == site]
        counts = [s.citations for s in sources if s.citations is not None]
        citations = max(counts, default=None)
        flags = tuple(dict.fromkeys(flag for s in sources for flag in s.flags))
        clusters = len({c for s in sources for c in s.ids.scholar_clusters})
        items.append(Item(row_of(paper, citations),
                          RowRef(site=site or "merged", title=paper.title, citations=citations, year=paper.year,
                                 input=", ".join(dict.fromkeys(s.input for s in sources if s.input)) or None,
                                 key=paper.key),
                          flags, clusters, len(sources)))
    return items


def is_duplicate(item: Item) -> bool:
    """Whether the page marks the row's count as merged into another row's (Scholar's ``data-eud``)."""
    return any(flag.startswith(DUPLICATE_FLAG) for flag in item.flags)


def is_merged(item: Item) -> bool:
    """Whether the row's count covers several versions (Scholar's ``*``, or several clusters)."""
    return MERGED_FLAG in item.flags or item.clusters > 1
