"""The profile page (``citations?user=``): the header, the metrics table, the citations chart, the
co-author sidebar and the publication rows, and the invariants that check the page against itself."""

from __future__ import annotations

import re

from lxml.etree import _Element as Element

from pubharvest.errors import LayoutChanged, Truncated

from ..numbers import Cells
from ..page import Document, closes_html, html_root_read
from ..records import Coauthor, Ids, Metrics, PageResult, Profile, PublicAccess, YearCitations
from ..text import absolute_url, clean, find_year, findall_from, without_cut_mark
from ..warning_codes import Warn
from ._base import (
    BY_ID,
    HEAD_LINKS,
    NUMBER,
    as_elements,
    attr,
    by_class,
    canonical_url,
    class_names,
    element_text,
    email_domain_of,
    first_of,
    first_with_class,
    query_value,
    text_of,
    user_id,
)
from .identity import SITE
from .rows import StreamedRows, warn_if_past_end

_Z_INDEX = re.compile(r"z-index\s*:\s*(\d+)")
_OFFSET = re.compile(r"(?:right|left)\s*:\s*(\d+)px")


def parse_profile(doc: Document) -> PageResult:
    streamed = StreamedRows(lambda root: canonical_url(root, doc.url))
    root = html_root_read(doc.text, doc.raw, "tr", streamed.take)
    parts = _landmarks(root)
    if "gsc_prf_in" not in parts:
        raise LayoutChanged("a Scholar page without the profile header (#gsc_prf_in)")
    url = canonical_url(root, doc.url)
    rows = streamed.reader_for(parts.get("gsc_a_b"), url)
    _refuse_parser_cut(doc, parts, rows.rows)
    cut = not closes_html(doc.text)
    # The row-range line under the table (#gsc_a_nn) proves the table whole: a cut after it loses
    # only the footer; a cut before it may have lost rows, silently.
    if cut and "gsc_a_nn" not in parts:
        raise Truncated(f"the page stops before its end (after {rows.rows} publication rows); save it again")
    if "gsc_a_t" not in parts:
        raise LayoutChanged("a Scholar profile without its publication table (#gsc_a_t)")
    result = PageResult(site=SITE.name, page="profile", url=url)
    if cut:
        result.warn(Warn.truncated, "the page stops after its publication table; what came later was not saved")
    cells = Cells()
    coauthor_items = _coauthor_parts(parts.get("gsc_rsb_co"))  # read once, for the sidebar and its check
    chart = _chart(parts)  # read once, for the profile and its check
    result.profile = _profile(parts, url, cells, coauthor_items, chart)
    cells.report(result)
    if not result.profile.ids.scholar and rows.publications:
        result.profile.ids.scholar = (rows.publications[0].ids.scholar or "").split(":")[0] or None
    _check_row_range(_row_range(parts.get("gsc_a_nn")), rows.rows, len(rows.publications), result)
    _refuse_unread_table(parts.get("gsc_a_b"), rows.rows)
    result.publications = rows.finish(result)
    warn_if_past_end(rows.rows, len(rows.publications), result, doc.url)
    _check_profile_parts(parts, doc, result.profile, result, coauthor_items, chart)
    _warn_if_partial(parts, result)
    if "gsc_coauth_opn" in parts:
        result.warn(Warn.coauthors_partial, "the sidebar shows only the first co-authors; the full list is "
                                            "behind \"View all\" (view_op=list_colleagues)")
    return result


# The parts of a profile page are read from lxml elements directly, found by id in one pass and
# then by class within each part: a selector call per field costs more than the whole tree walk.

_LANDMARK_IDS = frozenset({"gsc_prf_in", "gsc_prf_i", "gsc_prf_ivh", "gsc_prf_int", "gsc_prf_pu", "gsc_prf_pup-img",
                           "gsc_rsb_cit",
                           "gsc_rsb_st", "gsc_rsb_mnd", "gsc_rsb_co", "gsc_a_t", "gsc_a_b", "gsc_bpf_more",
                           "gsc_a_nn", "gsc_coauth_opn", "gsc_g"})
_IDS = " ".join(sorted(_LANDMARK_IDS))


