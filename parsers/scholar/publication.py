"""The single publication page (``view_op=view_citation``): one paper's own page, with the full
author list, the exact date, the venue's parts, the abstract and the paper's citations per year.
The field table is read by structure: the fields every page has are found by what they hold (a
date, a ``cites=`` link, the "Scholar articles" snippet, the description's id); the venue's parts
by their English label when the page is in English, else by their place and shape
(``_field_by_shape``). Both layouts, the current one and the pre-2014 one, are read here."""

from __future__ import annotations

import re
from typing import TypedDict

from lxml import etree
from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged

from ..identifiers import ids_from_links
from ..numbers import Cells
from ..page import Document
from ..records import Ids, Link, PageResult, Profile, Publication, YearCitations
from ..text import absolute_url, clean, clean_or_none, clean_title, find_year, split_names
from ..warning_codes import Warn
from ._base import (
    BY_ID,
    as_elements,
    attr,
    by_class,
    class_names,
    element_text,
    first_of,
    query_value,
    refuse_cut_page,
    text_of,
    user_id,
)
from .identity import SITE
from .rows import classify_venue

_PUB_IDS = frozenset({"gsc_oci_title", "gsc_oci_title_gg", "gsc_oci_table", "gsc_sb_ui", "gsc_vcpb", "gsc_oci_descr",
                      "title", "main_sec"})
_PUB_ID_LIST = " ".join(sorted(_PUB_IDS))
_HEAD_TITLE = etree.XPath("/html/head/meta[@property='og:title']/@content")
# English labels (Scholar's hl=en) of the fields whose value has no shape of its own; scholarly's
# list of keys. Other languages fall back to ``_field_by_shape``.
_FIELD_LABELS = {"authors": "authors", "inventors": "authors", "publication date": "date", "journal": "journal",
                 "journal name": "journal", "conference": "conference", "book": "book", "source": "source",
                 "volume": "volume", "issue": "issue", "pages": "pages", "publisher": "publisher",
                 "patent office": "patent_office", "patent number": "patent_number",
                 "application number": "application_number", "institution": "publisher",
                 "description": "description", "total citations": "citations", "scholar articles": "articles",
                 "citations per year": "chart"}
# The pre-2014 layout names its sections by id.
_LEGACY_SECTIONS = {"pubdate_sec": "date", "volume_sec": "volume", "issue_sec": "issue",
                    "pages_sec": "pages", "publisher_sec": "publisher", "description_sec": "description",
                    "scholar_sec": "citations"}
_VENUE_KEYS = ("journal", "conference", "book", "source")
_TYPE_OF_VENUE = {"journal": "article-journal", "conference": "paper-conference", "book": "chapter"}
_FULL_TEXT_MARK = re.compile(r">\[[A-Z]{3,4}\]</span>")
_SCHOLAR_DATE = re.compile(r"^(\d{4})(?:/(\d{1,2}))?(?:/(\d{1,2}))?$")
_PAGE_RANGE = re.compile(r"^[\w.]*\d[\w.]*\s*[-–]\s*[\w.]*\d[\w.]*$")
_SHORT_NUMBER = re.compile(r"^[\w.-]{0,3}\d[\w.-]{0,5}$")
_OFFICE = re.compile(r"^[A-Z]{2}$")
_LONG_NUMBER = re.compile(r"^[A-Z]{0,2}[\d,/ .-]{5,}[A-Z]?\d?$")


class _Field(TypedDict):
    """One row of the field table: its label as written, its value element, and its key once known."""

    label: str
    value: Element
    key: str | None


