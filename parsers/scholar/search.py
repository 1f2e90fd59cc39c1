"""Search results (``/scholar?q=``, ``cites=``, ``cluster=``) and the author search page
(``view_op=search_authors``)."""

from __future__ import annotations

import re

from lxml import etree
from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged, Truncated

from ..identifiers import ids_from_links
from ..numbers import count_in, read_count
from ..page import Document, closes_html
from ..records import Author, Ids, Link, Metrics, PageResult, Profile, Publication, SearchInfo
from ..text import absolute_url, clean, clean_or_none, clean_title, split_names
from ..warning_codes import Warn
from ._base import (
    BY_ID,
    NUMBER,
    as_elements,
    by_class,
    class_names,
    element_text,
    email_domain_of,
    first_of,
    last_domain,
    linked_user_ids,
    query_value,
    text_of,
    user_id,
)
from .identity import SITE
from .rows import classify_venue, origin_of, row_numbers

# --- search results -------------------------------------------------------------------------
# ``/scholar?q=`` (also ``cites=``, ``cluster=``, ``start=``): ``div.gs_r`` blocks, each with a
# ``div.gs_ri`` body (2016: inside ``#gs_ccl``; 2020+: ``#gs_res_ccl_mid``, with ``data-cid``).
# Labels ("Cited by 12", "被引用 12 次", "All 5 versions") are localised: links are told apart by
# their URL (``cites=``, ``cluster=``, ``q=related:``), and only the number is read from their text.

_RESULT_CLASSES = {"gs_ri": "body", "gs_ggs": "side", "gs_rt": "title", "gs_ct1": "badge", "gs_ctu": "citation_only",
                   "gs_a": "byline", "gs_rs": "snippet", "gs_fl": "links"}
_QUERY_BOX = etree.XPath("id('gs_hdr_tsi gs_hdr_frm_in_txt')")
_ANY_QUERY_BOX = etree.XPath("//input[@name='q']")
_BADGES = frozenset({"gs_ctc", "gs_ctu", "gs_ct1", "gs_ct2"})
_RESULT_ID = re.compile(r"(?:related|info|cache):([\w-]+):")
_CLUSTER_IN_CLICK = re.compile(r"(?:^|&(?:amp;)?)d=(\d+)")
_YEAR_AT_END = re.compile(r"^(?P<venue>.*?)[,\s]*(?P<year>(?:1[5-9]|20)\d\d)$")
_SEARCH_NEXT = etree.XPath("id('gs_n')//a[.//span[contains(@class, 'gs_ico_nav_next')]]/@href")
_SEARCH_CURRENT = etree.XPath("id('gs_n')//td[span[contains(@class, 'gs_ico_nav_current')]]")


def parse_search(doc: Document) -> PageResult:
    root = doc.selector.root
    url = doc.url
    origin = origin_of(url)
    result = PageResult(site=SITE.name, page="search", url=url)
    listing = next(iter(as_elements(BY_ID(root, ids="gs_res_ccl_mid gs_ccl"))), None)
    blocks, others = _result_blocks(listing)
    parsed = [_result_parts(block) for block in blocks]
    result.publications = [_search_result(block, parts, origin)
                           for block, (parts, _) in zip(blocks, parsed, strict=True)]
    result.profiles = [_profile_stub(h4, origin) for block in others for h4 in block.iter("h4")
                       if "gs_rt2" in class_names(h4)]
    for pub in result.publications:
        ids_from_links(pub, result)
    result.search = _search_info(doc, root, origin, listing, has_results=bool(blocks))
    _check_search_results(doc, blocks, others, parsed, result)
    _check_cut(doc, result, len(blocks), ('id="gs_ftr"', 'id="gs_res_ccl_bot"'))
    return result


def _check_cut(doc: Document, result: PageResult, read: int, after_list: tuple[str, ...]) -> None:
    """``Truncated`` for a search page cut before the end of its list (none of the ``after_list``
    markers that follow it is there); a ``truncated`` warning for one cut later, which lost nothing read."""
    if closes_html(doc.text):
        return
    if not any(doc.contains(marker) for marker in after_list):
        raise Truncated(f"the page stops before the end of its list (after {read} entries); save it again")
    result.warn(Warn.truncated, "the page stops after its list; what came later was not saved")