def _landmarks(root: Element) -> dict[str, Element]:
    """The page's parts by id, plus ``canonical``, ``og:image`` and ``hist`` (the histogram)."""
    found: dict[str, Element] = {}
    for element in as_elements(BY_ID(root, ids=_IDS)):
        found.setdefault(element.get("id", ""), element)
    for element in as_elements(HEAD_LINKS(root)):
        found.setdefault("canonical" if element.tag == "link" else "og:image", element)
    table = found.get("gsc_rsb_st")
    box = found.get("gsc_rsb_cit", table.getparent() if table is not None else None)  # the chart sits by the table
    hist = first_with_class(box, "gsc_md_hist_b")
    if hist is not None:
        found["hist"] = hist
    return found


def _profile(parts: dict[str, Element], url: str | None, cells: Cells, coauthor_items: list[_Parts],
             chart: tuple[list[Element], list[Element]] | None) -> Profile:
    """The profile header and the right-hand sidebar (``parts`` from ``landmarks``, ``coauthor_items`` from
    ``_coauthor_parts``, ``chart`` from ``_chart``); numbers that are not plainly numbers are null and named in
    ``cells``."""
    affiliation = _headline_affiliation(parts.get("gsc_prf_i"))
    org_href = next((a.get("href") for a in affiliation.iter("a") if "view_op=view_org" in (a.get("href") or "")),
                    None) if affiliation is not None else None
    email_box = parts.get("gsc_prf_ivh")
    return Profile(
        name=text_of(parts["gsc_prf_in"]),
        url=url,
        ids=Ids(scholar=user_id(url), scholar_org=query_value(org_href, "org")),
        affiliation=text_of(affiliation),
        email_domain=email_domain_of(email_box),
        homepage=next((a.get("href") for a in email_box.iter("a")), None) if email_box is not None else None,
        photo_url=_photo_url(parts),
        interests=_interests(parts.get("gsc_prf_i")),
        metrics=_metrics(parts.get("gsc_rsb_st"), cells),
        citations_by_year=_citations_by_year(chart, cells),
        public_access=_public_access(parts.get("gsc_rsb_mnd"), cells),
        coauthors=_coauthors(parts.get("gsc_rsb_co"), coauthor_items),
    )


def _headline_affiliation(header: Element | None) -> Element | None:
    """The first ``div.gsc_prf_il`` without an id: the others are the e-mail and interests boxes."""
    if header is None:
        return None
    return next((d for d in header.iter("div") if "gsc_prf_il" in class_names(d) and not d.get("id")), None)


def _interests(header: Element | None) -> list[str]:
    """The header's links to an author search by label (``mauthors=label:``), in every layout:
    ``#gsc_prf_int a.gsc_prf_inta`` since 2018, ``div.gsc_prf_il a.gsc_prf_ila`` before."""
    if header is None:
        return []
    return [clean(element_text(a)) for a in header.iter("a") if "mauthors=label:" in (a.get("href") or "")]


def _photo(parts: dict[str, Element]) -> Element | None:
    """The photo's ``img``: ``#gsc_prf_pup-img`` since 2018, ``img#gsc_prf_pup`` before; either
    way the image inside the photo box ``#gsc_prf_pu``."""
    box, img = parts.get("gsc_prf_pu"), parts.get("gsc_prf_pup-img")
    return img if img is not None else next(box.iter("img"), None) if box is not None else None


def _photo_url(parts: dict[str, Element]) -> str | None:
    """The profile photo, or None for the default avatar."""
    src = attr(_photo(parts), "src") or attr(parts.get("og:image"), "content")
    if not src or "avatar_scholar" in src:
        return None
    return absolute_url(src, SITE.base_url)


_METRIC_CELLS = ("citations", "citations since", "h-index", "h-index since", "i10-index", "i10-index since")


def _metrics(table: Element | None, cells: Cells) -> Metrics:
    """Citations, h-index and i10-index, all and since the year in the table's header."""
    if table is None:
        return Metrics()
    texts = [element_text(td) for td in table.iter("td") if "gsc_rsb_std" in class_names(td)]
    if len(texts) != 6:
        return Metrics()
    values = [cells.count(text, f"metrics table, {name}") for text, name in zip(texts, _METRIC_CELLS, strict=True)]
    headers = [element_text(th) for th in table.iter("th")]
    since = find_year(headers[-1]) if headers else None
    return Metrics(
        citations=values[0], citations_since=values[1], since_year=since,
        h_index=values[2], h_index_since=values[3], i10_index=values[4], i10_index_since=values[5],
    )