def parse_publication(doc: Document) -> PageResult:
    refuse_cut_page(doc.text, "publication page")
    parts: dict[str, Element] = {}
    for element in as_elements(BY_ID(doc.selector.root, ids=_PUB_ID_LIST)):
        parts.setdefault(element.get("id", ""), element)
    legacy = "gsc_oci_table" not in parts
    fields = _legacy_fields(parts.get("main_sec"), doc.selector.root) if legacy else _oci_fields(parts["gsc_oci_table"])
    if not fields:
        raise LayoutChanged("a Scholar publication page without its field table (#gsc_oci_table div.gs_scl "
                            "> .gsc_oci_field + .gsc_oci_value)")
    heading = parts.get("title" if legacy else "gsc_oci_title")
    result = PageResult(site=SITE.name, page="publication", url=doc.url)
    pub = Publication(title=_full_title(heading, doc.selector.root, fields))
    if not pub.title:
        raise LayoutChanged("a Scholar publication page without its title (#gsc_oci_title)")
    if heading is None:
        result.warn(Warn.publication_unreadable, "no title heading (#gsc_oci_title): the title is the page's "
                                                 "og:title or its cluster's")
    pub.ids.scholar = _publication_id(parts, doc)
    pub.url = doc.url or (f"{SITE.base_url}/citations?view_op=view_citation&hl=en&citation_for_view={pub.ids.scholar}"
                          if pub.ids.scholar else None)
    pub.links = _title_links(heading, parts.get("gsc_oci_title_gg") if not legacy else parts.get("main_sec"))
    ids_from_links(pub, result)
    _fill_fields(pub, fields, result)
    result.publications = [pub]
    result.profile = _page_owner(parts.get("gsc_sb_ui"), pub.ids.scholar)
    if not pub.ids.scholar:
        result.warn(Warn.publication_unreadable, "no publication id (citation_for_view= in the page's URL or its "
                                                 "links): the id is null")
    if not legacy and "gsc_sb_ui" not in parts:
        result.warn(Warn.publication_unreadable, "no sidebar naming the profile (#gsc_sb_ui): the record's profile "
                                                 "is the id of the paper's UID:PUBID alone")
    elif not legacy and (result.profile is None or not result.profile.name):
        result.warn(Warn.publication_unreadable, "the sidebar (#gsc_sb_ui) holds no link naming the profile: the "
                                                 "record's profile is the id of the paper's UID:PUBID alone")
    if not any(link.kind not in ("publisher", "related") for link in pub.links) and _FULL_TEXT_MARK.search(doc.text):
        result.warn(Warn.publication_unreadable, "the page marks a full-text link ([PDF], [HTML]) beside the title "
                                                 "that was not read (#gsc_oci_title_gg)")
    if legacy:
        result.warn(Warn.legacy_layout, "a pre-2014 publication page: its citations per year are a chart image "
                                        "with scaled bars, not read")
    return result


def _oci_fields(table: Element) -> list[_Field]:
    """The rows of ``#gsc_oci_table``: each a ``div.gs_scl`` with a label and a value."""
    found: list[_Field] = []
    for row in table:
        cells = by_class(row, {"gsc_oci_field": "label", "gsc_oci_value": "value"}, tag=("div",))
        value = first_of(cells, "value")
        if value is not None:
            found.append(_Field(label=text_of(first_of(cells, "label")) or "", value=value,
                                key="description" if value.get("id") == "gsc_oci_descr" else None))
    return found


def _legacy_fields(main: Element | None, root: Element) -> list[_Field]:
    """The ``div.cit-dt`` / ``div.cit-dd`` pairs of a pre-2014 page, keyed by their section's id."""
    if main is None:
        return []
    found: list[_Field] = []
    for label in root.iter("div"):
        if "cit-dt" not in class_names(label):
            continue
        value = label.getnext()
        if value is None or "cit-dd" not in class_names(value) or value.find(".//div[@id='title']") is not None:
            continue
        section = label.getparent()
        key = _LEGACY_SECTIONS.get(section.get("id", "")) if section is not None else None
        found.append(_Field(label=text_of(label) or "", value=value, key=key))
    return found


def _full_title(heading: Element | None, root: Element, fields: list[_Field]) -> str | None:
    """The heading's title; when Scholar cut it (``…``), the page's ``og:title`` or the cluster's title."""
    title = clean_title(element_text(heading)) if heading is not None else ""
    if title and not title.endswith("…"):
        return title
    stem = title.rstrip("…").strip()
    found = _HEAD_TITLE(root)
    candidates = [str(t) for t in found] if isinstance(found, list) else []
    candidates += [element_text(a) for f in fields for a in f["value"].iter("a") if "cluster=" in (a.get("href") or "")]
    for candidate in map(clean_title, candidates):
        if candidate.startswith(stem) and len(candidate) > len(stem):
            return candidate
    return title or None


def _publication_id(parts: dict[str, Element], doc: Document) -> str | None:
    """``UID:PUBID``: from the page's URL, else its edit link or form (``citation_for_view``)."""
    found = query_value(doc.url, "citation_for_view") or query_value(attr(parts.get("gsc_vcpb"), "data-edit-link"),
                                                                        "citation_for_view")
    if found:
        return found
    match = re.search(r"citation_for_view=([\w-]+:[\w-]+)", doc.text)
    return match.group(1) if match else None


def _title_links(heading: Element | None, full_text: Element | None) -> list[Link]:
    """The publisher's page (the title's link) and the full-text links beside the title (``[PDF]``)."""
    links: list[Link] = []
    anchor = next(heading.iter("a"), None) if heading is not None else None
    if anchor is not None and anchor.get("href"):
        links.append(Link(kind="publisher", url=anchor.get("href", "")))
    for a in full_text.iter("a") if full_text is not None else ():
        mark = re.match(r"\s*\[(\w+)\]", element_text(a))
        if a.get("href") and mark:
            links.append(Link(kind=mark.group(1).lower(), url=a.get("href", ""), label=text_of(a)))
    return links


