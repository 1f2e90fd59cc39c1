"""Microsoft Research: people publications pages, single publication pages, the saved text of a
people page, and the site's faceted-search JSON.

A people page lists each paper several times (a featured item, then the "by year", "by research
area" and "by type" accordions); every listing becomes one record per paper, with the group
headings it sat under kept as ``facets``.

>>> from pubharvest.parsers.page import Document
>>> doc = Document.from_input(open("fixtures/msr/001_0be51d225ce2b3fb.txt", "rb").read())
>>> sniff(doc)
'publication_list'
>>> result = parse(doc)
>>> result.profile.name, len(result.publications), result.publications[0].facets.types
('Olatunji Ruwase', 20, ['#2'])
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # parsel is imported when a page is parsed, so that listing the sites stays fast
    from parsel import Selector, SelectorList

from pubharvest.errors import LayoutChanged, Truncated
from pubharvest.siteregistry import TITLES

from .identifiers import ids_from_links, ids_from_meta, ids_from_text
from .listings import check_listings, distinct
from .page import Document, html_root_read, html_selector
from .records import Author, Facets, Ids, Link, PageResult, Profile, Publication, PublicationIds
from .site import SiteInfo
from .text import (
    MONTHS,
    absolute_url,
    clean,
    clean_or_none,
    find_isbn,
    find_report_number,
    find_year,
    iso_date,
    split_names,
    title_key,
)
from .warning_codes import Warn

__all__ = ["SITE", "sniff", "parse"]

SITE = SiteInfo(
    name="msr", title=TITLES["msr"], base_url="https://www.microsoft.com", hosts=("microsoft.com",),
    id_pattern=r"[a-z0-9][a-z0-9._-]*", id_example="adaexample",
    profile_path="/en-us/research/people/{id}/publications/",
    page_kinds=("publication_list", "publication"),
)

_MSR_URL = re.compile(rf"https?://(?:www\.)?{re.escape(SITE.hosts[0])}/(?:[a-z]{{2}}-[a-z]{{2}}/)?research/", re.I)
_PEOPLE = re.compile(r"(.*?/research/people/([^/?#]+))", re.I)
_PUBLICATION = re.compile(r"/research/publication/([^/?#]+)", re.I)
_CANONICAL = re.compile(r"""<link\b(?=[^>]*\brel=["']?canonical\b)[^>]*\bhref=["']?([^"'\s>]+)""")
# Markers of the MSR WordPress theme, looked for in the lower-cased head of the page.
_MSR_MARKERS = ('name="awa-product" content="msr"', "wp-theme-microsoft-research-theme", "single-msr-research-item")
_PUBLICATION_MARKERS = ("single-msr-research-item", 'name="awa-pagetype" content="publication"')
_LIST_MARKERS = ("collapse-group-", "content-excerpt__people")
# Saved text: a "Publications by ..." line directly over a "-" line (where a group heading was).
_TEXT_SECTION = re.compile(r"^publications by \w[^\n]*\r?\n-[ \t]*\r?$", re.M)
_JSON_MARKERS = ('"posts"', '"post_title"')
_BLANKS = re.compile(rb">\s+<")  # in markup lxml wrote: text and attributes have their < and > escaped

_MONTH_YEAR = re.compile(r"^(?:(%s)\s+)?(\d{4})$" % "|".join(MONTHS), re.I)
_NUMERIC_DATE = re.compile(r"^(\d{4})[-/]?(\d{2})(?:[-/]?(\d{2}))?(?:\b|T|$)")
_VENUE_DATE = re.compile(r"^(.*?)\s*\|\s*([^|]+)$")
_PUBLISHED_BY = re.compile(r"^published by\s+(.+)$", re.I)
_ISBN_LINE = re.compile(r"^isbn\b", re.I)

# MSR type group labels (BibTeX entry types) -> CSL type names.
_CSL_TYPES = {
    "inproceedings": "paper-conference", "conference": "paper-conference", "article": "article-journal",
    "techreport": "report", "book": "book", "proceedings": "book", "inbook": "chapter",
    "incollection": "chapter", "phdthesis": "thesis", "mastersthesis": "thesis", "patent": "patent",
    "unpublished": "manuscript",
}
_FACETS = ("years", "research_areas", "types")
_T = TypeVar("_T")


# --- entry points -----------------------------------------------------------------------------

def sniff(doc: Document) -> str | None:
    """The kind of MSR page ``doc`` is (``publication_list`` or ``publication``), or None."""
    if doc.text.lstrip().startswith("{"):
        return "publication_list" if all(m in doc.head for m in _JSON_MARKERS) else None
    if doc.is_html:
        return _html_kind(doc)
    return "publication_list" if _TEXT_SECTION.search(doc.head) else None


def parse(doc: Document) -> PageResult:
    """The records of an MSR page; raises ``LayoutChanged`` or ``Truncated`` when it cannot."""
    if doc.text.lstrip().startswith("{"):
        return _faceted_search(doc)
    if not doc.is_html:
        return _saved_text(doc)
    if _html_kind(doc) == "publication":
        return _publication_page(doc)
    return _people_page(doc)


def _html_kind(doc: Document) -> str | None:
    head = doc.head
    found = _CANONICAL.search(head)
    url = found.group(1) if found else (doc.url or "").lower()
    if not (any(m in head for m in _MSR_MARKERS) or _MSR_URL.match(url)):
        return None
    if _PUBLICATION.search(url) or any(m in head for m in _PUBLICATION_MARKERS):
        return "publication"
    if _PEOPLE.search(url) or any(m in head for m in _LIST_MARKERS):
        return "publication_list"
    return None


# --- shared pieces ----------------------------------------------------------------------------

def _text(node: Selector | SelectorList[Selector]) -> str:
    """Clean text of an element (the first, for a list): XPath ``string()`` without a query per call."""
    first = (node[0] if node else None) if isinstance(node, list) else node  # a SelectorList is a list
    return _element_text(first.root) if first is not None else ""


def _element_text(element: Any) -> str:
    """Clean text of an lxml element (None: ``""``)."""
    return clean(_raw_text(element)) if element is not None else ""


def _raw_text(element: Any) -> str:
    """The text of an lxml element as written (most elements of a card hold only text)."""
    return "".join(element.itertext()) if len(element) else element.text or ""


@cache
def _xpath(query: str) -> Any:
    """A compiled XPath (lxml is imported when a page is parsed)."""
    from lxml import etree

    return etree.XPath(query)


def _heading_targets(heading: Any) -> list[str]:
    return _xpath(".//@data-target | .//@aria-controls")(heading)  # type: ignore[no-any-return]


def _iso_date(text: str | None) -> str | None:
    """``May 2024`` -> ``2024-05``; ``2023/12/06`` and ``20231206`` -> ``2023-12-06``; ``2021`` -> ``2021``."""
    text = clean(text)
    named = _MONTH_YEAR.match(text)
    if named:
        month, year = named.groups()
        return iso_date(year, month)
    numeric = _NUMERIC_DATE.match(text)
    if numeric:
        return "-".join(part for part in numeric.groups() if part)
    return None


def _read_detail(line: str, pub: Publication) -> bool:
    """Fill ``pub`` from one detail line of a listing (``Venue | Month YYYY``, a bare date,
    ``Published by ...``, ``ISBN: ...``); False when the line is none of these."""
    said = _detail(line)
    for field, value in said or ():
        setattr(pub.ids if field in _DETAIL_IDS else pub, field, value)
    return said is not None


_DETAIL_IDS = ("isbn", "report_number")


@lru_cache(maxsize=4096)  # many papers share a venue line, and each is listed about three times
def _detail(line: str) -> tuple[tuple[str, str | None], ...] | None:
    """What one detail line says (``_read_detail``), as fields of a publication (or of its ids) and values."""
    if _ISBN_LINE.match(line):
        return (("isbn", find_isbn(line) or clean_or_none(line.partition(":")[2])),)
    if published := _PUBLISHED_BY.match(line):
        return (("publisher", clean(published.group(1))),)
    if date := _iso_date(line):
        return (("date", date),)
    if (venue_date := _VENUE_DATE.match(line)) and (date := _iso_date(venue_date.group(2))):
        venue = clean_or_none(venue_date.group(1))
        return ("venue", venue), ("date", date), ("report_number", find_report_number(venue))
    return None


def _finish(pub: Publication) -> Publication:
    """Values derived from what a listing said: year from the date, report type from a TR number."""
    pub.year = find_year(pub.date) or (pub.facets.years[0] if len(pub.facets.years) == 1 else None)
    if pub.type is None and pub.ids.report_number:
        pub.type = "report"
    return pub


@lru_cache(maxsize=256)  # a page has a few type groups, and each names the type of many listings
def _csl_type(label: str) -> str | None:
    return _CSL_TYPES.get(title_key(label))


def _filed_under(facet: str, label: str | int) -> Facets:
    """The facets of a listing in one group: ``facet`` (a field of ``Facets``) holds ``label``."""
    facets = Facets()
    getattr(facets, facet).append(label)
    return facets


def _distinct(listings: Iterable[Publication], result: PageResult) -> list[Publication]:
    """Each paper once (``listings.distinct``), each checked against the year group it sat in."""
    return _year_checked(distinct(listings, result), result)


def _year_checked(papers: list[Publication], result: PageResult) -> list[Publication]:
    for pub in papers:
        _check_year_facet(pub, result)
    return papers


def _check_year_facet(pub: Publication, result: PageResult) -> None:
    dated = find_year(pub.date)
    if dated and pub.facets.years and dated not in pub.facets.years:
        result.warn(Warn.year_group_mismatch, f"{pub.title!r} is dated {pub.date} but listed under "
                                              f"{', '.join(map(str, pub.facets.years))}")


# --- HTML: people publications page -----------------------------------------------------------

def _page_url(sel: Selector, doc: Document, result: PageResult, pattern: re.Pattern[str]) -> str | None:
    """The canonical URL, else the caller's; warns when neither is an MSR URL of the page's kind
    (``pattern``): the ids taken from it are then missing."""
    url = clean_or_none(sel.css('link[rel="canonical"]::attr(href)').get()) or doc.url
    if not pattern.search(url or ""):
        result.warn(Warn.url_missing, f"the page states no {SITE.title} URL of its kind (link rel=canonical; got "
                                      f"{url!r}): its MSR id is missing")
    return url


def _absolute(href: str | None, base: str | None) -> str | None:
    """``href`` against the page's own URL when it is an MSR one, else against the site's root."""
    return absolute_url(href, base if base and _MSR_URL.match(base) else SITE.base_url + "/")


def _refuse_cut_pages(doc: Document, result: PageResult) -> None:
    """A page cut before ``</html>``: an error when the cut falls inside ``<main>`` (records may be
    missing), a warning when it falls after it (in the footer, all records are complete)."""
    tail = doc.text[-65536:].lower()
    if "</html" in tail:
        return
    if "</main>" not in tail:
        raise Truncated("the page stops before its end (no </html>), inside its main content: "
                        "publications may be missing; save the page again")
    result.warn(Warn.truncated, "the page stops after its main content (no </html>); the records are complete")


def _people_page(doc: Document) -> PageResult:
    from parsel import Selector

    cards = _Cards()
    sel = Selector(root=html_root_read(doc.text, doc.raw, "article", cards.take), type="html")
    result = PageResult(site=SITE.name, page="publication_list")
    result.url = url = _page_url(sel, doc, result, _PEOPLE)
    result.profile = _person(sel, url)
    cards.forget_markup()
    _refuse_cut_pages(doc, result)
    if not any(listed for _, listed, _ in cards.runs):
        raise LayoutChanged("an MSR people page without publication items in ul.accordion groups "
                            "(the by-year / area / type lists are missing or empty)")
    groups = {ident: _group(ident, heading, result) for ident, heading in _group_bodies(sel.root)}
    if not groups:
        raise LayoutChanged("an MSR people page whose accordions have no group bodies (div#collapse-group-<facet>_"
                            "filter-…): which year, area and type each paper is listed under cannot be read")
    result.publications = [_finish(pub) for pub in _year_checked(_listings(cards, url, groups, result), result)]
    if result.publications and not any(pub.url for pub in result.publications):
        result.warn(Warn.listings_incomplete, f"none of the {len(result.publications)} papers has a title link to "
                                              "its page (h5 a[href]): their addresses and MSR ids are unread")
    _check_groupings(result)
    if result.profile and not result.profile.name:
        result.warn(Warn.name_missing, "the people page has no h1 with the person's name")
    return result


class _Card:
    """What is inside one ``<article>``, as the page writes it (but for the blanks between tags, ``_spaced``):
    what it says (``parts``: None when it is no publication item), read once however often the page lists
    it, the paper its first listing gave (``pub``), whether its listings have a part pubharvest does not read
    (``unread``), and the keys ``listings.distinct`` matches a paper by (its normalised title, its MSR id)."""

    __slots__ = ("_said", "keys", "parts", "pub", "unread")

    def __init__(self, parts: _Parts | None) -> None:
        self.parts = parts
        self.pub: Publication | None = None
        self.unread = False
        self.keys: tuple[tuple[str, str], ...] = ()
        self._said: tuple[dict[str, Any], dict[str, Any], tuple[str, ...]] | None = None

    def record(self, page_url: str | None, filed: _Filed | None) -> Publication:
        """The paper of one listing of this card in the group ``filed`` (none: the featured item), its title
        link made absolute (``_absolute``) against ``page_url``; what the card says is worked out at its first
        listing."""
        fields, ids, names = self._said or self._read(page_url)
        facet, label, kind = filed or (None, "", None)
        return Publication(**fields, authors=list(names), ids=PublicationIds(**ids), type=kind,
                           facets=_filed_under(facet, label) if facet else Facets())

    def _read(self, page_url: str | None) -> tuple[dict[str, Any], dict[str, Any], tuple[str, ...]]:
        """The fields of a publication and of its ids that the card's parts give, its title link made absolute
        against ``page_url`` with the MSR id in it, and its authors; notes whether a part is unread."""
        assert self.parts is not None
        title, href, lines = self.parts
        fields, ids, self.unread = _lines_said(lines)
        names: tuple[str, ...] = fields.pop("authors")  # a card without an authors line has no parts
        fields["title"] = title
        fields["url"] = url = _absolute(href, page_url)
        slug = _PUBLICATION.search(url or "")
        ids["msr"] = slug.group(1) if slug else None
        self.unread = self.unread or (href is not None and not slug)  # a title link that is no publication link
        self._said = fields, ids, names
        return self._said


# The facet and label of the accordion group a listing sits in, and the CSL type it gives its papers (a type
# group's, by its label; else None).
_Filed = tuple[str | None, str | int, str | None]


class _Cards:
    """The ``<article>`` listings, each read as it closes (``take``) and then dropped from the tree, so that a
    page of 100,000 listings never holds them all as elements: ``runs`` holds, in page order, each run of
    articles of one parent (a group body) with its cards (the same ``_Card`` for listings of the same markup),
    whether they sit in an accordion, and the id of the group body they sit in."""

    def __init__(self) -> None:
        from lxml.etree import tostring

        self.runs: list[tuple[list[_Card], bool, str | None]] = []
        self._cards: dict[bytes, _Card] = {}  # by what is inside an article, as written and as ``_spaced``
        self._tostring: Any = tostring
        self._done: Any = None
        self._parent: Any = None
        self._run: list[_Card] = []
        self._inner = False

    def take(self, article: Any) -> None:
        parent = article.getparent()
        if parent is None or parent is not self._parent:  # the articles of one group body share their placement
            self._parent, self._run = parent, []
            listed, group, self._inner = _placement(article)
            self.runs.append((self._run, listed, group))
        self._run.append(self._card(article))
        if self._inner:  # the article it sits in reads it too
            return
        if self._done is not None and (parent := self._done.getparent()) is not None:
            parent.remove(self._done)
        article.clear()
        self._done = article  # the pull parser may still point at the article that closed last

    def _card(self, article: Any) -> _Card:
        """The card of an article: that of one seen with the same inside as written (its own start tag left out:
        the featured item's class), else of one seen with other blanks between tags (the featured item repeats
        a listing in an indent of its own), else a new card."""
        markup = self._tostring(article, with_tail=False).partition(b">")[2]
        card = self._cards.get(markup)
        if card is not None:
            return card
        spaced = _spaced(markup)
        card = self._cards.get(spaced)
        if card is None:
            card = self._cards[spaced] = _Card(_card_parts(article))
        self._cards[markup] = card
        return card

    def forget_markup(self) -> None:
        """Drop the markup kept to recognise repeated listings (once the page is read)."""
        self._cards = {}


def _spaced(markup: bytes) -> bytes:
    """The inside of an article (as lxml writes it), each run of blanks between its tags one space: all text of
    a card is read with its blanks collapsed. Begins with ``>``, which markup as written never does (``&gt;``)."""
    return _BLANKS.sub(b"> <", b">" + markup)


class _Papers:
    """The paper of each listing, for ``listings.distinct``. A paper is listed about three times (by year,
    area and type), each time with the same markup; such a repeat needs no record of its own when
    ``distinct`` would only add its group to the first listing's paper: when every listing so far that
    shares a key with it (title or id, see ``_Card``) has its very markup, so that all fields are equal
    (``repeated``). Any other listing gets its record (``listing``), and ``distinct`` compares it."""

    def __init__(self) -> None:
        self._owners: dict[tuple[str, str], _Card] = {}
        self._shared: set[tuple[str, str]] = set()
        self._firsts: list[_Card] = []
        self._compared: set[int] = set()  # the cards with more than one listing given to distinct (two types)

    def listing(self, card: _Card, page_url: str | None, filed: _Filed | None) -> Publication:
        """A listing's own record; the first of its card also notes the keys it is matched by."""
        pub = card.record(page_url, filed)
        if card.pub is None:
            card.pub = pub
            ident = pub.ids.msr
            card.keys = (("title", title_key(pub.title)),) + ((("id", ident),) if ident else ())
            self._firsts.append(card)
            for key in card.keys:
                if self._owners.setdefault(key, card) is not card:
                    self._shared.add(key)
        else:
            self._compared.add(id(card))
        return pub

    def repeated(self, card: _Card, filed: _Filed | None) -> bool:
        """Whether a listing repeats its card's first listing with nothing for ``distinct`` to compare; if so,
        its group is filed into that paper, as ``distinct`` would (a type it lacks, the group's label). A type
        other than the paper's is left to ``distinct``, which warns."""
        first = card.pub
        if first is None or not self._shared.isdisjoint(card.keys):
            return False
        if filed is None:
            return True
        facet, label, kind = filed
        if kind is not None:
            if first.type is not None and kind != first.type:
                return False
            first.type = kind
        if facet:
            labels = getattr(first.facets, facet)
            if label not in labels:
                labels.append(label)
        return True

    def distinct(self, found: list[Publication], result: PageResult) -> list[Publication]:
        """Each paper of the listings ``found`` once, in page order: ``listings.distinct`` of those whose card
        shares a key with another card or was listed again with something to compare; the paper of any other
        card is one of its own."""
        alone = {id(card.pub) for card in self._firsts
                 if id(card) not in self._compared and self._shared.isdisjoint(card.keys)}
        kept = {id(pub) for pub in distinct([pub for pub in found if id(pub) not in alone], result)}
        return [pub for pub in found if id(pub) in alone or id(pub) in kept]