def _chart(parts: dict[str, Element]) -> tuple[list[Element], list[Element]] | None:
    """The citations chart's year labels (``span.gsc_g_t``) and bars (``a.gsc_g_a``) below it, None for a page
    without the chart. (One walk of the chart: a class is matched as XPath's ``contains(concat(' ', @class,
    ' '), ' NAME ')`` matches it, blanks other than spaces not separating names.)"""
    chart = parts.get("hist", parts.get("gsc_g"))
    if chart is None:
        return None
    labels, bars = [], []
    for element in chart.iterdescendants("span", "a"):
        classes = f" {element.get('class')} "
        if element.tag == "span" and " gsc_g_t " in classes:
            labels.append(element)
        elif element.tag == "a" and " gsc_g_a " in classes:
            bars.append(element)
    return labels, bars


def _citations_by_year(chart: tuple[list[Element], list[Element]] | None, cells: Cells) -> list[YearCitations]:
    """Every year on the histogram's axis (the ``_chart``) with its count; 0 for the years that have no bar.

    Years without citations have no bar, so bars are matched to years by ``z-index`` (1 is the
    newest year), never by position. Bars without a z-index (2014 layout) fall back to their offset.
    """
    if chart is None:
        return []
    year_labels, bars = chart
    texts = [(element_text(e).strip(), e) for e in year_labels]
    labels = [(year, e) for number, (text, e) in enumerate(texts, 1)
              if (year := cells.year(text, f"histogram axis label {number}")) is not None]
    years = [year for year, _ in labels]
    counts = dict.fromkeys(years, 0)
    for bar in bars:
        year = _bar_year(bar.get("style", ""), labels)
        if year is not None:
            text = element_text(bar)
            counts[year] = cells.count(text, f"histogram bar {year}", empty=0) or 0
    return [YearCitations(year=y, citations=c) for y, c in counts.items()]




def _offset(style: str) -> int | None:
    match = _OFFSET.search(style)
    return int(match.group(1)) if match else None


def _bar_year(style: str, labels: list[tuple[int, Element]]) -> int | None:
    z_index = _Z_INDEX.search(style)
    if z_index:
        rank = int(z_index.group(1))
        return labels[-rank][0] if 1 <= rank <= len(labels) else None
    offset = _offset(style)
    if offset is None:
        return None
    # A bar sits 5px beside its year label (measured on the 2019 and 2026 pages).
    for year, label in labels:
        label_offset = _offset(label.get("style", ""))
        if label_offset is not None and abs(offset - 5 - label_offset) <= 2:
            return year
    return None


def _public_access(box: Element | None, cells: Cells) -> PublicAccess | None:
    """Counts of the public-access box; None when the page has no such box (unknown, not 0)."""
    if box is None:
        return None
    parts = by_class(box, {"gsc_rsb_m_a": "available", "gsc_rsb_m_na": "not_available"})
    return PublicAccess(available=cells.count_in(text_of(first_of(parts, "available")), "public access, available"),
                        not_available=cells.count_in(text_of(first_of(parts, "not_available")),
                                                    "public access, not available"))


_COAUTHOR_CLASSES = {"gsc_rsb_a_desc": "desc", "gsc_rsb_a_ext2": "email", "gsc_rsb_a_ext": "affiliation",
                     "gsc_rsb_aa": "item"}


_Parts = dict[str, list[Element]]


def _coauthor_parts(box: Element | None) -> list[_Parts]:
    """The parts of each co-author item of the sidebar (see ``_COAUTHOR_CLASSES``)."""
    return [by_class(item, _COAUTHOR_CLASSES, tag=("span", "a")) for item in box.iter("li")] if box is not None\
        else []


