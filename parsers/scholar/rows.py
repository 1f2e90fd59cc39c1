"""Publication rows (``tr.gsc_a_tr``) as the profile page, a bare row fragment and the "show more"
payload hold them: one ``Publication`` per row, with the checks that each row holds its parts."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import TypedDict
from urllib.parse import urlsplit

from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged, Truncated

from ..identifiers import find_arxiv_id, give_id
from ..numbers import Cells, digits_count, digits_year
from ..page import Document, html_root_read
from ..records import PageResult, Publication, PublicationIds
from ..text import absolute_url, clean, clean_title, split_names, without_cut_mark
from ..warning_codes import Warn
from ._base import class_names, element_text, query_value
from .identity import SITE

_PATENT = re.compile(r"^(?:(?P<office>[A-Z]{2}) )?Patent\b\.?(?: App(?:lication)?\.?)?(?: Specification)? ?"
                     r"(?P<number>[\w/,.-]*\d[\w/,.-]*)?")


def _table_rows(body: Element | None) -> list[Element]:
    """The rows of ``#gsc_a_b``: publication rows and the "no articles" row."""
    return [row for row in body if _is_table_row(row)] if body is not None else []


def _is_table_row(row: Element) -> bool:
    return row.get("class") == "gsc_a_tr" or bool({"gsc_a_tr", "gsc_a_e"} & set(class_names(row)))


def _is_no_articles_row(row: Element) -> bool:
    """Whether ``row`` is the "There are no articles in this profile." row (a ``td.gsc_a_e``)."""
    # A class attribute without the text gsc_a_e cannot hold the class: most rows are ruled out unsplit.
    return any("gsc_a_e" in (element.get("class") or "") and "gsc_a_e" in class_names(element)
               for element in (row, *row))


def _article_rows(rows: list[Element]) -> list[Element]:
    return [row for row in rows if not _is_no_articles_row(row)]


def warn_if_past_end(rows: int, articles: int, result: PageResult, url: str | None, fragment: bool = False) -> None:
    """A ``past_end`` warning for a "no articles" row on a page that cannot be the whole profile:
    a later page (``cstart`` > 0, or a fragment) or a profile whose table says it is cited."""
    if articles or not rows:
        return
    cited = bool(result.profile and result.profile.metrics.citations)
    if fragment or cited or int(query_value(url, "cstart") or 0) > 0:
        result.warn(Warn.past_end, "the page holds no rows: it starts past the profile's last row (cstart too large)")


# --- publication rows -----------------------------------------------------------------------


def _publications(rows: Iterable[Element], result: PageResult, base: str | None) -> list[Publication]:
    """One ``Publication`` per table row, in page order (see ``_RowReader``)."""
    reader = _RowReader(base)
    for row in rows:
        reader.read(row)
    return reader.finish(result)