def _listings(cards: _Cards, url: str | None, groups: dict[str, tuple[str | None, str | int]],
              result: PageResult) -> list[Publication]:
    """The paper of every publication listing, each once (``_Papers``), the listings checked: an ``<article>``
    of the accordions that gives no paper is numbered (``listings.check_listings``), one outside any group
    body or with a detail line that is none pubharvest reads is ``listings_incomplete``. The featured item
    outside them is not counted."""
    found, unreadable, incomplete = [], [], []
    papers = _Papers()
    number = 0
    for run, listed, group in cards.runs:
        placed = groups.get(group) if group else None
        filed = (*placed, _group_type(*placed)) if placed else None
        for card in run:
            number += listed
            if card.parts is None:
                unreadable += [number] if listed else []
                continue
            if not papers.repeated(card, filed):
                found.append(papers.listing(card, url, filed))
            if listed and (card.unread or not group):
                incomplete.append(number)
    check_listings(result, "the accordions", number, unreadable,
                   "title (h5, a publication link) or authors line (p.content-excerpt__people)", incomplete,
                   "a group body (div#collapse-group-…), or have a title link to no publication page or a detail "
                   "line that is no 'Venue | Month YYYY', date, 'Published by' or ISBN line")
    return papers.distinct(found, result)


def _placement(article: Any) -> tuple[bool, str | None, bool]:
    """Whether an ``<article>`` sits in a ``ul.accordion``, the id of the group body it sits in (None outside
    any), and whether it sits in another article: one walk up its ancestors for all three (``ul.accordion
    article`` as a query is slow: libxml2 walks every descendant of each list)."""
    listed, group, inner = False, None, False
    for node in article.iterancestors():
        if group is None and (ident := node.get("id") or "").startswith(_GROUP_BODY):
            group = ident
        if node.tag == "ul" and "accordion" in (node.get("class") or "").split():
            listed = True
        inner = inner or node.tag == "article"
    return listed, group, inner