def _result_blocks(listing: Element | None) -> tuple[list[Element], list[Element]]:
    """The result blocks of the results list (a ``div.gs_r`` with a ``div.gs_ri`` body), and its
    other ``div.gs_r`` blocks (the "User profiles for …" block, related searches)."""
    blocks: list[Element] = []
    others: list[Element] = []
    for child in listing if listing is not None else []:
        if "gs_r" in class_names(child):
            (blocks if any("gs_ri" in class_names(c) for c in child) else others).append(child)
    return blocks, others


_SKIP = "skip"
_BODY_NAMES = frozenset({"title", "byline", "snippet", "links"})


def _part_name(element: Element) -> str | None:
    """The part ``element`` is by its class (``_RESULT_CLASSES``); ``_SKIP`` for a script or comment."""
    if not isinstance(element.tag, str) or element.tag in ("script", "style"):
        return _SKIP
    classes = element.get("class")
    if not classes:
        return None
    return _RESULT_CLASSES.get(classes) or next((_RESULT_CLASSES[c] for c in classes.split() if c in _RESULT_CLASSES),
                                                None)


def _result_parts(block: Element) -> tuple[dict[str, list[Element]], list[str]]:
    """The parts of a result block: its side link box and body, the body's parts and the title
    line's badges, looked for only where they sit (a walk of the whole block costs more than the
    rest); and the classes of the children that are none of these (a renamed class looks so)."""
    parts: dict[str, list[Element]] = {}
    unknown: list[str] = []
    for child in block:
        name = _part_name(child)
        if name == "body":
            for part in child:
                inner = _part_name(part)
                if inner in _BODY_NAMES:
                    parts.setdefault(inner, []).append(part)
                elif inner != _SKIP:
                    unknown.append(part.get("class") or part.tag)
                if inner == "title":
                    for span in part.iter("span"):
                        if _part_name(span) in ("badge", "citation_only"):
                            parts.setdefault(_part_name(span) or "", []).append(span)
        elif name == "side":
            parts.setdefault("side", []).append(child)
        elif name != _SKIP:
            unknown.append(child.get("class") or child.tag)
    return parts, unknown


def _search_result(block: Element, parts: dict[str, list[Element]], origin: str) -> Publication:
    """One result block: the title line, the byline, the snippet and the links under it."""
    heading = first_of(parts, "title")
    link = next(heading.iter("a"), None) if heading is not None else None
    pub = Publication(
        title=clean_title(_text_without_badges(heading)) or None if heading is not None else None,
        url=absolute_url(link.get("href"), origin) if link is not None else None,
        summary=text_of(first_of(parts, "snippet")),
        result_type=_badge(first_of(parts, "badge")),
        result_id=block.get("data-cid"),
    )
    if "citation_only" in parts:
        pub.flags.append("citation_only")  # a reference Scholar found in other papers, with no page of its own
    byline = first_of(parts, "byline")
    if byline is not None:
        _fill_byline(pub, byline, origin)
    _fill_result_links(pub, parts, origin)
    if not pub.ids.scholar_clusters and link is not None:
        pub.ids.scholar_clusters = _CLUSTER_IN_CLICK.findall(link.get("data-clk") or "")[:1]
    return pub


def _badge(element: Element | None) -> str | None:
    """A badge's text without its brackets: ``[PDF]`` -> ``PDF``."""
    return clean_or_none(element_text(element).strip("[] ")) if element is not None else None


