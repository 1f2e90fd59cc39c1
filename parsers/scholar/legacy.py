"""Profiles saved before 2014 use ``cit-*`` markup: the header in ``#cit-name-display`` and its
siblings, the counts in ``table#stats`` (``td.cit-data``), rows ``tr.cit-table.item`` whose cells
all carry the same ids (``td#col-title`` …, repeated on every row), co-authors as links with a
``title`` in the left column. The chart of citations per year is an image: no figures to read."""

from __future__ import annotations

import re

from lxml import etree
from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged, Truncated

from ..numbers import Cells
from ..page import Document
from ..records import Coauthor, Ids, Metrics, PageResult, Profile, Publication, PublicationIds
from ..text import absolute_url, clean, clean_or_none, clean_title, find_year
from ..warning_codes import Warn
from ._base import (
    BY_ID,
    HEAD_LINKS,
    as_elements,
    attr,
    class_names,
    element_text,
    last_domain,
    linked_user_ids,
    query_value,
    text_of,
    user_id,
)
from .identity import SITE
from .rows import SeenLines, fill_authors_and_venue, origin_of, unread_links, warn_unread_fields

_LEGACY_IDS = ("cit-name-display", "cit-affiliation-display", "cit-int-read", "cit-domain-display",
               "cit-homepage-read", "stats")
_LEGACY_ROWS = etree.XPath("//tr[contains(concat(' ', @class, ' '), ' cit-table ') and "
                           "contains(concat(' ', @class, ' '), ' item ')]")
_LEGACY_RANGE = re.compile(r"^\s*(\d+)\s*[-–]\s*(\d+)\s*$")
_LEGACY_PAGER = etree.XPath("//form[@id='citationsForm']//span")


def refuse_cut_legacy_page(doc: Document) -> None:
    """``Truncated`` for a whole saved pre-2014 page (its ``<html>`` document) that stops before its end."""
    if "<html" in doc.head and doc.is_cut:
        raise Truncated("a pre-2014 Scholar page (cit-* markup) that stops before its end; save it again")


def parse_legacy_profile(doc: Document) -> PageResult:
    root = doc.selector.root
    found = {key: element for key in _LEGACY_IDS
             for element in as_elements(BY_ID(root, ids=key))[:1]}
    url = clean_or_none(attr(next(iter(as_elements(HEAD_LINKS(root))), None), "href")) or doc.url
    if "stats" not in found or not text_of(found.get("cit-name-display")):
        raise LayoutChanged("a pre-2014 Scholar profile without its name (#cit-name-display) or its "
                            "citations table (table#stats)")
    origin = origin_of(url)
    result = PageResult(site=SITE.name, page="profile", url=url)
    own = user_id(url)
    homepage = next(found["cit-homepage-read"].iter("a"), None) if "cit-homepage-read" in found else None
    interests = list(found["cit-int-read"].iter("a")) if "cit-int-read" in found else []
    cells = Cells()
    result.profile = Profile(
        name=text_of(found["cit-name-display"]), url=url, ids=Ids(scholar=own),
        affiliation=text_of(found.get("cit-affiliation-display")),
        email_domain=last_domain(text_of(found.get("cit-domain-display")) or ""),
        homepage=homepage.get("href") if homepage is not None else None,
        interests=[clean(element_text(a)) for a in interests],
        metrics=_legacy_metrics(found["stats"], cells),
        coauthors=_legacy_coauthors(root, own, origin),
    )
    rows = as_elements(_LEGACY_ROWS(root))
    seen = SeenLines()
    result.publications = [_legacy_publication(row, origin, cells, number, seen) for number, row in enumerate(rows, 1)]
    cells.report(result)
    _check_legacy_rows(root, rows, result)
    _check_legacy_parts(doc, found, rows, result)
    if doc.contains("view_op=list_colleagues"):
        result.warn(Warn.coauthors_partial, "the page shows only the first co-authors; the full list is "
                                            "behind its link (view_op=list_colleagues)")
    return result


def _legacy_metrics(table: Element, cells: Cells) -> Metrics:
    """The six counts of ``table#stats`` (all, since) and the "since" year of its header row."""
    texts = [element_text(td) for td in table.iter("td") if "cit-data" in class_names(td)]
    first_row = next(table.iter("tr"), None)  # a table#stats of <div>s has no row: its counts are unread
    header = [element_text(td) for td in first_row.iter("td")] if first_row is not None else []
    if len(texts) != 6:
        return Metrics()
    values = [cells.count(text, f"metrics table, cell {number}") for number, text in enumerate(texts, 1)]
    return Metrics(citations=values[0], citations_since=values[1], since_year=find_year(header[-1]) if header else None,
                   h_index=values[2], h_index_since=values[3], i10_index=values[4], i10_index_since=values[5])


def _legacy_coauthors(root: Element, own: str | None, origin: str) -> list[Coauthor]:
    """The co-author links of the left column (``a.cit-dark-link`` to a profile, with a ``title``)."""
    found: list[Coauthor] = []
    for a in _coauthor_links(root, own):
        href, user = a.get("href") or "", user_id(a.get("href"))
        if user:
            found.append(Coauthor(name=clean(a.get("title")), ids=Ids(scholar=user), url=absolute_url(href, origin)))
    return found


def _coauthor_links(root: Element, own: str | None) -> list[Element]:
    """The left column's links that name another person (``a.cit-dark-link[title]``, not a ``view_op`` link)."""
    return [a for a in root.iter("a") if a.get("title") and "cit-dark-link" in class_names(a)
            and "view_op" not in (a.get("href") or "") and (own is None or user_id(a.get("href")) != own)]