def _check_groupings(result: PageResult) -> None:
    """Every paper has a type and a research area, so each grouping by type or area the page shows
    lists every paper (the by-year lists may leave out the newest, featured paper: both pages seen do)."""
    for facet, name in (("types", "type"), ("research_areas", "research area")):
        if not any(getattr(pub.facets, facet) for pub in result.publications):
            continue
        missing = [pub.title for pub in result.publications if not getattr(pub.facets, facet)]
        if missing:
            shown = "; ".join(repr(title) for title in missing[:5]) + (" …" if len(missing) > 5 else "")
            result.warn(Warn.groupings_disagree, f"{len(missing)} paper(s) are not listed under any {name}: {shown}")


def _person(sel: Selector, url: str | None) -> Profile:
    # No real people-page markup has been seen: the person is the page's h1, the position the
    # element right after it (as open-source scraper code reads it).
    heading = sel.css("main h1") or sel.css("h1")
    people = _PEOPLE.match(url or "")
    return Profile(
        name=_text(heading) or None,
        position=_text(heading.xpath("following-sibling::*[1]")) or None,
        url=people.group(1) + "/" if people else None,
        ids=Ids(msr=people.group(2) if people else None),
    )


def _group_type(facet: str | None, label: str | int) -> str | None:
    """The CSL type a group gives its papers: a type group's, by its label."""
    return _csl_type(str(label)) if facet == "types" else None