def _coauthors(box: Element | None, items: list[_Parts]) -> list[Coauthor]:
    """Every co-author the sidebar shows (at most 20; the rest are behind "View all"), from the ``_coauthor_parts``
    of ``box``."""
    found = []
    for item, parts in zip(box.iter("li") if box is not None else (), items, strict=True):
        desc = first_of(parts, "desc")
        # 2014 pages have the link itself as a.gsc_rsb_aa, with no description block.
        link = next(desc.iter("a"), None) if desc is not None else next(item.iter("a"), None)
        name, cut = without_cut_mark(text_of(link) or "")
        if link is None or not name:
            continue
        href = link.get("href")
        found.append(Coauthor(
            name=name,
            name_truncated=cut,
            affiliation=text_of(first_of(parts, "affiliation")),
            email_domain=email_domain_of(first_of(parts, "email")),
            ids=Ids(scholar=user_id(href)),
            url=absolute_url(href, SITE.base_url),
        ))
    return found


def _warn_if_partial(parts: dict[str, Element], result: PageResult) -> None:
    button = parts.get("gsc_bpf_more")
    if button is not None and button.get("disabled") is None:
        first_last = re.findall(r"\d+", text_of(parts.get("gsc_a_nn")) or "")
        span = f"rows {first_last[0]}–{first_last[-1]}" if first_last else f"{len(result.publications)} rows"
        result.warn(Warn.partial, f"the page holds {span} of a longer list (\"Show more\" is enabled); "
                                  "fetch the rest with cstart/pagesize")


# A renamed class must not give a hollow record: each check below compares what the page states
# (its row range, its links, the raw markup) with what was read, by structure, never by labels.
def _row_range(span: Element | None) -> tuple[int, int] | None:
    """The first and last row numbers of ``#gsc_a_nn`` ("Articles 1–20", "記事 1–4"), any language.

    >>> from lxml import etree
    >>> _row_range(etree.fromstring("<span>Artículos 1.001–1.100</span>"))
    (1001, 1100)
    >>> _row_range(etree.fromstring("<span></span>")) is None
    True
    """
    numbers = [int(re.sub(r"\D", "", n)) for n in NUMBER.findall(element_text(span))] if span is not None else []
    return (numbers[0], numbers[-1]) if len(numbers) >= 2 and numbers[-1] >= numbers[0] else None


def _check_row_range(stated: tuple[int, int] | None, rows: int, articles: int, result: PageResult) -> None:
    """``LayoutChanged`` when the range promises rows and none was found; a ``row_count`` warning
    when the count differs; ``profile_unreadable`` when a page with rows states no range."""
    if stated is None:
        if articles:
            result.warn(Warn.profile_unreadable, "the page states no row range (#gsc_a_nn): the number of rows "
                                                 "read cannot be checked")
        return
    first, last = stated
    want = last - first + 1
    if not rows:
        raise LayoutChanged(f"the page says it shows rows {first}–{last} (#gsc_a_nn) but no publication row "
                            "(#gsc_a_b > tr.gsc_a_tr) was found")
    if articles != want:
        result.warn(Warn.row_count, f"the page says it shows rows {first}–{last} (#gsc_a_nn) but {articles} "
                                    "publication rows were read")


# What a profile page of every layout since 2014 has. (The box around the citations table,
# #gsc_rsb_cit, came in 2018 and holds nothing but the table and the chart, which are checked.)
_REQUIRED_PARTS = {"gsc_prf_i": "the header's details", "gsc_prf_ivh": "the e-mail line",
                   "gsc_rsb_st": "the citations table", "gsc_bpf_more": "the \"Show more\" button"}