class _RowReader:
    """Table rows read one at a time, as a pull parser hands them over, into ``publications``; ``finish``
    then checks them: rows that lack a cell the parser reads are named in a ``rows_unreadable``
    warning, and a table where no row has a title is ``LayoutChanged``."""

    def __init__(self, base: str | None, body: Element | None = None) -> None:
        self.origin = origin_of(base)
        self.body = body  # the element whose rows these are (``#gsc_a_b``)
        self.rows = 0  # table rows, the "no articles" row included
        self.publications: list[Publication] = []
        self._unread: dict[str, list[int]] = {}
        self._odd_titles: list[int] = []
        self._lines: list[tuple[str, str]] = []  # each row's two grey lines, as read (see ``_swap_back``)
        self._line_order = {"swapped": 0, "in place": 0}  # rows whose lines show which order
        self.cells = Cells()
        self.seen = SeenLines()

    def read(self, row: Element) -> None:
        self.rows += 1
        parts = _plain_row_parts(row)
        plain = parts is not None
        if parts is None:
            if _is_no_articles_row(row):
                return
            parts = _row_parts(row)
        number = len(self.publications) + 1
        lines = _grey_lines(parts["grays"])
        pub = _publication(self.origin, parts, lines, self.cells, number, self.seen)
        missing = [] if plain else _missing_row_fields(parts)  # a plain row has every part
        for field in missing + unread_links(pub, parts.get("anchor") is not None):
            self._unread.setdefault(field, []).append(number)
        self._lines.append(lines)
        order = _line_order(parts["grays"], *lines, self.seen.reads_as_names)
        if order:
            self._line_order[order] += 1
        if "title_looks_like_authors" in pub.flags:
            self._odd_titles.append(number)
        self.publications.append(pub)

    def finish(self, result: PageResult) -> list[Publication]:
        """The publications, once the checks' warnings are on ``result``."""
        found, count = self.publications, len(self.publications)
        for number in self._odd_titles:
            result.warn(Warn.title_looks_like_authors,
                        f"row {number}: the title looks like an author list: {found[number - 1].title!r}")
        if count and len(self._unread.get(_ROW_FIELDS["anchor"], ())) == count:
            raise LayoutChanged(f"none of the {count} publication rows has a title link ({_ROW_FIELDS['anchor']})")
        warn_unread_fields(self._unread, found, result)
        if self._line_order["swapped"] > self._line_order["in place"]:
            self._swap_back(result)
        _warn_if_repeated(found, result)
        self.cells.report(result)
        return found


    def _swap_back(self, result: PageResult) -> None:
        """Every row's authors and venue read from each other's line: most rows show the venue line first."""
        for pub, (first, second) in zip(self.publications, self._lines, strict=True):
            pub.type = pub.ids.arxiv = pub.ids.patent_number = None  # what the wrong venue line made certain
            pub.provenance = [p for p in pub.provenance if p.method != "venue"]
            set_authors_and_venue(pub, second, first, self.seen)
        result.warn(Warn.lines_swapped, f"{self._line_order['swapped']} of {len(self.publications)} rows show the "
                                        "venue line (div.gs_gray) above the authors line: authors and venue were "
                                        "read from each other's line on every row")


def warn_unread_fields(unread: dict[str, list[int]], found: list[Publication], result: PageResult) -> None:
    """For each field (a description) and the rows of ``found`` that lack it: ``column_unreadable``
    when no row it belongs on has it (the page's markup drifted: an untrusted record), else
    ``rows_unreadable``. Cluster ids belong on the cited rows, every other field on every row."""
    count = len(found)
    for field, numbers in unread.items():
        cited = field == ROW_LINK_FIELDS["clusters"]
        rows = sum(1 for pub in found if pub.citations) if cited else count
        if len(numbers) == rows:
            result.warn(Warn.column_unreadable, f"none of the {rows} {'cited' if cited else 'publication'} rows has "
                                                f"its {field}: the markup has drifted; that field is null on every row")
        else:
            result.warn(Warn.rows_unreadable, f"{row_numbers(numbers)} of {count}: no {field}; that field is null")


class StreamedRows:
    """The rows of ``#gsc_a_b`` read while lxml's pull parser builds the tree (``take`` is its callback),
    each cleared once read, so that a page of 100,000 rows never holds them all as elements."""

    def __init__(self, base: Callable[[Element], str | None]) -> None:
        self._base = base  # the page's URL, from the tree parsed so far (its head)
        self.reader: _RowReader | None = None
        self._done: Element | None = None

    def take(self, row: Element) -> None:
        body = row.getparent()
        if body is None or body.get("id") != "gsc_a_b" or not _is_table_row(row):
            return
        if self.reader is None:
            self.reader = _RowReader(self._base(row.getroottree().getroot()), body)
        elif body is not self.reader.body:
            return
        self.reader.read(row)
        # The row that closed last stays (lxml's pull parser may still point at it); the one before goes.
        if self._done is not None:
            body.remove(self._done)
        row.clear()
        self._done = row

    def reader_for(self, body: Element | None, base: str | None) -> _RowReader:
        """The rows of ``body`` (the page's first ``#gsc_a_b``): those read while parsing, unless they
        were another element's; then ``body``'s own, read from the tree."""
        if self.reader is not None and self.reader.body is body:
            return self.reader
        reader = _RowReader(base, body)
        for row in _table_rows(body):
            reader.read(row)
        return reader