# What an ``<article>`` card says: its title, the title link's href as written (None without a link), and its
# ``p`` lines, each with whether it is the authors line.
_Parts = tuple[str, str | None, list[tuple[bool, str]]]


def _card_parts(card: Any) -> _Parts | None:
    """What an ``<article>`` card says, in one walk of its elements: the title is the first link in an ``h5``
    or to a publication page, else the first ``h5``, ``h4`` or ``h3``. None for an article that is no
    publication item (no title, no authors line)."""
    link = heading = None
    lines = []
    for element in card.iter("a", "h3", "h4", "h5", "p"):
        tag = element.tag
        if tag == "p":
            lines.append(_line(element))
        elif tag != "a":
            heading = element if heading is None else heading
        elif link is None and (href := element.get("href")) is not None and (
                "/publication/" in href or _in_h5(element, card)):
            link = element
    title = _element_text(link if link is not None else heading)
    if not title or not any(people for people, _ in lines):
        return None
    return title, link.get("href") if link is not None else None, lines


def _in_h5(element: Any, card: Any) -> bool:
    for node in element.iterancestors():
        if node is card:
            return False
        if node.tag == "h5":
            return True
    return False


def _line(p: Any) -> tuple[bool, str]:
    """Whether a card's ``p`` is its authors line (``p.content-excerpt__people``), and its text as written."""
    return "content-excerpt__people" in (p.get("class") or ""), _raw_text(p)