def _page_owner(box: Element | None, pub_id: str | None) -> Profile | None:
    """The profile the page belongs to (the sidebar's name link), else a stub with its id alone."""
    link = next((a for a in box.iter("a") if text_of(a)), None) if box is not None else None
    # The sidebar's link names the owner; the paper's UID:PUBID does too (when the link gives no user=).
    user = (user_id(link.get("href")) if link is not None else None) or (pub_id or "").partition(":")[0] or None
    if link is None and user is None:
        return None
    url = absolute_url(link.get("href"), SITE.base_url) if link is not None else None
    return Profile(name=text_of(link), url=url, ids=Ids(scholar=user))


def _fill_fields(pub: Publication, fields: list[_Field], result: PageResult) -> None:
    """Every field of the table into ``pub``: structural ones first, the venue's parts by label or shape."""
    values: dict[str, str] = {}
    guessed: list[str] = []
    for number, field in enumerate(fields, 1):
        key = field["key"] or _FIELD_LABELS.get(field["label"].casefold()) or _structural_key(field["value"], values)
        if key is None:
            key = _field_by_shape(clean(element_text(field["value"])), values, first=number == 1)
            guessed.append(f"{number} ({field['label']!r} as {key or 'nothing'})")
        if key in ("citations", "articles"):
            _fill_citation_fields(pub, field["value"], key, result)
        elif key == "description":
            pub.summary = clean_or_none(element_text(field["value"]))
        elif key and key != "chart":
            values.setdefault(key, clean(element_text(field["value"])))
    if guessed:
        result.warn(Warn.fields_by_shape, "labels pubharvest does not know (not hl=en?); fields read by their place "
                                          "and shape: " + ", ".join(guessed))
    _fill_bibliographic(pub, values, result)


# The "Scholar articles" snippet's box (it also links the citing papers: cites=, as the total does).
_MERGED_SNIPPET = etree.XPath(".//div[contains(concat(' ', normalize-space(@class), ' '), ' gsc_oci_merged_snippet ')]")


def _structural_key(value: Element, seen: dict[str, str]) -> str | None:
    """The key of a field whose value says what it is: the "Scholar articles" snippet (a ``cluster=``
    link), the total citations (a ``cites=`` link or the chart), a date."""
    hrefs = [a.get("href") or "" for a in value.iter("a")]
    if any("cluster=" in h for h in hrefs) or _MERGED_SNIPPET(value):
        return "articles"
    if any("cites=" in h for h in hrefs) or value.find(".//*[@id='gsc_oci_graph']") is not None:
        return "citations"
    return "date" if "date" not in seen and _SCHOLAR_DATE.match(clean(element_text(value))) else None


def _field_by_shape(text: str, seen: dict[str, str], first: bool) -> str | None:
    """What an unlabelled field is, from Scholar's order (authors first; venue, volume, issue, pages,
    publisher; or patent office, patent number, application number) and the value's shape."""
    if first and "authors" not in seen:
        return "authors"
    if not text:
        return None
    if _OFFICE.match(text) and "patent_office" not in seen:
        return "patent_office"
    if "patent_office" in seen and _LONG_NUMBER.match(text):
        return "patent_number" if "patent_number" not in seen else "application_number"
    if _PAGE_RANGE.match(text) and "pages" not in seen:
        return "pages"
    if _SHORT_NUMBER.match(text):
        return next((k for k in ("volume", "issue", "pages") if k not in seen), None)
    if not any(k in seen for k in _VENUE_KEYS):
        return "source"
    return "publisher" if "publisher" not in seen else None


def _fill_bibliographic(pub: Publication, values: dict[str, str], result: PageResult) -> None:
    pub.authors, pub.authors_truncated = split_names(values.get("authors"))
    if not pub.authors:
        result.warn(Warn.publication_unreadable, "no author list (the first field of #gsc_oci_table) was read")
    pub.date, pub.year = _iso_scholar_date(values.get("date"))
    pub.volume, pub.issue, pub.pages = values.get("volume"), values.get("issue"), values.get("pages")
    pub.publisher = values.get("publisher")
    pub.patent_office = values.get("patent_office")
    venue_key = next((k for k in _VENUE_KEYS if k in values), None)
    container = values.get(venue_key) if venue_key else None
    pub.container = container
    pub.venue = _scholar_venue(container, pub.volume, pub.issue, pub.pages)
    pub.type = _TYPE_OF_VENUE.get(venue_key or "")
    if pub.type == "chapter" and not pub.pages:
        pub.type = "book"
    number = values.get("patent_number") or values.get("application_number")
    if number or pub.patent_office:
        pub.type = "patent"
        pub.ids.patent_number = f"{pub.patent_office} {number}" if pub.patent_office and number else number
    elif pub.venue:
        classify_venue(pub)