def _warn_if_repeated(found: list[Publication], result: PageResult) -> None:
    """A ``duplicate_rows`` warning when rows repeat a publication id: Scholar lists each once."""
    seen: set[str] = set()
    repeats = []
    for number, pub in enumerate(found, 1):
        key = pub.ids.scholar
        if key and key in seen:
            repeats.append(number)
        elif key:
            seen.add(key)
    if repeats:
        result.warn(Warn.duplicate_rows, f"{row_numbers(repeats[:20])}{' …' if len(repeats) > 20 else ''} "
                                         f"({len(repeats)} in all) repeat an earlier row's publication id")


ROW_LINK_FIELDS = {"id": "publication id (citation_for_view= in the title link's address)",
                   "clusters": "cluster ids (cites= in the address of a cited row's count)"}
# What each row must hold: every row of every saved page has all four, even when empty.
_ROW_FIELDS = {"anchor": "title link (td.gsc_a_t a.gsc_a_at)",
               "grays": "authors and venue lines (td.gsc_a_t div.gs_gray)",
               "count": "citation count (td.gsc_a_c a.gsc_a_ac)",
               "year": "year (td.gsc_a_y span.gsc_a_h)",
               **ROW_LINK_FIELDS}


def _missing_row_fields(parts: _RowParts) -> list[str]:
    """The descriptions of the fields a row lacks (see ``_ROW_FIELDS``)."""
    missing = [key for key in ("anchor", "count", "year") if parts.get(key) is None]
    if len(parts["grays"]) < 2:
        missing.append("grays")
    return [_ROW_FIELDS[key] for key in missing]


def row_numbers(numbers: list[int]) -> str:
    """Row numbers in short form.

    >>> row_numbers([1, 2, 3, 5, 7, 8])
    'rows 1–3, 5, 7–8'
    >>> row_numbers([4])
    'row 4'
    """
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    text = ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in spans)
    return f"row {text}" if len(numbers) == 1 else f"rows {text}"


# Rows are read from the lxml elements directly: a profile can hold thousands of rows, and a
# selector call per field costs more than the whole tree walk.


def _publication(origin: str, parts: _RowParts, lines: tuple[str, str], cells: Cells, number: int,
                 seen: SeenLines) -> Publication:
    """A publication from the ``_row_parts`` of one ``tr.gsc_a_tr`` row (row ``number`` of the page) and its
    ``_grey_lines`` (read through ``seen``); a year or count that is not plainly one is null and named in
    ``cells``."""
    anchor, year_span = parts.get("anchor"), parts.get("year")
    href = _row_link(anchor)
    pub = Publication(
        title=clean_title(element_text(anchor)) if anchor is not None else None,
        year=_year(element_text(year_span), cells, number) if year_span is not None else None,
        url=absolute_url(href, origin),
        ids=PublicationIds(scholar=query_value(href, "citation_for_view")),
    )
    pub.date = str(pub.year) if pub.year else None
    fill_authors_and_venue(pub, *lines, seen)
    _fill_citations(pub, parts, cells, number)
    return pub


def _year(text: str, cells: Cells, number: int) -> int | None:
    """The year in row ``number``'s year cell (its ``text``), None for an empty cell; ``cells.year`` of the
    cleaned text, but four ASCII digits of a year in range, as almost every cell holds, are read at once."""
    plain = digits_year(text)
    if plain is not None:
        return plain
    text = clean(text)
    return cells.year(text, f"row {number} year") if text else None


def _count(text: str, cells: Cells, number: int) -> int | None:
    """The citation count in row ``number``'s count link (its ``text``; an empty one 0): ``cells.count`` of the
    cleaned text without the star of merged citations ("1,234*"), but ASCII digits, as almost every link
    holds, are read at once."""
    plain = digits_count(text)
    if plain is not None:
        return plain
    return cells.count(clean(text).removesuffix("*"), f"row {number} citations", empty=0)