def _legacy_publication(row: Element, origin: str, cells: Cells, number: int, seen: SeenLines) -> Publication:
    """One ``tr.cit-table.item`` (row ``number``): title link and two ``span.cit-gray`` lines, cited-by, year."""
    by_id = {cell.get("id"): cell for cell in row if cell.tag == "td"}
    title_cell = by_id.get("col-title")
    anchor = next(title_cell.iter("a"), None) if title_cell is not None else None
    spans = title_cell.iter("span") if title_cell is not None else ()
    grays = [span for span in spans if "cit-gray" in class_names(span)]
    href = anchor.get("href") if anchor is not None else None
    year_text = clean(element_text(by_id["col-year"])) if "col-year" in by_id else ""
    year = cells.year(year_text, f"row {number} year") if year_text else None
    pub = Publication(title=clean_title(element_text(anchor)) if anchor is not None else None, year=year,
                      date=str(year) if year else None, url=absolute_url(href, origin),
                      ids=PublicationIds(scholar=query_value(href, "citation_for_view")))
    fill_authors_and_venue(pub, element_text(grays[0]) if grays else "",
                           element_text(grays[1]) if len(grays) > 1 else "", seen)
    count = next(by_id["col-citedby"].iter("a"), None) if "col-citedby" in by_id else None
    pub.citations = (cells.count(element_text(count), f"row {number} citations", empty=0) if count is not None
                     else 0 if "col-citedby" in by_id else None)
    if count is not None:
        pub.ids.scholar_clusters = [c for c in (query_value(count.get("href"), "cites") or "").split(",") if c]
    if "col-asterisk" in by_id and "*" in element_text(by_id["col-asterisk"]):
        pub.flags.append("merged_citations")
    return pub


_LEGACY_REQUIRED = {"cit-affiliation-display": "the affiliation", "cit-domain-display": "the e-mail line",
                    "cit-int-read": "the interests", "cit-homepage-read": "the homepage box"}
_LEGACY_CELLS = {"col-title": "title cell", "col-citedby": "cited-by cell", "col-year": "year cell"}


def _check_legacy_parts(doc: Document, found: dict[str, Element], rows: list[Element], result: PageResult) -> None:
    """One ``profile_unreadable`` warning naming each header part every saved page of this layout has
    and that was not found, the counts or co-authors not read; ``rows_unreadable`` for rows without
    a cell or an authors line."""
    profile = result.profile
    assert profile is not None
    missing = [f"{what} (#{key})" for key, what in _LEGACY_REQUIRED.items() if key not in found]
    if profile.metrics.citations is None:
        missing.append("the six counts of the citations table (table#stats td.cit-data)")
    linked = linked_user_ids(doc) - {profile.ids.scholar}
    shown = _coauthor_links(doc.selector.root, profile.ids.scholar)
    if linked - {c.ids.scholar for c in profile.coauthors} or len(shown) > len(profile.coauthors):
        missing.append(f"co-authors (a.cit-dark-link[title]): the page links {max(len(linked), len(shown))} other "
                       f"profiles, {len(profile.coauthors)} were read")
    if not profile.ids.scholar:
        missing.append("the profile's id (user= in the canonical link)")
    if missing:
        result.warn(Warn.profile_unreadable, "could not read " + "; ".join(missing))
    unread: dict[str, list[int]] = {}
    for number, (row, pub) in enumerate(zip(rows, result.publications, strict=True), 1):
        cells = {cell.get("id") for cell in row}
        for key, what in _LEGACY_CELLS.items():
            if key not in cells:
                unread.setdefault(what, []).append(number)
        title = next((cell for cell in row if cell.get("id") == "col-title"), None)
        # (a row may lack the venue line: row 14 of the vspCNtYAAAAJ page has authors only)
        if title is not None and not any("cit-gray" in class_names(span) for span in title.iter("span")):
            unread.setdefault("authors line (span.cit-gray)", []).append(number)
        for what in unread_links(pub, linked=pub.title is not None):
            unread.setdefault(what, []).append(number)
    warn_unread_fields(unread, result.publications, result)


def _check_legacy_rows(root: Element, rows: list[Element], result: PageResult) -> None:
    """The rows read against the range the pager states ("1-20"), and a "partial" warning when it
    links a next page (``cstart=``)."""
    ranges = (_LEGACY_RANGE.match(element_text(s)) for s in as_elements(_LEGACY_PAGER(root)))
    stated = next((m for m in ranges if m), None)
    if stated is None:
        result.warn(Warn.profile_unreadable, "the page states no row range: the number of rows read cannot be checked")
    else:
        first, last = int(stated.group(1)), int(stated.group(2))
        if not rows:
            raise LayoutChanged(f"the page says it shows rows {first}–{last} but no row (tr.cit-table.item) was found")
        if len(rows) != last - first + 1:
            result.warn(Warn.row_count, f"the page says it shows rows {first}–{last} but {len(rows)} rows were read")
    if rows and not any(pub.title for pub in result.publications):
        raise LayoutChanged(f"none of the {len(rows)} rows (tr.cit-table.item) has a title link")
    pager = as_elements(_LEGACY_PAGER(root))
    form = pager[0].getparent() if pager else None
    if form is not None and any("cstart=" in (a.get("href") or "") for a in form.iter("a")):
        result.warn(Warn.partial, f"the page holds rows {stated.group(1)}–{stated.group(2)} of a longer list; "
                                  "fetch the rest with cstart/pagesize" if stated else "the page links a next page")