def _read_card(card: Any, pub: Publication) -> None:
    """Fill ``pub`` from the authors and detail lines of a listing card (an lxml element)."""
    fields, ids, _ = _lines_said([_line(p) for p in card.iter("p")])
    for name, value in fields.items():
        setattr(pub, name, list(value) if name == "authors" else value)
    for name, value in ids.items():
        setattr(pub.ids, name, value)


@lru_cache(maxsize=4096)  # a paper's authors line, listed about three times, and co-authors' papers alike
def _names(line: str) -> tuple[tuple[str, ...], bool]:
    names, truncated = split_names(line)
    return tuple(names), truncated


def _lines_said(lines: list[tuple[bool, str]]) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """What a card's ``p`` lines (``_line``) say, the later line winning: fields of a publication (the authors,
    a tuple, and the detail lines': ``_detail``) and of its ids, and whether a line is none pubharvest reads."""
    fields: dict[str, Any] = {}
    ids: dict[str, Any] = {}
    unread = False
    for people, text in lines:
        if people:
            fields["authors"], fields["authors_truncated"] = _names(text)
        elif text := clean(text):
            said = _detail(text)
            unread = unread or said is None
            for field, value in said or ():
                (ids if field in _DETAIL_IDS else fields)[field] = value
    return fields, ids, unread


_GROUP_BODY = "collapse-group-"  # the id of each accordion group body begins so


def _group_bodies(root: Any) -> list[tuple[str, Any]]:
    """Each group body's id and the last ``h4`` before it in page order (one walk of the tree: an
    XPath ``preceding::h4[1]`` per group walks the page once each)."""
    found, heading = [], None
    for element in root.iter():
        if element.tag == "h4":
            heading = element
        elif (ident := element.get("id") or "").startswith(_GROUP_BODY):
            found.append((ident, heading))
    return found