def _grey_lines(grays: list[Element]) -> tuple[str, str]:
    """The text of a row's first and second grey lines (authors, venue), each without a phone-only year."""
    return (_text_without_year(grays[0]) if grays else "", _text_without_year(grays[1]) if len(grays) > 1 else "")


def unread_links(pub: Publication, linked: bool) -> list[str]:
    """The descriptions of the ids a row's links should give and did not: the publication id of its
    title link (every row has one; ``linked``: the row has its title link), the cluster ids of its
    count when it is cited."""
    missing = []
    if linked and not pub.ids.scholar:
        missing.append(_ROW_FIELDS["id"])
    if pub.citations and not pub.ids.scholar_clusters:
        missing.append(_ROW_FIELDS["clusters"])
    return missing


def _line_order(grays: list[Element], first: str, second: str,
                reads_as_names: Callable[[str], bool] | None = None) -> str | None:
    """``"swapped"`` when a row's first grey line is its venue and its second the authors, ``"in place"``
    when they are the other way round, None when the row cannot tell. The venue line is the one that
    holds the phone-only year (``span.gs_oph``, or a last child shaped ", 2007"); without one, the
    line that reads as a list of names is the authors line (``reads_as_names``: ``_reads_as_names``, or the
    page's ``SeenLines.reads_as_names``).

    >>> from lxml import etree
    >>> lines = list(etree.fromstring('<td><div>K Platel, K Srinivasan</div><div>Food 44 (1), 42-46'
    ...                               '<span>, 2000</span></div></td>'))
    >>> _line_order(lines, *_grey_lines(lines)), _line_order(lines[::-1], *_grey_lines(lines[::-1]))
    ('in place', 'swapped')
    >>> _line_order([], "Nature 1, 2", "A Bee, C Dee, ..."), _line_order([], "A Bee", "Nature")
    ('swapped', None)
    """
    years = tuple(map(_ends_in_year, grays[:2]))
    if years == (False, True):
        return "in place"
    if years == (True, False):
        return "swapped"
    reads_as_names = reads_as_names or _reads_as_names
    names = (reads_as_names(first), reads_as_names(second))
    return {(True, False): "in place", (False, True): "swapped"}.get(names)


def _ends_in_year(line: Element) -> bool:
    """Whether a grey line's last child reads as a phone-only year (", 2007")."""
    return len(line) > 0 and _PHONE_YEAR.match(element_text(line[-1])) is not None


_NAME = re.compile(r"^(?:[^\W\d_][\w'’.-]*)(?: [^\W\d_][\w'’.-]*){0,4}$")


def _reads_as_names(line: str) -> bool:
    """Whether a grey line reads as an author list: names of one to five words without digits, comma-separated
    (the last may be Scholar's cut mark).

    >>> _reads_as_names("K Platel, K Srinivasan, ..."), _reads_as_names("Food/Nahrung 44 (1), 42-46")
    (True, False)
    >>> _reads_as_names(""), _reads_as_names("Critical reviews in food science and nutrition")
    (False, False)
    """
    names, _ = split_names(line)
    return bool(names) and all(_NAME.match(name) for name in names)


_CELL_KINDS = {"gsc_a_t": "title", "gsc_a_c": "count", "gsc_a_y": "year"}


class _RowParts(TypedDict, total=False):
    """The data-carrying elements of one publication row."""

    anchor: Element | None  # the title link
    grays: list[Element]  # the authors line, then the venue line
    count: Element  # the citation count
    merged: Element  # the mark of merged citations
    year: Element | None