def _check_profile_parts(parts: dict[str, Element], doc: Document, profile: Profile, result: PageResult,
                         coauthor_items: list[_Parts], chart: tuple[list[Element], list[Element]] | None) -> None:
    """One ``profile_unreadable`` warning naming each part of the header or sidebar that every
    profile has, or that the page's own links prove, and that could not be read."""
    missing = [f"{what} (#{key})" for key, what in _REQUIRED_PARTS.items() if key not in parts]
    if _photo(parts) is None:
        missing.append("the photo (#gsc_prf_pu img)")
    if not profile.name:
        missing.append("the name (#gsc_prf_in is empty)")
    if not profile.ids.scholar:
        missing.append("the profile's id (user= in the canonical link, or citation_for_view= in the rows' links)")
    if "gsc_prf_i" in parts and _headline_affiliation(parts["gsc_prf_i"]) is None:
        missing.append("the affiliation line (#gsc_prf_i div.gsc_prf_il)")
    if not profile.ids.scholar_org and doc.contains("view_op=view_org"):
        missing.append("the organisation's id (org= in the affiliation's view_op=view_org link)")
    if "gsc_rsb_st" in parts and profile.metrics.citations is None:
        missing.append("the six counts of the citations table (#gsc_rsb_st td.gsc_rsb_std)")
    missing += _unread_histogram(chart, profile)
    box = parts.get("gsc_prf_int")
    shown = box is not None and bool(element_text(box).strip())
    if not profile.interests and (shown or doc.contains("mauthors=label:")):
        missing.append("the interests (#gsc_prf_i a[href*='mauthors=label:']), which the page shows")
    access = profile.public_access
    if (access is None or access.available is None or access.not_available is None) and (
            "gsc_rsb_mnd" in parts or doc.contains("view_op=list_mandates") or doc.contains('class="gsc_rsb_m_a')):
        missing.append("the public-access counts (#gsc_rsb_mnd .gsc_rsb_m_a), which the page links")
    items = [item for item in coauthor_items if "desc" in item]
    if any("affiliation" not in item or "email" not in item for item in items):
        missing.append("co-author affiliations and e-mails (#gsc_rsb_co span.gsc_rsb_a_ext, .gsc_rsb_a_ext2)")
    linked = _linked_profiles(doc, profile.ids.scholar)
    if len(linked) > len(profile.coauthors) or any(c.ids.scholar not in linked for c in profile.coauthors):
        missing.append(f"co-authors (#gsc_rsb_co .gsc_rsb_a_desc): the page links {len(linked)} other profiles, "
                       f"{len(profile.coauthors)} were read")
    if missing:
        result.warn(Warn.profile_unreadable, "could not read " + "; ".join(missing))


def _unread_histogram(chart: tuple[list[Element], list[Element]] | None, profile: Profile) -> list[str]:
    """What the citations-per-year chart (the ``_chart``) lacks while the table says the profile is cited."""
    if not profile.metrics.citations:
        return []
    if chart is None:
        return ["the citations-per-year chart (.gsc_md_hist_b)"]
    labels, bars = chart
    if not labels or not bars:
        return [f"the chart's {'year labels (span.gsc_g_t)' if not labels else 'bars (a.gsc_g_a)'}"]
    if sum(y.citations for y in profile.citations_by_year) == 0 or any(not b.get("style") for b in bars):
        return ["the chart's bars (a.gsc_g_a with a z-index or offset)"]
    return []


_PROFILE_LINK = re.compile(r"citations\?user=([\w-]+)")


def _linked_profiles(doc: Document, own: str | None) -> set[str]:
    """The ids of the other profiles the page links (its co-authors)."""
    if not doc.contains("citations?user="):
        return set()
    return set(findall_from(_PROFILE_LINK, "citations?user=", doc.text)) - {own}


def _refuse_unread_table(body: Element | None, rows: int) -> None:
    """``LayoutChanged`` for a table body (``#gsc_a_b``) that holds rows none of which was read: neither
    a publication row (``tr.gsc_a_tr``) nor the "no articles" row (``tr.gsc_a_e``)."""
    held = sum(1 for child in body if child.tag == "tr") if body is not None and not rows else 0
    if held:
        raise LayoutChanged(f"the publication table (#gsc_a_b) holds {held} rows but none is a publication row "
                            "(tr.gsc_a_tr) or the \"no articles\" row (tr.gsc_a_e)")


def _refuse_parser_cut(doc: Document, parts: dict[str, Element], rows: int) -> None:
    """``Truncated`` when the markup holds parts the tree lacks: libxml2 stops reading at 2048
    nested elements (even with its huge-tree option) and drops the rest of the page silently."""
    lost = [key for key in ("gsc_prf_in", "gsc_a_t", "gsc_a_b", "gsc_a_nn")
            if key not in parts and doc.contains(f'id="{key}"')]
    if lost or doc.text.count('class="gsc_a_tr"') > rows:
        raise Truncated("the HTML parser stopped before the page's end (nesting deeper than 2048 elements?): "
                        f"{', '.join('#' + k for k in lost) or 'publication rows'} in the markup but not in the tree")