def _group(ident: str, heading: Any, result: PageResult) -> tuple[str | None, str | int]:
    """The facet and label of an accordion group body ``collapse-group-<facet>_filter-...-<value>``,
    the label being the text of the ``h4`` heading over it."""
    facet_name, _, value = ident.removeprefix("collapse-group-").partition("_filter-")
    targets = [target.lstrip("#") for target in _heading_targets(heading)] if heading is not None else []
    label = _element_text(heading) if heading is not None and (not targets or ident in targets) else ""
    if not label:
        label = value.rpartition("-")[2]
        result.warn(Warn.group_heading_missing, f"group {ident!r} has no h4 heading of its own: labelled {label!r}")
    facet = next((f for f, word in zip(_FACETS, ("year", "area", "type"), strict=True) if word in facet_name), None)
    if facet is None:
        result.warn(Warn.unknown_grouping, f"an accordion group {facet_name!r} that is not by year, area or type")
    if facet == "years":
        year = find_year(label) or find_year(value)
        if year is None:
            return None, label
        return facet, year
    return facet, label


# --- HTML: single publication page ------------------------------------------------------------

def _publication_page(doc: Document) -> PageResult:
    """A paper's own page. Its markup is the source; the ``citation_*`` and ``research-area`` meta
    tags are read only where the markup lacks a field, with a ``meta_fallback`` warning naming it
    (the meta tags carry no author links, no external link and month-less dates)."""
    sel = doc.selector
    result = PageResult(site=SITE.name, page="publication")
    result.url = url = _page_url(sel, doc, result, _PUBLICATION)
    _refuse_cut_pages(doc, result)
    main = sel.css("main.single-publication") or sel.css("main")
    from_meta: list[str] = []
    title = _text(main.css("h1")) or _from_meta(from_meta, "title", _meta(sel, "citation_title"))
    if not title:
        raise LayoutChanged("an MSR publication page without a title (no main h1, no citation_title)")
    pub = Publication(title=title, url=url)
    people = _citation_authors(main)
    pub.authors = [a.name for a in people] or _from_meta(from_meta, "authors", _meta_all(sel, "citation_author"))
    pub.author_links = [a for a in people if a.url]
    pub.date = _iso_date(main.css(".publication-citation time::attr(datetime)").get()) or _iso_date(
        _from_meta(from_meta, "date", _meta(sel, "citation_publication_date")))
    pub.summary = _summary(main.css(".excerpt"), result)
    aside = main.css("aside")
    pub.facets.research_areas = [_text(a) for a in aside.css('a[href*="/research-area/"]')] or _from_meta(
        from_meta, "research areas", _meta_all(sel, "research-area"))
    pub.links = _publication_links(main, url)
    slug = _PUBLICATION.search(url or "")
    pub.ids.msr = slug.group(1) if slug else None
    ids_from_links(pub, result)
    ids_from_meta(pub, ((meta.attrib["name"], meta.attrib["content"]) for meta in sel.css("meta[name][content]")),
                  result)
    ids_from_text(pub, " ".join(main.css(".publication-citation p ::text").getall()), result)  # a venue line's "DOI: …"
    if from_meta:
        result.warn(Warn.meta_fallback, f"the page's markup has no {', '.join(from_meta)}: read from its meta tags "
                                        "(without author links, the external link or month-precise dates)")
    result.publications = [_finish(pub)]
    return result


def _summary(excerpt: SelectorList[Selector], result: PageResult) -> str | None:
    """The abstract: the paragraphs of ``.excerpt``, or its whole text (warned) when it holds text in
    no paragraph; a page with no such block is warned about."""
    if not excerpt:
        result.warn(Warn.summary_missing, "the publication page has no abstract block (.excerpt)")
        return None
    paragraphs = [text for p in excerpt.css("p") if (text := _text(p))]
    if paragraphs:
        return "\n\n".join(paragraphs)
    whole = clean_or_none(" ".join(excerpt.xpath(".//text()[not(ancestor::*[contains(@class, 'sr-only')])]")
                                   .getall()))
    if whole:
        result.warn(Warn.publication_unreadable, "the abstract block (.excerpt) holds text in no paragraph (p): "
                                                 "read as one paragraph")
    return whole


def _from_meta(used: list[str], field: str, value: _T) -> _T:
    """``value``, read from meta tags for ``field``; notes the field in ``used`` when there is one."""
    if value:
        used.append(field)
    return value


def _meta(sel: Selector, name: str) -> str | None:
    return clean_or_none(sel.xpath(f'//meta[@name="{name}"]/@content').get())


def _meta_all(sel: Selector, name: str) -> list[str]:
    return [value for value in map(clean, sel.xpath(f'//meta[@name="{name}"]/@content').getall()) if value]


def _citation_authors(main: SelectorList[Selector]) -> list[Author]:
    authors = []
    for person in main.css('.publication-citation li[itemtype$="schema.org/Person"]'):
        name = _text(person.css('[itemprop="name"]')) or _text(person).rstrip(" ,")
        url = clean_or_none(person.css('a[itemprop="url"]::attr(href), a[href]::attr(href)').get())
        people = _PEOPLE.match(url or "")
        if name:
            authors.append(Author(name=name, url=url, ids=Ids(msr=people.group(2) if people else None)))
    return authors