def _text_without_badges(heading: Element) -> str:
    """The title line's text without its "[PDF]" / "[CITATION]" badges."""
    parts = [heading.text or ""]
    for child in heading:
        if not _BADGES & set(class_names(child)):
            parts.append(element_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _fill_byline(pub: Publication, byline: Element, origin: str) -> None:
    """Authors (with the profiles they link), venue, year and host from "A Bee, C Dee - Venue, 2020 - host".

    >>> pub = Publication()
    >>> _fill_byline(pub, etree.fromstring('<div>A Bee, <a href="/citations?user=ab">C Dee</a>\u2026\u00a0- '
    ...              '\u2026 of Nature, 2020 - nature.com</div>'), SITE.base_url)
    >>> pub.authors, pub.authors_truncated, pub.venue, pub.venue_truncated, pub.year, pub.publisher
    (['A Bee', 'C Dee'], True, '… of Nature', True, 2020, 'nature.com')
    >>> pub.author_links[0].ids.scholar
    'ab'
    """
    fields = [clean(part) for part in element_text(byline).replace("\u00a0", " ").split(" - ")]
    authors = fields[0]
    middle, host = (fields[1:-1], fields[-1]) if len(fields) > 2 else (fields[1:], None)
    venue_year = " - ".join(middle)
    if len(fields) == 2 and not _YEAR_AT_END.match(venue_year):
        venue_year, host = "", venue_year  # "A Bee - host": no venue, no year
    pub.authors, pub.authors_truncated = split_names(authors)
    match = _YEAR_AT_END.match(venue_year)
    venue = match.group("venue") if match else venue_year
    pub.year = int(match.group("year")) if match else None
    pub.date = str(pub.year) if pub.year else None
    pub.venue_truncated = "…" in venue
    pub.venue = clean_or_none(venue.rstrip("… ,")) if venue.strip("… ") else None
    pub.publisher = clean_or_none(host)
    pub.author_links = [Author(name=clean(element_text(a)), ids=Ids(scholar=user_id(a.get("href"))),
                               url=absolute_url(a.get("href"), origin))
                        for a in byline.iter("a") if user_id(a.get("href"))]
    classify_venue(pub)


def _fill_result_links(pub: Publication, parts: dict[str, list[Element]], origin: str) -> None:
    """Cited by (count and cluster), All versions (count and cluster), Related, the full-text links."""
    for side in parts.get("side", []):
        for a in side.iter("a"):
            badge = _badge(next((s for s in a.iter("span") if "gs_ctg2" in class_names(s)), None))
            kind = badge.lower() if badge else "library" if "output=instlink" in (a.get("href") or "") else "fulltext"
            pub.links.append(Link(kind=kind,
                                  url=absolute_url(a.get("href"), origin) or "", label=text_of(a)))
    bars = parts.get("links", [])
    if not bars:
        return
    pub.citations = 0  # a result whose link bar has no "Cited by" link is not cited
    for a in bars[-1].iter("a"):
        href = a.get("href") or ""
        if "cites=" in href:
            pub.citations = count_in(element_text(a))
            pub.ids.scholar_clusters = [c for c in (query_value(href, "cites") or "").split(",") if c]
            pub.links.append(Link(kind="cited_by", url=absolute_url(href, origin) or ""))
        elif "cluster=" in href:
            pub.versions = count_in(element_text(a))
            cluster = query_value(href, "cluster")
            if cluster and cluster not in pub.ids.scholar_clusters:
                pub.ids.scholar_clusters.append(cluster)
            pub.links.append(Link(kind="versions", url=absolute_url(href, origin) or ""))
        elif "related:" in href:
            pub.links.append(Link(kind="related", url=absolute_url(href, origin) or ""))
        elif "cache:" in href:
            pub.links.append(Link(kind="cached", url=absolute_url(href, origin) or "", label=text_of(a)))
        if not pub.result_id and _RESULT_ID.search(href):
            pub.result_id = _RESULT_ID.search(href).group(1)  # type: ignore[union-attr]


def _profile_stub(heading: Element, origin: str) -> Profile:
    """A profile of the "User profiles for …" block: the name line, then affiliation, e-mail and
    cited-by lines separated by ``<br>`` (read by shape: a domain, a lone number)."""
    link = next(heading.iter("a"), None)
    href = link.get("href") if link is not None else None
    box = heading.getparent()
    lines = [clean(line) for line in _lines_after(heading, box) if clean(line)]
    email_line = next((line for line in lines if last_domain(line)), None)
    count_line = lines[-1] if lines and re.fullmatch(r"\D*\d[\d.,\s\u00a0]*\D*", lines[-1]) and\
        lines[-1] != email_line else None
    affiliation = next((line for line in lines if line not in (email_line, count_line)), None)
    return Profile(name=text_of(link), url=absolute_url(href, origin), ids=Ids(scholar=user_id(href)),
                   affiliation=affiliation, email_domain=last_domain(email_line or ""),
                   metrics=Metrics(citations=count_in(count_line)))


def _lines_after(heading: Element, box: Element | None) -> list[str]:
    """The ``<br>``-separated text lines that follow ``heading`` in ``box``."""
    if box is None:
        return []
    text: list[str] = []
    after = False
    for element in box.iter():
        if element is heading:
            after = True
            continue
        if not after or heading in element.iterancestors():
            continue
        if element.tag == "br":
            text.append("\n")
        elif element.text and element.tag not in ("script", "style"):
            text.append(element.text)
        text.append(element.tail or "")
    return "".join(text).split("\n")


def _search_info(doc: Document, root: Element, origin: str, listing: Element | None, has_results: bool) -> SearchInfo:
    """The query, the stated total, the page number and the "Next" link of a results page."""
    nav_next = next((h for h in _SEARCH_NEXT(root) if isinstance(h, str)), None)  # type: ignore[union-attr]
    current = as_elements(_SEARCH_CURRENT(root))
    query_box = as_elements(_QUERY_BOX(root)) or as_elements(_ANY_QUERY_BOX(root))
    probe = nav_next or doc.url
    info = SearchInfo(
        kind="articles",
        query=clean_or_none(query_box[0].get("value")) if query_box else None,
        cites=[c for c in (query_value(probe, "cites") or "").split(",") if c],
        cluster=query_value(probe, "cluster"),
        total_results=_stated_total(root),
        page_number=read_count(element_text(current[0])) if current else None,
        next_start=read_count(query_value(nav_next, "start")),
        next_url=absolute_url(nav_next, origin) if nav_next else None,
    )
    if info.total_results is None and not has_results and listing is not None and listing.get("id") == "gs_res_ccl_mid":
        info.total_results = 0  # the results list is there and empty: nothing matched
    return info


def _stated_total(root: Element) -> int | None:
    """The result count of the line above the results ("About 1.620.000 results (0,05 sec)",
    "約有 6,030,000 項結果", "Page 2 of about 22,600 results"): the last number before the time in
    parentheses, with any grouping."""
    box = next(iter(as_elements(BY_ID(root, ids="gs_ab_md"))), None)
    if box is None:
        return None
    # 2020+: the count is the first div (div.gs_ab_mdw) of the box; 2016: the box's own text
    line = re.sub(r"\(.*", "", clean(element_text(box[0] if len(box) and box[0].tag == "div" else box)))
    numbers = NUMBER.findall(line)
    return read_count(numbers[-1]) if numbers else None


def _check_search_results(doc: Document, blocks: list[Element], others: list[Element],
                          parsed: list[tuple[dict[str, list[Element]], list[str]]], result: PageResult) -> None:
    """The results read against the page: blocks with no title, a count that differs from the
    result bodies in the markup, a stated total with no results."""
    read = [pub for pub in result.publications if pub.title]
    marked = len(_RESULT_BODY.findall(doc.text))
    if blocks and not read:
        raise LayoutChanged(f"the page holds {len(blocks)} result blocks (div.gs_r) but no result title "
                            "(h3.gs_rt) could be read")
    if not blocks and (marked or doc.contains('data-cid="')):
        raise LayoutChanged(f"the markup holds {marked} result bodies (div.gs_ri) but no result block "
                            "(div.gs_r > div.gs_ri) was found")
    if marked != len(blocks):
        result.warn(Warn.row_count, f"the markup holds {marked} result bodies (div.gs_ri), {len(blocks)} were read")
    if not blocks and doc.contains('class="gs_rt"') and not result.profiles:
        raise LayoutChanged("the markup holds result titles (h3.gs_rt) but no result block (div.gs_r > div.gs_ri)")
    unread: dict[str, list[int]] = {}
    for number, ((parts, strange), pub) in enumerate(zip(parsed, result.publications, strict=True), 1):
        for part in _unread_result_parts(parts, pub, strange):
            unread.setdefault(part, []).append(number)
    for part, numbers in unread.items():
        result.warn(Warn.rows_unreadable, f"{row_numbers(numbers)} of {len(blocks)}: {part}")
    info = result.search
    total = info.total_results if info else None
    if total and not blocks:
        raise LayoutChanged(f"the page says it found {total} results but no result block (div.gs_r) was found")
    root = doc.selector.root
    if not blocks and doc.contains('id="gs_res_ccl"') and not as_elements(BY_ID(root, ids="gs_res_ccl_mid")):
        result.warn(Warn.search_unreadable, "the page has no results list (#gs_res_ccl_mid): whether anything "
                                            "matched is unknown")
    if blocks and not as_elements(BY_ID(root, ids="gs_ab_md")):
        result.warn(Warn.search_unreadable, "the page has no result count line (#gs_ab_md): the total is unknown")
    if info is not None:
        _check_page_bar(doc, info, result)
        if info.next_url and not {"q", "cites", "cluster"} & _query_keys(info.next_url):
            result.warn(Warn.search_unreadable, "the \"Next\" link names no search (q=, cites= or cluster=): "
                                                "what the page lists the results of is unread")
    if not result.profiles and any("view_op=search_authors" in (a.get("href") or "")
                                   for block in others for h3 in block.iter("h3") for a in h3.iter("a")):
        result.warn(Warn.search_unreadable, "the page has a \"User profiles\" block (a link to view_op=search_authors) "
                                            "but no profile (h4.gs_rt2 a) was read in it")
    read_ids = {a.ids.scholar for pub in result.publications for a in pub.author_links} | {
        p.ids.scholar for p in result.profiles}
    linked = {user_id(href) for block in [*blocks, *others] for a in block.iter("a")
              if "user=" in (href := a.get("href") or "")} - {None}
    unread_ids = linked - read_ids
    unlinked = [n for n, profile in enumerate(result.profiles, 1) if not profile.ids.scholar]
    if unlinked:
        result.warn(Warn.search_unreadable, f"{row_numbers(unlinked).replace('row', 'profile')} of the \"User "
                                            "profiles\" block link no profile (h4.gs_rt2 a[href*='user=']): "
                                            "the id is null")
    if unread_ids:
        result.warn(Warn.search_unreadable, f"the page links {len(unread_ids)} profiles that were not read "
                                            "(div.gs_a a, h4.gs_rt2 a)")


# The parts a result block and its body (div.gs_ri) are made of; any other child is a part the
# parser does not know, which a renamed class would also look like.
def _unknown_children(parent: Element | None, known: set[str]) -> set[str]:
    return {child.get("class") or child.tag for child in (parent if parent is not None else [])
            if isinstance(child.tag, str) and child.tag not in ("script", "style")
            and not known & set(class_names(child))}


def _unread_result_parts(parts: dict[str, list[Element]], pub: Publication, unknown: list[str]) -> list[str]:
    """What one result block (its ``parts``) holds that was not read: children of unknown classes
    (``unknown``), a title, a title-line part, a badge, a full-text link's type."""
    missing = [f"a part the parser does not know ({', '.join(sorted(set(unknown)))})"] if unknown else []
    if not pub.title:
        missing.append("no title (h3.gs_rt)")
    heading = first_of(parts, "title")
    for child in heading if heading is not None else []:
        if child.tag == "span" and not child.get("id") and not _BADGES & set(class_names(child)):
            missing.append(f"a part of the title line the parser does not know ({child.get('class')})")
        elif _BADGES & set(class_names(child)) and pub.result_type is None:
            missing.append("the result type badge (h3.gs_rt span.gs_ct1)")
    if any(link.kind == "fulltext" for link in pub.links):
        missing.append("the type of a full-text link (div.gs_ggs span.gs_ctg2)")
    if pub.citations is None and any(link.kind == "cited_by" for link in pub.links):
        missing.append("the \"Cited by\" count is not plainly a whole number (number_unreadable): it is null")
    byline = first_of(parts, "byline")
    if byline is not None and sum(1 for _ in byline.iter("a")) > len(pub.author_links):
        missing.append("a link of the byline (div.gs_a a) names no profile (user=): that author's id is unread")
    missing += _unread_link_bar(parts.get("links", [])[-1:])
    return missing


def _unread_link_bar(bars: list[Element]) -> list[str]:
    """What the link bar under a result (``div.gs_fl``) holds and its addresses do not give: a bar with no
    address at all, a link with a count whose address is neither "Cited by" (``cites=``) nor the versions
    (``cluster=``)."""
    links = [a for bar in bars for a in bar.iter("a")]
    if bars and not any(a.get("href") for a in links):
        return ["the link bar (div.gs_fl) holds no link with an address: citations, versions and clusters are unread"]
    if any(count_in(element_text(a)) is not None and not {"cites", "cluster"} & _query_keys(a.get("href"))
           for a in links):
        return ["a link of the link bar (div.gs_fl a) shows a count but its address is neither cited-by (cites=) "
                "nor versions (cluster=): that count is unread"]
    return []


def _query_keys(href: str | None) -> set[str]:
    """The parameter names of an address's query.

    >>> sorted(_query_keys("/scholar?cites=1,2&amp;hl=en")), _query_keys(None)
    (['cites', 'hl'], set())
    """
    return set(re.findall(r"[?&;]([\w-]+)=", href or ""))


_SEARCH_PAGE_LINKS = etree.XPath("id('gs_n')//a")
_RESULT_BODY = re.compile(r'class="gs_ri"', re.I)  # any case: upper-cased classes are no result body either


def _check_page_bar(doc: Document, info: SearchInfo, result: PageResult) -> None:
    """The page bar (#gs_n) against the page's links to other result pages (``start=``)."""
    if (info.page_number is not None and info.next_start is not None) or not doc.contains("start="):
        return
    root = doc.selector.root
    if info.page_number is None:
        result.warn(Warn.search_unreadable, "the page links other result pages (start=) but its page bar "
                                            "(#gs_n, .gs_ico_nav_current) could not be read")
        return
    numbers = (read_count(element_text(a)) for a in as_elements(_SEARCH_PAGE_LINKS(root)))
    later = [n for n in numbers if n and n > info.page_number]
    if later and info.next_start is None:
        result.warn(Warn.search_unreadable, f"the page bar links page {later[0]} but no \"Next\" link "
                                            "(#gs_n .gs_ico_nav_next) was read")


# --- the author search page -------------------------------------------------------------------
# ``/citations?view_op=search_authors&mauthors=NAME``: ``#gsc_sa_ccl`` holds one card per profile
# (``div.gsc_1usr``, and inside it the ``div.gs_ai`` markup of the co-author dialog's rows);
# the "next" button carries the ``after_author`` / ``astart`` of the next page in its onclick.

_AUTHOR_CARD_CLASSES = {"gs_ai_name": "name", "gs_ai_aff": "affiliation", "gs_ai_eml": "email", "gs_ai_cby": "cited_by",
                        "gs_ai_int": "interests", "gs_ai_one_int": "interest", "gs_ai_t": "text"}
_AUTHOR_CARDS = etree.XPath("id('gsc_sa_ccl')//div[contains(concat(' ', @class, ' '), ' gsc_1usr ')]")
_AUTHOR_NEXT = etree.XPath("//button[contains(concat(' ', @class, ' '), ' gsc_pgn_pnx ')]")
_AUTHOR_QUERY_BOX = etree.XPath("//input[@name='mauthors']")
_ONCLICK_URL = re.compile(r"window\.location\s*=\s*'([^']*)'")


def parse_author_search(doc: Document) -> PageResult:
    root = doc.selector.root
    origin = origin_of(doc.url)
    cards = as_elements(_AUTHOR_CARDS(root))
    result = PageResult(site=SITE.name, page="search", url=doc.url)
    result.profiles = [_author_card(card, origin) for card in cards]
    next_url = _author_next_url(root, origin)
    query_box = as_elements(_AUTHOR_QUERY_BOX(root))
    result.search = SearchInfo(kind="authors",
                               query=clean_or_none(query_box[0].get("value")) if query_box else None,
                               next_start=read_count(query_value(next_url, "astart")), next_url=next_url)
    unnamed = [n for n, profile in enumerate(result.profiles, 1) if not profile.name or not profile.ids.scholar]
    if cards and len(unnamed) == len(cards):
        raise LayoutChanged(f"none of the {len(cards)} profile cards (div.gsc_1usr) has a name linking a profile")
    if unnamed:
        result.warn(Warn.rows_unreadable, f"{row_numbers(unnamed)} of {len(cards)}: no name or user id")
    unread: dict[str, list[int]] = {}
    for number, card in enumerate(cards, 1):
        for part in _unread_card_parts(card):
            unread.setdefault(part, []).append(number)
    for part, numbers in unread.items():
        result.warn(Warn.rows_unreadable, f"{row_numbers(numbers)} of {len(cards)}: {part}")
    if next_url is None and doc.contains("after_author"):
        result.warn(Warn.search_unreadable, "the page links a next page (after_author=) but no \"next\" button "
                                            "(button.gsc_pgn_pnx) was read")
    marked = doc.text.count('class="gsc_1usr')
    if marked != len(cards):
        result.warn(Warn.row_count, f"the markup holds {marked} profile cards (gsc_1usr), {len(cards)} were read")
    if not cards and linked_user_ids(doc):
        raise LayoutChanged("the page links profiles but no profile card (#gsc_sa_ccl div.gsc_1usr) was found")
    _check_cut(doc, result, len(cards), ('class="gsc_pgn', 'id="gs_ftr"'))
    return result


def _author_card(card: Element, origin: str) -> Profile:
    parts = by_class(card, _AUTHOR_CARD_CLASSES)
    name_box = first_of(parts, "name")
    link = next(name_box.iter("a"), None) if name_box is not None else None
    href = link.get("href") if link is not None else None
    interests = parts.get("interest", [])
    return Profile(name=text_of(link), url=absolute_url(href, origin), ids=Ids(scholar=user_id(href)),
                   affiliation=text_of(first_of(parts, "affiliation")),
                   email_domain=email_domain_of(first_of(parts, "email")),
                   interests=[clean(element_text(a)) for a in interests if clean(element_text(a))],
                   metrics=Metrics(citations=count_in(text_of(first_of(parts, "cited_by")))))


_CARD_PARTS = {"gs_ai_name", "gs_ai_aff", "gs_ai_eml", "gs_ai_cby", "gs_ai_int"}


def _unread_card_parts(card: Element) -> list[str]:
    """What a profile card's text box (div.gs_ai_t) holds that was not read."""
    parts = by_class(card, _AUTHOR_CARD_CLASSES)
    text_box = first_of(parts, "text")
    if text_box is None:
        return ["the card's text (div.gs_ai_t)"]
    missing = [f"a part the parser does not know ({name})" for name in sorted(_unknown_children(text_box, _CARD_PARTS))]
    box = first_of(parts, "interests")
    if box is not None and any(True for _ in box.iter("a")) and not parts.get("interest"):
        missing.append("the interests (div.gs_ai_int a.gs_ai_one_int)")
    cited = text_of(first_of(parts, "cited_by"))
    if cited is not None and count_in(cited) is None:
        missing.append("the \"Cited by\" count (div.gs_ai_cby) is not plainly a whole number: it is null")
    return missing


def _author_next_url(root: Element, origin: str) -> str | None:
    """The next page's URL from the "next" button's onclick; None when it is disabled or absent."""
    button = next(iter(as_elements(_AUTHOR_NEXT(root))), None)
    if button is None or button.get("disabled") is not None:
        return None
    match = _ONCLICK_URL.search(button.get("onclick") or "")
    if not match:
        return None
    href = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), match.group(1))
    return absolute_url(href, origin)