def _iso_scholar_date(text: str | None) -> tuple[str | None, int | None]:
    """Scholar's ``2018/9/16`` as ISO ``2018-09-16`` (as precise as given) and the year.

    >>> _iso_scholar_date("2018/9/16"), _iso_scholar_date("2004"), _iso_scholar_date("2021/3")
    (('2018-09-16', 2018), ('2004', 2004), ('2021-03', 2021))
    """
    match = _SCHOLAR_DATE.match(text or "")
    if not match:
        return None, find_year(text)
    year, month, day = match.groups()
    date = "-".join([year] + [f"{int(part):02d}" for part in (month, day) if part])
    return date, int(year)


def _scholar_venue(container: str | None, volume: str | None, issue: str | None, pages: str | None) -> str | None:
    """The venue as a profile row writes it ("Food/Nahrung 44 (1), 42-46"), so that exports and merge
    read both pages alike.

    >>> _scholar_venue("IEEE access", "6", None, "53019-53033")
    'IEEE access 6, 53019-53033'
    """
    if not container:
        return None
    venue = " ".join(p for p in (container, volume, f"({issue})" if issue else None) if p)
    return f"{venue}, {pages}" if pages else venue


def _fill_citation_fields(pub: Publication, value: Element, key: str, result: PageResult) -> None:
    """Total citations with their clusters and the chart, or the "Scholar articles" snippets."""
    cells = Cells()
    for a in value.iter("a"):
        href = a.get("href") or ""
        if "as_yhi=" in href:  # a bar of the chart: ``_publication_histogram`` reads those
            continue
        clusters = query_value(href, "cites") or query_value(href, "cluster") or ""
        pub.ids.scholar_clusters += [c for c in clusters.split(",") if c and c not in pub.ids.scholar_clusters]
        if "cites=" in href and pub.citations is None:
            pub.citations = cells.count_in(element_text(a), "total citations")
        elif key == "articles" and "cluster=" in href and "btnI" not in href:
            pub.versions = cells.count_in(element_text(a), "versions")
        elif key == "articles" and "q=related:" in href:
            pub.links.append(Link(kind="related", url=absolute_url(href, SITE.base_url) or href))
    if key == "citations":
        pub.citations_by_year = _publication_histogram(value, result, cells)
    cells.report(result)
    if key == "citations":
        if pub.citations is None and not any("cites=" in (a.get("href") or "") for a in value.iter("a")):
            result.warn(Warn.publication_unreadable, "the total citations field holds no count (a.cites= link)")
    elif not any("cluster=" in (a.get("href") or "") for a in value.iter("a")):
        result.warn(Warn.publication_unreadable, "the \"Scholar articles\" field holds no link to its cluster "
                                                 "(a[href*='cluster=']): its cluster id, versions and related link "
                                                 "are unread")


def _bar_link_year(href: str) -> int | None:
    """The year a bar's link ends with (``...&as_ylo=2019&as_yhi=2019``), else None.

    >>> _bar_link_year("/scholar?cites=1&as_ylo=2019&as_yhi=2019"), _bar_link_year("/scholar?cites=12019")
    (2019, None)
    """
    tail = href[-4:]
    return int(tail) if tail.isdigit() and href[-5:-4] == "=" else None


def _publication_histogram(value: Element, result: PageResult, cells: Cells) -> list[YearCitations]:
    """Every year of the paper's chart, 0 where there is no bar; each bar's year is the one its link
    ends with (``as_yhi=2019``), never its position."""
    years: list[int] = []
    counts: dict[int, int] = {}
    unread = 0
    for element in value.iter():
        classes = (element.get("class") or "").split()
        if "gsc_oci_g_t" in classes:
            years += [year] if (year := cells.year(element_text(element), f"chart axis label {len(years) + 1}")) \
                else []
        elif "gsc_oci_g_a" in classes:
            year = _bar_link_year(element.get("href") or "")
            if year is None:
                unread += 1
            else:  # the bar's text is its count (span.gsc_oci_g_al)
                counts[year] = cells.count(element_text(element), f"chart bar {year}", empty=0) or 0
    linked = sum(1 for a in value.iter("a") if "as_yhi=" in (a.get("href") or ""))
    unread += max(0, linked - len(counts) - unread)
    if unread:
        result.warn(Warn.histogram_unreadable, f"{unread} bars of the citations chart (a.gsc_oci_g_a, each linking "
                                               "its year) were not read; left out")
    axis = years + list(counts)
    if not axis:
        return []
    return [YearCitations(year=y, citations=counts.get(y, 0)) for y in range(min(axis), max(axis) + 1)]
