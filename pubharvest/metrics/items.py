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

import functools
from collections.abc import Callable, Sequence
from typing import NamedTuple, overload

from pubharvest.parsers.records import PageResult, Publication

from ..merge import Paper, SourceRecord
from .indicators import Row
from .model import RowRef

DUPLICATE_FLAG = "duplicate_of:"  # Scholar's "*" row whose citations it merged into another row's
MERGED_FLAG = "merged_citations"
MERGED_SITE = "merged"  # the site of a merged person's items


class Item(NamedTuple):
    """A paper as a set holds it: its ``Row``, and where it is (its site, or ``merged``; its input and
    1-based place on its page), with its record (a ``Publication``, or a merged ``Paper``) for what an
    explanation names of it, read only when one does."""

    row: Row
    site: str
    input: str | None
    position: int | None
    record: Publication | Paper

    @property
    def ref(self) -> RowRef:
        """How an explanation names the row."""
        return RowRef(site=self.site, title=self.record.title, citations=self.row.citations, year=self.row.year,
                      position=self.position, input=self.input, key=getattr(self.record, "key", None))

    @property
    def flags(self) -> list[str]:
        """The flags its page gave it (of a merged paper: those of its sources of its site)."""
        return [flag for pub in self._listed() for flag in pub.flags]

    @property
    def clusters(self) -> int:
        """How many Scholar clusters its count covers."""
        return len({cluster for pub in self._listed() for cluster in pub.ids.scholar_clusters})

    def _listed(self) -> list[Publication] | list[SourceRecord]:
        if isinstance(self.record, Paper):
            return [s for s in self.record.sources if self.site == MERGED_SITE or s.site == self.site]
        return [self.record]


def row_of(pub: Publication | Paper, citations: int | None) -> Row:
    """The indicators' row of a publication or merged paper counted ``citations`` times."""
    return _new_row((citations, pub.year, len(pub.authors) or None, pub.authors_truncated))


# ``Row(...)`` without the Python-level ``__new__`` of a NamedTuple (what it calls): rows are made by the million
_new_row: Callable[[tuple[int | None, int | None, int | None, bool]], Row] = functools.partial(tuple.__new__, Row)


def page_items(name: str | None, result: PageResult) -> PageItems:
    """One item per publication of ``result`` (the page read from input ``name``), in page order."""
    return PageItems(name, result)


class PageItems(Sequence[Item]):
    """The items of one page: its ``rows`` at once, the items themselves when first asked for (only an
    explanation needs them, and a run over many people seldom does)."""

    def __init__(self, name: str | None, result: PageResult) -> None:
        self.name, self.result = name, result
        self.rows = [row_of(pub, pub.citations) for pub in result.publications]
        self._items: list[Item] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> list[Item]: ...

    def __getitem__(self, index: int | slice) -> Item | list[Item]:
        if self._items is None:
            site, name = self.result.site, self.name
            self._items = [Item(row, site, name, position, pub)
                           for position, (row, pub) in enumerate(zip(self.rows, self.result.publications,
                                                                      strict=True), 1)]
        return self._items[index]


def rows_of(items: Sequence[Item]) -> list[Row]:
    """The rows of ``items`` (a page's, without making its items)."""
    return items.rows if isinstance(items, PageItems) else [item.row for item in items]


def paper_items(papers: Sequence[Paper], site: str | None = None) -> list[Item]:
    """One item per merged paper: counted by ``site``'s highest count (None: it lists the paper
    without one), or, for ``site`` None (the merged person), by the highest count of any source."""
    items = []
    for paper in papers:
        sources = [s for s in paper.sources if site is None or s.site == site]
        citations = max((s.citations for s in sources if s.citations is not None), default=None)
        inputs = ", ".join(dict.fromkeys(s.input for s in sources if s.input)) or None
        items.append(Item(row_of(paper, citations), site or MERGED_SITE, inputs, None, paper))
    return items


def is_duplicate(item: Item) -> bool:
    """Whether the page marks the row's count as merged into another row's (Scholar's ``data-eud``)."""
    return any(flag.startswith(DUPLICATE_FLAG) for flag in item.flags)


def is_merged(item: Item) -> bool:
    """Whether the row's count covers several versions (Scholar's ``*``, or several clusters)."""
    return MERGED_FLAG in item.flags or item.clusters > 1