def _row_parts(row: Element) -> _RowParts:
    """The row's data-carrying elements: ``anchor``, ``grays`` (authors, venue), ``count``,
    ``merged``, ``year``. Cells are found by class, never by position: the 2014 owner view has an
    extra checkbox cell. (This runs once per row of pages with thousands: it compares class
    strings rather than splitting them, and visits only the elements that can carry data.)"""
    parts: _RowParts = {"grays": []}
    for cell in row:
        kind = _cell_kind(cell.get("class"))
        if kind == "title":
            _title_cell_parts(cell, parts)
        elif kind == "count":
            for element in cell.iter("a", "span"):
                classes = element.get("class") or ""
                if "gsc_a_ac" in classes:
                    parts.setdefault("count", element)
                elif "gsc_a_am" in classes or "gsc_a_m" in classes:
                    parts["merged"] = element
        elif kind == "year":
            parts["year"] = next((e for e in cell.iter("span") if "gsc_a_h" in (e.get("class") or "")), None)
    return parts


def _plain_row_parts(row: Element) -> _RowParts | None:
    """The ``_row_parts`` of a row of the markup every saved page since 2014 has, read by position, or None
    for a row of any other shape (``_row_parts`` then searches it): a ``tr.gsc_a_tr`` of three cells of
    the classes ``gsc_a_t``, ``gsc_a_c`` and ``gsc_a_y`` exactly, the first holding the title link and
    two grey lines and nothing else, the second the count link (holding no element) and perhaps the mark
    of merged citations (``span.gsc_a_m > a.gsc_a_am``), the third a year span first. Each element is
    checked for what the search would test it for, so both give the same parts; neither this row nor its
    cells can be the "no articles" row."""
    if len(row) != 3 or row.get("class") != "gsc_a_tr":
        return None
    title, count, year = row
    if (title.get("class") != "gsc_a_t" or count.get("class") != "gsc_a_c" or year.get("class") != "gsc_a_y"
            or len(title) != 3 or not 1 <= len(count) <= 2 or not len(year)):
        return None
    anchor, authors, venue = title
    link, year_span = count[0], year[0]
    if (anchor.tag != "a" or "gsc_a_at" not in (anchor.get("class") or "")
            or authors.tag != "div" or "gs_gray" not in (authors.get("class") or "")
            or venue.tag != "div" or "gs_gray" not in (venue.get("class") or "")
            or link.tag != "a" or len(link) or "gsc_a_ac" not in (link.get("class") or "")
            or year_span.tag != "span" or "gsc_a_h" not in (year_span.get("class") or "")):
        return None
    parts: _RowParts = {"grays": [authors, venue], "anchor": anchor, "count": link, "year": year_span}
    if len(count) == 2:
        mark = _merged_mark(count[1])
        if mark is None:
            return None
        parts["merged"] = mark
    return parts


def _merged_mark(span: Element) -> Element | None:
    """The link of the merged-citations mark when ``span`` is that mark as Scholar writes it
    (``span.gsc_a_m > a.gsc_a_am``, the link holding no element), else None."""
    if span.tag != "span" or span.get("class") != "gsc_a_m" or len(span) != 1:
        return None
    link = span[0]
    return link if link.tag == "a" and link.get("class") == "gsc_a_am" and not len(link) else None


def _cell_kind(classes: str | None) -> str | None:
    if not classes:
        return None
    return _CELL_KINDS.get(classes) or next((_CELL_KINDS[c] for c in classes.split() if c in _CELL_KINDS), None)


def _title_cell_parts(cell: Element, parts: _RowParts) -> None:
    for child in cell:
        classes = child.get("class") or ""
        if child.tag == "a" and "gsc_a_at" in classes:
            parts.setdefault("anchor", child)
        elif child.tag == "div" and "gs_gray" in classes:
            parts["grays"].append(child)
    if "anchor" not in parts:  # not a direct child in some layout: look deeper
        parts["anchor"] = next((e for e in cell.iter("a") if "gsc_a_at" in class_names(e)), None)


_PHONE_YEAR = re.compile(r"^\s*,\s*(?:\d{4}|0)\s*$")
_TABLE_ROW = re.compile(r"<tr[\s>]", re.I)