def _publication_links(main: SelectorList[Selector], base: str | None) -> list[Link]:
    """The paper's own links: the external "Publication" link(s), the PDF button, the BibTeX link."""
    # The citation block's links that are no author's (authors are schema.org items: itemscope).
    found = [("external", a) for a in main.xpath(".//*[contains(concat(' ', normalize-space(@class), ' '), "
                                                 "' publication-citation ')]//a[@href][not(@itemprop)]"
                                                 "[not(ancestor::*[@itemscope])]")]
    # Each link is found by two marks (a class and an attribute), so one renamed mark loses nothing.
    found += [("pdf" if ".pdf" in a.attrib["href"].lower() or a.attrib.get("data-bi-cn") == "PDF" else "external", a)
              for a in main.css("aside a.btn[href], aside a[data-bi-cn][href]")]
    found += [("bibtex", a) for a in main.css(".bibtex-link a[href], a.type-bibtex[href]")]
    links: list[Link] = []
    for kind, a in found:
        link = Link(kind=kind, url=_absolute(a.attrib["href"], base) or "", label=_text(a) or None)
        if link not in links:
            links.append(link)
    return links


# --- saved text of a people page --------------------------------------------------------------

def _saved_text(doc: Document) -> PageResult:
    """The text a browser saves of a people page: its group headings are lost, each group starts
    with a ``-`` line, and items are title / authors / optional detail lines."""
    lines = [line for line in map(clean, doc.text.splitlines()) if line]
    chunks = _split_on_dashes(lines)
    preamble, heading = chunks[0][:-1], chunks[0][-1]
    result = PageResult(site=SITE.name, page="publication_list")
    featured, rest = _text_items(preamble, until_stray=True)
    result.profile = Profile(name=rest[0] if rest else None, position=rest[1] if len(rest) > 2 else None)
    listings = list(featured)
    numbers: Counter[str] = Counter()
    section, facet = 0, _section_facet(heading, 0)
    for chunk in chunks[1:]:
        items, stray = _text_items(chunk)  # stray: the next section's heading, if any
        if chunk is chunks[-1] and (stray or not items):
            raise Truncated("the saved text stops inside its last group: save the page again")
        numbers[facet] += 1
        listings += _file_group(items, facet, numbers[facet])
        if stray:
            section, facet = section + 1, _section_facet(stray[0], section + 1)
    if not numbers["types"]:  # every paper has a type, so a whole page always ends with that section
        raise Truncated("the saved text stops before its 'by type' groups: save the page again")
    if numbers["research_areas"] or numbers["types"]:
        result.warn(Warn.group_names_lost, "the saved text lost the research-area and type group headings: "
                                           "those facets are numbered groups (#1, #2, ...) in page order")
    result.publications = [_finish(pub) for pub in _distinct(listings, result)]
    if not result.publications:
        raise LayoutChanged("a saved MSR people page without publication items")
    _check_groupings(result)
    return result


def _split_on_dashes(lines: list[str]) -> list[list[str]]:
    chunks: list[list[str]] = [[]]
    for line in lines:
        if line == "-":
            chunks.append([])
        else:
            chunks[-1].append(line)
    if len(chunks) < 2 or not chunks[0]:
        raise LayoutChanged("a saved MSR people page without its '-' group markers")
    return chunks


def _text_items(lines: list[str], until_stray: bool = False) -> tuple[list[Publication], list[str]]:
    """Items (title, authors, detail lines...) and the lines left over after the last one.
    With ``until_stray`` an item must have a detail line, and reading stops at the first that has not."""
    items: list[Publication] = []
    at = 0
    while at + 1 < len(lines):
        authors, truncated = split_names(lines[at + 1])
        pub = Publication(title=lines[at], authors=authors, authors_truncated=truncated)
        end = at + 2
        while end < len(lines) and _read_detail(lines[end], pub):
            end += 1
        if until_stray and end == at + 2:
            break
        items.append(pub)
        at = end
    return items, lines[at:]


def _section_facet(heading: str, index: int) -> str:
    """Which facet a "Publications by ..." section fills: named in its heading, else by its place."""
    words = heading.lower()
    named = [facet for facet, word in zip(_FACETS, ("year", "area", "type"), strict=True) if word in words]
    return named[0] if named else _FACETS[min(index, 2)]


def _file_group(items: list[Publication], facet: str, number: int) -> list[Publication]:
    """Set each item's facet from its group: the year the group's items share, or ``#n`` for an
    area or type group whose name the text lost."""
    label: int | str = f"#{number}"
    if facet == "years":
        years = Counter(year for pub in items if (year := find_year(pub.date)))
        if not years:
            return items
        label = years.most_common(1)[0][0]
    for pub in items:
        pub.facets = _filed_under(facet, label)
    return items


# --- faceted-search JSON ----------------------------------------------------------------------

