"""Which part of an author page each section is, told by what it holds, not by its heading's words:
Elamur's URLs carry a language (``/free/en/``), and a page in another language has other headings.

The evidence is the section's links and list items: institutions (``/companies/``, ``/universities/``,
ROR) in bold for affiliations, ``/shelves/`` and ``/topics/`` for fields, ``/authors/<slug>/year/<YYYY>/``
for works by year, a bold link to a paper page for *Papers*, a link around a bold title (or an
``↗`` original link) for *All works*, bullets linking ``/authors/<slug>/`` for co-authors, plain
bullets for venues, ``/authors/<slug>/cited-by/`` for *Cited by*. The English heading only breaks a
tie (a list of paper links whose shape drifted); a section told by neither is warned about.

>>> from ._base import Block, Run
>>> section_kind(Section("Orte", [Block("item", [Run("SC 2021")])]))
'venues'
>>> section_kind(Section("Papers", [Block("item", [Run("T", href="https://x/papers/t/", link=0)], ordered=True)]))
'papers'
"""

from __future__ import annotations

import re

from ..records import PageResult
from ..warning_codes import Warn
from ._base import Block, Item, Run, Section, joined, links_of

# Each kind's English heading: in the one-line form only these tell where a heading stops, and a
# section whose evidence is a tie is told by it.
ENGLISH_TITLES = {"Affiliations": "affiliations", "Fields, topics and concepts": "fields",
                  "Works by year": "works_by_year", "Papers": "papers", "All works": "all_works",
                  "Co-authors here": "coauthors", "Venues": "venues", "Cited by": "cited_by"}

PAPER_PAGE = re.compile(r"/papers/([^/]+)/?\Z")
_AUTHOR_PAGE = re.compile(r"/authors/[^/]+/?\Z")
_YEAR_PAGE = re.compile(r"/authors/[^/]+/year/\d{4}/?\Z")
CITED_BY_PAGE = re.compile(r"/authors/[^/]+/cited-by/?\Z")
_SHELF_OR_TOPIC = re.compile(r"/(?:shelves|topics)/[^/]")
_INSTITUTION = re.compile(r"/(?:companies|universities)/[^/]+/?\Z|\Ahttps://ror\.org/")
_ITEM_SHAPES = {"paper": "papers", "work": "all_works", "unpaged": "all_works", "person": "coauthors"}
_WORKS = "works"  # a list of paper links of neither list's shape: the heading tells which


def _item_kind(block: Block | Item) -> str | None:
    """The kind of section a list item belongs in, by its shape and its first link."""
    if isinstance(block, Item):
        return _ITEM_SHAPES[block.shape]
    links = links_of(block.runs)
    if not links:
        return None if block.ordered else "venues"
    href, runs = links[0]
    if joined(runs).endswith("↗"):
        return "all_works"
    if PAPER_PAGE.search(href):
        first = next(run for run in block.runs if run.text.strip())
        if first.strong and all(run.strong for run in runs):  # **[title](…)**
            return "papers"
        return "all_works" if any(run.strong for run in runs) else _WORKS  # [**title** authors *year*](…)
    if _AUTHOR_PAGE.search(href) and not block.ordered:
        return "coauthors"
    return None


def _link_kind(href: str, runs: list[Run]) -> str | None:
    """The kind of section a link outside a list item belongs in, by its address."""
    if _SHELF_OR_TOPIC.search(href):
        return "fields"
    if _YEAR_PAGE.search(href):
        return "works_by_year"
    if CITED_BY_PAGE.search(href):
        return "cited_by"
    if _INSTITUTION.search(href) and any(run.strong for run in runs):
        return "affiliations"
    return None


def _evidence(sec: Section) -> set[str]:
    found: set[str | None] = set()
    for block in sec.blocks:
        if block.kind == "item":
            found.add(_item_kind(block))
        else:
            found.update(_link_kind(href, runs) for href, runs in links_of(block.runs))
    kinds = {kind for kind in found if kind}
    if kinds & {"papers", "all_works"}:
        kinds.discard(_WORKS)
    return kinds


def section_kind(sec: Section) -> str | None:
    """Which section ``sec`` is (a key of ``ENGLISH_TITLES``' values), or None when it cannot be told."""
    found = _evidence(sec)
    by_title = ENGLISH_TITLES.get(sec.title)
    if len(found) == 1 and _WORKS not in found:
        return found.pop()
    if by_title and (found <= {by_title} or (found == {_WORKS} and by_title in ("papers", "all_works"))):
        return by_title
    return None


def sections_by_kind(sections: list[Section], result: PageResult) -> dict[str, Section]:
    """The sections after the page head by kind; each that cannot be told, or is a second of its kind,
    is skipped with ``unknown_section``."""
    found: dict[str, Section] = {}
    for sec in sections[1:]:
        kind = section_kind(sec)
        if kind is None:
            result.warn(Warn.unknown_section, f"section {sec.title[:60]!r} is not one pubharvest knows; skipped")
        elif kind in found:
            result.warn(Warn.unknown_section, f"section {sec.title[:60]!r} reads as a second {kind!r} section; "
                                              "skipped")
        else:
            found[kind] = sec
    return found