def _text_without_year(venue: Element) -> str:
    """The venue text without its ``span.gs_oph`` (", 2007", shown on phones only; a last span of
    that shape is dropped whatever its class, so that a renamed class cannot leak the year)."""
    if not len(venue):  # the authors line, and a venue line without a year
        return venue.text or ""
    if len(venue) == 1 and venue[0].get("class") == "gs_oph":  # the venue line of almost every row
        return (venue.text or "") + (venue[0].tail or "")
    parts = [venue.text or ""]
    children = list(venue)
    for child in children:
        if "gs_oph" not in class_names(child) and not (
                child is children[-1] and _PHONE_YEAR.match(element_text(child))):
            parts.append(element_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _row_link(anchor: Element | None) -> str | None:
    if anchor is None:
        return None
    # 2019 pages put the link in data-href and "javascript:void(0)" in href.
    href = anchor.get("href") or ""
    if not href or href.startswith("javascript"):
        href = anchor.get("data-href") or ""
    return href or None


def origin_of(url: str | None) -> str:
    parts = urlsplit(url or SITE.base_url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else SITE.base_url


def fill_authors_and_venue(pub: Publication, authors_text: str, venue_text: str, seen: SeenLines) -> None:
    """Authors, venue (given without Scholar's appended year) and what the venue makes certain; the
    title, authors and venue without the mark where Scholar cut them short (``seen``: the lines read
    before on the page)."""
    if pub.title:
        title, pub.title_truncated = without_cut_mark(pub.title)
        pub.title = title or None
    set_authors_and_venue(pub, authors_text, venue_text, seen)
    if _looks_like_author_list(pub.title):
        pub.flags.append("title_looks_like_authors")


class SeenLines:
    """The authors and venue lines of one page's rows, each distinct line read once: a profile repeats its
    author lines (the 1,114 rows of the corpus's fragment have 313 distinct ones, a 20-row profile 2 to 20)."""

    def __init__(self) -> None:
        self._authors: dict[str, tuple[tuple[str, ...], bool]] = {}
        self._venues: dict[str, tuple[str, bool, bool]] = {}
        self._names: dict[str, bool] = {}

    def authors(self, text: str) -> tuple[list[str], bool]:
        """``split_names(text)``: a new list each time, as the record may be changed later."""
        found = self._authors.get(text)
        if found is None:
            names, cut = split_names(text)
            found = self._authors[text] = (tuple(names), cut)
        return list(found[0]), found[1]

    def venue(self, text: str) -> tuple[str, bool, bool]:
        """The venue line cleaned and without Scholar's cut mark, whether it had one, and whether the venue
        can make anything certain (``venue_may_classify``)."""
        found = self._venues.get(text)
        if found is None:
            venue, cut = without_cut_mark(clean(text))
            found = self._venues[text] = (venue, cut, venue_may_classify(venue))
        return found

    def reads_as_names(self, line: str) -> bool:
        """``_reads_as_names(line)``."""
        found = self._names.get(line)
        if found is None:
            found = self._names[line] = _reads_as_names(line)
        return found


def set_authors_and_venue(pub: Publication, authors_text: str, venue_text: str, seen: SeenLines) -> None:
    """Authors, venue and what the venue makes certain (type, arXiv id, patent number); ``seen``: the
    lines read before on the page."""
    pub.authors, pub.authors_truncated = seen.authors(authors_text)
    venue, pub.venue_truncated, telling = seen.venue(venue_text)
    pub.venue = venue or None
    if telling:
        classify_venue(pub)


def venue_may_classify(venue: str) -> bool:
    """Whether ``classify_venue`` can make anything certain of ``venue``: it names arXiv or a patent."""
    return "arxiv" in venue.lower() or "Patent" in venue


def classify_venue(pub: Publication) -> None:
    venue = pub.venue or ""
    if not venue_may_classify(venue):
        return
    if "arxiv" in venue.lower():
        give_id(pub, "arxiv", find_arxiv_id(venue), "venue", None)
        if pub.ids.arxiv and venue.lower().startswith("arxiv"):
            pub.type = "article"
    patent = _PATENT.match(venue) if "Patent" in venue else None
    if patent:
        pub.type = "patent"
        number = patent.group("number")
        office = patent.group("office")
        pub.ids.patent_number = f"{office} {number}" if office and number else number


def _fill_citations(pub: Publication, parts: _RowParts, cells: Cells, number: int) -> None:
    count = parts.get("count")
    if count is None:
        return
    pub.citations = _count(element_text(count), cells, number)
    clusters = query_value(count.get("href"), "cites")
    pub.ids.scholar_clusters = list(filter(None, (clusters or "").split(",")))
    if "merged" in parts:
        pub.flags.append("merged_citations")
    primary = count.get("data-eud")
    if primary and primary != pub.ids.scholar:
        pub.flags.append(f"duplicate_of:{primary}")


NAME_WORD = re.compile(r"^[^\W\d_][\w'’.-]*$")


def _looks_like_author_list(title: str | None) -> bool:
    """Whether a title is really a list of full names ("Ann Lee, Bo Chen, and Cy Dunn").

    >>> _looks_like_author_list("Rewon Child, Reza Yazdani Aminabadi, Julie Bernauer, and Bryan Catanzaro")
    True
    >>> _looks_like_author_list("Black pepper, its pungent principle, and health")
    False
    >>> _looks_like_author_list("Machine Learning, Data Science, and Neural Networks")
    False
    """
    if not title or title.count(",") + title.count(" and ") < 2:
        return False
    parts = [re.sub(r"^and\s+", "", p.strip()) for p in re.split(r",|\band\b", title) if p.strip()]
    if len(parts) < 3:
        return False
    return sum(1 for part in parts if _looks_like_full_name(part)) >= 0.8 * len(parts)


# Title-case topic lists ("Trust, Privacy, and Security Engineering") look like names too; words
# with these endings are common in topics and rare in personal names.
# (Not "-ing", "-ence" or "-ment": Ding, Florence and Clement are names.)
_TOPIC_ENDINGS = ("tion", "sion", "ness", "ity", "ics", "ogy", "ism", "learning", "computing", "engineering",
                  "processing", "mining", "management", "development", "works", "systems", "models", "data",
                  "science", "sciences", "intelligence", "security", "privacy")


def _looks_like_full_name(part: str) -> bool:
    words = part.split()
    return 2 <= len(words) <= 4 and all(
        NAME_WORD.match(w) and w[0].isupper() and not w.lower().endswith(_TOPIC_ENDINGS) for w in words)


# --- row fragments and the "show more" payload -------------------------------------------


def payload_rows(doc: Document) -> tuple[str, bool] | None:
    """Rows HTML and the "more rows" flag of a ``json=1`` payload ``{"B": rows, "N": more}``."""
    if not doc.text[:200].lstrip().startswith("{") or '"B"' not in doc.text[:200]:
        return None
    try:
        payload = json.loads(doc.text)
    except ValueError:
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("B"), str):
        return None
    return payload["B"], bool(payload.get("N"))


def parse_rows_page(doc: Document) -> PageResult:
    payload = payload_rows(doc)
    rows_html, more = payload if payload else (doc.text, False)
    streamed = StreamedRows(lambda root: doc.url)
    root = html_root_read(rows_html, None if payload else doc.raw, "tr", streamed.take,
                          (b'<table><tbody id="gsc_a_b">', b"</tbody></table>"))
    rows = streamed.reader_for(root.find(".//tbody"), doc.url)
    if not rows.rows and _TABLE_ROW.search(rows_html):
        raise LayoutChanged("the fragment holds table rows but none is a publication row (tr.gsc_a_tr)")
    if rows_html.strip() and not rows_html[-256:].rstrip().lower().endswith("</tr>"):
        raise Truncated(f"the rows stop in the middle of row {rows.rows}; save them again")
    result = PageResult(site=SITE.name, page="rows", url=doc.url)
    result.publications = rows.finish(result)
    warn_if_past_end(rows.rows, len(rows.publications), result, doc.url, fragment=True)
    if more:
        result.warn(Warn.partial, f"the payload says more rows follow these {rows.rows} (\"N\": true); "
                                  "fetch the next cstart")
    return result