def _faceted_search(doc: Document) -> PageResult:
    """``/wp-json/microsoft-research/v1/faceted-search`` answers: ``posts[].data`` (permalink,
    title, excerpt, ``meta``, ``terms``) and ``posts[].markup``, the card HTML with the authors."""
    payload = _json(doc.text)
    posts = payload.get("posts") if isinstance(payload, dict) else None
    if not isinstance(posts, list):
        raise LayoutChanged("an MSR faceted-search answer without a posts list")
    result = PageResult(site=SITE.name, page="publication_list")
    listings = [pub for pub in map(_post, posts) if pub]
    if len(listings) < len(posts):
        result.warn(Warn.post_without_title, f"{len(posts) - len(listings)} post(s) without a title were skipped")
    check_listings(result, "the posts", len(posts), [n for n, post in enumerate(posts, 1) if not _post_title(post)],
                   "data.post_title")
    gaps = [f"post {n} lacks {', '.join(lacks)}" for n, post in enumerate(posts, 1) if (lacks := _post_gaps(post))]
    if gaps:
        more = f"; and {len(gaps) - 10} more" if len(gaps) > 10 else ""
        result.warn(Warn.listings_incomplete, "; ".join(gaps[:10]) + more)
    result.publications = [_finish(pub) for pub in _distinct(listings, result)]
    return result


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if not text.rstrip().endswith("}"):  # every answer is one object: cut short if it does not close
            raise Truncated("the JSON stops before its end: save the answer again") from None
        raise LayoutChanged(f"an MSR faceted-search answer that is not valid JSON ({exc.msg})") from None


# What every post of an answer carries (``meta`` and ``terms`` may be ``[]``, PHP's empty object; when
# they are objects, these keys are there; a journal paper has no msr_conference_name key).
_POST_KEYS = ("permalink", "post_title", "post_excerpt", "meta", "terms")
_VENUE_KEYS = ("msr_conference_name", "msr_journal")
_TERM_KEYS = ("msr-publication-type", "msr-research-area")


def _post_title(post: Any) -> str | None:
    data = post.get("data") if isinstance(post, dict) else None
    return _html_text(data.get("post_title")) if isinstance(data, dict) else None


def _post_gaps(post: Any) -> list[str]:
    """The keys a post lacks of those every post has (the invariant of a faceted-search answer).

    >>> _post_gaps({"data": {"post_title": "T", "meta": [], "terms": {"msr-research-area": []}}, "markup": ""})
    ['data.permalink', 'data.post_excerpt', 'data.terms.msr-publication-type']
    """
    if not isinstance(post, dict) or not isinstance(post.get("data"), dict):
        return ["data"]
    data = post["data"]
    lacks = [f"data.{key}" for key in _POST_KEYS if key not in data]
    meta, terms = data.get("meta"), data.get("terms")
    if isinstance(meta, dict) and meta:
        lacks += ["data.meta.msr_published_date"] if "msr_published_date" not in meta else []
        # A paper may have no venue (a report), but a venue under a key of another name is one renamed.
        if not any(_meta_value(meta, key) for key in _VENUE_KEYS) and set(meta) - {"msr_published_date", *_VENUE_KEYS}:
            lacks.append(f"data.meta.{' or '.join(_VENUE_KEYS)}")
    if isinstance(terms, dict) and terms:
        lacks += [f"data.terms.{key}" for key in _TERM_KEYS if key not in terms]
    if "markup" not in post:
        lacks.append("markup")
    elif isinstance(post["markup"], str) and post["markup"].strip() and "content-excerpt__people" not in post["markup"]:
        lacks.append("an authors line (p.content-excerpt__people) in its markup")
    return lacks


def _post(post: Any) -> Publication | None:
    title = _post_title(post)
    if title is None:
        return None
    data = post["data"]
    pub = Publication(title=title, url=clean_or_none(data.get("permalink")))
    slug = _PUBLICATION.search(pub.url or "")
    pub.ids.msr = slug.group(1) if slug else None
    if isinstance(post.get("markup"), str) and post["markup"].strip():
        _read_card(html_selector(post["markup"]).root, pub)
    meta = data.get("meta") or {}  # an empty dict arrives as [] (PHP)
    terms = data.get("terms") or {}
    pub.date = _iso_date(_meta_value(meta, "msr_published_date")) or pub.date
    pub.venue = _meta_value(meta, "msr_conference_name") or _meta_value(meta, "msr_journal") or pub.venue
    pub.ids.report_number = pub.ids.report_number or find_report_number(pub.venue)
    pub.summary = _html_text(data.get("post_excerpt"))
    types = _term_names(terms, "msr-publication-type")
    pub.facets = Facets(research_areas=_term_names(terms, "msr-research-area"), types=types)
    pub.type = next(filter(None, map(_csl_type, types)), None)
    return pub


def _meta_value(meta: Any, key: str) -> str | None:
    """The first value of a post meta field: ``[{"date"|"value"|"raw": ...}]`` or ``["..."]``."""
    values = meta.get(key) if isinstance(meta, dict) else None
    for value in values if isinstance(values, list) else [values]:
        if isinstance(value, dict):
            value = value.get("date") or value.get("value") or value.get("raw")
        if isinstance(value, (str, int)) and clean(str(value)):
            return clean(str(value))
    return None


def _term_names(terms: Any, taxonomy: str) -> list[str]:
    found = terms.get(taxonomy) if isinstance(terms, dict) else None
    names = (_html_text(term.get("name")) for term in found or [] if isinstance(term, dict))
    return list(dict.fromkeys(name for name in names if name))


def _html_text(fragment: Any) -> str | None:
    """Clean text of an HTML fragment (WordPress titles and excerpts carry entities and tags)."""
    if not isinstance(fragment, str) or not fragment.strip():
        return None
    return _text(html_selector(f"<div>{fragment}</div>").xpath("//div")) or None
